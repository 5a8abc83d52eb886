"""Honest costs in the agent loop, context windows used, per-iteration usage, streaming-tool
analytics and ``@tool("description")``."""

from __future__ import annotations

import json
import logging
import time

import pytest

from ragkit import pricing
from ragkit.agent import Agent, AgentConfig, ConversationMemory, RecordingObserver, UsageLimits
from ragkit.agent.memory import ELIDED
from ragkit.agent.observe.analytics import Analytics
from ragkit.agent.result import BudgetExceeded
from ragkit.errors import ToolError
from ragkit.messages import Response, Usage
from ragkit.testing import ScriptedProvider
from ragkit.testing.scripted import tool_call_response
from ragkit.tools import tool


def answer(text: str = "done", *, tokens: tuple[int, int] = (1000, 100), model: str = "") -> Response:
    return Response(content=text, usage=Usage(*tokens), model=model)


def search_turn(query: str = "q", *, tokens: tuple[int, int] = (1000, 100)) -> Response:
    return tool_call_response(("lookup", {"query": query}), usage=Usage(*tokens))


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"result for {query}"


# ------------------------------------------------------------------ unpriced, never $0


def test_an_unpriced_model_shows_null_cost_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    agent = Agent(ScriptedProvider([answer(), answer()], model="house-llm"))
    with caplog.at_level(logging.WARNING, logger="ragkit.pricing"):
        first, second = agent.run("hi"), agent.run("again")
    for result in (first, second):
        u = result.usage
        assert u.llm_cost is None and u.total_cost is None and u.unpriced == ["house-llm"]
        assert u.summary_line().endswith("cost unpriced (no price for house-llm)")
        assert result.to_dict()["usage"]["total_cost"] is None
        assert result.trace.of_type("llm_call")[0].cost is None
        assert json.loads(result.trace.to_json())["steps"][0]["cost"] is None
    assert caplog.text.count("model 'house-llm' through provider 'scripted'") == 1
    assert "ragkit.pricing.register('house-llm'" in caplog.text


def test_a_cost_limit_refuses_an_unpriced_model_before_calling_it() -> None:
    provider = ScriptedProvider([answer()], model="house-llm")
    result = Agent(provider, config=AgentConfig(limits=UsageLimits(cost_usd=1.0))).run("hi")
    assert isinstance(result, BudgetExceeded) and result.limit == "cost_usd" and result.stop_reason == "budget"
    assert provider.calls == []  # nothing was sent
    assert "has no price" in result.content and "pricing:" in result.content
    pricing.register("house-llm", input=1.0, output=2.0)  # with a price, the same limit lets it run
    ok = Agent(ScriptedProvider([answer()], model="house-llm"),
               config=AgentConfig(limits=UsageLimits(cost_usd=1.0))).run("hi")
    assert ok.stop_reason == "stop" and ok.usage.total_cost == pytest.approx((1000 * 1.0 + 100 * 2.0) / 1e6)


def test_a_cost_limit_stops_once_an_unpriced_tool_made_the_cost_unknown() -> None:
    from ragkit.tools import ToolOutput
    from ragkit.usage import UsageStats

    @tool
    def embed_search(query: str) -> ToolOutput:
        """Search with an embedding model nobody priced."""
        return ToolOutput("found", usage=UsageStats(embedding_tokens=50, embedding_model="house-embed"))

    provider = ScriptedProvider([tool_call_response(("embed_search", {"query": "x"}), usage=Usage(100, 10)),
                                 answer()], model="gpt-4o-mini")
    result = Agent(provider, tools=[embed_search], config=AgentConfig(limits=UsageLimits(cost_usd=1.0))).run("hi")
    assert isinstance(result, BudgetExceeded) and result.used is None and len(provider.calls) == 1
    assert result.usage.unpriced == ["house-embed"] and "house-embed has no price" in result.content


# ------------------------------------------------------------------ warnings and per-iteration usage


def test_warn_cost_usd_warns_once_and_the_run_continues() -> None:
    script = [search_turn("a"), search_turn("b"), answer("final", tokens=(1000, 100))]
    rec = RecordingObserver()
    one_call = pricing.price_llm("gpt-4o", 1000, 100)
    agent = Agent(ScriptedProvider(script, model="gpt-4o"), tools=[lookup], observers=[rec],
                  config=AgentConfig(limits=UsageLimits(warn_cost_usd=one_call * 1.5)))
    events = list(agent.stream("go"))
    result = events[-1].result
    assert result.stop_reason == "stop" and result.content == "final" and result.iterations == 3
    warnings = [e for e in events if e.type == "warning"]
    assert len(warnings) == 1 and "reaching UsageLimits.warn_cost_usd" in warnings[0].text
    assert warnings[0].iteration == 2  # the second call crossed 1.5 calls' worth
    assert [e[2] for e in rec.events if e[0] == "on_cost_warning"] == [(one_call * 1.5, pytest.approx(2 * one_call))]
    step = result.trace.of_type("budget")[0]
    assert step.action == "warn" and step.limit == "warn_cost_usd"


