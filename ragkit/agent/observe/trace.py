"""``AgentTrace``: what happened in a run, as typed steps with timings; serializes to JSON.

Steps: ``llm_call`` (a model call), ``tool_call`` (one tool invocation), ``cache_hit`` (a model
call answered from the response cache), ``handoff`` (a transfer between agents) and ``error``
(something that went wrong but did not stop the run, or the exception that did); the guarded steps
``guardrail`` (a guardrail found something: block, rewrite or warn), ``policy`` (the tool policy's
decision on one call), ``approval`` (what the approval handler or a reviewer of a paused run said),
``coherence`` (the coherence check of one call) and ``budget`` (a usage limit stopped the run).
``StepKind`` names them all. ``start`` is seconds since the run began (``AgentTrace.started_at``,
ISO 8601 UTC).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import Any, ClassVar


@dataclass
class LLMCallStep:
    iteration: int
    start: float
    duration: float
    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = 0.0  # None: the model has no known price (unpriced, never $0)
    tool_calls: list[str] = field(default_factory=list)
    stop_reason: str = ""
    streamed: bool = False
    images: int = 0  # images the request carried
    type: ClassVar[str] = "llm_call"


@dataclass
class ToolCallStep:
    iteration: int
    start: float
    duration: float
    name: str
    call_id: str
    arguments: dict[str, Any] = field(default_factory=dict)
    output: str = ""
    is_error: bool = False
    error_kind: str | None = None
    # a streaming (generator) tool: pieces yielded, their UTF-8 bytes, seconds to the first piece
    chunks: int = 0
    chunk_bytes: int = 0
    first_chunk: float | None = None
    # the tool's retry policy: how many times it ran, and why each failed try failed
    attempts: int = 1
    retried: list[str] = field(default_factory=list)
    type: ClassVar[str] = "tool_call"


@dataclass
class CacheHitStep:
    iteration: int
    start: float
    duration: float
    key: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    type: ClassVar[str] = "cache_hit"


@dataclass
class ErrorStep:
    iteration: int
    start: float
    message: str
    kind: str = "error"
    duration: float = 0.0
    type: ClassVar[str] = "error"


@dataclass
class HandoffStep:
    """A handoff: ``outcome`` is "transferred", "refused" (target not in the registry) or
    "max_handoffs" (the cap stopped the run)."""

    iteration: int
    start: float
    from_agent: str
    to_agent: str
    call_id: str = ""
    outcome: str = "transferred"
    duration: float = 0.0
    type: ClassVar[str] = "handoff"


@dataclass
class GuardrailStep:
    iteration: int
    start: float
    stage: str  # input | output | tool_arguments | tool_results
    guardrail: str
    action: str  # block | rewrite | warn
    reason: str = ""
    findings: list[str] = field(default_factory=list)  # kinds, never the raw values
    tool: str | None = None
    duration: float = 0.0
    type: ClassVar[str] = "guardrail"


@dataclass
class PolicyStep:
    iteration: int
    start: float
    tool: str
    call_id: str
    decision: str  # allow | review | deny
    reason: str = ""
    rule: str = ""
    duration: float = 0.0
    type: ClassVar[str] = "policy"


@dataclass
class ApprovalStep:
    iteration: int
    start: float
    tool: str
    call_id: str
    approved: bool
    reason: str = ""
    duration: float = 0.0
    type: ClassVar[str] = "approval"


@dataclass
class CoherenceStep:
    iteration: int
    start: float
    tool: str
    call_id: str
    coherent: bool
    explanation: str = ""
    checker: str = ""
    failed: bool = False  # the checker itself failed (the call then fails closed unless allowed)
    duration: float = 0.0
    type: ClassVar[str] = "coherence"


@dataclass
class BudgetStep:
    """A limit stopped the run (``action="stop"``: a ``UsageLimits`` field, or ``context_window``)
    or a cost warning was given (``action="warn"``, ``limit="warn_cost_usd"``: the run went on).
    ``used`` is None when the cost is unknown (a model without a price)."""

    iteration: int
    start: float
    limit: str
    maximum: float
    used: float | None
    message: str = ""
    duration: float = 0.0
    action: str = "stop"
    type: ClassVar[str] = "budget"


class StepKind(str, Enum):
    """The kinds of trace step (equal to the ``type`` strings)."""

    LLM_CALL = "llm_call"
    TOOL_CALL = "tool_call"
    CACHE_HIT = "cache_hit"
    ERROR = "error"
    GUARDRAIL = "guardrail"
    POLICY = "policy"
    APPROVAL = "approval"
    COHERENCE = "coherence"
    BUDGET = "budget"
    HANDOFF = "handoff"


TraceStep = (LLMCallStep | ToolCallStep | CacheHitStep | ErrorStep | GuardrailStep | PolicyStep | ApprovalStep
             | CoherenceStep | BudgetStep | HandoffStep)
_STEP_TYPES: dict[str, type] = {c.type: c for c in (LLMCallStep, ToolCallStep, CacheHitStep, ErrorStep, GuardrailStep,
                                                      PolicyStep, ApprovalStep, CoherenceStep, BudgetStep,
                                                      HandoffStep)}


def step_to_dict(step: TraceStep) -> dict[str, Any]:
    return {"type": step.type, **asdict(step)}


def step_from_dict(data: dict[str, Any]) -> TraceStep:
    data = dict(data)
    kind = data.pop("type")
    return _STEP_TYPES[kind](**data)


def utc_now() -> str:
    """The current time as ISO 8601 UTC with milliseconds (``2026-01-31T12:00:00.123Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: the request settings a trace records (``AgentTrace.sampling``)
SAMPLING_KEYS = ("temperature", "top_p", "max_tokens")


@dataclass
class AgentTrace:
    """The ordered steps of one run plus its total duration (seconds), when it started and
    completed (ISO 8601 UTC; ``completed_at`` is None while it runs), and the sampling settings its
    model requests carried (``temperature``, ``top_p``, ``max_tokens``; a setting left to the
    provider's default is absent)."""

    run_id: str = ""
    steps: list[TraceStep] = field(default_factory=list)
    duration: float = 0.0
    started_at: str = field(default_factory=utc_now)
    completed_at: str | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    continued_from: str | None = None  # the run this one continues (``AgentRunner.continue_from``)
    _t0: float = field(default_factory=time.perf_counter, repr=False, compare=False)

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def add(self, step: TraceStep) -> TraceStep:
        self.steps.append(step)
        return step

    def of_type(self, kind: str) -> list[TraceStep]:
        kind = kind.value if isinstance(kind, StepKind) else kind
        return [s for s in self.steps if s.type == kind]

    def record_sampling(self, *sources: dict[str, Any]) -> None:
        """Record the sampling settings of ``sources`` (later ones win; None values are defaults)."""
        for source in sources:
            self.sampling.update({k: source[k] for k in SAMPLING_KEYS if source.get(k) is not None})

    def finish(self) -> None:
        self.duration = self.elapsed()
        self.completed_at = utc_now()

    def to_dict(self) -> dict[str, Any]:
        data = {"run_id": self.run_id, "started_at": self.started_at, "completed_at": self.completed_at,
                "duration": self.duration, "sampling": dict(self.sampling),
                "steps": [step_to_dict(s) for s in self.steps]}
        return {**data, "continued_from": self.continued_from} if self.continued_from else data

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentTrace:
        return cls(run_id=data.get("run_id", ""), duration=data.get("duration", 0.0),
                   steps=[step_from_dict(s) for s in data.get("steps", [])],
                   started_at=data.get("started_at") or utc_now(), completed_at=data.get("completed_at"),
                   sampling=dict(data.get("sampling") or {}), continued_from=data.get("continued_from"))

    @classmethod
    def from_json(cls, text: str) -> AgentTrace:
        return cls.from_dict(json.loads(text))


__all__ = ["AgentTrace", "ApprovalStep", "BudgetStep", "CacheHitStep", "CoherenceStep", "ErrorStep", "GuardrailStep",
           "HandoffStep", "LLMCallStep", "PolicyStep", "StepKind", "ToolCallStep", "TraceStep"]
