"""Usage limits: each is checked before the call that would exceed it; the run keeps its messages."""

from __future__ import annotations

import asyncio

import pytest

from ragkit import pricing
from ragkit.agent import Agent, AgentConfig
from ragkit.agent.observe.trace import StepKind
from ragkit.agent.result import BudgetExceeded
from ragkit.agent.values import UsageLimits
from ragkit.errors import ConfigError
from ragkit.messages import Usage
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool

calls: list[str] = []


@tool
def lookup(term: str) -> str:
    """Look a term up.

    Args:
        term: The term.
    """
    calls.append(term)
    return f"{term}: found"


TURN = Usage(100, 20)


def looping(n: int = 6, usage: Usage = TURN) -> ScriptedProvider:
    """A model that looks something up on every turn."""
    return ScriptedProvider([tool_call_response(("lookup", {"term": f"t{i}"}), usage=usage) for i in range(n)],
                            model="gpt-4o-mini")


def run(limits: UsageLimits, provider: ScriptedProvider, mode: str = "run") -> BudgetExceeded:
    agent = Agent(provider, tools=[lookup], config=AgentConfig(limits=limits, max_iterations=20))
    if mode == "stream":
        result = list(agent.stream("look things up"))[-1].result
    else:
        result = agent.run("look things up") if mode == "run" else asyncio.run(agent.arun("look things up"))
    assert isinstance(result, BudgetExceeded) and result.stop_reason == "budget"
    step = result.trace.of_type(StepKind.BUDGET)
    assert len(step) == 1 and step[0].limit == result.limit
    assert result.messages[0].role == "user" and result.messages[-1].role in ("tool", "assistant")
    return result


@pytest.mark.parametrize("mode", ["run", "stream", "arun"])
def test_requests_stop_before_the_call_that_would_exceed(mode: str) -> None:
    provider = looping()
    result = run(UsageLimits(requests=3), provider, mode)
    assert result.limit == "requests" and len(provider.calls) == 3 and result.maximum == 3
    assert len(result.messages) == 1 + 3 * 2  # user + 3 x (assistant tool call + tool result): all kept


def test_tool_calls_and_per_tool_calls() -> None:
    calls.clear()
    result = run(UsageLimits(tool_calls=2), looping())
    assert result.limit == "tool_calls" and calls == ["t0", "t1"]
    assert result.messages[-1].role == "tool" and "not run" in result.messages[-1].content
    calls.clear()
    result = run(UsageLimits(per_tool_calls={"lookup": 1}), looping())
    assert result.limit == "per_tool_calls[lookup]" and calls == ["t0"]


def test_a_final_turn_without_tools_answers_with_what_it_has() -> None:
    calls.clear()
    provider = looping(2)
    provider.add("From what I found: t0 exists.")
    result = run(UsageLimits(tool_calls=1, final_turn=True), provider)
    assert result.content == "From what I found: t0 exists." and result.limit == "tool_calls"
    assert provider.calls[-1].tools == [] and calls == ["t0"]


def test_input_output_and_total_tokens_are_checked_before_the_call() -> None:
    provider = looping()
    result = run(UsageLimits(input_tokens=250), provider)
    # two calls used 200; a third would send at least the second's 100 again: 300 > 250
    assert result.limit == "input_tokens" and len(provider.calls) == 2 and result.usage.input_tokens == 200
    provider = looping()
    result = run(UsageLimits(output_tokens=50), provider)
    assert result.limit == "output_tokens" and result.usage.output_tokens <= 60
    assert provider.calls[-1].params["max_tokens"] == 10  # the last call could only use the room left
    provider = looping()
    result = run(UsageLimits(total_tokens=300), provider)
    assert result.limit == "total_tokens" and len(provider.calls) == 2


def test_cost_is_checked_with_the_next_call_priced_in() -> None:
    provider = looping(usage=Usage(10_000, 1_000))
    one_call = pricing.price_llm("gpt-4o-mini", 10_000, 1_000)
    result = run(UsageLimits(cost_usd=one_call * 2.5), provider)
    assert result.limit == "cost_usd" and len(provider.calls) == 2
    assert result.usage.total_cost <= one_call * 2.5


def test_limits_are_validated() -> None:
    with pytest.raises(ConfigError, match="requests must be >= 0"):
        UsageLimits(requests=-1)


def test_the_final_turn_is_screened_and_streamed_like_any_answer() -> None:
    from ragkit.guardrails import GuardrailSet, PIIRedactor

    provider = looping(2)
    provider.add("Write to jo@example.com for more.")
    agent = Agent(provider, tools=[lookup], config=AgentConfig(
        limits=UsageLimits(tool_calls=1, final_turn=True), guardrails=GuardrailSet(output=[PIIRedactor()])))
    events = list(agent.stream("q"))
    assert [e.text for e in events if e.type == "text"] == ["Write to [EMAIL] for more."]
    assert events[-1].result.content == "Write to [EMAIL] for more." and events[-1].result.limit == "tool_calls"
