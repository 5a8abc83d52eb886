"""A finished run continues from its ``RunState`` with a new user message (``Agent.continue_from``,
``AgentRunner.continue_from``; sync and async), also after a JSON round trip in between."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from ragkit.agent import Agent, AgentRunner, RunState
from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.handoff import handoff
from ragkit.errors import AgentError
from ragkit.sessions.memory import MemorySessionStore
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_agent_run_continues_from_its_json_state(mode: str) -> None:
    provider = ScriptedProvider(["Paris.", "About 2.1 million.", "It is on the Seine."])
    agent = Agent(provider)
    first = agent.run("What is the capital of France?")
    saved = first.state.to_json()

    state = RunState.from_json(saved)  # e.g. in another process, later
    if mode == "sync":
        second = agent.continue_from(state, "How many people live there?")
    else:
        second = asyncio.run(agent.acontinue_from(state, "How many people live there?"))
    assert second.content == "About 2.1 million." and second.stop_reason == "stop"
    sent = [(m.role, m.content) for m in provider.calls[1].messages]
    assert sent == [("user", "What is the capital of France?"), ("assistant", "Paris."),
                    ("user", "How many people live there?")]
    assert second.state.run_id != first.state.run_id and second.trace.continued_from == first.state.run_id
    assert second.usage.llm_calls == 1 and second.iterations == 1  # this run's own usage and iterations
    assert second.trace.to_dict()["continued_from"] == first.state.run_id

    # the saved state is untouched: it continues again, as another branch
    third = agent.continue_from(RunState.from_json(saved), "Which river?")
    assert third.content == "It is on the Seine."
    assert [m.content for m in third.messages] == ["What is the capital of France?", "Paris.", "Which river?",
                                                    "It is on the Seine."]


@dataclass
class Shop:
    customer: str


@tool(inject=["ctx"])
def note(text: str, ctx: Any) -> str:
    """Remember a note."""
    ctx.state.setdefault("notes", []).append(text)
    return f"{len(ctx.state['notes'])} notes for {ctx.context.customer}"


def runner(script_b: list[Any]) -> AgentRunner:
    a = AgentDefinition(name="triage", provider=ScriptedProvider([tool_call_response(("transfer_to_billing", {}))]),
                        handoffs=[handoff("billing")])
    b = AgentDefinition(name="billing", provider=ScriptedProvider(script_b), tools=(note,))
    return AgentRunner([a, b], entry="triage", context_type=Shop)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_runner_run_continues_with_the_agent_that_spoke_last(mode: str) -> None:
    r = runner([tool_call_response(("note", {"text": "charged twice"})), "Noted.",
                tool_call_response(("note", {"text": "refund asked"})), "Refund noted."])
    first = r.run("I was charged twice", context=Shop("ada"))
    assert first.agent == "billing" and first.content == "Noted."
    state = RunState.from_json(first.state.to_json(), agents=r)
    if mode == "sync":
        second = r.continue_from(state, "Please refund me")
    else:
        second = asyncio.run(r.acontinue_from(state, "Please refund me"))
    assert second.agent == "billing" and second.content == "Refund noted."
    assert [t.output for t in second.tool_calls] == ["2 notes for ada"]  # tool state and context carried over
    assert second.state.tool_state == {"notes": ["charged twice", "refund asked"]}
    assert second.trace.continued_from == first.state.run_id and second.state.handoffs == 0


def test_what_cannot_be_continued_says_what_to_do() -> None:
    @tool
    def refund(amount: int) -> str:
        """Refund."""
        return "done"

    agent = AgentDefinition(name="a", provider=ScriptedProvider([tool_call_response(("refund", {"amount": 5}))]),
                            tools=(refund,), needs_approval=["refund"])
    r = AgentRunner([agent], entry="a")
    paused = r.run("refund me")
    with pytest.raises(AgentError, match=r"paused for approval.*resume\(\)"):
        r.continue_from(paused.state, "hello?")

    store = MemorySessionStore()
    r = AgentRunner([AgentDefinition(name="a", provider=ScriptedProvider(["hi"]))], entry="a", session_store=store)
    in_session = r.run("hello", session_id="s1")
    with pytest.raises(AgentError, match=r"session 's1'.*run\(message, session_id='s1'\)"):
        r.continue_from(in_session.state, "again")

    with pytest.raises(AgentError, match="continue a run with a user message"):
        Agent(ScriptedProvider(["x"])).run("q").state.continued([])



def test_a_run_that_asked_the_client_for_tool_results_continues_with_them() -> None:
    from ragkit.agent import AgentConfig
    from ragkit.messages import Message, ToolSpec

    where = ToolSpec("get_location", "The user's city.", {"type": "object", "properties": {}})
    provider = ScriptedProvider([tool_call_response(("get_location", {})), "You are in Paris."])
    agent = Agent(provider, config=AgentConfig(client_tools=[where]))
    asked = agent.run("Where am I?")
    assert asked.stop_reason == "tool_calls" and [c.name for c in asked.client_calls] == ["get_location"]
    state = RunState.from_json(asked.state.to_json())
    with pytest.raises(AgentError, match="waiting for the results of its tool calls"):
        agent.continue_from(state, "hello?")
    answer = Message(role="tool", tool_call_id=asked.client_calls[0].id, name="get_location", content="Paris")
    done = agent.continue_from(state, answer)
    assert done.content == "You are in Paris." and provider.calls[1].messages[-1].content == "Paris"
