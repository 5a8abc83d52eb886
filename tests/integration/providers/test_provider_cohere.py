from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragkit.errors import ProviderError
from ragkit.providers.base import StreamEvent
from ragkit.providers.cohere import CohereProvider
from ragkit.registry import providers
from ragkit.retry import RetryPolicy
from ragkit.testing.servers import Disconnect, FakeCohereServer, Hang, ToolCall, ToolCallReply

pytestmark = pytest.mark.network_local


@pytest.fixture
def server() -> Any:
    with FakeCohereServer() as srv:
        yield srv


def make(server: FakeCohereServer, policy: RetryPolicy, **kwargs: Any) -> CohereProvider:
    return CohereProvider(
        model="command-test", api_key="co-test", base_url=server.url, retry=policy, **kwargs
    )


def collect(events: Any) -> tuple[str, StreamEvent]:
    events = list(events)
    assert [e.type for e in events].count("done") == 1 and events[-1].type == "done"
    return "".join(e.text for e in events if e.type == "text"), events[-1]


def test_registered() -> None:
    assert providers.get("cohere") is CohereProvider


def test_plain_completion_with_system_message(server, policy, question) -> None:
    server.enqueue_text("Paris, of course.")
    resp = make(server, policy, temperature=0.3).complete(question, stop="\n\n", top_p=0.9)
    assert resp.content == "Paris, of course." and resp.stop_reason == "stop"
    assert resp.usage.input_tokens == 9 and resp.usage.output_tokens == 3  # billed units
    req = server.requests[-1]
    assert req.path == "/v2/chat" and req.headers["authorization"] == "Bearer co-test"
    assert req.body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert req.body["temperature"] == 0.3 and req.body["p"] == 0.9 and req.body["stop_sequences"] == ["\n\n"]
    assert req.body["stream"] is False


def test_max_tokens_finish(server, policy, question) -> None:
    server.enqueue_text("Par", finish="length")
    assert make(server, policy).complete(question).stop_reason == "length"


def test_tool_calls_and_tool_results_wire_format(server, policy, weather_tool, tool_round_trip) -> None:
    server.enqueue(
        ToolCallReply((ToolCall("get_weather", {"city": "Bern"}, id="tc1"),), text="I will look it up.")
    )
    resp = make(server, policy).complete(tool_round_trip, tools=[weather_tool])
    assert resp.stop_reason == "tool_calls" and resp.content == "I will look it up."
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [
        ("tc1", "get_weather", {"city": "Bern"})
    ]
    body = server.requests[-1].body
    assert body["tools"][0]["function"]["name"] == "get_weather"
    assistant, tool_a, tool_b = body["messages"][2:]
    assert assistant["role"] == "assistant" and assistant["tool_plan"] == "Let me check."
    assert assistant["tool_calls"][1]["function"] == {"name": "get_weather", "arguments": '{"city": "Rome"}'}
    assert tool_a == {"role": "tool", "tool_call_id": "call_a", "content": "sunny, 21C"}
    assert tool_b["tool_call_id"] == "call_b"


def test_malformed_tool_arguments(server, policy, question, weather_tool) -> None:
    server.enqueue_tool_call("get_weather", "{city: Paris}")
    call = make(server, policy).complete(question, tools=[weather_tool]).tool_calls[0]
    assert call.arguments == {} and call.raw_arguments == "{city: Paris}" and call.parse_error


def test_streaming_text(server, policy, question) -> None:
    server.enqueue_text("Paris is the answer.")
    text, done = collect(make(server, policy).stream(question))
    assert text == "Paris is the answer."
    assert done.response is not None and done.response.usage.output_tokens == 4
    assert server.requests[-1].body["stream"] is True


def test_streaming_tool_calls(server, policy, question, weather_tool) -> None:
    server.enqueue(
        ToolCallReply(
            (ToolCall("get_weather", {"city": "Kyoto", "days": 3}), ToolCall("get_weather", '{"city"')),
            text="Checking both.",
        )
    )
    text, done = collect(make(server, policy).stream(question, tools=[weather_tool]))
    assert text == "Checking both."
    resp = done.response
    assert resp is not None and resp.stop_reason == "tool_calls"
    good, bad = resp.tool_calls
    assert good.arguments == {"city": "Kyoto", "days": 3} and good.id.startswith("call_")
    assert bad.arguments == {} and bad.raw_arguments == '{"city"' and bad.parse_error


def test_429_with_retry_after_then_success(server, policy, sleeps, question) -> None:
    server.enqueue_error(429, "You are using a Trial key", retry_after="4")
    server.enqueue_text("ok")
    assert make(server, policy).complete(question).content == "ok"
    assert sleeps == [4.0] and len(server.requests) == 2


def test_500_then_success(server, policy, sleeps, question) -> None:
    server.enqueue_error(500, "internal")
    server.enqueue_text("ok")
    assert make(server, policy).complete(question).content == "ok"
    assert len(sleeps) == 1


def test_stream_opens_with_retry(server, policy, sleeps, question) -> None:
    server.enqueue(Disconnect())
    server.enqueue_error(429, "slow", retry_after="1")
    server.enqueue_text("streamed")
    text, _ = collect(make(server, policy).stream(question))
    assert text == "streamed" and len(sleeps) == 2 and sleeps[1] == 1.0


def test_exhausted_retries(server, policy, sleeps, question) -> None:
    for _ in range(3):
        server.enqueue_error(503, "service unavailable")
    with pytest.raises(ProviderError, match=r"after 3 attempts \(HTTP 503: service unavailable\)"):
        make(server, policy).complete(question)


def test_bad_request_not_retried(server, policy, sleeps, question) -> None:
    server.enqueue_error(400, "invalid model")
    with pytest.raises(ProviderError, match="HTTP 400: invalid model"):
        make(server, policy).complete(question)
    assert sleeps == []


def test_missing_key_names_both_variables() -> None:
    with pytest.raises(ProviderError) as info:
        CohereProvider()
    assert "CO_API_KEY" in str(info.value) and "COHERE_API_KEY" in str(info.value)


def test_cohere_api_key_variable_is_accepted(server, policy, question, monkeypatch) -> None:
    monkeypatch.setenv("COHERE_API_KEY", "from-env")
    CohereProvider(base_url=server.url, retry=policy).complete(question)
    assert server.requests[-1].headers["authorization"] == "Bearer from-env"


def test_async_twins(server, policy, sleeps, question, weather_tool) -> None:
    provider = make(server, policy)

    async def scenario() -> tuple[Any, list[StreamEvent]]:
        server.enqueue_error(502, "bad gateway")
        server.enqueue_text("async ok")
        resp = await provider.acomplete(question)
        server.enqueue_error(429, "slow", retry_after="2")
        server.enqueue(ToolCallReply((ToolCall("get_weather", {"city": "Quito"}),)))
        return resp, [e async for e in provider.astream(question, tools=[weather_tool])]

    resp, events = asyncio.run(scenario())
    assert resp.content == "async ok"
    assert len(sleeps) == 2 and sleeps[1] == 2.0
    done = events[-1].response
    assert done is not None and done.tool_calls[0].arguments == {"city": "Quito"}


def test_timeout_is_classified_and_retried(server, policy, sleeps, question) -> None:
    server.enqueue(Hang())
    server.enqueue_text("ok")
    # the retry's loopback answer must come within the timeout on any machine, also one at load 10+
    # on 2 cores, where a thread can wait past 0.5 s for the CPU; the Hang costs exactly this much
    assert make(server, policy, timeout=2.0).complete(question).content == "ok"
    assert len(sleeps) == 1
