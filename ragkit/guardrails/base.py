"""``Guardrail`` and ``GuardrailSet``: checks on the text that enters and leaves an agent run.

A guardrail looks at one text (the user's message, the model's answer, a tool call's string
arguments, a tool's result) and returns a ``GuardrailResult``: ``passed`` with the text unchanged,
or a finding whose ``action`` says what the run does with it — ``block`` (the run stops with a
``GuardrailTripped`` result before anything else happens), ``rewrite`` (``content`` is the
redacted text that goes on instead of the original) or ``warn`` (recorded, the text goes on).
``reason`` and ``findings`` name what was found, never the raw values, so a trace or an audit
line that records them leaks nothing.

A ``GuardrailSet`` groups guardrails per place in the run: ``input``, ``output``,
``tool_arguments`` and ``tool_results``. They run in order; a rewrite feeds the next guardrail,
the first block stops the rest. A guardrail that raises blocks (fail closed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ragkit.errors import ConfigError

log = logging.getLogger(__name__)

ACTIONS = ("block", "rewrite", "warn")
STAGES = ("input", "output", "tool_arguments", "tool_results")


@dataclass(frozen=True)
class GuardrailResult:
    """``action``: "allow" when passed, else "block" | "rewrite" | "warn"."""

    passed: bool
    content: str
    reason: str = ""
    action: str = "allow"
    guardrail: str = ""
    findings: tuple[str, ...] = ()  # kinds of what was found ("email", "card"), never the values


class Guardrail:
    """Base class: override ``findings`` (and ``redact`` for rewrite support) or ``check`` itself."""

    name = "guardrail"

    def __init__(self, *, action: str = "block") -> None:
        if action not in ACTIONS:
            raise ConfigError(f"guardrail '{self.name}': action must be one of {', '.join(ACTIONS)} (got {action!r})")
        self.action = action

    def __repr__(self) -> str:
        return f"{type(self).__name__}(action={self.action!r})"

    def findings(self, text: str, context: Mapping[str, Any]) -> list[str]:
        """The kinds of problem found in ``text`` (empty: it passes)."""
        raise NotImplementedError

    def redact(self, text: str, context: Mapping[str, Any]) -> str:
        """``text`` with the findings removed (used when ``action="rewrite"``)."""
        raise NotImplementedError

    def check(self, text: str, context: Mapping[str, Any] | None = None) -> GuardrailResult:
        ctx = context or {}
        found = self.findings(text, ctx)
        return self.result(text, found, lambda: self.redact(text, ctx))

    def result(self, text: str, found: Sequence[str], redacted: Callable[[], str]) -> GuardrailResult:
        """The result for ``found`` kinds (``redacted()`` is only called for a rewrite)."""
        if not found:
            return GuardrailResult(True, text, guardrail=self.name)
        kinds = tuple(dict.fromkeys(found))
        content = redacted() if self.action == "rewrite" else text
        return GuardrailResult(False, content, f"{self.name}: found {', '.join(kinds)}", self.action, self.name, kinds)


@dataclass
class Screened:
    """What a stage of a ``GuardrailSet`` made of a text: the text to go on with, every finding,
    and the blocking one (if any)."""

    content: Any
    results: list[GuardrailResult] = field(default_factory=list)

    @property
    def blocked(self) -> GuardrailResult | None:
        return next((r for r in self.results if r.action == "block"), None)


class GuardrailSet:
    """Guardrails for the four places of a run; any of them may be empty."""

    def __init__(self, *, input: Iterable[Guardrail] = (), output: Iterable[Guardrail] = (),  # noqa: A002
                 tool_arguments: Iterable[Guardrail] = (), tool_results: Iterable[Guardrail] = ()) -> None:
        self.stages: dict[str, list[Guardrail]] = {
            "input": list(input), "output": list(output),
            "tool_arguments": list(tool_arguments), "tool_results": list(tool_results),
        }
        for stage, guards in self.stages.items():
            for g in guards:
                if not hasattr(g, "check"):
                    raise ConfigError(f"guardrails.{stage}: {g!r} is not a Guardrail (it needs a check(text, context) method)")

    def __repr__(self) -> str:
        return "GuardrailSet(" + ", ".join(f"{k}={v}" for k, v in self.stages.items() if v) + ")"

    def has(self, stage: str) -> bool:
        return bool(self.stages.get(stage))

    def check(self, stage: str, text: str, context: Mapping[str, Any] | None = None) -> Screened:
        """Run the stage's guardrails over ``text`` in order; stops at the first block."""
        if stage not in self.stages:
            raise ConfigError(f"unknown guardrail stage {stage!r}; expected one of {', '.join(STAGES)}")
        ctx = {"stage": stage, **(context or {})}
        out = Screened(text)
        for guard in self.stages[stage]:
            try:
                result = guard.check(out.content, ctx)
            except Exception as exc:  # noqa: BLE001 - a guardrail that cannot decide blocks (fail closed)
                log.exception("guardrail %r failed on the %s; blocking (fail closed)", guard, stage)
                result = GuardrailResult(False, out.content, f"the guardrail failed ({type(exc).__name__}: {exc}); "
                                         "failing closed", "block", getattr(guard, "name", type(guard).__name__))
            if not result.guardrail:
                result = replace(result, guardrail=type(guard).__name__)
            if result.passed:
                continue
            out.results.append(result)
            if result.action == "block":
                break
            if result.action == "rewrite":
                out.content = result.content
        return out

    def check_arguments(self, arguments: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> Screened:
        """The ``tool_arguments`` stage over every string inside ``arguments`` (nested too)."""
        out = Screened(None)

        def walk(value: Any) -> Any:
            if out.blocked is not None:
                return value
            if isinstance(value, str):
                screened = self.check("tool_arguments", value, context)
                out.results.extend(screened.results)
                return screened.content
            if isinstance(value, Mapping):
                return {k: walk(v) for k, v in value.items()}
            if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
                return [walk(v) for v in value]
            return value

        out.content = walk(dict(arguments))
        return out


__all__ = ["ACTIONS", "STAGES", "Guardrail", "GuardrailResult", "GuardrailSet", "Screened"]
