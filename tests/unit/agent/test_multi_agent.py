"""Multi-agent runs: immutable definitions, handoffs as tools, the shared AgentRunner, sessions."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.handoff import IGNORED, HandoffInputData, handoff
from ragkit.agent.multi.runner import AgentRunner, ToolContext
from ragkit.agent.state import RunState
from ragkit.errors import ConfigError
from ragkit.messages import Message, Response, ToolSpec, Usage
from ragkit.sessions.memory import MemorySessionStore
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool


@dataclass
class Account:
    id: int
    total: int = 0
    notes: list[str] = field(default_factory=list)


@tool(inject=["ctx"])
def note(text: str, ctx: ToolContext) -> str:
    """Write a note on the account."""
    ctx.context.notes.append(text)
    ctx.state.setdefault("notes", []).append(text)
    return f"noted: {text}"


@tool(inject=["ctx"])
def bump(amount: int, ctx: ToolContext) -> str:
    """Add to the account's total."""
    ctx.context.total += amount
    return f"total {ctx.context.total}"


def agents(triage_script: list, billing_script: list, tech_script: list = ()) -> tuple[AgentDefinition, ...]:
    billing = AgentDefinition(name="billing", instructions="You handle billing.", description="payments",
                              provider=ScriptedProvider(billing_script), tools=[bump])
    tech = AgentDefinition(name="tech", instructions="You handle technical questions.",
                           provider=ScriptedProvider(list(tech_script)))
    triage = AgentDefinition(name="triage", instructions="Route the question.", provider=ScriptedProvider(triage_script),
                             tools=[note], handoffs=[handoff(billing), handoff(tech)])
    return triage, billing, tech


def test_two_handoffs_and_a_normal_call_in_one_turn() -> None:
    triage, billing, tech = agents(
        [tool_call_response(("transfer_to_billing", {}), ("transfer_to_tech", {}), ("note", {"text": "vip"}))],
        ["Billing here: your refund is on its way."])
    result = AgentRunner([triage, billing, tech], entry="triage").run("I was charged twice", context=Account(1))
    assert result.stop_reason == "stop" and result.agent == "billing"
    assert result.content == "Billing here: your refund is on its way."
    outputs = {m.name: m.content for m in result.messages if m.role == "tool"}
    assert outputs == {"transfer_to_billing": "Transferred to billing.", "transfer_to_tech": IGNORED,
                       "note": "noted: vip"}
    assert result.state.context.notes == ["vip"] and result.state.tool_state == {"notes": ["vip"]}
    assert [(m.role, m.agent) for m in result.messages if m.role == "assistant"] == [
        ("assistant", "triage"), ("assistant", "billing")]
    steps = result.trace.of_type("handoff")
    assert [(s.from_agent, s.to_agent, s.outcome) for s in steps] == [("triage", "billing", "transferred")]
    billing_call = billing.provider.calls[0]  # billing answered with its own prompt and tools
    assert billing_call.messages[0] == Message("system", "You handle billing.")
    assert billing_call.tool_names == ["bump"]
    assert tech.provider.calls == []


