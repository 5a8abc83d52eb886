"""Observers: callbacks on what an agent run does. Subclass ``Observer`` and override any hook, or
give a plain function: it is called for every hook as ``fn(hook, run_id, *args)``::

    def show(hook: str, run_id: str, *args: Any) -> None:
        if hook in ("on_tool_end", "on_error"):
            print(hook, args)

    Agent(provider, tools=[...], observers=[show])

An observer that raises is logged and ignored: observing never changes or breaks a run. Hooks
may be called from worker threads (parallel tool calls, ``batch``), so keep them thread-safe.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ragkit.messages import Message, Response, ToolCall, ToolSpec

if TYPE_CHECKING:
    from ragkit.agent.result import AgentResult
    from ragkit.agent.values import CoherenceResult, PolicyDecision
    from ragkit.guardrails.base import GuardrailResult
    from ragkit.tools.tool import ToolResult

log = logging.getLogger(__name__)

HOOKS = (
    "on_agent_start", "on_agent_end", "on_iteration_start", "on_iteration_end",
    "on_llm_start", "on_llm_end", "on_tool_start", "on_tool_chunk", "on_tool_end", "on_tool_error", "on_cache_hit",
    "on_guardrail", "on_policy", "on_approval", "on_coherence", "on_budget", "on_cost_warning", "on_memory_trim",
    "on_error",
)


class Observer:
    """No-op base: every hook receives the ``run_id`` first."""

    def on_agent_start(self, run_id: str, messages: Sequence[Message]) -> None: ...

    def on_agent_end(self, run_id: str, result: AgentResult) -> None: ...

    def on_iteration_start(self, run_id: str, iteration: int) -> None: ...

    def on_iteration_end(self, run_id: str, iteration: int) -> None: ...

    def on_llm_start(self, run_id: str, iteration: int, messages: Sequence[Message],
                     tools: Sequence[ToolSpec]) -> None: ...

    def on_llm_end(self, run_id: str, iteration: int, response: Response, duration: float) -> None: ...

    def on_tool_start(self, run_id: str, call: ToolCall) -> None: ...

    def on_tool_chunk(self, run_id: str, call: ToolCall, text: str) -> None:
        """A piece of output from a streaming (generator) tool, as it is produced."""

    def on_tool_end(self, run_id: str, call: ToolCall, result: ToolResult) -> None: ...

    def on_tool_error(self, run_id: str, call: ToolCall, result: ToolResult) -> None: ...

    def on_cache_hit(self, run_id: str, key: str, response: Response) -> None: ...

    def on_guardrail(self, run_id: str, stage: str, result: GuardrailResult, tool: str | None) -> None:
        """A guardrail found something (``result.action``: block, rewrite or warn)."""

    def on_policy(self, run_id: str, call: ToolCall, decision: PolicyDecision) -> None:
        """The tool policy decided one call (``call.arguments`` are the final arguments)."""

    def on_approval(self, run_id: str, call: ToolCall, approved: bool, reason: str) -> None:
        """The approval handler's answer on a call under review (or the run paused for one)."""

    def on_coherence(self, run_id: str, call: ToolCall, result: CoherenceResult) -> None: ...

    def on_budget(self, run_id: str, limit: str, maximum: float, used: float | None) -> None:
        """A usage limit stopped the run (``used`` None: the cost is unknown, a model is unpriced)."""

    def on_cost_warning(self, run_id: str, threshold: float, used: float | None) -> None:
        """The run's cost reached ``UsageLimits.warn_cost_usd`` (or became unknown: ``used`` None); it goes on."""

    def on_memory_trim(self, run_id: str, dropped: int, tokens: int, limit: int | None) -> None:
        """The conversation memory was trimmed: ``dropped`` messages left out of (or emptied in) the
        next request to fit the model's context window, or dropped from the kept history at the end
        of a run; what remains holds about ``tokens`` of the ``limit`` tokens (None: a message-count
        limit)."""

    def on_error(self, run_id: str, error: BaseException) -> None:
        """The run raised ``error`` (a provider that failed for good, a tool policy error...): called
        before ``on_agent_end`` (with a ``RunFailed``); the caller gets the exception itself."""


