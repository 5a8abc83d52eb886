"""The tool-calling agent loop: ``Agent``, its config, results, traces, observers and memory, and
the guarded-run parts: tool policy and approval, coherence checks, budgets, audit log, analytics."""

from __future__ import annotations

from ragkit.agent.analytics import Analytics
from ragkit.agent.audit import AuditLog
from ragkit.agent.coherence import (
    CoherenceChecker,
    CoherenceResult,
    LLMCoherenceChecker,
    RuleCoherenceChecker,
)
from ragkit.agent.config import AgentConfig
from ragkit.agent.limits import UsageLimits
from ragkit.agent.loop import Agent
from ragkit.agent.memory import ConversationMemory, estimate_tokens
from ragkit.agent.observers import LoggingObserver, Observer, RecordingObserver
from ragkit.agent.policy import ApprovalDecision, ApprovalRequest, PolicyDecision, ToolPolicy
from ragkit.agent.result import AgentEvent, AgentResult, BudgetExceeded, GuardrailTripped, ToolCallRecord
from ragkit.agent.state import RunState
from ragkit.agent.trace import AgentTrace, CacheHitStep, ErrorStep, LLMCallStep, StepKind, ToolCallStep

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
    "AgentEvent",
    "AgentResult",
    "AgentTrace",
    "CacheHitStep",
    "ConversationMemory",
    "ErrorStep",
    "LLMCallStep",
    "LoggingObserver",
    "Observer",
    "RecordingObserver",
    "RunState",
    "ToolCallRecord",
    "ToolCallStep",
    "estimate_tokens",
]
