"""``AgentResult``: the answer of one run with its tool calls, citations, usage and trace."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ragkit.agent.observe.trace import AgentTrace
from ragkit.messages import Message, ToolCall
from ragkit.types import Citation
from ragkit.usage import AgentUsage

STOP_REASONS = ("stop", "max_iterations", "length", "guardrail", "budget", "max_handoffs", "paused", "error",
                "cancelled", "invalid_output", "tool_calls")


@dataclass
class ToolCallRecord:
    """One tool call the model made and what it got back."""

    id: str
    name: str
    arguments: dict[str, Any]
    output: str
    is_error: bool = False
    error_kind: str | None = None
    iteration: int = 0
    duration: float = 0.0


@dataclass
class AgentResult:
    """``stop_reason``: "stop" (final answer), "max_iterations" (cap reached), "length", "guardrail"
    (a guardrail blocked: a ``GuardrailTripped``), "budget" (a usage limit: a ``BudgetExceeded``),
    "error"/"cancelled" (only what observers see of a run that raised or was abandoned: a ``RunFailed``),
    "max_handoffs" (in an ``AgentRunner`` run, the handoff cap stopped it) or "paused" (tool calls
    wait for approval: ``pending_approvals``; approve or reject them in ``state`` and resume it)
    or "invalid_output" (structured output was asked for and the answer never matched it) or
    "tool_calls" (the model called client tools: ``client_calls``, for the caller to run).

    ``parsed``: with a ``response_format``, the validated answer (a pydantic model instance when
    the format was a model class, else the JSON value); None without one or when invalid.

    ``reasoning``: why the agent chose its tools — the model's reasoning/thinking content when the
    provider returns it, else the text it wrote before its tool calls; one paragraph per turn."""

    content: str
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    iterations: int = 0
    trace: AgentTrace = field(default_factory=AgentTrace)
    usage: AgentUsage = field(default_factory=AgentUsage)
    stop_reason: str = "stop"
    messages: list[Message] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    reasoning: str = ""
    pending_approvals: list[dict[str, Any]] = field(default_factory=list)
    state: Any = field(default=None, repr=False, compare=False)  # the RunState (to resume a paused run)
    parsed: Any = None
    client_calls: list[ToolCall] = field(default_factory=list)  # calls of client tools, for the caller

    def __str__(self) -> str:
        return self.content

    def to_dict(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "stop_reason": self.stop_reason,
            "iterations": self.iterations,
            "tool_calls": [asdict(c) for c in self.tool_calls],
            "citations": [c.to_dict() for c in self.citations],
            "usage": self.usage.to_dict(),
            "trace": self.trace.to_dict(),
            "messages": [m.to_dict() for m in self.messages],
            "reasoning": self.reasoning,
            "pending_approvals": [dict(p) for p in self.pending_approvals],
            **self.extra(),
        }

    def extra(self) -> dict[str, Any]:
        """Fields a subclass adds to ``to_dict``."""
        return {}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentResult:
        return cls(
            content=data["content"],
            stop_reason=data.get("stop_reason", "stop"),
            iterations=data.get("iterations", 0),
            tool_calls=[ToolCallRecord(**c) for c in data.get("tool_calls", [])],
            citations=[Citation(**c) for c in data.get("citations", [])],
            usage=AgentUsage.from_dict(data.get("usage", {})),
            trace=AgentTrace.from_dict(data.get("trace", {})),
            messages=[Message.from_dict(m) for m in data.get("messages", [])],
            reasoning=data.get("reasoning", ""),
            pending_approvals=list(data.get("pending_approvals", [])),
        )

    @classmethod
    def from_json(cls, text: str) -> AgentResult:
        return cls.from_dict(json.loads(text))


@dataclass
class GuardrailTripped(AgentResult):
    """A run a guardrail blocked (``stop_reason="guardrail"``): ``stage`` says where (input, output,
    tool_arguments, tool_results), ``guardrail`` which one, ``reason`` what it found."""

    stage: str = ""
    guardrail: str = ""
    reason: str = ""

    def extra(self) -> dict[str, Any]:
        return {"stage": self.stage, "guardrail": self.guardrail, "reason": self.reason}


@dataclass
class BudgetExceeded(AgentResult):
    """A run a usage limit stopped (``stop_reason="budget"``): ``limit`` names the ``UsageLimits``
    field (or ``context_window``: a request could not fit the model's window), ``maximum`` its value,
    ``used`` how much was used (or would be, with the next call; None when a model is unpriced)."""

    limit: str = ""
    maximum: float = 0.0
    used: float | None = 0.0

    def extra(self) -> dict[str, Any]:
        return {"limit": self.limit, "maximum": self.maximum, "used": self.used}


@dataclass
class RunFailed(AgentResult):
    """How a run that did not finish ended, for observers (``on_agent_end``): ``stop_reason`` is
    "error" (``error_type`` and ``error`` say what was raised; the caller gets the exception itself)
    or "cancelled" (its consumer stopped reading it). Never returned to the caller."""

    error_type: str = ""
    error: str = ""

    def extra(self) -> dict[str, Any]:
        return {"error_type": self.error_type, "error": self.error}



@dataclass(frozen=True)
class AgentEvent:
    """What ``Agent.stream`` yields: ``text`` deltas, ``tool_start``/``tool_end`` around each tool
    call (with ``tool_chunk`` events in between for a streaming tool: ``text`` is the piece),
    ``handoff`` when an ``AgentRunner`` run changes agents (``text``: the new agent), ``warning``
    when the run's cost reaches ``UsageLimits.warn_cost_usd`` (``text``: the message; the run goes
    on), and finally one ``result`` carrying the ``AgentResult``."""

    type: str  # "text" | "tool_start" | "tool_chunk" | "tool_end" | "handoff" | "warning" | "result"
    iteration: int = 0
    text: str = ""
    tool_call: ToolCall | None = None
    tool_output: str | None = None
    is_error: bool = False
    result: AgentResult | None = None
__all__ = ["AgentEvent", "AgentResult", "BudgetExceeded", "GuardrailTripped", "RunFailed", "ToolCallRecord"]
