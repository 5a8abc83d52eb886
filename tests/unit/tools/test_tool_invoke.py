"""Invoking tools: sync/async, timeouts, errors as observations, injection, ToolOutput, registry."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragkit.errors import ToolError
from ragkit.tools import Injected, Tool, ToolOutput, ToolRegistry, tool
from ragkit.types import Citation
from ragkit.usage import UsageStats


@tool
def add(a: int, b: int = 1) -> int:
    """Add two integers."""
    return a + b


@tool
async def aadd(a: int, b: int = 1) -> int:
    """Add two integers, asynchronously."""
    await asyncio.sleep(0)
    return a + b


def test_sync_and_async_tools_invoke_and_still_call_directly() -> None:
    assert add.invoke({"a": 2, "b": 3}).content == "5"
    assert aadd.invoke({"a": 2}).content == "3"
    assert asyncio.run(aadd.ainvoke({"a": 4})).content == "5"
    assert asyncio.run(add.ainvoke({"a": 4})).content == "5"
    assert add(1, 2) == 3


def test_return_values_are_converted_to_text() -> None:
    assert Tool(lambda: {"a": 1}, name="d").invoke({}).content == '{"a": 1}'
    assert Tool(lambda: None, name="n").invoke({}).content == "(no output)"


def test_exception_becomes_an_error_observation() -> None:
    @tool
    def boom(x: int) -> int:
        raise ValueError(f"bad x {x}")

    result = boom.invoke({"x": 3})
    assert result.is_error and result.error_kind == "exception"
    assert result.content == "error: tool 'boom' raised ValueError: bad x 3"


def test_validation_failure_becomes_an_error_observation() -> None:
    result = add.invoke({"a": "x"})
    assert result.is_error and result.error_kind == "validation"
    assert "argument 'a': expected integer" in result.content


def _blocking_tool(release: threading.Event, *, timeout: float | None = None) -> Tool:
    def slow() -> str:
        release.wait(10)
        return "late"

    return Tool(slow, timeout=timeout)


def test_sync_tool_timeout() -> None:
    release = threading.Event()
    try:
        result = _blocking_tool(release, timeout=0.05).invoke({})
    finally:
        release.set()
    assert result.is_error and result.error_kind == "timeout"
    assert "timed out after 0.05 s" in result.content


def test_async_tool_timeout_and_timeout_from_caller() -> None:
    @tool
    async def never() -> str:
        await asyncio.Event().wait()
        return "x"

    result = asyncio.run(never.ainvoke({}, timeout=0.05))
    assert result.error_kind == "timeout"
    release = threading.Event()
    try:
        result = asyncio.run(_blocking_tool(release).ainvoke({}, timeout=0.05))
    finally:
        release.set()
    assert result.error_kind == "timeout"


def test_injected_values_from_bind_and_context() -> None:
    @tool(inject=["user_id"])
    def whoami(greeting: str, user_id: str, db: Injected[dict]) -> str:
        return f"{greeting} {db[user_id]}"

    bound = whoami.bind(db={"u1": "Ada"})
    assert bound.invoke({"greeting": "hi"}, context={"user_id": "u1"}).content == "hi Ada"
    missing = whoami.invoke({"greeting": "hi"}, context={"user_id": "u1"})
    assert missing.is_error and missing.error_kind == "injection"
    assert "needs injected argument(s) ['db']" in missing.content
    with pytest.raises(ToolError, match="only injected parameters can be bound"):
        whoami.bind(greeting="x")
    # the model cannot smuggle an injected value in
    smuggled = bound.invoke({"greeting": "hi", "user_id": "u2"}, context={"user_id": "u1"})
    assert "unexpected argument 'user_id'" in smuggled.content


def test_tool_output_carries_usage_citations_and_data() -> None:
    cite = Citation(number=1, source="a.md", chunk_id="c1")

    @tool
    def search(query: str) -> ToolOutput:
        return ToolOutput(content="[1] source: a.md\ntext", usage=UsageStats(embedding_tokens=7), citations=[cite], data=[1])

    result = search.invoke({"query": "q"})
    assert result.content.startswith("[1]")
    assert result.usage == UsageStats(embedding_tokens=7)
    assert result.citations == [cite] and result.output is not None and result.output.data == [1]


def test_registry_rejects_duplicates_and_suggests_names() -> None:
    reg = ToolRegistry([add, aadd])
    assert reg.names() == ["add", "aadd"] and len(reg) == 2 and "add" in reg
    with pytest.raises(ToolError, match="duplicate tool name 'add'"):
        reg.register(Tool(lambda a: a, name="add"))
    with pytest.raises(ToolError, match="unknown tool 'ad'; did you mean 'add'"):
        reg.get("ad")
    assert [s.name for s in reg.specs()] == ["add", "aadd"]


def test_registry_wraps_plain_functions() -> None:
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    reg = ToolRegistry([shout])
    assert reg.get("shout").description == "Upper-case the text."


def test_generator_tools_stream_chunks_and_return_the_joined_text() -> None:
    @tool
    def lines(n: int):  # type: ignore[no-untyped-def]
        """Yield n lines."""
        for i in range(n):
            yield f"line {i}\n"

    @tool
    async def alines(n: int):  # type: ignore[no-untyped-def]
        """Yield n lines asynchronously."""
        for i in range(n):
            yield f"line {i}\n"

    for t in (lines, alines):
        seen: list[str] = []
        result = t.invoke({"n": 2}, on_chunk=seen.append)
        assert result.content == "line 0\nline 1\n" and seen == ["line 0\n", "line 1\n"] and t.streams
        seen.clear()
        result = asyncio.run(t.ainvoke({"n": 1}, on_chunk=seen.append))
        assert result.content == "line 0\n" and seen == ["line 0\n"]
