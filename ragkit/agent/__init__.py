"""The tool-calling agent loop: ``Agent``, its config, results, traces, observers and memory."""

from __future__ import annotations

from ragkit.agent.config import AgentConfig
from ragkit.agent.loop import Agent
from ragkit.agent.memory import ConversationMemory, estimate_tokens
from ragkit.agent.observers import LoggingObserver, Observer, RecordingObserver
from ragkit.agent.result import AgentEvent, AgentResult, ToolCallRecord
from ragkit.agent.state import RunState
from ragkit.agent.trace import AgentTrace, CacheHitStep, ErrorStep, LLMCallStep, ToolCallStep

__all__ = [
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