def test_usage_iterations_break_the_run_down() -> None:
    from ragkit.tools import ToolOutput
    from ragkit.usage import UsageStats

    @tool
    def embed_search(query: str) -> ToolOutput:
        """Search."""
        return ToolOutput("found", usage=UsageStats(embedding_tokens=40, embedding_model="text-embedding-3-small"))

    script = [tool_call_response(("embed_search", {"query": "x"}), ("embed_search", {"query": "y"}),
                                 usage=Usage(2000, 50)), answer(tokens=(2500, 80))]
    result = Agent(ScriptedProvider(script, model="gpt-4o-mini"), tools=[embed_search]).run("go")
    first, second = result.usage.iterations
    assert (first.iteration, first.llm_calls, first.tool_calls, first.input_tokens, first.embedding_tokens) == (
        1, 1, 2, 2000, 80)
    assert (second.iteration, second.tool_calls, second.input_tokens, second.output_tokens) == (2, 0, 2500, 80)
    assert first.llm_cost == pytest.approx(pricing.price_llm("gpt-4o-mini", 2000, 50))
    assert first.embedding_cost == pytest.approx(80 * 0.02 / 1e6)
    assert sum(i.cost for i in result.usage.iterations) == pytest.approx(result.usage.total_cost)
    assert result.to_dict()["usage"]["iterations"][1]["input_tokens"] == 2500


# ------------------------------------------------------------------ context windows


def _long(n: int) -> str:
    return " ".join(f"word{i}" for i in range(n))


def test_memory_trimmed_to_a_small_context_window_fires_on_memory_trim_and_requests_fit() -> None:
    pricing.register("tiny-ctx", input=1.0, output=1.0, context_window=700)
    memory = ConversationMemory(context_window="model", answer_tokens=100)
    provider = ScriptedProvider([answer(f"answer {i}", tokens=(10, 10)) for i in range(6)], model="tiny-ctx")
    rec = RecordingObserver()
    agent = Agent(provider, config=AgentConfig(memory=memory), observers=[rec])
    for i in range(6):
        agent.run(f"question {i}: {_long(100)}")  # ~180 tokens a turn: three fill the 600 left for input
    trims = [e[2] for e in rec.events if e[0] == "on_memory_trim"]
    assert trims, "the history outgrew the window but nothing was trimmed"
    for dropped, tokens, limit in trims:
        assert dropped >= 1 and tokens <= limit == 600
    for call in provider.calls:  # every request fits the window with room for the answer
        assert memory.count_tokens(call.messages) + 100 <= 700
        assert call.messages[-1].content.startswith("question")
    assert len(provider.calls[-1].messages) < 2 * 6 - 1  # older turns were left out
    assert memory.count_tokens(memory.messages()) <= 600  # the kept history follows the window


def test_older_tool_results_of_the_current_turn_are_emptied_to_fit() -> None:
    @tool
    def fetch(page: int) -> str:
        """Fetch a page."""
        return _long(150)  # ~285 tokens

    script = [tool_call_response(("fetch", {"page": i})) for i in range(3)] + [answer()]
    provider = ScriptedProvider(script, model="scripted")
    rec = RecordingObserver()
    memory = ConversationMemory(context_window=900, answer_tokens=100)
    result = Agent(provider, tools=[fetch], config=AgentConfig(memory=memory), observers=[rec]).run("read three pages")
    assert result.stop_reason == "stop"
    elided = [[m.content == ELIDED for m in call.messages if m.role == "tool"] for call in provider.calls]
    assert elided == [[], [False], [False, False], [True, False, False]]  # the oldest result went first
    schemas = len(json.dumps([provider.calls[-1].tools[0].__dict__])) // 4 + 1
    for call in provider.calls:
        assert memory.count_tokens(call.messages) + 100 + schemas <= 900
    assert [e[2][0] for e in rec.events if e[0] == "on_memory_trim"] == [1]
    assert not any(m.content == ELIDED for m in result.messages)  # the run's own record keeps everything


def test_a_request_that_cannot_fit_is_not_sent() -> None:
    provider = ScriptedProvider([answer()], model="scripted")
    memory = ConversationMemory(context_window=200, answer_tokens=50)
    result = Agent(provider, config=AgentConfig(memory=memory)).run(_long(400))
    assert isinstance(result, BudgetExceeded) and result.limit == "context_window" and provider.calls == []
    assert "does not fit the model's context window" in result.content


