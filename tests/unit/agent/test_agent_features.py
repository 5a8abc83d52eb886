"""Observers, trace/result JSON, the cache path, usage attribution, memory in runs, README example."""

from __future__ import annotations

import json
import logging

import pytest

from ragkit.agent import (
    Agent,
    AgentConfig,
    AgentResult,
    AgentTrace,
    ConversationMemory,
    Observer,
    RecordingObserver,
)
from ragkit.cache import InMemoryCache
from ragkit.messages import Response, Usage
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import ToolOutput, tool
from ragkit.types import Citation
from ragkit.usage import UsageStats


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_observers_see_every_hook_in_order() -> None:
    rec = RecordingObserver()
    provider = ScriptedProvider([tool_call_response(("add", {"a": 1, "b": 2}), ("add", {"a": "x", "b": 1})), "3"])
    Agent(provider, tools=[add], observers=[rec]).run("go")
    assert rec.names() == [
        "on_agent_start",
        "on_iteration_start", "on_llm_start", "on_llm_end",
        "on_tool_start", "on_tool_start", "on_tool_end", "on_tool_error", "on_iteration_end",
        "on_iteration_start", "on_llm_start", "on_llm_end", "on_iteration_end",
        "on_agent_end",
    ]
    assert len({e[1] for e in rec.events}) == 1  # one run id


def test_a_failing_observer_is_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(Observer):
        def on_llm_end(self, *args: object) -> None:
            raise RuntimeError("observer bug")

        def on_tool_end(self, *args: object) -> None:
            raise RuntimeError("observer bug")

    rec = RecordingObserver()
    provider = ScriptedProvider([tool_call_response(("add", {"a": 1, "b": 2})), "3"])
    with caplog.at_level(logging.ERROR, logger="ragkit.agent.observe.observers"):
        result = Agent(provider, tools=[add], observers=[Broken(), rec]).run("go")
    assert result.content == "3" and result.tool_calls[0].output == "3"
    assert "on_agent_end" in rec.names()  # later observers still called
    assert "observer Broken.on_llm_end raised" in caplog.text


def test_trace_and_result_round_trip_through_json() -> None:
    cite = Citation(number=1, source="a.md", chunk_id="c1", page=2, score=0.5, text="t")

    @tool
    def search(query: str) -> ToolOutput:
        return ToolOutput(content="[1] source: a.md\nt", citations=[cite], usage=UsageStats(embedding_tokens=4))

    provider = ScriptedProvider([tool_call_response(("search", {"query": "q"}), usage=Usage(10, 2)),
                                 "answer [1]"], model="gpt-4o-mini")
    result = Agent(provider, tools=[search]).run("q?")
    text = result.to_json()
    again = AgentResult.from_json(text)
    assert json.loads(again.to_json()) == json.loads(text)
    assert again.citations == [cite] and again.messages == result.messages
    assert [s.type for s in again.trace.steps] == ["llm_call", "tool_call", "llm_call"]
    assert AgentTrace.from_json(result.trace.to_json()).steps == result.trace.steps
    step = result.trace.steps[1]
    assert step.duration >= 0 and step.start >= result.trace.steps[0].start


def test_cache_hit_counts_tokens_at_zero_cost_and_is_traced() -> None:
    cache = InMemoryCache()
    rec = RecordingObserver()
    answer = Response(content="cached answer", usage=Usage(1000, 100), model="gpt-4o")
    provider = ScriptedProvider([answer], model="gpt-4o")
    agent = Agent(provider, config=AgentConfig(cache=cache, temperature=0), observers=[rec])
    first = agent.run("same question")
    second = agent.run("same question")
    assert second.content == "cached answer" and len(provider.calls) == 1
    assert first.usage.llm_cost == pytest.approx((1000 * 2.5 + 100 * 10) / 1e6)
    assert second.usage.input_tokens == 1000 and second.usage.output_tokens == 100
    assert second.usage.llm_cost == 0 and second.usage.cache_hits == 1
    assert [s.type for s in second.trace.steps] == ["cache_hit"]
    assert "on_cache_hit" in rec.names() and cache.stats.hits == 1 and cache.stats.misses == 1
    # a different question, temperature or tool set is a miss
    provider.add("other")
    assert agent.run("another question").content == "other"


def test_streaming_bypasses_the_cache() -> None:
    cache = InMemoryCache()
    provider = ScriptedProvider(["a", "b"])
    agent = Agent(provider, config=AgentConfig(cache=cache))
    agent.run("q")
    events = list(agent.stream("q"))
    assert events[-1].result is not None and events[-1].result.content == "b"
    assert cache.stats.hits == 0


def test_tool_output_usage_is_attributed_per_tool_and_priced() -> None:
    @tool
    def search_knowledge_base(query: str) -> ToolOutput:
        """Search the knowledge base."""
        tokens = len(query.split())
        return ToolOutput(content=f"[1] source: a.md\n{query}",
                          usage=UsageStats(embedding_tokens=tokens, embedding_model="text-embedding-3-small"))

    provider = ScriptedProvider([
        tool_call_response(("search_knowledge_base", {"query": "refund policy days"}), usage=Usage(1200, 30)),
        tool_call_response(("search_knowledge_base", {"query": "refund contact"}), usage=Usage(1500, 25)),
        Response(content="Refunds take 5 days [1].", usage=Usage(1800, 40)),
    ], model="gpt-4o-mini")
    usage = Agent(provider, tools=[search_knowledge_base]).run("refunds?").usage
    assert (usage.input_tokens, usage.output_tokens) == (4500, 95)
    assert usage.embedding_tokens == 5
    per_tool = usage.by_tool["search_knowledge_base"]
    assert per_tool.calls == 2 and per_tool.embedding_tokens == 5
    assert per_tool.cost == pytest.approx(5 * 0.02 / 1e6)
    assert usage.llm_cost == pytest.approx((4500 * 0.15 + 95 * 0.60) / 1e6)
    assert usage.embedding_cost == pytest.approx(5 * 0.02 / 1e6)
    assert usage.total_cost == pytest.approx(usage.llm_cost + usage.embedding_cost)
    assert usage.total_tokens == 4500 + 95 + 5
    assert usage.summary_line() == "LLM 4,500 in / 95 out tokens · embeddings 5 tokens · cost $0.0007"


def test_memory_keeps_history_across_runs_for_chat() -> None:
    def echo(messages, tools):  # type: ignore[no-untyped-def]
        return " | ".join(m.content for m in messages if m.role == "user")

    memory = ConversationMemory(max_messages=4)
    agent = Agent(ScriptedProvider([echo] * 3), config=AgentConfig(system_prompt="sys", memory=memory))
    assert agent.run("one").content == "one"
    assert agent.run("two").content == "one | two"
    assert agent.run("three").content == "two | three"  # window of 4 messages = 2 turns
    assert [m.role for m in memory.messages()] == ["user", "assistant", "user", "assistant"]
    agent.reset()
    assert len(memory) == 0


def test_readme_example_runs_offline() -> None:
    from ragkit.agent import Agent
    from ragkit.rag.local import LocalProvider
    from ragkit.tools import tool

    @tool
    def word_count(text: str) -> int:
        """Count the words in a text."""
        return len(text.split())

    result = Agent(provider=LocalProvider(), tools=[word_count]).run("word count of 'a b c'")
    assert result.content == "The word_count tool returned: 3"  # the quoted text, not the 6-word prompt
    result = Agent(provider=LocalProvider(), tools=[word_count]).run("How many words are in this sentence?")
    assert result.content == "The word_count tool returned: 7"  # nothing quoted: the sentence itself
