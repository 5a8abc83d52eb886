"""``AgentConfig``: validated settings of an agent loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragkit.errors import ConfigError

if TYPE_CHECKING:
    from ragkit.agent.coherence import CoherenceChecker
    from ragkit.agent.limits import UsageLimits
    from ragkit.agent.memory import ConversationMemory
    from ragkit.agent.policy import ToolPolicy
    from ragkit.cache import ResponseCache
    from ragkit.guardrails import GuardrailSet


@dataclass(kw_only=True)
class AgentConfig:
    """Settings of an ``Agent``.

    - ``max_iterations``: model calls per run; reaching it ends the run with
      ``stop_reason="max_iterations"``.
    - ``tool_timeout``: seconds per tool call unless the tool sets its own (None: no limit).
    - ``parallel_tool_calls``: run several calls of one model turn concurrently.
    - ``cache``: a ``ResponseCache`` consulted for non-streaming model calls.
    - ``memory``: a ``ConversationMemory`` that keeps history across ``run`` calls (chat).
    - ``model_params``: extra keyword arguments passed to the provider (e.g. ``top_p``).

    Guarded runs (each optional; see docs/architecture.md for the order of the steps):

    - ``guardrails``: a ``GuardrailSet`` for the input, output, tool arguments and tool results.
    - ``policy``: a ``ToolPolicy`` (allow / review / deny per tool call).
    - ``approval_handler``: called with an ``ApprovalRequest`` for each call under review; returns
      True/False, an ``ApprovalDecision`` or None (None, an exception or a timeout deny). Without
      one, a review pauses the run.
    - ``approval_timeout``: seconds the handler may take (None: no limit).
    - ``coherence``: a ``CoherenceChecker`` (does the call match what the user asked?).
    - ``limits``: ``UsageLimits`` checked before each model call and each turn of tool calls.
    """

    system_prompt: str | None = None
    max_iterations: int = 10
    temperature: float | None = None
    max_tokens: int | None = None
    tool_timeout: float | None = 60.0
    parallel_tool_calls: bool = True
    max_parallel_tools: int = 8
    batch_concurrency: int = 4
    cache: ResponseCache | None = None
    memory: ConversationMemory | None = None
    model_params: dict[str, Any] = field(default_factory=dict)
    guardrails: GuardrailSet | None = None
    policy: ToolPolicy | None = None
    approval_handler: Callable[..., Any] | None = None
    approval_timeout: float | None = 300.0
    coherence: CoherenceChecker | None = None
    limits: UsageLimits | None = None

    def __post_init__(self) -> None:
        if self.max_iterations < 1:
            raise ConfigError(f"max_iterations must be at least 1 (got {self.max_iterations})")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ConfigError(f"temperature must be between 0 and 2 (got {self.temperature})")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1 or None (got {self.max_tokens})")
        if self.tool_timeout is not None and self.tool_timeout <= 0:
            raise ConfigError(f"tool_timeout must be positive seconds or None for no limit (got {self.tool_timeout})")
        for name in ("max_parallel_tools", "batch_concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1 (got {getattr(self, name)})")
        if self.approval_timeout is not None and self.approval_timeout <= 0:
            raise ConfigError(f"approval_timeout must be positive seconds or None (got {self.approval_timeout})")
        reserved = {"temperature", "max_tokens", "tools", "messages"} & set(self.model_params)
        if reserved:
            raise ConfigError(
                f"model_params must not set {sorted(reserved)}; use the AgentConfig fields instead"
            )

    def provider_params(self) -> dict[str, Any]:
        """Keyword arguments for ``provider.complete``/``stream`` (None values left out)."""
        params = dict(self.model_params)
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        return params


__all__ = ["AgentConfig"]
