"""JSON schema and argument validation for tools, from a function's signature and docstring.

Parameters become fields of a pydantic model (each under an alias equal to the parameter name,
so names such as ``json`` or ``_x`` are fine). The model validates the model's arguments and
produces the JSON schema; ``$ref``s are inlined and titles dropped so every provider accepts it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from ragkit.errors import ToolError

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?|See Also|Attributes):\s*$")
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


class _InjectedMarker:
    def __repr__(self) -> str:
        return "Injected"


INJECTED = _InjectedMarker()


class Injected:
    """Mark a parameter as injected: ``retriever: Injected[Retriever]``.

    Injected parameters are hidden from the model's schema; their values come from
    ``Tool.bind(name=value)`` or the agent's ``context={...}``.
    """

    def __class_getitem__(cls, item: Any) -> Any:
        return Annotated[item, INJECTED]


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Google-style docstring -> (description, {param: description})."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section, current, arg_indent = header.group(1), None, None
            continue
        if section is None:
            summary.append(line)
            continue
        if section not in ("Args", "Arguments", "Parameters", "Params") or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        match = _ARG_LINE.match(line.strip())
        if match and (arg_indent is None or indent <= arg_indent):
            arg_indent = indent
            current = match.group(1).lstrip("*")
            params[current] = match.group(3).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    description = " ".join(" ".join(summary).split())
    return description, params


def is_injected(annotation: Any) -> bool:
    return get_origin(annotation) is Annotated and any(a is INJECTED for a in get_args(annotation)[1:])


def signature_params(fn: Callable[..., Any], inject: set[str]) -> tuple[list[inspect.Parameter], dict[str, Any], set[str]]:
    """(visible parameters, their resolved annotations, names of injected parameters)."""
    sig = inspect.signature(fn)
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception:  # an unresolvable forward reference; fine on injected parameters only
        hints = _resolve_each(fn, sig, inject)
    visible: list[inspect.Parameter] = []
    injected: set[str] = set()
    unknown = inject - set(sig.parameters)
    if unknown:
        raise ToolError(
            f"tool {fn.__name__!r}: inject names {sorted(unknown)} are not parameters; "
            f"its parameters are {list(sig.parameters)}"
        )
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name in inject or is_injected(hints.get(p.name)) or hints.get(p.name) is INJECTED:
            injected.add(p.name)
            continue
        if p.kind is p.POSITIONAL_ONLY:
            raise ToolError(f"tool {fn.__name__!r}: positional-only parameter {p.name!r} is not supported; drop the '/'")
        visible.append(p)
    return visible, hints, injected


def _resolve_each(fn: Callable[..., Any], sig: inspect.Signature, inject: set[str]) -> dict[str, Any]:
    """Resolve annotations one by one so an injected parameter's type may stay unimportable
    (e.g. imported under TYPE_CHECKING); a visible parameter's must resolve."""
    hints: dict[str, Any] = {}
    namespace = getattr(fn, "__globals__", {})
    for name, p in sig.parameters.items():
        ann = p.annotation
        if isinstance(ann, str):
            try:
                ann = eval(ann, dict(namespace), {})  # noqa: S307 - the function's own annotation
            except Exception as exc:
                if name in inject or ann.replace(" ", "").startswith("Injected["):
                    hints[name] = INJECTED
                    continue
                raise ToolError(
                    f"tool {getattr(fn, '__name__', fn)!r}: cannot resolve the type of parameter {name!r} "
                    f"({exc}); import the type at module level or mark the parameter Injected"
                ) from exc
        if ann is not inspect.Parameter.empty:
            hints[name] = ann
    return hints


def build_model(name: str, params: list[inspect.Parameter], hints: dict[str, Any], docs: dict[str, str]) -> type:
    """A pydantic model whose fields are the tool's visible parameters."""
    from pydantic import ConfigDict, Field, create_model

    fields: dict[str, Any] = {}
    for i, p in enumerate(params):
        annotation = hints.get(p.name, Any)
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[f"p{i}"] = (annotation, Field(default, alias=p.name, description=docs.get(p.name)))
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, populate_by_name=False)
    try:
        return create_model(f"{name}_arguments", __config__=config, **fields)
    except Exception as exc:
        raise ToolError(f"tool {name!r}: cannot build a schema from its signature: {exc}") from exc


def json_schema(model: type) -> dict[str, Any]:
    """The model's JSON schema with $refs inlined and titles removed."""
    try:
        schema = model.model_json_schema()  # type: ignore[attr-defined]
    except Exception as exc:
        raise ToolError(
            f"tool {model.__name__.removesuffix('_arguments')!r}: a parameter type has no JSON schema ({exc}); "
            "use str/int/float/bool, Literal, Enum, list, dict, a dataclass or a pydantic model, or mark it Injected"
        ) from exc
    defs = schema.pop("$defs", {})
    schema = _inline(schema, defs)
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    return schema


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return _inline({**target, **extra}, defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "title" or not isinstance(v, str)}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def describe_type(schema: dict[str, Any]) -> str:
    """A short human name for a schema (for validation messages)."""
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(describe_type(s) for s in schema["anyOf"])
    kind = schema.get("type", "any value")
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {describe_type(schema['items'])}"
    return str(kind)


def format_validation_error(tool_name: str, exc: Any, schema: dict[str, Any], given: dict[str, Any]) -> str:
    """Turn a pydantic ValidationError into text a model can act on."""
    props = schema.get("properties", {})
    problems: list[str] = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ())]
        top = loc[0] if loc else "?"
        path = ".".join(loc)
        if err.get("type") == "missing":
            problems.append(f"argument '{path}' is required but was not given")
        elif err.get("type") == "extra_forbidden":
            problems.append(f"unexpected argument '{path}'; allowed arguments: {', '.join(props) or '(none)'}")
        else:
            expected = describe_type(props.get(top, {})) if len(loc) == 1 else err.get("msg", "")
            got = err.get("input")
            problems.append(
                f"argument '{path}': expected {expected}, got {type(got).__name__} {_short(got)} ({err.get('msg')})"
            )
    return f"invalid arguments for tool '{tool_name}': " + "; ".join(problems) + ". Fix the arguments and call the tool again."


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."

