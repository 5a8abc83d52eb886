"""Handoffs as tools: ``handoff(agent)`` becomes a ``transfer_to_<name>`` tool the model can call.

Calling it passes the conversation to the other agent, who answers from then on (its
instructions, provider, tools and config). The rules live in ``Handoffs``, one per run, hooked
into the step machine (``Run.prechecks`` for the calls, ``Run.handoff`` after each turn's tools):

- the first handoff of a model turn wins; later ones in the same turn get the result
  "ignored: only one handoff per turn"; the turn's ordinary tool calls still run;
- a target that is not an agent of the runner's registry is refused (an error result the model
  can read) and nothing changes;
- after ``max_handoffs`` transfers, the next one ends the run with ``stop_reason="max_handoffs"``
  and a ``handoff`` trace step whose outcome is "max_handoffs" (stops A→B→A ping-pong).

``input_filter`` chooses what the next agent sees (``HandoffInputData`` → messages);
``on_handoff`` is called with the run's ``ToolContext`` when the transfer happens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.agent.observe.trace import HandoffStep
from ragkit.agent.result import AgentEvent, AgentResult
from ragkit.errors import AgentError, ConfigError
from ragkit.messages import Message, ToolCall
from ragkit.tools.tool import Tool, ToolResult

Run = Any  # an ``agent.state.Run`` (not imported: the step machine's modules do not import this one)

IGNORED = "ignored: only one handoff per turn"


@dataclass(frozen=True)
class HandoffInputData:
    """What an ``input_filter`` gets: the conversation so far (without the system prompt)."""

    messages: tuple[Message, ...]
    from_agent: str
    to_agent: str


InputFilter = Callable[[HandoffInputData], Sequence[Message]]


@dataclass(frozen=True)
class Handoff:
    """A transfer to the agent named ``agent``, offered to the model as the tool ``tool_name``."""

    agent: str
    tool_name: str
    description: str
    input_filter: InputFilter | None = None
    on_handoff: Callable[[Any], None] | None = None

    def tool(self) -> Tool:
        target = self.agent

        def transfer() -> str:
            raise AgentError(f"'{self.tool_name}' hands off to '{target}'; handoffs work only in an AgentRunner")

        return Tool(transfer, name=self.tool_name, description=self.description)


def handoff(agent: Any, tool_name: str | None = None, description: str | None = None,
            input_filter: InputFilter | None = None, on_handoff: Callable[[Any], None] | None = None) -> Handoff:
    """A handoff to ``agent`` (an ``AgentDefinition`` or an agent's name in the runner's registry)."""
    name = agent if isinstance(agent, str) else agent.name
    if not name:
        raise ConfigError("handoff() needs an agent or an agent name")
    tool_name = tool_name or "transfer_to_" + re.sub(r"[^0-9A-Za-z_-]+", "_", name).strip("_").lower()
    if description is None:
        about = "" if isinstance(agent, str) or not agent.description else f" ({agent.description})"
        description = f"Hand the conversation over to the agent '{name}'{about}; it answers from then on."
    return Handoff(name, tool_name, description, input_filter, on_handoff)


class Handoffs:
    """The handoff rules of one run. ``switch(run, handoff)`` makes the target the current agent."""

    def __init__(self, *, by_agent: Mapping[str, Mapping[str, Handoff]], known: Sequence[str],
                 max_handoffs: int, switch: Callable[[Run, Handoff], None], tool_context: Any) -> None:
        self.by_agent, self.known, self.max_handoffs = by_agent, tuple(known), max_handoffs
        self.switch, self.tool_context = switch, tool_context
        self.turn = -1
        self.chosen: tuple[Handoff, ToolCall] | None = None

    def precheck(self, run: Run, call: ToolCall) -> ToolResult | None:
        """Answer a handoff call without running a tool: transferred, ignored or refused."""
        chosen = self.by_agent.get(run.agent_name or "", {}).get(call.name)
        if chosen is None:
            return None
        if self.turn != run.iteration:
            self.turn, self.chosen = run.iteration, None
        if chosen.agent not in self.known:
            run.trace.add(HandoffStep(run.iteration, run.trace.elapsed(), run.agent_name or "", chosen.agent,
                                      call.id, "refused"))
            return ToolResult(call.name, (
                f"error: cannot hand off to '{chosen.agent}': it is not an agent of this runner "
                f"(agents: {', '.join(self.known)})"), is_error=True, error_kind="handoff_refused")
        if self.chosen is not None:
            return ToolResult(call.name, IGNORED)
        self.chosen = (chosen, call)
        if run.state.handoffs >= self.max_handoffs:
            return ToolResult(call.name, f"error: the handoff limit of this run ({self.max_handoffs}) is reached",
                              is_error=True, error_kind="max_handoffs")
        return ToolResult(call.name, f"Transferred to {chosen.agent}.")

    def step(self, run: Run) -> Generator[Any, Any, AgentResult | None]:
        """``Run.handoff``, a step after each turn's tools: make the turn's winning handoff. Returns
        the ``max_handoffs`` result that ends the run, or None."""
        if self.chosen is None or self.turn != run.iteration:
            return None
        target, call = self.chosen
        self.chosen = None
        start = run.trace.elapsed()
        if run.state.handoffs >= self.max_handoffs:
            run.trace.add(HandoffStep(run.iteration, start, run.agent_name or "", target.agent, call.id, "max_handoffs"))
            return run.finish(None, stop="max_handoffs", content=(
                f"Stopped: the agents handed the conversation over {run.state.handoffs} times "
                f"(max_handoffs={self.max_handoffs}) without an answer. Raise AgentRunner(max_handoffs=...) "
                "or make the agents' instructions say who answers what."))
        source = run.agent_name or ""
        run.state.handoffs += 1
        self.switch(run, target)
        if target.on_handoff is not None:
            target.on_handoff(self.tool_context)
        run.trace.add(HandoffStep(run.iteration, start, source, target.agent, call.id, "transferred",
                                  run.trace.elapsed() - start))
        yield AgentEvent("handoff", run.iteration, text=target.agent, tool_call=call)
        return None


__all__ = ["IGNORED", "Handoff", "HandoffInputData", "Handoffs", "InputFilter", "handoff"]