def test_ping_pong_stops_at_max_handoffs() -> None:
    def to(name: str):
        return lambda messages, tools: tool_call_response((f"transfer_to_{name}", {}))

    a = AgentDefinition(name="a", provider=ScriptedProvider([to("b")] * 10), handoffs=[handoff("b")])
    b = AgentDefinition(name="b", provider=ScriptedProvider([to("a")] * 10), handoffs=[handoff("a")])
    result = AgentRunner([a, b], entry="a", max_handoffs=3).run("hello")
    assert result.stop_reason == "max_handoffs" and "max_handoffs=3" in result.content
    assert result.state.handoffs == 3
    steps = result.trace.of_type("handoff")
    assert [s.outcome for s in steps] == ["transferred"] * 3 + ["max_handoffs"]
    assert [(s.from_agent, s.to_agent) for s in steps] == [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a")]
    assert a.provider.remaining == 8 and b.provider.remaining == 8  # 4 turns in all, no more


def test_a_handoff_to_an_agent_outside_the_registry_is_refused() -> None:
    a = AgentDefinition(name="a", provider=ScriptedProvider([tool_call_response(("transfer_to_ghost", {})),
                                                             "I will answer myself."]),
                        handoffs=[handoff("ghost")])
    result = AgentRunner([a], entry="a").run("hi")
    assert result.agent == "a" and result.content == "I will answer myself."
    refused = [m.content for m in result.messages if m.role == "tool"][0]
    assert refused.startswith("error: cannot hand off to 'ghost'") and "agents: a" in refused
    assert [s.outcome for s in result.trace.of_type("handoff")] == ["refused"]


def test_input_filter_and_on_handoff() -> None:
    seen: list[HandoffInputData] = []
    called: list[str | None] = []

    def last_user_only(data: HandoffInputData) -> Sequence[Message]:
        seen.append(data)
        return [m for m in data.messages if m.role == "user"][-1:]

    b = AgentDefinition(name="b", provider=ScriptedProvider(["B answers."]))
    a = AgentDefinition(name="a", provider=ScriptedProvider([tool_call_response(("go_b", {}))]),
                        handoffs=[handoff(b, tool_name="go_b", input_filter=last_user_only,
                                          on_handoff=lambda ctx: called.append(ctx.agent))])
    store = MemorySessionStore()
    result = AgentRunner([a, b], entry=a, session_store=store).run("question", session_id="s")
    assert seen[0].from_agent == "a" and seen[0].to_agent == "b"
    assert [m.role for m in b.provider.calls[0].messages] == ["user"]
    assert called == ["b"]
    assert result.content == "B answers."
    # the session keeps the whole conversation, filtered or not
    assert [(i.role, i.agent) for i in store.get_items("s")] == [
        ("user", None), ("assistant", "a"), ("tool", None), ("assistant", "b")]


def test_definitions_are_immutable_values() -> None:
    base = AgentDefinition(name="a", instructions="one", tools=[note])
    other = base.replace(instructions="two")
    assert base.instructions == "one" and other.instructions == "two" and other.tools == base.tools
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.instructions = "three"  # type: ignore[misc]
    assert isinstance(base.tools, tuple)
    with pytest.raises(ConfigError, match="agent name"):
        AgentDefinition(name="bad name!")
    with pytest.raises(ConfigError, match="unique"):
        AgentDefinition(name="a", tools=[note], handoffs=[handoff("x", tool_name="note")])
    with pytest.raises(ConfigError, match="entry agent 'nobody'"):
        AgentRunner([base], entry="nobody")


def _thread_script() -> list:
    """A stateless script: answers depend only on the messages, so any interleaving works."""
    def turn(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Response:
        last = messages[-1]
        if last.role == "user":
            amount = int(last.content.split()[-1])
            return tool_call_response(("bump", {"amount": amount}), usage=Usage(10, 5))
        return Response(content=f"done: {last.content}", usage=Usage(7, 3))
    return [turn] * 100


def test_fifty_threads_share_one_runner_in_isolation() -> None:
    agent = AgentDefinition(name="solo", provider=ScriptedProvider(_thread_script()), tools=[bump])
    store = MemorySessionStore()
    runner = AgentRunner([agent], entry="solo", session_store=store)
    contexts = [Account(i) for i in range(50)]
    results: dict[int, object] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(50)

    def work(i: int) -> None:
        try:
            start.wait()
            results[i] = runner.run(f"add {i + 1}", context=contexts[i], session_id=f"user-{i}")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(50):
        result = results[i]
        assert result.content == f"done: total {i + 1}"  # only its own bump, once
        assert result.state.context == Account(i, total=i + 1)
        assert contexts[i] == Account(i)  # the caller's object is deep-copied, never touched
        assert [m.content for m in result.messages if m.role == "user"] == [f"add {i + 1}"]
        assert (result.usage.input_tokens, result.usage.output_tokens) == (17, 8)
        assert result.usage.by_tool["bump"].calls == 1
        assert [it.content for it in store.get_items(f"user-{i}") if it.role == "user"] == [f"add {i + 1}"]


def test_a_session_continues_with_the_agent_that_last_spoke() -> None:
    triage, billing, tech = agents([tool_call_response(("transfer_to_billing", {}))],
                                   ["Billing: 5 EUR refunded.", "Billing again: anything else?"])
    store = MemorySessionStore()
    runner = AgentRunner([triage, billing, tech], entry="triage", session_store=store)
    runner.run("refund please", session_id="s1")
    second = runner.run("thanks", session_id="s1")
    assert second.agent == "billing" and second.content == "Billing again: anything else?"
    sent = billing.provider.calls[-1].messages
    assert [m.content for m in sent if m.role == "user"] == ["refund please", "thanks"]
    assert sent[0].content == "You handle billing."  # the current agent's prompt, not triage's
    items = store.get_items("s1")
    assert [i.agent for i in items if i.role == "assistant"] == ["triage", "billing", "billing"]
    assert items[-1].usage and items[-1].trace_id == second.state.run_id
    assert len(triage.provider.calls) == 1


def test_run_state_round_trips_through_plain_json() -> None:
    triage, billing, tech = agents([tool_call_response(("note", {"text": "x"}), ("transfer_to_tech", {}))],
                                   [], ["Tech answer."])
    runner = AgentRunner([triage, billing, tech], entry="triage", context_type=Account)
    result = runner.run("help", context=Account(3))
    text = result.state.to_json()
    again = RunState.from_json(text, agents=runner)
    assert again.current_agent == "tech" and again.context == Account(3, notes=["x"])
    assert again.to_dict() == result.state.to_dict()
    assert [m.agent for m in again.messages] == [m.agent for m in result.state.messages]
    with pytest.raises(Exception, match="registry lacks"):
        RunState.from_json(text, agents=[triage])
    with pytest.raises(Exception, match="context_type="):
        RunState.from_json(text)


def test_stream_and_arun_drive_the_same_runner() -> None:
    import asyncio

    def make() -> AgentRunner:
        triage, billing, tech = agents([tool_call_response(("transfer_to_tech", {}))], [], ["Tech: reinstall."])
        return AgentRunner([triage, billing, tech], entry="triage")

    events = list(make().stream("it crashes"))
    kinds = [e.type for e in events]
    assert kinds[:3] == ["tool_start", "tool_end", "handoff"] and kinds[-1] == "result"
    assert [e.text for e in events if e.type == "handoff"] == ["tech"]
    assert "".join(e.text for e in events if e.type == "text") == "Tech: reinstall."
    assert events[-1].result.agent == "tech"
    result = asyncio.run(make().arun("it crashes"))
    assert result.agent == "tech" and result.content == "Tech: reinstall."


def test_tools_see_the_runs_usage_and_agent() -> None:
    seen: list[tuple[str | None, int]] = []

    @tool(inject=["ctx"])
    def whoami(ctx: ToolContext) -> str:
        """Report the current agent."""
        seen.append((ctx.agent, ctx.usage.input_tokens))
        return str(ctx.agent)

    solo = AgentDefinition(name="solo", tools=[whoami], provider=ScriptedProvider(
        [tool_call_response(("whoami", {}), usage=Usage(11, 1)), "ok"]))
    AgentRunner([solo], entry="solo").run("who?")
    assert seen == [("solo", 11)]


def test_a_busy_session_refuses_a_second_run() -> None:
    store = MemorySessionStore()
    solo = AgentDefinition(name="solo", provider=ScriptedProvider(["one", "two"]))
    runner = AgentRunner([solo], entry="solo", session_store=store)
    first = runner.stream("hi", session_id="s")
    next(first)  # the first run holds the session's turn lease while it streams
    with pytest.raises(Exception, match="session 's' is busy"):
        runner.run("again", session_id="s")
    list(first)  # done: the lease is released
    assert runner.run("again", session_id="s").content == "two"


def test_the_runner_cache_serves_every_agent_and_max_history_bounds_the_session() -> None:
    from ragkit.cache import InMemoryCache

    cache = InMemoryCache()
    solo = AgentDefinition(name="solo", provider=ScriptedProvider(["first", "second", "third"]), max_history=2)
    runner = AgentRunner([solo], entry="solo", cache=cache)
    assert runner.run("same question").content == "first"
    assert runner.run("same question").content == "first"  # from the shared cache, not the script
    assert cache.stats.hits == 1 and solo.provider.remaining == 2
    provider = ScriptedProvider(["a1", "a2", "a3"])
    store = MemorySessionStore()
    for window, expected in ((2, ["q1", "a1", "q2"]), (1, ["q3"])):  # a window never starts inside a turn
        agent = solo.replace(provider=provider, max_history=window)
        runner = AgentRunner([agent], entry="solo", session_store=store)
        if window == 2:
            runner.run("q1", session_id="s")
        runner.run(expected[-1], session_id="s")
        assert [m.content for m in provider.calls[-1].messages] == expected


def test_a_context_that_cannot_be_copied_is_refused_clearly() -> None:
    solo = AgentDefinition(name="solo", provider=ScriptedProvider(["x"]))
    with pytest.raises(ConfigError, match="must be deep-copyable"):
        AgentRunner([solo], entry="solo").run("hi", context={"lock": threading.Lock()})