class LoggingObserver(Observer):
    """Logs each step at INFO (tool errors at WARNING) on the ``ragkit.agent`` logger."""

    def __init__(self, *, logger: logging.Logger | None = None) -> None:
        self.log = logger or logging.getLogger("ragkit.agent")

    def on_llm_end(self, run_id: str, iteration: int, response: Response, duration: float) -> None:
        self.log.info("[%s] iteration %d: model answered in %.2fs (%d in / %d out tokens, %d tool calls)",
                      run_id, iteration, duration, response.usage.input_tokens,
                      response.usage.output_tokens, len(response.tool_calls))

    def on_tool_end(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self.log.info("[%s] tool %s(%s) -> %d chars in %.2fs", run_id, call.name, call.arguments,
                      len(result.content), result.duration)

    def on_tool_error(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self.log.warning("[%s] tool %s failed: %s", run_id, call.name, result.content)

    def on_cache_hit(self, run_id: str, key: str, response: Response) -> None:
        self.log.info("[%s] response cache hit %s", run_id, key[:12])

    def on_guardrail(self, run_id: str, stage: str, result: GuardrailResult, tool: str | None) -> None:
        level = logging.WARNING if result.action == "block" else logging.INFO
        self.log.log(level, "[%s] guardrail %s (%s) %s: %s", run_id, result.guardrail, stage, result.action,
                     ", ".join(result.findings))

    def on_policy(self, run_id: str, call: ToolCall, decision: PolicyDecision) -> None:
        self.log.info("[%s] policy: %s -> %s (%s)", run_id, call.name, decision.decision, decision.rule)

    def on_approval(self, run_id: str, call: ToolCall, approved: bool, reason: str) -> None:
        self.log.info("[%s] approval of %s: %s (%s)", run_id, call.name, "approved" if approved else "not approved", reason)

    def on_budget(self, run_id: str, limit: str, maximum: float, used: float | None) -> None:
        spent = "an unknown amount: a model is unpriced" if used is None else f"{used:g}"
        self.log.warning("[%s] budget %s=%g reached (used %s); the run stops", run_id, limit, maximum, spent)

    def on_cost_warning(self, run_id: str, threshold: float, used: float | None) -> None:
        spent = "unknown (a model is unpriced)" if used is None else f"${used:.4f}"
        self.log.warning("[%s] cost %s reached warn_cost_usd=%g; the run continues", run_id, spent, threshold)

    def on_memory_trim(self, run_id: str, dropped: int, tokens: int, limit: int | None) -> None:
        self.log.info("[%s] memory trimmed: %d message(s) left out; ~%d tokens remain (limit %s)",
                      run_id, dropped, tokens, limit)

    def on_error(self, run_id: str, error: BaseException) -> None:
        self.log.warning("[%s] the run failed: %s: %s", run_id, type(error).__name__, error)


class RecordingObserver(Observer):
    """Records ``(hook, run_id, args)`` tuples in ``events``; handy in tests and notebooks."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, tuple[Any, ...]]] = []
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        return [e[0] for e in self.events]

    def __getattribute__(self, name: str) -> Any:
        if name in HOOKS:
            def record(run_id: str, *args: Any) -> None:
                with self._lock:
                    self.events.append((name, run_id, args))
            return record
        return object.__getattribute__(self, name)


#: what ``observers=`` takes: ``Observer`` objects, or plain functions ``fn(hook, run_id, *args)``
ObserverLike = Observer | Callable[..., Any]


class FunctionObserver(Observer):
    """A plain function as an observer: every hook calls ``fn(hook, run_id, *args)``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __getattribute__(self, name: str) -> Any:
        if name in HOOKS:
            fn = object.__getattribute__(self, "fn")
            return lambda run_id, *args: fn(name, run_id, *args)
        return object.__getattribute__(self, name)

    def __repr__(self) -> str:
        return f"FunctionObserver({getattr(self.fn, '__qualname__', self.fn)!r})"


def as_observer(obj: ObserverLike) -> Observer:
    """``obj`` as an observer: an object with hooks as it is, a plain function wrapped."""
    if isinstance(obj, Observer) or any(hasattr(obj, hook) for hook in HOOKS):
        return obj  # type: ignore[return-value]
    if callable(obj):
        return FunctionObserver(obj)
    raise TypeError(f"an observer is an Observer (any object with on_* hooks) or a function "
                    f"fn(hook, run_id, *args); got {type(obj).__name__}")


class ObserverSet:
    """Calls one hook on every observer, logging and swallowing what they raise."""

    def __init__(self, observers: Sequence[ObserverLike] = ()) -> None:
        self.observers = [as_observer(o) for o in observers]

    def emit(self, hook: str, *args: Any) -> None:
        for obs in self.observers:
            method = getattr(obs, hook, None)
            if method is None:
                continue
            try:
                method(*args)
            except Exception:  # noqa: BLE001 - an observer must never break a run
                log.exception("observer %s.%s raised; ignoring it", type(obs).__name__, hook)


__all__ = ["HOOKS", "FunctionObserver", "LoggingObserver", "Observer", "ObserverLike", "ObserverSet",
           "RecordingObserver", "as_observer"]
