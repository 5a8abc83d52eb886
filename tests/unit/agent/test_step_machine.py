"""The step machine: streaming (generator) tools, RunState as plain data, driving it by hand."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

from ragkit.agent import Agent, AgentConfig, RecordingObserver
from ragkit.agent.actions import END, CallModel, Pull, RunTools
from ragkit.agent.loop import run_steps
from ragkit.agent.observe.observers import ObserverSet
from ragkit.agent.result import AgentEvent
from ragkit.agent.state import Run, RunState
from ragkit.messages import Response
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import ToolRegistry, tool


@tool
def count_up(n: int) -> Iterator[str]:
    """Count from 1 to n, one line at a time."""
    for i in range(1, n + 1):
        yield f"{i}\n"


@tool
async def acount_up(n: int) -> AsyncIterator[str]:
    """Count from 1 to n asynchronously."""
    for i in range(1, n + 1):
        await asyncio.sleep(0)
        yield f"{i}\n"


def test_a_generator_tool_streams_chunks_and_the_model_gets_the_joined_result() -> None:
    rec = RecordingObserver()
    provider = ScriptedProvider([tool_call_response(("count_up", {"n": 3})), "done"])
    events = list(Agent(provider, tools=[count_up], observers=[rec]).stream("count"))
    kinds = [e.type for e in events]
    assert kinds == ["tool_start", "tool_chunk", "tool_chunk", "tool_chunk", "tool_end", "text", "result"]
    assert [e.text for e in events if e.type == "tool_chunk"] == ["1\n", "2\n", "3\n"]
    assert events[4].tool_output == "1\n2\n3\n"
    result = events[-1].result
    assert result is not None and [m.content for m in result.messages if m.role == "tool"] == ["1\n2\n3\n"]
    chunks = [args[1] for name, _, args in rec.events if name == "on_tool_chunk"]
    assert chunks == ["1\n", "2\n", "3\n"]


def test_an_async_generator_tool_streams_in_both_drivers() -> None:
    provider = ScriptedProvider([tool_call_response(("acount_up", {"n": 2})), "ok"])
    result = Agent(provider, tools=[acount_up]).run("count")
    assert result.tool_calls[0].output == "1\n2\n"

    async def main() -> list[AgentEvent]:
        provider = ScriptedProvider([tool_call_response(("acount_up", {"n": 2}), ("count_up", {"n": 1})), "ok"])
        return [e async for e in Agent(provider, tools=[acount_up, count_up]).astream("count")]

    events = asyncio.run(main())
    chunks = sorted((e.tool_call.name, e.text) for e in events if e.type == "tool_chunk" and e.tool_call)
    assert chunks == [("acount_up", "1\n"), ("acount_up", "2\n"), ("count_up", "1\n")]
    ends = [e.tool_output for e in events if e.type == "tool_end"]
    assert ends == ["1\n2\n", "1\n"]  # call order


def test_a_failing_generator_tool_is_an_observation() -> None:
    @tool
    def broken() -> Iterator[str]:
        """Yields once, then fails."""
        yield "partial"
        raise ValueError("disk gone")

    provider = ScriptedProvider([tool_call_response(("broken", {})), "sorry"])
    result = Agent(provider, tools=[broken]).run("go")
    call = result.tool_calls[0]
    assert call.is_error and "ValueError: disk gone" in call.output and result.content == "sorry"


def _run(provider: ScriptedProvider) -> Run:
    return Run(provider=provider, config=AgentConfig(), tools=ToolRegistry([count_up]), observers=ObserverSet(),
               prompt="count", context={}, use_memory=False)


def test_the_machine_yields_actions_and_never_does_io_itself() -> None:
    provider = ScriptedProvider([])
    run = _run(provider)
    steps = run_steps(run, streaming=False)
    action = next(steps)
    assert isinstance(action, CallModel) and action.stream is False
    assert [m.content for m in action.messages] == ["count"] and action.tools and action.tools[0].name == "count_up"
    # answer the model call by hand: ask for the tool
    action = steps.send(tool_call_response(("count_up", {"n": 1})))
    assert isinstance(action, AgentEvent) and action.type == "tool_start"
    action = next(steps)
    assert isinstance(action, RunTools) and [j.call.name for j in action.jobs] == ["count_up"]
    source = iter([])  # any object: the machine only hands it back in Pull actions
    action = steps.send(source)
    assert isinstance(action, Pull) and action.source is source
    from ragkit.agent.actions import ToolDone
    from ragkit.tools.tool import ToolResult

    action = steps.send(ToolDone(0, ToolResult("count_up", "1\n")))
    assert isinstance(action, Pull)
    action = steps.send(END)
    assert isinstance(action, AgentEvent) and action.type == "tool_end" and action.tool_output == "1\n"
    action = next(steps)
    assert isinstance(action, CallModel) and action.messages[-1].role == "tool"
    final = steps.send(Response(content="one"))
    assert isinstance(final, AgentEvent) and final.type == "result" and final.result is not None
    assert final.result.content == "one" and provider.calls == []  # the machine never called it


def test_run_state_is_plain_serializable_data() -> None:
    provider = ScriptedProvider([tool_call_response(("count_up", {"n": 2})), "two"])
    run = _run(provider)
    for _ in __import__("ragkit.agent.drivers", fromlist=["drive"]).drive(run_steps(run, False), provider):
        pass
    state = run.state
    assert state.provider == "scripted" and state.tools == ["count_up"] and state.iteration == 2
    text = json.dumps(state.to_dict())
    again = RunState.from_dict(json.loads(text))
    assert again.to_dict() == state.to_dict()
    assert [m.role for m in again.messages] == ["user", "assistant", "tool", "assistant"]


def test_a_saved_state_resumes_where_it_stopped() -> None:
    from ragkit.agent.drivers import drive

    first = ScriptedProvider([tool_call_response(("count_up", {"n": 2}))])
    run = _run(first)
    steps = run_steps(run, streaming=False)
    events = []
    for event in drive(steps, first):  # stop after the tool results are in
        events.append(event)
        if event.type == "tool_end":
            break
    saved = json.loads(json.dumps(run.state.to_dict()))

    second = ScriptedProvider(["two"])
    resumed = Run(provider=second, config=AgentConfig(), tools=ToolRegistry([count_up]), observers=ObserverSet(),
                  context={}, state=RunState.from_dict(saved))
    result = [e for e in drive(run_steps(resumed, streaming=False), second) if e.type == "result"][0].result
    assert result is not None and result.content == "two" and result.iterations == 2
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    assert result.tool_calls[0].output == "1\n2\n" and second.calls[0].messages[-1].role == "tool"
