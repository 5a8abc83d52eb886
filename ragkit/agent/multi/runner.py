"""``AgentRunner``: several agents, handoffs between them, sessions, approvals — one long-lived object.

The runner is built once (a frozen registry: agent name → definition, provider, tools, config)
and is safe to share between threads. Each ``run``/``stream``/``arun``/``resume`` makes a
``MultiAgentRun`` for that run alone: a deep copy of the caller's ``context``, its own ``RunState``
(messages, usage, tool state, trace) and a ``ToolContext`` that tools declare as an injected
parameter named ``ctx`` (``@tool(inject=["ctx"])``); no run can see another's.

    runner = AgentRunner([triage, billing, tech], entry="triage", session_store=open_session_store(url))
    result = runner.run("Why was I charged twice?", session_id="user-42", context=Account(id=42))
    result.agent           # who answered: "billing"
    if result.stop_reason == "paused":                     # a call waits for a human
        text = result.state.to_json()                      # ... store it, decide later, elsewhere:
        state = RunState.from_json(text, agents=runner); state.approve(call_id); runner.resume(state)
    later = runner.continue_from(result.state, "And the other charge?")  # a finished run, continued

With a ``session_id`` the conversation comes from the session store and continues with the agent
that last spoke; the run's new messages (each assistant message naming its agent) are written
back when it ends or pauses. A paused turn is not written until it is answered, so a session never
holds a tool call without its result.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import types
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.agent.config import AgentConfig
from ragkit.agent.conversation import Conversation
from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.handoff import Handoff, HandoffInputData, Handoffs
from ragkit.agent.observe.observers import ObserverLike, ObserverSet
from ragkit.agent.result import AgentEvent, AgentResult
from ragkit.agent.state import Run, RunState
from ragkit.errors import AgentError, ConfigError
from ragkit.messages import Message
from ragkit.providers.base import Provider
from ragkit.providers.vision import require_vision
from ragkit.sessions.messages import last_agent
from ragkit.tools.registry import ToolRegistry
from ragkit.tools.tool import current_attempt
from ragkit.usage import AgentUsage

log = logging.getLogger(__name__)


class ToolContext:
    """What a tool sees of its run: the user ``context`` (the run's own copy), ``state`` (a JSON
    dict kept across calls, handoffs and resumes), the run's ``usage`` and the current ``agent``."""

    def __init__(self, state: RunState) -> None:
        self._state = state

    @property
    def context(self) -> Any:
        return self._state.context

    @property
    def state(self) -> dict[str, Any]:
        return self._state.tool_state

    @property
    def usage(self) -> AgentUsage:
        return self._state.usage

    @property
    def agent(self) -> str | None:
        return self._state.current_agent

    @property
    def run_id(self) -> str:
        return self._state.run_id

    @property
    def attempt(self) -> int:
        """Which try of the running tool call this is: 1, then 2, 3... when the tool's retry policy
        (``@tool(retries=...)``) runs it again."""
        return current_attempt()


@dataclass
class RunResult(AgentResult):
    """An ``AgentResult`` plus the agent that ended the run and the run's whole ``state``
    (``state.pending``: the approvals a paused run waits for)."""

    agent: str = ""  # (``state``, the run's whole ``RunState``, is an ``AgentResult`` field)

    @property
    def interruptions(self) -> list[dict[str, Any]]:
        return self.state.pending if self.state is not None else []


@dataclass(frozen=True)
class BoundAgent:
    """A definition with what the runner built for it once: provider, tool registry, config."""

    definition: AgentDefinition
    provider: Provider
    tools: ToolRegistry
    config: AgentConfig
    handoffs: Mapping[str, Handoff]


