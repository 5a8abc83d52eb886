"""``AgentRunner``: several agents, handoffs between them, sessions, approvals — one long-lived object.

The runner is built once (a frozen registry: agent name → definition, provider, tools, config)
and is safe to share between threads. Each ``run``/``stream``/``arun``/``resume`` makes a
``Runner`` for that run alone: a deep copy of the caller's ``context``, its own ``RunState``
(messages, usage, tool state, trace) and a ``ToolContext`` that tools declare as an injected
parameter named ``ctx`` (``@tool(inject=["ctx"])``); no run can see another's.

    runner = AgentRunner([triage, billing, tech], entry="triage", session_store=open_session_store(url))
    result = runner.run("Why was I charged twice?", session_id="user-42", context=Account(id=42))
    result.agent           # who answered: "billing"
    if result.stop_reason == "paused":                     # a call waits for a human
        text = result.state.to_json()                      # ... store it, decide later, elsewhere:
        state = RunState.from_json(text, agents=runner); state.approve(call_id); runner.resume(state)

With a ``session_id`` the conversation comes from the session store and continues with the agent
that last spoke; the run's new messages (each assistant message naming its agent) are written
back when it ends or pauses. A paused turn is not written until it is answered, so a session never
holds a tool call without its result.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import logging
import types
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.agent.config import AgentConfig
from ragkit.agent.definition import AgentDefinition
from ragkit.agent.handoff import Handoff, HandoffInputData, Handoffs
from ragkit.agent.observers import Observer, ObserverSet
from ragkit.agent.result import AgentEvent, AgentResult
from ragkit.agent.state import Run, RunState
from ragkit.errors import AgentError, ConfigError
from ragkit.messages import Message
from ragkit.providers.base import Provider
from ragkit.sessions.messages import items_to_messages, last_agent, message_to_item
from ragkit.tools.registry import ToolRegistry
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
                 observers: Sequence[Observer] = (), session_lease: float = 600.0) -> None:
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
        self.context_type = context_type
        self.per_run = types.MappingProxyType(dict(per_run or {}))
        self.observers = ObserverSet(observers)

    def __repr__(self) -> str:
        return f"AgentRunner(agents={list(self.agents)}, entry={self.entry!r})"

    def names(self) -> list[str]:
        return list(self.agents)

    # --- entry points (sync and async drive the same Runner) -----------------------------------

    def run(self, input: str | Sequence[Message], *, context: Any = None, session_id: str | None = None) -> RunResult:
        """Run to the end (an answer, a cap, or a pause for approval)."""
        return _last(self.runner(input, context=context, session_id=session_id).events(streaming=False))

    def stream(self, input: str | Sequence[Message], *, context: Any = None,
               session_id: str | None = None) -> Iterator[AgentEvent]:
        """Text deltas, tool and ``handoff`` events, then one ``result`` event (a ``RunResult``)."""
        yield from self.runner(input, context=context, session_id=session_id).events(streaming=True)

    async def arun(self, input: str | Sequence[Message], *, context: Any = None,
                   session_id: str | None = None) -> RunResult:
        runner = self.runner(input, context=context, session_id=session_id)
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
        return _last(Runner(self, state.bind(self)).events(streaming=False))

    def runner(self, input: str | Sequence[Message], *, context: Any = None, session_id: str | None = None) -> Runner:
        """The per-run ``Runner`` of a new run (``run``/``stream`` use it)."""
        history: list[Message] = []
        if session_id is not None and self.session_store is not None:
            history = items_to_messages(self.session_store.get_items(session_id))
        speaker = last_agent(history)
        name = speaker if speaker in self.agents else self.entry
        new = [Message(role="user", content=input)] if isinstance(input, str) else list(input)
        window = self.agents[name].definition.max_history
        if window is not None and len(history) > window:
            history = history[len(history) - window:]
            while history and history[0].role != "user":  # never start inside a turn
                history.pop(0)
        try:
            own = copy.deepcopy(context)
        except Exception as exc:
            raise ConfigError(f"run(context=...) must be deep-copyable, so that no run sees another's "
                              f"({type(exc).__name__}: {exc}); pass shared resources (clients, locks) as "
                              "tool.bind(...) or AgentRunner(per_run=...) instead") from exc
        return Runner(self, None, prompt=[*history, *new], new=len(new), agent=name, context=own,
                      session_id=session_id)


class Runner:
    """One run of an ``AgentRunner``: its state, its ``ToolContext``, its handoff rules."""

    def __init__(self, owner: AgentRunner, state: RunState | None, *, prompt: Sequence[Message] = (),
                 new: int = 0, agent: str | None = None, context: Any = None,
                 session_id: str | None = None) -> None:
        """A new run of ``prompt`` (its last ``new`` messages are this run's input), or the
        continuation of a saved ``state``."""
        self.owner = owner
        name = state.current_agent if state is not None else agent
        if name not in owner.agents:
            raise AgentError(f"the run's current agent '{name}' is not one of the runner's agents "
                             f"({', '.join(owner.agents)})")
        bound = owner.agents[name]
        injected = {k: make() for k, make in owner.per_run.items()}  # the run holds this dict
        self.run = run = Run(provider=bound.provider, config=bound.config, tools=bound.tools,
                             observers=owner.observers, context=injected, prompt=list(prompt),
                             use_memory=False, state=state)
        if state is None:  # a new run: the history before the new messages is already in the session
            run.state.current_agent, run.state.context, run.state.session_id = name, context, session_id
            run.state.saved = len(run.messages) - new
            run.agent_name = name
        self.tool_context = injected["ctx"] = ToolContext(run.state)
        self.handoffs = Handoffs(by_agent={n: b.handoffs for n, b in owner.agents.items()}, known=list(owner.agents),
                                 max_handoffs=owner.max_handoffs, switch=self.switch, tool_context=self.tool_context)
        run.prechecks.append(self.handoffs.precheck)
        run.handoff = self.handoffs.step
        run.needs_approval = bound.definition.approval_check()
        store = owner.session_store
        if store is not None and hasattr(store, "claim_tool_call"):
            run.execution_log = store

    @property
    def state(self) -> RunState:
        return self.run.state

    def switch(self, run: Run, target: Handoff) -> None:
        """Make ``target`` the current agent of ``run`` (its provider, tools, config and prompt)."""
        bound = self.owner.agents[target.agent]
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
            self.save(upto=len(run.messages))  # the session keeps the whole conversation
            rest = list(target.input_filter(HandoffInputData(tuple(rest), source, target.agent)))
        system = [Message(role="system", content=bound.config.system_prompt)] if bound.config.system_prompt else []
        run.messages[:] = [*system, *rest]
        if target.input_filter is not None:
            st.saved = len(run.messages)

    # --- driving -----------------------------------------------------------------------------

    def events(self, *, streaming: bool) -> Iterator[AgentEvent]:
        from ragkit.agent.drivers import drive
        from ragkit.agent.loop import run_steps

        with self._turn():
            for event in drive(run_steps(self.run, streaming), self.run.provider):
                yield self._complete(event)

    async def aevents(self, *, streaming: bool) -> AsyncIterator[AgentEvent]:
        from ragkit.agent.drivers import adrive
        from ragkit.agent.loop import run_steps

        with self._turn():
            async for event in adrive(run_steps(self.run, streaming), self.run.provider):
                yield self._complete(event)

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """Hold the session's turn lease while the run reads and writes it."""
        store, session = self.owner.session_store, self.run.state.session_id
        if store is None or session is None or not hasattr(store, "try_lock"):
            yield
            return
        from ragkit.sessions.db import lock_holder

        holder = lock_holder(f"run-{self.run.run_id}")
        if not store.try_lock(session, holder, self.owner.session_lease):
            raise AgentError(f"session {session!r} is busy: another run is answering in it; "
                             "wait for it to finish, or use another session_id")
        try:
            yield
        finally:
            store.unlock(session, holder)

    def _complete(self, event: AgentEvent) -> AgentEvent:
        if event.type != "result" or event.result is None:
            return event
        result = event.result
        paused = result.stop_reason == "paused"
        self.save(upto=len(self.run.messages) - 1 if paused else len(self.run.messages), result=result)
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(AgentResult)}
        fields["state"] = self.run.state
        return dataclasses.replace(event, result=RunResult(**fields, agent=self.run.agent_name or ""))

    def save(self, *, upto: int, result: AgentResult | None = None) -> None:
        """Write the messages ``saved:upto`` to the session (the final answer with usage and citations)."""
        st, store = self.run.state, self.owner.session_store
        if store is None or st.session_id is None or upto <= st.saved:
            return
        new = [m for m in st.messages[st.saved:upto] if m.role != "system"]
        items = []
        for i, message in enumerate(new):
            extra: dict[str, Any] = {"trace_id": st.run_id, "request_id": st.run_id}
            if result is not None and i == len(new) - 1 and message.role == "assistant":
                extra.update(usage=result.usage.to_dict(), citations=[c.to_dict() for c in result.citations])
            items.append(message_to_item(message, **extra))
        there = len(store.find_request(st.session_id, st.run_id)) - st.written  # a retried resume wrote these
        if there < len(items):
            store.add_items(st.session_id, items[max(0, there):])
        st.saved, st.written = upto, st.written + len(items)


def _last(events: Iterable[AgentEvent]) -> RunResult:
    result = None
    for event in events:
        result = event.result or result
    if not isinstance(result, RunResult):  # pragma: no cover - the machine always ends with a result
        raise AgentError("the run ended without a result")
    return result


__all__ = ["AgentRunner", "BoundAgent", "RunResult", "Runner", "ToolContext"]
