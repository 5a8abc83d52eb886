"""The agent loop: answers, tool rounds, parallelism, failures, caps, streaming, batch, async."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragkit.agent import Agent, AgentConfig, AgentResult
from ragkit.errors import AgentError, ConfigError, ProviderError
from ragkit.messages import Response, ToolCall, Usage
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_plain_answer_without_tools() -> None:
    provider = ScriptedProvider(["hello"])
    result = Agent(provider, config=AgentConfig(system_prompt="Be brief.")).run("hi")
    assert result.content == "hello" and result.stop_reason == "stop" and result.iterations == 1
    sent = provider.calls[0].messages
    assert [m.role for m in sent] == ["system", "user"] and sent[0].content == "Be brief."


def test_tool_round_trip_feeds_results_back() -> None:
    provider = ScriptedProvider([tool_call_response(("add", {"a": 2, "b": 3})), "5"])
    result = Agent(provider, tools=[add]).run("2+3?")
    assert result.content == "5" and result.iterations == 2
    assert [c.output for c in result.tool_calls] == ["5"]
    second = provider.calls[1].messages
    assert second[-1].role == "tool" and second[-1].content == "5" and second[-1].name == "add"
    assert second[-1].tool_call_id == second[-2].tool_calls[0].id
    assert provider.calls[0].tool_names == ["add"]


def test_parallel_tool_calls_run_concurrently_and_keep_call_order() -> None:
    barrier = threading.Barrier(2, timeout=10)

    @tool
    def slow_first(x: str) -> str:
        barrier.wait()  # only returns if the other call is running at the same time
        return f"first:{x}"

    @tool
    def fast_second(x: str) -> str:
        barrier.wait()
        return f"second:{x}"

    provider = ScriptedProvider([tool_call_response(("slow_first", {"x": "a"}), ("fast_second", {"x": "b"})), "ok"])
    result = Agent(provider, tools=[slow_first, fast_second]).run("go")
    assert [c.output for c in result.tool_calls] == ["first:a", "second:b"]
    tool_msgs = [m for m in result.messages if m.role == "tool"]
    assert [m.name for m in tool_msgs] == ["slow_first", "fast_second"]


def test_sequential_mode_when_parallel_disabled() -> None:
    order: list[str] = []

    @tool
    def rec(x: str) -> str:
        order.append(x)
        return x

    calls = tool_call_response(("rec", {"x": "1"}), ("rec", {"x": "2"}), ("rec", {"x": "3"}))
    Agent(ScriptedProvider([calls, "ok"]), tools=[rec], config=AgentConfig(parallel_tool_calls=False)).run("go")
    assert order == ["1", "2", "3"]


def test_tool_errors_timeouts_unknown_tools_and_bad_json_become_observations() -> None:
    release = threading.Event()

    @tool
    def boom() -> str:
        raise RuntimeError("kaput")

    @tool(timeout=0.05)
    def hang() -> str:
        release.wait(10)
        return "late"

    bad_json = ToolCall(id="c9", name="add", raw_arguments="{oops", parse_error="Expecting property name")
    provider = ScriptedProvider([
        tool_call_response(("boom", {}), ("hang", {}), ("ad", {"a": 1})),
        Response(content="", tool_calls=(bad_json,), stop_reason="tool_calls"),
        "recovered",
    ])
    try:
        result = Agent(provider, tools=[add, boom, hang]).run("go")
    finally:
        release.set()
    assert result.content == "recovered" and result.stop_reason == "stop"
    kinds = [c.error_kind for c in result.tool_calls]
    assert kinds == ["exception", "timeout", "unknown_tool", "arguments"]
    outputs = [c.output for c in result.tool_calls]
    assert "raised RuntimeError: kaput" in outputs[0]
    assert "timed out after 0.05 s" in outputs[1]
    assert "unknown tool 'ad'; did you mean 'add'" in outputs[2]
    assert "not valid JSON (Expecting property name)" in outputs[3]
    assert len(result.trace.of_type("error")) == 4
    assert result.usage.by_tool["boom"].errors == 1 and "ad" not in result.usage.by_tool


def test_config_tool_timeout_applies_to_tools_without_their_own() -> None:
    release = threading.Event()

    @tool
    def hang() -> str:
        release.wait(10)
        return "late"

    provider = ScriptedProvider([tool_call_response(("hang", {})), "done"])
    try:
        result = Agent(provider, tools=[hang], config=AgentConfig(tool_timeout=0.05)).run("go")
    finally:
        release.set()
    assert result.tool_calls[0].error_kind == "timeout"


def test_max_iterations_is_enforced_and_says_so() -> None:
    provider = ScriptedProvider([tool_call_response(("add", {"a": 1, "b": 1})) for _ in range(5)])
    result = Agent(provider, tools=[add], config=AgentConfig(max_iterations=3)).run("loop forever")
    assert result.stop_reason == "max_iterations" and result.iterations == 3
    assert "Stopped after 3 iterations" in result.content and "max_iterations=3" in result.content
    assert len(provider.calls) == 3 and provider.remaining == 2


def test_invalid_config_values_are_rejected() -> None:
    with pytest.raises(ConfigError, match="max_iterations must be at least 1 \\(got 0\\)"):
        AgentConfig(max_iterations=0)
    with pytest.raises(ConfigError, match="temperature"):
        AgentConfig(temperature=3)
    with pytest.raises(ConfigError, match="model_params must not set"):
        AgentConfig(model_params={"temperature": 1})


def test_provider_params_are_passed() -> None:
    provider = ScriptedProvider(["ok"])
    Agent(provider, config=AgentConfig(temperature=0.2, max_tokens=50, model_params={"top_p": 0.9})).run("x")
    assert provider.calls[0].params == {"temperature": 0.2, "max_tokens": 50, "top_p": 0.9}


def test_provider_failure_raises_with_a_trace_step() -> None:
    def fail(messages, tools):  # type: ignore[no-untyped-def]
        raise ValueError("socket closed")

    with pytest.raises(AgentError, match="provider 'scripted' failed in iteration 1: ValueError: socket closed"):
        Agent(ScriptedProvider([fail])).run("x")
    with pytest.raises(ProviderError, match="ran out of responses"):
        Agent(ScriptedProvider([])).run("x")


def test_injected_context_reaches_tools() -> None:
    @tool(inject=["user"])
    def whoami(greeting: str, user: str) -> str:
        return f"{greeting}, {user}"

    provider = ScriptedProvider([tool_call_response(("whoami", {"greeting": "hi"})), "a",
                                 tool_call_response(("whoami", {"greeting": "yo"})), "b"])
    agent = Agent(provider, tools=[whoami], context={"user": "ada"})
    assert agent.run("x").tool_calls[0].output == "hi, ada"
    assert agent.run("x", context={"user": "bob"}).tool_calls[0].output == "yo, bob"


def test_stream_yields_text_tool_events_and_result() -> None:
    provider = ScriptedProvider([tool_call_response(("add", {"a": 1, "b": 2}), content="Let me add."), "It is 3."])
    events = list(Agent(provider, tools=[add]).stream("1+2?"))
    kinds = [e.type for e in events]
    assert kinds == ["text", "tool_start", "tool_end", "text", "result"]
    assert events[0].text == "Let me add." and events[2].tool_output == "3"
    final = events[-1].result
    assert isinstance(final, AgentResult) and final.content == "It is 3."
    assert all(s.streamed for s in final.trace.of_type("llm_call"))


def _echo_script(n: int) -> ScriptedProvider:
    """Answers each question with the number of messages it saw plus the question."""
    def answer(messages, tools):  # type: ignore[no-untyped-def]
        return Response(content=f"{len(messages)}:{messages[-1].content}", usage=Usage(3, 2))

    return ScriptedProvider([answer] * n)


def test_batch_items_have_isolated_histories() -> None:
    from ragkit.agent import ConversationMemory

    agent = Agent(_echo_script(3), config=AgentConfig(memory=ConversationMemory()))
    results = agent.batch(["a", "b", "c"])
    assert sorted(r.content for r in results) == ["1:a", "1:b", "1:c"]
    assert [r.content.split(":")[1] for r in results] == ["a", "b", "c"]  # input order
    assert len(agent.config.memory) == 0  # type: ignore[arg-type]


def test_async_run_stream_and_batch() -> None:
    async def main() -> None:
        provider = ScriptedProvider([tool_call_response(("add", {"a": 1, "b": 2})), "3"])
        result = await Agent(provider, tools=[add]).arun("1+2")
        assert result.content == "3" and result.tool_calls[0].output == "3"

        provider = ScriptedProvider([tool_call_response(("add", {"a": 1, "b": 2})), "3"])
        kinds = [e.type async for e in Agent(provider, tools=[add]).astream("1+2")]
        assert kinds == ["tool_start", "tool_end", "text", "result"]

        results = await Agent(_echo_script(2)).abatch(["x", "y"])
        assert [r.content for r in results] == ["1:x", "1:y"]

    asyncio.run(main())


def test_async_parallel_tools_run_concurrently_in_order() -> None:
    async def main() -> None:
        arrived: list[str] = []
        gate = asyncio.Event()

        @tool
        async def first(x: str) -> str:
            arrived.append("first")
            if len(arrived) == 2:
                gate.set()
            await asyncio.wait_for(gate.wait(), 10)
            return "1"

        @tool
        async def second(x: str) -> str:
            arrived.append("second")
            if len(arrived) == 2:
                gate.set()
            await asyncio.wait_for(gate.wait(), 10)
            return "2"

        provider = ScriptedProvider([tool_call_response(("first", {"x": ""}), ("second", {"x": ""})), "ok"])
        result = await Agent(provider, tools=[first, second]).arun("go")
        assert [c.output for c in result.tool_calls] == ["1", "2"]

    asyncio.run(main())


def test_provider_by_registry_name() -> None:
    agent = Agent("local")
    assert agent.provider.name == "local"
    with pytest.raises(AgentError, match="Provider protocol"):
        Agent(object())  # type: ignore[arg-type]
