from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragkit.errors import ProviderError
from ragkit.providers.anthropic import AnthropicProvider, to_wire
from ragkit.providers.base import Message, StreamEvent
from ragkit.registry import providers
from ragkit.retry import RetryPolicy
from ragkit.testing.servers import FakeAnthropicServer, ToolCall, ToolCallReply

pytestmark = pytest.mark.network_local


@pytest.fixture
def server() -> Any:
    with FakeAnthropicServer() as srv:
        yield srv


def make(server: FakeAnthropicServer, policy: RetryPolicy, **kwargs: Any) -> AnthropicProvider:
    return AnthropicProvider(
        model="claude-test", api_key="ak-test", base_url=server.url, retry=policy, **kwargs
    )


def collect(events: Any) -> tuple[str, StreamEvent]:
    events = list(events)
    assert [e.type for e in events].count("done") == 1 and events[-1].type == "done"
    return "".join(e.text for e in events if e.type == "text"), events[-1]


def test_registered() -> None:
    assert providers.get("anthropic") is AnthropicProvider


def test_plain_completion_system_is_top_level(server, policy, question) -> None:
    server.enqueue_text("Paris.")
    resp = make(server, policy).complete(question, temperature=0.1)
    assert resp.content == "Paris." and resp.stop_reason == "stop" and resp.model == "claude-test"
    assert resp.usage.input_tokens == 9 and resp.usage.output_tokens == 1
    req = server.requests[-1]
    assert req.path == "/v1/messages"
    assert req.body["system"] == "You are terse."
    assert req.body["messages"] == [{"role": "user", "content": "What is the capital of France?"}]
    assert req.body["max_tokens"] == 1024 and req.body["temperature"] == 0.1
    assert "ak-test" in (req.headers.get("x-api-key", "") + req.headers.get("authorization", ""))


def test_max_tokens_and_stop_normalized(server, policy, question) -> None:
    server.enqueue_text("Par", finish="length")
    resp = make(server, policy, max_tokens=5).complete(question, stop="\n")
    assert resp.stop_reason == "length"
    assert server.requests[-1].body["max_tokens"] == 5
    assert server.requests[-1].body["stop_sequences"] == ["\n"]


def test_tool_use_and_merged_tool_results(server, policy, weather_tool, tool_round_trip) -> None:
    server.enqueue(
        ToolCallReply((ToolCall("get_weather", {"city": "Oslo"}, id="toolu_1"),), text="Checking.")
    )
    resp = make(server, policy).complete(tool_round_trip, tools=[weather_tool])
    assert resp.content == "Checking." and resp.stop_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [
        ("toolu_1", "get_weather", {"city": "Oslo"})
    ]
    body = server.requests[-1].body
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": weather_tool.description,
            "input_schema": weather_tool.parameters,
        }
    ]
    user, assistant, results = body["messages"]
    assert user["role"] == "user"
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_b", "name": "get_weather", "input": {"city": "Rome"}},
        ],
    }
    assert results == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "sunny, 21C"},
            {"type": "tool_result", "tool_use_id": "call_b", "content": "rainy, 15C"},
        ],
    }


def test_user_text_after_tool_results_joins_the_same_user_message(tool_round_trip) -> None:
    system, wire = to_wire([*tool_round_trip, Message("user", "And tomorrow?")])
    assert system == "You are terse."
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]
    assert wire[-1]["content"][-1] == {"type": "text", "text": "And tomorrow?"}


def test_malformed_tool_input_never_raises(server, policy, question, weather_tool) -> None:
    server.enqueue_tool_call("get_weather", '{"city": ')
    call = make(server, policy).complete(question, tools=[weather_tool]).tool_calls[0]
    assert (
        call.arguments == {}
        and call.raw_arguments == '{"city": '
        and "invalid JSON" in (call.parse_error or "")
    )


def test_streaming_text_and_usage(server, policy, question) -> None:
    server.enqueue_text("Paris is lovely in spring.")
    text, done = collect(make(server, policy).stream(question))
    assert text == "Paris is lovely in spring."
    assert done.response is not None
    assert done.response.usage.input_tokens == 9 and done.response.usage.output_tokens == 5
    assert server.requests[-1].body["stream"] is True


def test_streaming_tool_use_with_input_json_deltas(server, policy, question, weather_tool) -> None:
    server.enqueue(
        ToolCallReply(
            (
                ToolCall("get_weather", {"city": "Paris", "units": "metric"}),
                ToolCall("get_weather", '{"city": "Ro'),
            ),
            text="Let me look.",
        )
    )
    text, done = collect(make(server, policy).stream(question, tools=[weather_tool]))
    assert text == "Let me look."
    resp = done.response
    assert resp is not None and resp.stop_reason == "tool_calls"
    good, bad = resp.tool_calls
    assert good.arguments == {"city": "Paris", "units": "metric"} and good.id.startswith("toolu_")
    assert bad.arguments == {} and bad.raw_arguments == '{"city": "Ro' and bad.parse_error


def test_429_with_retry_after_then_success(server, policy, sleeps, question) -> None:
    server.enqueue_error(429, "Number of requests has exceeded your rate limit", retry_after="3")
    server.enqueue_text("ok")
    assert make(server, policy).complete(question).content == "ok"
    assert sleeps == [3.0] and len(server.requests) == 2


def test_retry_after_http_date_is_honoured_and_capped(server, sleeps, question) -> None:
    server.enqueue_error(529, "Overloaded", retry_after="Wed, 21 Oct 2099 07:28:00 GMT")
    server.enqueue_text("ok")
    policy = RetryPolicy(max_attempts=2, retry_after_cap=12.0, sleep=sleeps.append)
    assert make(server, policy).complete(question).content == "ok"
    assert sleeps == [12.0]


def test_500_then_success(server, policy, sleeps, question) -> None:
    server.enqueue_error(500, "Internal server error")
    server.enqueue_text("ok")
    assert make(server, policy).complete(question).content == "ok"
    assert len(sleeps) == 1


def test_exhausted_retries(server, policy, sleeps, question) -> None:
    for _ in range(3):
        server.enqueue_error(529, "Overloaded")
    with pytest.raises(ProviderError, match=r"anthropic message .*after 3 attempts \(HTTP 529: Overloaded\)"):
        make(server, policy).complete(question)
    assert len(sleeps) == 2


def test_streaming_retries_then_streams(server, policy, sleeps, question) -> None:
    server.enqueue_error(503, "busy")
    server.enqueue_text("streamed")
    text, _ = collect(make(server, policy).stream(question))
    assert text == "streamed" and len(sleeps) == 1


def test_missing_api_key_names_the_variable() -> None:
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider()


def test_async_twins(server, policy, sleeps, question, weather_tool) -> None:
    provider = make(server, policy)

    async def scenario() -> tuple[Any, list[StreamEvent]]:
        server.enqueue_error(500, "oops")
        server.enqueue_text("async ok")
        resp = await provider.acomplete(question)
        server.enqueue(ToolCallReply((ToolCall("get_weather", {"city": "Lima"}),)))
        return resp, [e async for e in provider.astream(question, tools=[weather_tool])]

    resp, events = asyncio.run(scenario())
    assert resp.content == "async ok" and len(sleeps) == 1
    done = events[-1].response
    assert done is not None and done.tool_calls[0].arguments == {"city": "Lima"}
    assert done.usage.input_tokens == 9
