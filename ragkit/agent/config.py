"""``AgentConfig``: validated settings of an agent loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragkit.errors import ConfigError

if TYPE_CHECKING:
    from ragkit.agent.memory import ConversationMemory
    from ragkit.agent.values import CoherenceChecker, ToolPolicy, UsageLimits
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
    - ``model_params``: extra keyword arguments passed to the provider (vendor-specific ones).

    Request parameters (None: the provider's default), checked by ``ragkit.providers.params``:
    ``temperature``, ``max_tokens``, ``top_p``, ``stop`` (a string or up to 4), ``seed``,
    ``presence_penalty``, ``frequency_penalty``, ``user`` (the end user's id); ``tool_choice``
    ("auto", "none", "required", or a tool name / ``{"type": "function", "function": {"name": ..}}``:
    required and named apply until the run's first tool call); ``response_format`` (a pydantic
    model class, a JSON schema, or OpenAI's ``{"type": "json_object" | "json_schema", ...}``: the
    answer is validated, and ``AgentResult.parsed`` holds it; see ``agent/structured.py``);
    ``client_tools``: tools offered to the model that the *caller* runs (``ToolSpec``s or OpenAI's
    ``{"type": "function", "function": {...}}``): when the model calls one, the run ends with
    ``stop_reason="tool_calls"`` and ``AgentResult.client_calls``; the caller runs them and
    continues with the conversation plus ``role="tool"`` messages (the agent's own tools in the
    same turn have run already).

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
    # request parameters beside temperature and max_tokens (see ragkit.providers.params)
    top_p: float | None = None
    stop: str | list[str] | None = None
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    user: str | None = None
    tool_choice: str | dict[str, Any] | None = None
    response_format: Any = None
    client_tools: Sequence[Any] = ()  # ToolSpecs (or OpenAI tool dicts) the caller runs, not the agent

    def __post_init__(self) -> None:
        if self.max_iterations < 1:
            raise ConfigError(f"max_iterations must be at least 1 (got {self.max_iterations})")
        self._check_request_params()
        if self.tool_timeout is not None and self.tool_timeout <= 0:
            raise ConfigError(f"tool_timeout must be positive seconds or None for no limit (got {self.tool_timeout})")
        for name in ("max_parallel_tools", "batch_concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1 (got {getattr(self, name)})")
        if self.approval_timeout is not None and self.approval_timeout <= 0:
            raise ConfigError(f"approval_timeout must be positive seconds or None (got {self.approval_timeout})")

    def _check_request_params(self) -> None:
        from ragkit.agent.structured import OutputFormat
        from ragkit.agent.tool_choice import client_specs, normalize_tool_choice
        from ragkit.providers.params import SAMPLING_PARAMS, check_refused, check_sampling

        check_sampling({name: getattr(self, name) for name in SAMPLING_PARAMS})
        check_sampling({k: v for k, v in self.model_params.items() if k in SAMPLING_PARAMS})
        check_refused(self.model_params)
        both = {n for n in SAMPLING_PARAMS if getattr(self, n) is not None}
        reserved = ({"temperature", "max_tokens", "tools", "messages", "tool_choice", "response_format"} | both) \
            & set(self.model_params)
        if reserved:
            raise ConfigError(
                f"model_params must not set {sorted(reserved)}; use the AgentConfig fields instead"
            )
        self.tool_choice = normalize_tool_choice(self.tool_choice)
        self.client_tools = client_specs(self.client_tools)
        OutputFormat.of(self.response_format)  # a bad response_format fails here, not mid-run

    def provider_params(self) -> dict[str, Any]:
        """Keyword arguments for ``provider.complete``/``stream`` (None values left out); the run
        adds ``tool_choice`` and ``response_format`` as its turn and provider require."""
        from ragkit.providers.params import SAMPLING_PARAMS

        params = dict(self.model_params)
        for name in SAMPLING_PARAMS:
            if getattr(self, name) is not None:
                params[name] = getattr(self, name)
        return params


__all__ = ["AgentConfig"]
