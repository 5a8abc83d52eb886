from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragkit.errors import ProviderError
from ragkit.providers.base import Message, StreamEvent
from ragkit.providers.openai import OllamaProvider, OpenAIProvider
from ragkit.registry import providers
from ragkit.retry import RetryPolicy
from ragkit.testing.servers import Disconnect, FakeOpenAIServer, Hang, ToolCall, ToolCallReply, free_port

pytestmark = pytest.mark.network_local


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer() as srv:
        yield srv


def make(server: FakeOpenAIServer, policy: RetryPolicy, **kwargs: Any) -> OpenAIProvider:
    return OpenAIProvider(model="gpt-4o-mini", api_key="sk-test", base_url=server.url, retry=policy, **kwargs)


def collect(events: Any) -> tuple[str, StreamEvent]:
    events = list(events)
    assert [e.type for e in events].count("done") == 1 and events[-1].type == "done"
    return "".join(e.text for e in events if e.type == "text"), events[-1]


def test_registered_names() -> None:
    assert providers.get("openai") is OpenAIProvider
    assert providers.get("ollama") is OllamaProvider


def test_plain_completion_with_system_prompt_usage_and_auth(server, policy, question) -> None:
    server.enqueue_text("Paris is the capital.")
    provider = make(server, policy, temperature=0.2)
    resp = provider.complete(question, max_tokens=50)
    assert resp.content == "Paris is the capital."
    assert resp.stop_reason == "stop"
    assert resp.model == "gpt-4o-mini"
    assert resp.usage.input_tokens == 9  # 3 words system + 6 words user (the fake counts words)
    assert resp.usage.output_tokens == 4
    req = server.requests[-1]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert req.body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert req.body["temperature"] == 0.2 and req.body["max_tokens"] == 50
    assert "tools" not in req.body


def test_length_stop_reason(server, policy, question) -> None:
    server.enqueue_text("Paris is", finish="length")
    assert make(server, policy).complete(question).stop_reason == "length"


