"""``AgentDefinition``: an agent as a value — name, instructions, provider/model, tools, handoffs,
config (guardrails, policy, limits, cache) and memory settings.

A definition is frozen: ``replace(...)`` returns a new one and nothing a run does changes it, so
one definition serves any number of concurrent runs. What a run changes (messages, usage, tool
state, the current agent) lives in its ``RunState``; history lives in the runner's session store,
and ``max_history`` (the memory setting) bounds how much of it the agent sees.

    triage = AgentDefinition(name="triage", instructions="Route the question.", provider=provider,
                             handoffs=[handoff(billing), handoff(tech)])
    terse = triage.replace(instructions="Route the question. Be terse.")
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from ragkit.agent.config import AgentConfig
from ragkit.agent.multi.handoff import Handoff, handoff
from ragkit.errors import ConfigError
from ragkit.messages import ToolCall
from ragkit.providers.base import Provider
from ragkit.tools.registry import ToolRegistry
from ragkit.tools.tool import Tool

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ApprovalRule = Callable[[ToolCall], bool] | Collection[str] | Any  # names, a predicate or a tool policy


@dataclass(frozen=True, kw_only=True, eq=False)
class AgentDefinition:
    """One agent of an ``AgentRunner``.

    - ``provider``: a ``Provider`` or a registered provider name (built once by the runner, with
      ``model`` when given); the object is shared by all runs, as providers are thread-safe.
    - ``tools``: tools or plain functions; ``handoffs``: ``handoff(...)`` values or definitions.
    - ``config``: the loop settings (``AgentConfig``); ``instructions`` become its system prompt.
    - ``needs_approval``: which calls pause the run for a human decision — tool names, a
      predicate over the ``ToolCall``, or a tool policy (an object with ``decide(tool, arguments)``
      whose ``.decision`` is "review" for the calls to pause).
    - ``max_history``: how many session messages the agent sees (None: all).
    """

    name: str
    instructions: str | None = None
    description: str = ""
    provider: Provider | str = "local"
    model: str | None = None
    tools: tuple[Tool, ...] = ()
    handoffs: tuple[Handoff, ...] = ()
    config: AgentConfig = field(default_factory=AgentConfig)
    needs_approval: ApprovalRule | None = None
    max_history: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ConfigError(f"agent name {self.name!r} must be 1-64 letters, digits, '_', '-' or '.', "
                              "starting with a letter or digit")
        if self.config.memory is not None:
            raise ConfigError(f"agent '{self.name}': config.memory is shared state; an AgentDefinition keeps "
                              "history in the runner's session store (set max_history= instead)")
        if self.max_history is not None and self.max_history < 1:
            raise ConfigError(f"agent '{self.name}': max_history must be at least 1 or None (got {self.max_history})")
        tools = tuple(t if isinstance(t, Tool) else Tool(t) for t in self.tools)
        handoffs = tuple(h if isinstance(h, Handoff) else handoff(h) for h in self.handoffs)
        names = [t.name for t in tools] + [h.tool_name for h in handoffs]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ConfigError(f"agent '{self.name}': tool names must be unique (repeated: {dupes})")
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "handoffs", handoffs)
        object.__setattr__(self, "config", dataclasses.replace(self.config))  # the caller's object may change
        check = self.needs_approval
        if check is not None and not callable(check) and not hasattr(check, "decide"):
            object.__setattr__(self, "needs_approval", frozenset(self.needs_approval))

    def replace(self, **changes: Any) -> AgentDefinition:
        """A new definition with ``changes`` applied; this one is unchanged."""
        return dataclasses.replace(self, **changes)

    # --- what a runner builds from it --------------------------------------------------------

    def tool_registry(self) -> ToolRegistry:
        """The tools offered to the model: its own plus one ``transfer_to_<name>`` per handoff."""
        return ToolRegistry([*self.tools, *(h.tool() for h in self.handoffs)])

    def run_config(self, cache: Any = None) -> AgentConfig:
        """The loop config of a run: ``instructions`` as the system prompt, the runner's cache."""
        changes: dict[str, Any] = {}
        if self.instructions is not None:
            changes["system_prompt"] = self.instructions
        if cache is not None:
            changes["cache"] = cache
        return dataclasses.replace(self.config, **changes)

    def approval_check(self) -> Callable[[ToolCall], bool] | None:
        check = self.needs_approval
        if check is None or callable(check):
            return check
        if hasattr(check, "decide"):  # a tool policy: its "review" decision pauses the run
            policy: Any = check
            return lambda call: policy.decide(call.name, call.arguments).decision == "review"
        names = frozenset(check)
        return lambda call: call.name in names

    def build_provider(self) -> Provider:
        if not isinstance(self.provider, str):
            return self.provider
        from ragkit.registry import providers

        options = {"model": self.model} if self.model else {}
        return providers.get(self.provider)(**options)


__all__ = ["AgentDefinition"]
