"""A tool's own retry policy: ``@tool(retries=..., retry_on=..., backoff=...)``, the attempt number a
tool sees (``current_attempt``, ``ToolContext.attempt``), the tries in the trace; a call a person
approved runs exactly once whatever its policy."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragkit.agent import Agent, AgentConfig
from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.runner import AgentRunner
from ragkit.agent.state import RunState
from ragkit.agent.values import ToolPolicy
from ragkit.errors import ToolError
from ragkit.retry import RetryPolicy
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import current_attempt, tool


def flaky(failures: int, exc: type[Exception] = ConnectionError, **options: Any) -> tuple[Any, list[int]]:
    """A tool that raises ``exc`` on its first ``failures`` tries; the attempts it saw."""
    seen: list[int] = []

    @tool(name="fetch", **options)
    def fetch(url: str) -> str:
        """Fetch a page."""
        seen.append(current_attempt())
        if len(seen) <= failures:
            raise exc(f"try {len(seen)} failed")
        return f"page {url}"

    return fetch, seen


def script() -> ScriptedProvider:
    return ScriptedProvider([tool_call_response(("fetch", {"url": "a"})), "done"])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_flaky_tool_is_retried_and_the_tries_are_in_the_trace(mode: str) -> None:
    fetch, seen = flaky(2, retries=2, retry_on=ConnectionError, backoff=0)
    agent = Agent(script(), tools=[fetch])
    result = agent.run("go") if mode == "sync" else asyncio.run(agent.arun("go"))
    assert seen == [1, 2, 3] and result.content == "done"
    step = result.trace.of_type("tool_call")[0]
    assert not step.is_error and step.output == "page a" and step.attempts == 3
    assert step.retried == ["ConnectionError: try 1 failed", "ConnectionError: try 2 failed"]
    assert result.trace.to_dict()["steps"][1]["attempts"] == 3  # in the JSON trace too


def test_only_the_named_errors_are_retried_and_retries_run_out() -> None:
    fetch, seen = flaky(5, exc=ValueError, retries=3, retry_on=ConnectionError, backoff=0)
    result = Agent(script(), tools=[fetch]).run("go")
    step = result.trace.of_type("tool_call")[0]
    assert seen == [1] and step.is_error and step.attempts == 1 and "ValueError" in step.output
    fetch, seen = flaky(5, retries=1, backoff=0)  # retry_on defaults to any exception
    step = Agent(script(), tools=[fetch]).run("go").trace.of_type("tool_call")[0]
    assert seen == [1, 2] and step.is_error and step.attempts == 2 and "try 2 failed" in step.output


def test_bad_arguments_are_never_retried() -> None:
    fetch, seen = flaky(0, retries=3, backoff=0)
    provider = ScriptedProvider([tool_call_response(("fetch", {"url": 3.5, "extra": 1})), "done"])
    step = Agent(provider, tools=[fetch]).run("go").trace.of_type("tool_call")[0]
    assert seen == [] and step.error_kind == "validation" and step.attempts == 1


def test_backoff_doubles_per_retry() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    policy = RetryPolicy(base_delay=0.5, async_sleep=sleep, random=lambda: 1.0)
    fetch, seen = flaky(3, retries=3, backoff=policy)
    result = fetch.invoke({"url": "a"})
    assert seen == [1, 2, 3, 4] and result.content == "page a" and result.attempts == 4
    assert waits == [0.5, 1.0, 2.0]


def test_a_timeout_is_retried_only_when_named() -> None:
    calls: list[int] = []

    async def slow_then_fast(url: str) -> str:
        calls.append(current_attempt())
        if len(calls) == 1:
            await asyncio.sleep(5)
        return "ok"

    named = tool(slow_then_fast, retries=1, retry_on=TimeoutError, backoff=0, timeout=0.05)
    assert named.invoke({"url": "a"}).content == "ok" and calls == [1, 2]
    calls.clear()
    unnamed = tool(slow_then_fast, retries=1, backoff=0, timeout=0.05)
    result = unnamed.invoke({"url": "a"})
    assert result.error_kind == "timeout" and calls == [1]


def test_bad_retry_options_are_refused() -> None:
    def f(x: int) -> int:
        return x

    with pytest.raises(ToolError, match="retries must be a whole number"):
        tool(f, retries=-1)
    with pytest.raises(ToolError, match="retry_on must be an exception class"):
        tool(f, retries=1, retry_on="ConnectionError")  # type: ignore[arg-type]
    with pytest.raises(ToolError, match="backoff must be seconds"):
        tool(f, retries=1, backoff=-1)


def test_tool_context_attempt_in_a_runner() -> None:
    seen: list[int] = []

    @tool(inject=["ctx"], retries=2, backoff=0)
    def charge(amount: int, ctx: Any) -> str:
        """Charge the card."""
        seen.append(ctx.attempt)
        if ctx.attempt < 2:
            raise ConnectionError("gateway busy")
        return f"charged {amount}"

    agent = AgentDefinition(name="a", provider=ScriptedProvider([tool_call_response(("charge", {"amount": 5})), "ok"]),
                            tools=(charge,))
    result = AgentRunner([agent], entry="a").run("charge 5")
    assert seen == [1, 2] and result.trace.of_type("tool_call")[0].attempts == 2


def test_an_approved_call_runs_exactly_once_whatever_its_retry_policy() -> None:
    ran: list[int] = []

    @tool(retries=3, backoff=0)
    def refund(amount: int) -> str:
        """Refund the customer."""
        ran.append(current_attempt())
        raise ConnectionError("bank offline")

    # paused for a person, approved, resumed from JSON
    provider = ScriptedProvider([tool_call_response(("refund", {"amount": 5})), "Sorry, it failed."])
    agent = AgentDefinition(name="a", provider=provider, tools=(refund,), needs_approval=["refund"])
    runner = AgentRunner([agent], entry="a")
    paused = runner.run("refund me")
    assert paused.stop_reason == "paused" and ran == []
    state = RunState.from_json(paused.state.to_json(), agents=runner)
    state.approve(state.pending[0]["call_id"])
    result = runner.resume(state)
    step = result.trace.of_type("tool_call")[-1]
    assert ran == [1] and step.attempts == 1 and step.is_error and result.content == "Sorry, it failed."

    # approved on the spot by an approval handler
    ran.clear()
    config = AgentConfig(policy=ToolPolicy(review=["refund"]), approval_handler=lambda request: True)
    provider = ScriptedProvider([tool_call_response(("refund", {"amount": 5})), "Sorry."])
    result = Agent(provider, tools=[refund], config=config).run("refund me")
    assert ran == [1] and result.trace.of_type("tool_call")[0].attempts == 1

    # not under review: the policy retries
    ran.clear()
    Agent(ScriptedProvider([tool_call_response(("refund", {"amount": 5})), "Sorry."]), tools=[refund]).run("refund")
    assert ran == [1, 2, 3, 4]
