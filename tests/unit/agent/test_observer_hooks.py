"""Observers given as plain functions (``fn(hook, run_id, *args)``), and the ``on_error`` hook of a
run that raised, for both kinds of observer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragkit.agent import Agent, Observer, RecordingObserver
from ragkit.agent.result import RunFailed
from ragkit.errors import ProviderError
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import calculator


def script() -> list[Any]:
    return [tool_call_response(("calculator", {"expression": "sqrt(16)"})), "4"]


def test_a_plain_function_sees_every_hook_as_an_observer_does() -> None:
    seen: list[tuple[str, str, tuple[Any, ...]]] = []
    rec = RecordingObserver()
    result = Agent(ScriptedProvider(script()), tools=[calculator],
                   observers=[lambda hook, run_id, *args: seen.append((hook, run_id, args)), rec]).run("root of 16?")
    assert result.content == "4"
    assert [s[0] for s in seen] == rec.names() and "on_tool_end" in rec.names()
    assert {s[1] for s in seen} == {result.trace.run_id}
    tool_end = next(args for hook, _, args in seen if hook == "on_tool_end")
    assert tool_end[0].name == "calculator" and tool_end[1].content == "4"


def test_on_error_reaches_functions_and_observers_before_the_end() -> None:
    class Errors(Observer):
        def __init__(self) -> None:
            self.errors: list[BaseException] = []

        def on_error(self, run_id: str, error: BaseException) -> None:
            self.errors.append(error)

    hooks: list[tuple[str, tuple[Any, ...]]] = []
    errors = Errors()
    agent = Agent(ScriptedProvider([]), observers=[lambda hook, run_id, *args: hooks.append((hook, args)), errors])
    with pytest.raises(ProviderError) as raised:
        agent.run("anything")
    assert errors.errors == [raised.value]
    names = [h for h, _ in hooks]
    assert names[-2:] == ["on_error", "on_agent_end"] and hooks[-2][1] == (raised.value,)
    assert isinstance(hooks[-1][1][0], RunFailed) and hooks[-1][1][0].error_type == "ProviderError"
    # the same through the async driver
    hooks.clear()
    with pytest.raises(ProviderError):
        asyncio.run(agent.arun("anything"))
    assert [h for h, _ in hooks][-2:] == ["on_error", "on_agent_end"]


def test_a_run_that_succeeds_reports_no_error() -> None:
    hooks: list[str] = []
    Agent(ScriptedProvider(script()), tools=[calculator], observers=[lambda hook, *_: hooks.append(hook)]).run("x")
    assert "on_error" not in hooks and hooks[-1] == "on_agent_end"


def test_a_failing_function_is_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    def broken(hook: str, run_id: str, *args: Any) -> None:
        raise RuntimeError("observer bug")

    assert Agent(ScriptedProvider(script()), tools=[calculator], observers=[broken]).run("x").content == "4"
    assert "observer FunctionObserver.on_agent_start raised" in caplog.text


def test_something_else_is_refused() -> None:
    with pytest.raises(TypeError, match=r"an observer is an Observer .* or a function fn\(hook, run_id, \*args\)"):
        Agent(ScriptedProvider([]), observers=["print"])  # type: ignore[list-item]
