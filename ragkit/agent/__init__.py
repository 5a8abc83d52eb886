"""The tool-calling agent loop: ``Agent``, its config, results, traces, observers and memory; the
guarded-run parts: tool policy and approval, coherence checks, budgets, audit log, analytics; and
multi-agent runs: ``AgentDefinition``, ``handoff``, ``AgentRunner`` (with ``ToolContext``).

The package's parts, each importing only those before it (``tests/unit/test_import_graph.py``):
``values.py`` (the shared value types); the run and its records (``state``, ``result``, ``config``,
``actions``, ``memory``, ``structured``, ``tool_choice``) with ``observe/`` (trace, observers,
analytics, OpenTelemetry); ``guard/`` (guardrails in the loop, the policy's decision step, approval,
coherence, budgets, audit); the loop (``loop``, its ``drivers``, and ``conversation``, the one owner
of a conversation turn); ``multi/`` (definitions, handoffs, ``AgentRunner``).

One vocabulary of runs: a **run** is one agent answering one input (``Run``, live; ``RunState``,
its saved form; ``AgentResult``, its outcome); ``AgentRunner`` is the long-lived object that runs
several agents, each of its runs a ``MultiAgentRun`` (a sequence of ``Run``s joined by handoffs)
ending in a ``RunResult``.
"""

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
