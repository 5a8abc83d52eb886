"""``UsageLimits``: the budgets of one run (enforced by :mod:`ragkit.agent.budget`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ragkit.errors import ConfigError


@dataclass(frozen=True, kw_only=True)
class UsageLimits:
    """Each limit is None (no limit) or a maximum for the whole run:

    - ``requests``: provider requests (cache hits are free); ``tool_calls``: tool runs (denied or
      refused calls do not count); ``per_tool_calls``: ``{tool name: maximum}``;
    - ``input_tokens`` / ``output_tokens`` / ``total_tokens``: LLM tokens (total = input + output);
    - ``cost_usd``: the run's total cost (LLM and embeddings), priced from the model registry
      (``ragkit/models.yaml``); a model without a price is refused rather than counted as free;
    - ``warn_cost_usd``: a warning (an event, the run goes on) once the cost reaches it;
    - ``final_turn``: when a tool limit stops the run, one last model turn without tools first.
    """

    requests: int | None = None
    tool_calls: int | None = None
    per_tool_calls: Mapping[str, int] = field(default_factory=dict)
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost_usd: float | None = None
    warn_cost_usd: float | None = None
    final_turn: bool = False  # after a tool limit, one last turn without tools

    def __post_init__(self) -> None:
        for name in ("requests", "tool_calls", "input_tokens", "output_tokens", "total_tokens", "cost_usd",
                     "warn_cost_usd"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ConfigError(f"UsageLimits.{name} must be >= 0 or None (got {value})")
        for tool, n in self.per_tool_calls.items():
            if n < 0:
                raise ConfigError(f"UsageLimits.per_tool_calls[{tool!r}] must be >= 0 (got {n})")


__all__ = ["UsageLimits"]