def test_context_window_settings_are_checked() -> None:
    from ragkit.errors import ConfigError

    with pytest.raises(ConfigError, match="context_window must be 'model', a number of tokens or None"):
        ConversationMemory(context_window="auto")  # type: ignore[arg-type]
    assert ConversationMemory(context_window="model").window("gpt-4o") == 128000
    assert ConversationMemory(context_window="model").window("llama3.2", "ollama") == 131072


# ------------------------------------------------------------------ streaming tools


def test_streaming_tool_analytics_count_chunks_bytes_and_time_to_first_chunk() -> None:
    @tool
    def slow_stream(n: int):
        """Stream n pieces."""
        time.sleep(0.05)
        for i in range(n):
            yield f"piece {i} é\n"

    analytics = Analytics()
    provider = ScriptedProvider([tool_call_response(("slow_stream", {"n": 3})),
                                 tool_call_response(("slow_stream", {"n": 2}), ("lookup", {"query": "x"})),
                                 answer()])
    result = Agent(provider, tools=[slow_stream, lookup], observers=[analytics]).run("go")
    steps = [s for s in result.trace.of_type("tool_call") if s.name == "slow_stream"]
    assert [s.chunks for s in steps] == [3, 2]
    assert steps[0].chunk_bytes == sum(len(f"piece {i} é\n".encode()) for i in range(3))
    assert all(0.04 <= s.first_chunk <= s.duration for s in steps)
    stats = analytics.summary()["tools"]["slow_stream"]["streaming"]
    assert stats["calls"] == 2 and stats["chunks"] == 5 and stats["chunks_per_call"] == 2.5
    assert stats["bytes"] == steps[0].chunk_bytes + steps[1].chunk_bytes and stats["first_chunk_ms"]["p50"] >= 40
    assert "streaming" not in analytics.summary()["tools"]["lookup"]
    again = Analytics().add_trace(result.trace).summary()["tools"]["slow_stream"]["streaming"]
    assert again["chunks"] == 5 and again["bytes"] == stats["bytes"]
    assert "chunks" in analytics.export_csv().splitlines()[0]


def test_analytics_model_costs_are_the_runs_own() -> None:
    analytics = Analytics()
    Agent(ScriptedProvider([answer(model="llama-3.3-70b-versatile")], model="llama-3.3-70b-versatile"),
          observers=[analytics]).run("hi")
    Agent(ScriptedProvider([answer()], model="house-llm"), observers=[analytics]).run("hi")
    models = analytics.summary()["models"]
    assert models["llama-3.3-70b-versatile"]["cost"] == pytest.approx((1000 * 0.59 + 100 * 0.79) / 1e6)
    assert models["house-llm"]["cost"] is None and "unpriced" in analytics.export_csv()


# ------------------------------------------------------------------ @tool("description")


def test_tool_takes_its_description_positionally() -> None:
    @tool("Convert an amount between currencies at today's rate")
    def convert(amount: float, currency: str = "EUR") -> str:
        """Docstring summary the model will not see.

        Args:
            amount: how much to convert
        """
        return f"{amount} {currency}"

    spec = convert.to_spec()
    assert spec.description == "Convert an amount between currencies at today's rate"
    assert spec.parameters["properties"]["amount"]["description"] == "how much to convert"
    assert convert(2, "USD") == "2 USD"

    @tool("Timed", timeout=5)
    def timed() -> str:
        return "ok"

    assert timed.timeout == 5 and timed.description == "Timed"
    with pytest.raises(ToolError, match="give the description once"):
        tool("one", description="two")


# ------------------------------------------------------------------ prompt-cache reads


def test_prompt_cache_reads_are_priced_at_the_cached_input_rate() -> None:
    response = Response(content="ok", usage=Usage(1000, 100, cached_input_tokens=600), model="gpt-4o")
    result = Agent(ScriptedProvider([response], model="gpt-4o")).run("hi")
    assert result.usage.llm_cost == pytest.approx((400 * 2.5 + 600 * 1.25 + 100 * 10.0) / 1e6)


def test_the_openai_and_anthropic_parsers_read_cache_hits() -> None:
    from anthropic.types import Message as AnthropicMessage
    from openai.types.chat import ChatCompletion

    from ragkit.providers.anthropic import from_message
    from ragkit.providers.openai import from_completion

    completion = ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010,
                  "prompt_tokens_details": {"cached_tokens": 768}}})
    assert from_completion(completion, "gpt-4o").usage == Usage(1000, 10, 768)
    message = AnthropicMessage.model_validate({
        "id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": 50, "output_tokens": 5, "cache_read_input_tokens": 900,
                  "cache_creation_input_tokens": 0}})
    assert from_message(message, "claude-sonnet-4-5").usage == Usage(950, 5, 900)