def test_tool_call_and_tool_results_wire_format(server, policy, weather_tool, tool_round_trip) -> None:
    server.enqueue(
        ToolCallReply(
            (
                ToolCall("get_weather", {"city": "Paris"}, id="c1"),
                ToolCall("get_weather", {"city": "Rome"}, id="c2"),
            )
        )
    )
    resp = make(server, policy).complete(tool_round_trip, tools=[weather_tool])
    assert resp.stop_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [
        ("c1", "get_weather", {"city": "Paris"}),
        ("c2", "get_weather", {"city": "Rome"}),
    ]
    assert all(c.parse_error is None for c in resp.tool_calls)
    body = server.requests[-1].body
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": weather_tool.description,
                "parameters": weather_tool.parameters,
            },
        }
    ]
    assistant, tool_a, tool_b = body["messages"][2:]
    assert assistant["tool_calls"][0] == {
        "id": "call_a",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    assert tool_a == {"role": "tool", "tool_call_id": "call_a", "content": "sunny, 21C"}
    assert tool_b["tool_call_id"] == "call_b"


def test_malformed_tool_arguments_never_raise(server, policy, question, weather_tool) -> None:
    server.enqueue_tool_call("get_weather", '{"city": "Par')
    call = make(server, policy).complete(question, tools=[weather_tool]).tool_calls[0]
    assert call.arguments == {}
    assert call.raw_arguments == '{"city": "Par'
    assert call.parse_error and "invalid JSON" in call.parse_error


def test_streaming_text(server, policy, question) -> None:
    server.enqueue_text("Paris is the capital of France.")
    text, done = collect(make(server, policy).stream(question))
    assert text == "Paris is the capital of France."
    assert done.response is not None and done.response.content == text
    assert done.response.usage.output_tokens == 6 and done.response.usage.input_tokens == 9
    body = server.requests[-1].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_streaming_tool_calls_accumulated_by_index(server, policy, question, weather_tool) -> None:
    server.enqueue(
        ToolCallReply(
            (ToolCall("get_weather", {"city": "Paris, the capital"}), ToolCall("get_weather", '{"city": ')),
            text="Checking",
        )
    )
    text, done = collect(make(server, policy).stream(question, tools=[weather_tool]))
    assert text == "Checking"
    resp = done.response
    assert resp is not None and resp.stop_reason == "tool_calls"
    first, second = resp.tool_calls
    assert first.arguments == {"city": "Paris, the capital"} and first.id.startswith("call_")
    assert second.arguments == {} and second.parse_error and second.raw_arguments == '{"city": '
    assert resp.usage.output_tokens > 0


def test_429_with_retry_after_then_success(server, policy, sleeps, question) -> None:
    server.enqueue_error(429, "Rate limit reached", retry_after="7")
    server.enqueue_text("ok")
    assert make(server, policy).complete(question).content == "ok"
    assert sleeps == [7.0]
    assert len(server.requests) == 2
    assert (
        "x-stainless-retry-count" not in server.requests[1].headers
        or server.requests[1].headers["x-stainless-retry-count"] == "0"
    )  # the SDK did not retry itself


def test_500_then_success_waits_a_jittered_backoff(server, policy, sleeps, question) -> None:
    server.enqueue_error(500, "upstream hiccup")
    server.enqueue_text("ok")
    assert make(server, policy).complete(question).content == "ok"
    assert len(sleeps) == 1 and 0 <= sleeps[0] <= policy.base_delay


def test_connection_drop_is_retried(server, policy, sleeps, question) -> None:
    server.enqueue(Disconnect())
    server.enqueue_text("ok")
    assert make(server, policy).complete(question).content == "ok"
    assert len(sleeps) == 1


def test_exhausted_retries_name_status_and_message(server, policy, sleeps, question) -> None:
    for _ in range(3):
        server.enqueue_error(503, "The engine is currently overloaded")
    with pytest.raises(ProviderError) as info:
        make(server, policy).complete(question)
    msg = str(info.value)
    assert "HTTP 503" in msg and "The engine is currently overloaded" in msg and "after 3 attempts" in msg
    assert info.value.status_code == 503  # type: ignore[attr-defined]
    assert len(sleeps) == 2 and server.pending() == 0


def test_client_error_is_not_retried(server, policy, sleeps, question) -> None:
    server.enqueue_error(401, "Incorrect API key provided")
    with pytest.raises(ProviderError, match="HTTP 401: Incorrect API key provided"):
        make(server, policy).complete(question)
    assert sleeps == [] and len(server.requests) == 1


def test_stream_retries_before_the_first_event(server, policy, sleeps, question) -> None:
    server.enqueue_error(429, "slow down", retry_after="2")
    server.enqueue_text("streamed fine")
    text, _ = collect(make(server, policy).stream(question))
    assert text == "streamed fine" and sleeps == [2.0]


def test_missing_api_key_names_the_variable() -> None:
    with pytest.raises(ProviderError) as info:
        OpenAIProvider(model="gpt-4o-mini")
    assert "OPENAI_API_KEY" in str(info.value) and "export OPENAI_API_KEY=" in str(info.value)


def test_api_key_from_environment(server, policy, question, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    provider = OpenAIProvider(base_url=server.url, retry=policy)
    provider.complete(question)
    assert server.requests[-1].headers["authorization"] == "Bearer sk-env"


def test_ollama_preset_needs_no_key() -> None:
    provider = OllamaProvider()
    assert provider.base_url == "http://localhost:11434/v1"
    assert provider.model == "llama3.2" and provider.api_key == "ollama"


def test_ollama_preset_against_the_fake(server, policy, question) -> None:
    provider = OllamaProvider(base_url=server.url, retry=policy, model="qwen2.5")
    assert provider.complete(question).content.startswith("echo: What is the capital")
    assert server.requests[-1].body["model"] == "qwen2.5"


@pytest.mark.parametrize(
    "kwargs", [{"timeout": 0}, {"temperature": 3.0}, {"max_tokens": 0}, {"max_retries": -1}]
)
def test_invalid_settings_fail_at_construction(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ProviderError):
        OpenAIProvider(api_key="k", **kwargs)


def test_async_twins(server, policy, sleeps, question, weather_tool) -> None:
    provider = make(server, policy)

    async def scenario() -> tuple[Any, list[StreamEvent]]:
        server.enqueue_error(429, "slow", retry_after="1")
        server.enqueue_text("async answer")
        resp = await provider.acomplete(question)
        server.enqueue_tool_call("get_weather", {"city": "Oslo"})
        events = [e async for e in provider.astream(question, tools=[weather_tool])]
        return resp, events

    resp, events = asyncio.run(scenario())
    assert resp.content == "async answer" and sleeps == [1.0]
    done = events[-1].response
    assert done is not None and done.tool_calls[0].arguments == {"city": "Oslo"}


def test_async_client_survives_a_new_event_loop(server, policy, question) -> None:
    provider = make(server, policy)
    for _ in range(2):
        assert asyncio.run(provider.acomplete(question)).content.startswith("echo:")


def test_dead_endpoint_is_a_provider_error(policy, question) -> None:
    provider = OpenAIProvider(api_key="k", base_url=f"http://127.0.0.1:{free_port()}/v1", retry=policy)
    with pytest.raises(ProviderError, match="no HTTP response"):
        provider.complete(question)


def test_message_translation_of_user_only_history() -> None:
    from ragkit.providers.openai import to_wire_messages

    assert to_wire_messages([Message("user", "hi")]) == [{"role": "user", "content": "hi"}]


def test_timeout_is_retried_then_reported(server, policy, sleeps, question) -> None:
    server.enqueue(Hang(), Hang(), Hang())
    provider = make(server, policy, timeout=0.05)
    with pytest.raises(
        ProviderError, match=r"after 3 attempts \(no HTTP response: request timed out after 0.05s\)"
    ):
        provider.complete(question)
    assert len(sleeps) == 2


def test_timeout_then_success(server, policy, sleeps, question) -> None:
    server.enqueue(Hang())
    server.enqueue_text("ok")
    # the retry's loopback answer must come within the timeout on any machine, also one at load 10+
    # on 2 cores, where a thread can wait past 0.5 s for the CPU; the Hang costs exactly this much
    assert make(server, policy, timeout=2.0).complete(question).content == "ok"
    assert len(sleeps) == 1


def test_close_then_reuse(server, policy, question) -> None:
    provider = make(server, policy)
    provider.complete(question)
    provider.close()
    assert provider.complete(question).content.startswith("echo:")
