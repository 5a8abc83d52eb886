"""``tool_choice``: whether the model may, must or must not call tools, or which one it must call.

Values (OpenAI's): ``"auto"`` (the default: the model decides), ``"none"`` (no tools are offered),
``"required"`` (it must call a tool), a tool name, also written ``{"type": "function",
"function": {"name": NAME}}`` (only that tool is offered and it must be called), or
``{"type": "allowed_tools", "allowed_tools": {"mode": "auto" | "required", "tools": [...]}}`` (only
those tools are offered; ``required``: one must be called). ``required``, a named tool and allowed
tools apply until the run's first tool call; after it the choice is ``auto`` again, so a run that
must call a tool cannot loop calling tools forever (the OpenAI Agents SDK's rule).

Providers receive only ``tool_choice="required"`` (a named choice offers that one tool), so each
maps one value: OpenAI and compatible servers ``"required"``, Anthropic ``{"type": "any"}``, Cohere
``"REQUIRED"``; the ``local`` provider calls a tool whenever one is offered before any result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragkit.messages import ToolSpec
from ragkit.providers.params import ParamError

KEYWORDS = ("auto", "none", "required")


def normalize_tool_choice(value: Any) -> str | dict[str, Any] | None:
    """None, one of ``KEYWORDS``, or ``{"type": "function", "function": {"name": NAME}}``."""
    if value is None or value in KEYWORDS:
        return value  # type: ignore[no-any-return]
    if isinstance(value, str) and value.strip():
        return {"type": "function", "function": {"name": value}}
    if isinstance(value, dict) and value.get("type") == "allowed_tools":
        spec = value.get("allowed_tools") if isinstance(value.get("allowed_tools"), dict) else {}
        names = [_tool_name(t) for t in spec.get("tools") or []]
        if spec.get("mode", "auto") in ("auto", "required") and names and all(names):
            return allowed_tools(str(spec.get("mode", "auto")), names)  # type: ignore[arg-type]
    elif isinstance(value, dict):
        function = value.get("function") if value.get("type", "function") == "function" else None
        name = function.get("name") if isinstance(function, dict) else value.get("name")
        if isinstance(name, str) and name:
            return {"type": "function", "function": {"name": name}}
    raise ParamError("tool_choice",
        f"tool_choice must be 'auto', 'none', 'required', a tool name or "
        f'{{"type": "function", "function": {{"name": NAME}}}} (got {value!r:.100})'
    )


def _tool_name(tool: Any) -> str | None:
    """The name in ``{"type": "function", "function": {"name": X}}`` or ``{"type": "function", "name": X}``."""
    if not isinstance(tool, dict):
        return None
    name = tool["function"].get("name") if isinstance(tool.get("function"), dict) else tool.get("name")
    return name if isinstance(name, str) and name else None


def allowed_tools(mode: str, names: Sequence[str]) -> dict[str, Any]:
    """OpenAI's ``allowed_tools`` choice: only ``names`` offered; ``mode`` "required" or "auto"."""
    return {"type": "allowed_tools", "allowed_tools": {
        "mode": mode, "tools": [{"type": "function", "function": {"name": n}} for n in names]}}


def forced_name(choice: str | dict[str, Any] | None) -> str | None:
    """The tool a named choice requires, else None."""
    return choice["function"]["name"] if isinstance(choice, dict) and choice.get("type") == "function" else None


def offer(specs: Sequence[ToolSpec], choice: str | dict[str, Any] | None,
          called: bool) -> tuple[list[ToolSpec] | None, dict[str, Any]]:
    """The tools to offer on this model call and the extra provider parameter, given the choice
    and whether the run has already called a tool (then the choice is ``auto``)."""
    if choice == "none" or not specs:
        return None, {}
    if called or choice in (None, "auto"):
        return list(specs), {}
    if choice == "required":
        return list(specs), {"tool_choice": "required"}
    assert isinstance(choice, dict)
    if choice.get("type") == "allowed_tools":
        mode, names = choice["allowed_tools"]["mode"], [_tool_name(t) for t in choice["allowed_tools"]["tools"]]
    else:
        mode, names = "required", [forced_name(choice)]
    chosen = [s for s in specs if s.name in names]
    missing = [n for n in names if n not in {s.name for s in specs}]
    if missing:
        raise ParamError("tool_choice", f"tool_choice names '{missing[0]}', which is not one of the tools "
                          f"({', '.join(s.name for s in specs)})")
    return chosen, {"tool_choice": "required"} if mode == "required" else {}


def client_specs(tools: Sequence[Any]) -> tuple[ToolSpec, ...]:
    """Client tools (``AgentConfig.client_tools``) as ``ToolSpec``s: given as specs or in OpenAI's
    request shape ``{"type": "function", "function": {"name", "description", "parameters"}}``."""
    out: list[ToolSpec] = []
    for i, tool in enumerate(tools):
        if isinstance(tool, ToolSpec):
            out.append(tool)
            continue
        function = tool.get("function") if isinstance(tool, dict) and tool.get("type", "function") == "function" \
            else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
            raise ParamError("tools", f"tools[{i}] must be {{'type': 'function', 'function': {{'name': NAME, "
                                      f"'description': ..., 'parameters': {{...}}}}}} with a name of 1-64 letters, "
                                      f"digits, _ or - (got {tool!r:.120})")
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        if not isinstance(parameters, dict):
            raise ParamError("tools", f"tools[{i}].function.parameters must be a JSON schema object")
        out.append(ToolSpec(name, str(function.get("description") or ""), parameters))
    names = [t.name for t in out]
    if len(set(names)) != len(names):
        raise ParamError("tools", f"two client tools share a name: {sorted(n for n in set(names) if names.count(n) > 1)}")
    return tuple(out)


__all__ = ["KEYWORDS", "allowed_tools", "client_specs", "forced_name", "normalize_tool_choice", "offer"]