class AgentRunner:
    """A frozen registry of agents that runs conversations among them (see the module docstring)."""

    def __init__(self, agents: Iterable[AgentDefinition], *, entry: AgentDefinition | str,
                 session_store: Any = None, cache: Any = None, max_handoffs: int = 5,
                 context_type: type | None = None, per_run: Mapping[str, Any] | None = None,
                 observers: Sequence[ObserverLike] = (), session_lease: float = 600.0) -> None:
        """``per_run``: injected tool arguments made fresh for every run, as zero-argument factories
        (``{"book": CitationBook}`` for RAG agents). ``context_type``: the dataclass of the
        user context, to rebuild it when a saved state is loaded. ``session_lease``: seconds a run
        holds its session's turn lock (a second run on a busy session is refused; a holder
        process that died loses it at once)."""
        bound: dict[str, BoundAgent] = {}
        for definition in agents:
            if not isinstance(definition, AgentDefinition):
                raise ConfigError(f"AgentRunner takes AgentDefinition values, got {definition!r}")
            if definition.name in bound:
                raise ConfigError(f"two agents are named '{definition.name}'; agent names must be unique")
            bound[definition.name] = BoundAgent(
                definition, definition.build_provider(), definition.tool_registry(),
                definition.run_config(cache), types.MappingProxyType({h.tool_name: h for h in definition.handoffs}))
        self.agents: Mapping[str, BoundAgent] = types.MappingProxyType(bound)
        self.entry = entry if isinstance(entry, str) else entry.name
        if self.entry not in bound:
            raise ConfigError(f"entry agent '{self.entry}' is not one of the runner's agents ({', '.join(bound)})")
        if max_handoffs < 0:
            raise ConfigError(f"max_handoffs must be 0 or more (got {max_handoffs})")
        for b in bound.values():
            for h in b.definition.handoffs:
                if h.agent not in bound:
                    log.warning("agent '%s' can hand off to '%s', which is not in this runner; such handoffs "
                                "are refused", b.definition.name, h.agent)
        self.session_store, self.cache, self.max_handoffs = session_store, cache, max_handoffs
        self.session_lease = session_lease
        # the turns of a run with a session_id: lease (refused when busy), history, what is written
        self.conversation = Conversation(session_store, lease=session_lease)
        self.context_type = context_type
        self.per_run = types.MappingProxyType(dict(per_run or {}))
        self.observers = ObserverSet(observers)

    def __repr__(self) -> str:
        return f"AgentRunner(agents={list(self.agents)}, entry={self.entry!r})"

    def names(self) -> list[str]:
        return list(self.agents)

    # --- entry points (sync and async drive the same MultiAgentRun) -------------------------

    def run(self, input: str | Sequence[Message], *, context: Any = None, session_id: str | None = None) -> RunResult:
        """Run to the end (an answer, a cap, or a pause for approval)."""
        return _last(self.start(input, context=context, session_id=session_id).events(streaming=False))

    def stream(self, input: str | Sequence[Message], *, context: Any = None,
               session_id: str | None = None) -> Iterator[AgentEvent]:
        """Text deltas, tool and ``handoff`` events, then one ``result`` event (a ``RunResult``)."""
        yield from self.start(input, context=context, session_id=session_id).events(streaming=True)

    async def arun(self, input: str | Sequence[Message], *, context: Any = None,
                   session_id: str | None = None) -> RunResult:
        runner = self.start(input, context=context, session_id=session_id)
        return _last([event async for event in runner.aevents(streaming=False)])

    def resume(self, state: RunState) -> RunResult:
        """Continue a saved run (after ``approve``/``reject`` of its pending calls)."""
        undecided = [e["call_id"] for e in state.pending]
        last = state.messages[-1] if state.messages else None
        if last is None or last.role != "assistant" or not last.tool_calls or not state.pending_approvals:
            raise AgentError("this run is not paused for approval (it has ended); resume() continues a paused "
                             "run — start a new one with run()")
        if undecided:
            raise AgentError(f"the run is still waiting for approval of {undecided}; call state.approve(call_id) "
                             "or state.reject(call_id, message) for each before resuming")
        return _last(MultiAgentRun(self, state.bind(self)).events(streaming=False))

    def continue_from(self, state: RunState, message: str | Message | Sequence[Message]) -> RunResult:
        """Continue a finished run (its ``state``, or ``RunState.from_json`` of it) with a new user
        ``message``: a new run (own ``run_id``, usage and trace, whose ``continued_from`` names the
        old one) over the whole conversation, answered by the agent that spoke last, with the tool
        state and context carried over. A run paused for approval is resumed, not continued; a run
        of a session is continued through the session (``run(message, session_id=...)``)."""
        return _last(MultiAgentRun(self, state.continued(message).bind(self, self.context_type)).events(streaming=False))

    async def acontinue_from(self, state: RunState, message: str | Message | Sequence[Message]) -> RunResult:
        """``continue_from``, awaited."""
        runner = MultiAgentRun(self, state.continued(message).bind(self, self.context_type))
        return _last([event async for event in runner.aevents(streaming=False)])

    def start(self, input: str | Sequence[Message], *, context: Any = None, session_id: str | None = None) -> MultiAgentRun:
        """The per-run ``MultiAgentRun`` of a new run (``run``/``stream`` use it)."""
        new = [Message(role="user", content=input)] if isinstance(input, str) else list(input)
        try:
            own = copy.deepcopy(context)
        except Exception as exc:
            raise ConfigError(f"run(context=...) must be deep-copyable, so that no run sees another's "
                              f"({type(exc).__name__}: {exc}); pass shared resources (clients, locks) as "
                              "tool.bind(...) or AgentRunner(per_run=...) instead") from exc
        return MultiAgentRun(self, None, new=new, context=own, session_id=session_id)


