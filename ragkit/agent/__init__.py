"""The tool-calling agent loop: ``Agent``, its config, results, traces, observers and memory; the
guarded-run parts: tool policy and approval, coherence checks, budgets, audit log, analytics; and
multi-agent runs: ``AgentDefinition``, ``handoff``, ``AgentRunner`` (with ``ToolContext``)."""

from __future__ import annotations

from ragkit.agent.config import AgentConfig
from ragkit.agent.guard.audit import AuditLog
from ragkit.agent.guard.coherence import LLMCoherenceChecker, RuleCoherenceChecker
from ragkit.agent.loop import Agent
from ragkit.agent.memory import ConversationMemory
from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.handoff import Handoff, HandoffInputData, handoff
from ragkit.agent.multi.runner import AgentRunner, RunResult, ToolContext
from ragkit.agent.observe.analytics import Analytics
from ragkit.agent.observe.observers import LoggingObserver, Observer, RecordingObserver
from ragkit.agent.observe.trace import (
    AgentTrace,
    CacheHitStep,
    ErrorStep,
    HandoffStep,
    LLMCallStep,
    StepKind,
    ToolCallStep,
)
from ragkit.agent.result import AgentEvent, AgentResult, BudgetExceeded, GuardrailTripped, ToolCallRecord
from ragkit.agent.state import RunState
from ragkit.agent.values import (
    ApprovalDecision,
    ApprovalRequest,
    CoherenceChecker,
    CoherenceResult,
    PolicyDecision,
    ToolPolicy,
    UsageLimits,
)
from ragkit.tokens import estimate_tokens

__all__ = [
    "Analytics",
    "ApprovalDecision",
    "ApprovalRequest",
    "AuditLog",
    "BudgetExceeded",
    "CoherenceChecker",
    "CoherenceResult",
    "GuardrailTripped",
    "LLMCoherenceChecker",
    "PolicyDecision",
    "RuleCoherenceChecker",
    "StepKind",
    "ToolPolicy",
    "UsageLimits",
    "Agent",
    "AgentConfig",
    "AgentDefinition",
    "AgentEvent",
    "AgentResult",
    "AgentRunner",
    "AgentTrace",
    "CacheHitStep",
    "ConversationMemory",
    "ErrorStep",
    "Handoff",
    "HandoffInputData",
    "HandoffStep",
    "LLMCallStep",
    "LoggingObserver",
    "Observer",
    "RecordingObserver",
    "RunResult",
    "RunState",
    "ToolContext",
    "ToolCallRecord",
    "ToolCallStep",
    "estimate_tokens",
    "handoff",
]
