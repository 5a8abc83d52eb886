"""The request parameters of a model call: which ones ragkit passes to providers, their bounds,
and the ones it refuses rather than ignore.

One definition for the Python API (``AgentConfig``), the providers and the server's request
bodies: a value out of range or a parameter ragkit cannot honour (``n > 1``, ``logprobs``) is a
``ConfigError`` naming the parameter and the fix, never a silently different answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragkit.errors import ConfigError

#: sampling and limits, passed to the provider under these (OpenAI) names; each provider maps them
SAMPLING_PARAMS = ("temperature", "top_p", "max_tokens", "stop", "seed", "presence_penalty",
                   "frequency_penalty", "user")
MAX_STOP_SEQUENCES = 4


class ParamError(ConfigError):
    """A request parameter ragkit refuses; ``param`` names it (the server's error ``param``)."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param


_RANGES: dict[str, tuple[float, float]] = {"temperature": (0.0, 2.0), "top_p": (0.0, 1.0),
                                            "presence_penalty": (-2.0, 2.0), "frequency_penalty": (-2.0, 2.0)}
#: parameters of the OpenAI wire format that ragkit cannot honour, with the reason a request gets
REFUSED = {
    "n": "ragkit returns one answer per request; leave 'n' out (or set it to 1) and send several requests",
    "logprobs": "ragkit's answers have no token log-probabilities; leave 'logprobs' out (or false)",
    "top_logprobs": "ragkit's answers have no token log-probabilities; leave 'top_logprobs' out",
    "best_of": "ragkit returns one answer per request; leave 'best_of' out (or set it to 1)",
    "echo": "ragkit does not echo the prompt; leave 'echo' out (or false)",
    "suffix": "ragkit does not insert text before a suffix; leave 'suffix' out",
}


def check_sampling(values: Mapping[str, Any]) -> None:
    """Raise ``ConfigError`` naming the first sampling value out of its range (None values pass)."""
    for name, value in values.items():
        if value is None:
            continue
        if name in _RANGES:
            low, high = _RANGES[name]
            if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
                raise ParamError(name, f"{name} must be a number between {low:g} and {high:g} (got {value!r})")
        elif name == "max_tokens" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ParamError(name, f"max_tokens must be an integer of at least 1 (got {value!r})")
        elif name == "seed" and (isinstance(value, bool) or not isinstance(value, int)):
            raise ParamError(name, f"seed must be an integer (got {value!r})")
        elif name == "user" and (not isinstance(value, str) or len(value) > 256):
            raise ParamError(name, f"user must be a string of at most 256 characters (got {value!r:.80})")
        elif name == "stop":
            stops = [value] if isinstance(value, str) else value
            if (not isinstance(stops, list | tuple) or not 1 <= len(stops) <= MAX_STOP_SEQUENCES
                    or not all(isinstance(s, str) and s for s in stops)):
                raise ParamError(name, f"stop must be a non-empty string or a list of 1 to {MAX_STOP_SEQUENCES} "
                                  f"non-empty strings (got {value!r:.80})")


def stop_sequences(value: Any) -> list[str]:
    """``stop`` as a list (a string is one sequence; None is none)."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def refused(params: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(name, reason)`` of the first parameter ragkit cannot honour, or None. Neutral values
    (``n=1``, ``logprobs=false``, None) are accepted: they ask for what ragkit does anyway."""
    for name, reason in REFUSED.items():
        value = params.get(name)
        if value is None or value is False or value == "":
            continue
        if name in ("n", "best_of") and value == 1 and not isinstance(value, bool):
            continue
        return name, reason
    return None


def check_refused(params: Mapping[str, Any]) -> None:
    """Raise ``ConfigError`` naming the first parameter ragkit cannot honour."""
    found = refused(params)
    if found is not None:
        name, reason = found
        raise ParamError(name, f"'{name}' is not supported: {reason}")


def check_provider(provider: Any, params: Mapping[str, Any]) -> None:
    """Raise ``ConfigError`` when ``provider`` declares that it cannot honour one of ``params``
    (its ``unsupported_params``: name -> reason), before any request is sent."""
    unsupported: Mapping[str, str] = getattr(provider, "unsupported_params", None) or {}
    for name in params:
        if name in unsupported and params[name] is not None:
            raise ParamError(name, f"'{name}' is not supported by the '{getattr(provider, 'name', provider)}' "
                              f"provider: {unsupported[name]}")


def resolve_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with local ``#/$defs/...`` references replaced by their definitions (pydantic's
    nested models), so ``schema_errors`` can check it; recursive references stop at depth 20."""
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and depth < 20:
                target = defs.get(ref.rsplit("/", 1)[-1])
                if target is not None:
                    return walk({**target, **{k: v for k, v in node.items() if k != "$ref"}}, depth + 1)
            return {k: walk(v, depth) for k, v in node.items() if k not in ("$defs", "definitions")}
        if isinstance(node, list):
            return [walk(v, depth) for v in node]
        return node

    return walk(schema, 0)  # type: ignore[no-any-return]


__all__ = ["MAX_STOP_SEQUENCES", "REFUSED", "ParamError", "SAMPLING_PARAMS", "check_provider", "check_refused",
           "check_sampling", "refused", "resolve_refs", "stop_sequences"]