class MultiAgentRun:
    """One run of an ``AgentRunner``: its state, its ``ToolContext``, its handoff rules.

    Its session (lease, history, what is written) is a turn of the runner's ``Conversation``
    (:mod:`ragkit.agent.conversation`); the run is built once the history is loaded under the lease."""

    def __init__(self, owner: AgentRunner, state: RunState | None, *, new: Sequence[Message] = (),
                 context: Any = None, session_id: str | None = None) -> None:
        """A new run of the messages ``new`` (after the session's history), or the continuation of a
        saved ``state``."""
        self.owner = owner
        self._saved, self._new, self._context = state, list(new), context
        if state is not None and state.current_agent not in owner.agents:
            raise AgentError(f"the run's current agent '{state.current_agent}' is not one of the runner's agents "
                             f"({', '.join(owner.agents)})")
        self.injected = {k: make() for k, make in owner.per_run.items()}  # the run holds this dict
        sid = state.session_id if state is not None else session_id
        self.turn = owner.conversation.turn(sid, self._build, history=state is None)
        self.run: Run | None = None

    @property
    def state(self) -> RunState:
        if self.run is None:
            raise AgentError("the run has not started yet")
        return self.run.state

    def _build(self, history: list[Message]) -> Run:
        """The run: a saved state bound again, or a new one after ``history``, continued by the agent
        that last spoke (within its ``max_history`` window)."""
        owner, state = self.owner, self._saved
        if state is None:
            speaker = last_agent(history)
            name = speaker if speaker in owner.agents else owner.entry
            window = owner.agents[name].definition.max_history
            if window is not None and len(history) > window:
                history = history[len(history) - window:]
                while history and history[0].role != "user":  # never start inside a turn
                    history.pop(0)
        else:
            name = state.current_agent  # type: ignore[assignment]
        bound = owner.agents[name]
        self.run = run = Run(provider=bound.provider, config=bound.config, tools=bound.tools,
                             observers=owner.observers, context=self.injected, prompt=self._new,
                             history=history if state is None else None, use_memory=False, state=state)
        if state is None:
            run.state.current_agent, run.state.context = name, self._context
            run.agent_name = name
        self.tool_context = self.injected["ctx"] = ToolContext(run.state)
        self.handoffs = Handoffs(by_agent={n: b.handoffs for n, b in owner.agents.items()}, known=list(owner.agents),
                                 max_handoffs=owner.max_handoffs, switch=self.switch, tool_context=self.tool_context)
        run.prechecks.append(self.handoffs.precheck)
        run.handoff = self.handoffs.step
        run.needs_approval = bound.definition.approval_check()
        store = owner.session_store
        if store is not None and hasattr(store, "claim_tool_call") and run.state.session_id is not None:
            run.execution_log = store
        return run

    def switch(self, run: Run, target: Handoff) -> None:
        """Make ``target`` the current agent of ``run`` (its provider, tools, config and prompt)."""
        bound = self.owner.agents[target.agent]
        require_vision(bound.provider, run.messages)  # the new agent's model must see the images it is given
        source = run.agent_name or ""
        run.provider, run.tools, run.config = bound.provider, bound.tools, bound.config
        run.specs = bound.tools.specs()
        run.needs_approval = bound.definition.approval_check()
        run.params.clear()
        run.params.update(bound.config.provider_params())
        st = run.state
        st.provider, st.model, st.tools = bound.provider.name, bound.provider.model, bound.tools.names()
        run.agent_name = st.current_agent = target.agent
        rest = [m for m in run.messages if m.role != "system"]
        if target.input_filter is not None:
            self.turn.write(upto=len(run.messages))  # the session keeps the whole conversation
            rest = list(target.input_filter(HandoffInputData(tuple(rest), source, target.agent)))
        system = [Message(role="system", content=bound.config.system_prompt)] if bound.config.system_prompt else []
        run.messages[:] = [*system, *rest]
        if target.input_filter is not None:
            st.saved = len(run.messages)

    # --- driving -----------------------------------------------------------------------------

    def events(self, *, streaming: bool) -> Iterator[AgentEvent]:
        for event in self.turn.events(streaming=streaming):
            yield self._complete(event)

    async def aevents(self, *, streaming: bool) -> AsyncIterator[AgentEvent]:
        async for event in self.turn.aevents(streaming=streaming):
            yield self._complete(event)

    def _complete(self, event: AgentEvent) -> AgentEvent:
        if event.type != "result" or event.result is None or self.run is None:
            return event
        result = event.result
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(AgentResult)}
        fields["state"] = self.run.state
        return dataclasses.replace(event, result=RunResult(**fields, agent=self.run.agent_name or ""))


def _last(events: Iterable[AgentEvent]) -> RunResult:
    result = None
    for event in events:
        result = event.result or result
    if not isinstance(result, RunResult):  # pragma: no cover - the machine always ends with a result
        raise AgentError("the run ended without a result")
    return result


__all__ = ["AgentRunner", "BoundAgent", "MultiAgentRun", "RunResult", "ToolContext"]
