"""Every remote provider runs ``ProviderContract`` against its wire server; below each suite, what
only that vendor's wire format says (message translation, parameter names, presets)."""

from __future__ import annotations

from typing import Any

import pytest

from ragkit.messages import Message, ToolSpec
from ragkit.providers.anthropic import AnthropicProvider, to_wire
from ragkit.providers.cohere import CohereProvider
from ragkit.providers.openai import (
    GeminiProvider,
    LlamaCppProvider,
    OllamaProvider,
    OpenAIProvider,
    VLLMProvider,
    to_wire_messages,
)
from ragkit.registry import providers
from ragkit.retry import RetryPolicy
from ragkit.testing.provider_contract import WEATHER, ProviderContract, collect, round_trip
from ragkit.testing.servers import (
    FakeAnthropicServer,
    FakeCohereServer,
    FakeOpenAIServer,
    ToolCall,
    ToolCallReply,
)

pytestmark = pytest.mark.network_local


class TestOpenAIProvider(ProviderContract):
    provider_class = OpenAIProvider
    server_class = FakeOpenAIServer
    chat_path = "/v1/chat/completions"

    def auth(self, request: Any) -> str:
        return str(request.headers["authorization"])

    def check_plain_request(self, body: dict[str, Any]) -> None:
        assert body["messages"][0] == {"role": "system", "content": "You are terse."}
        assert body["temperature"] == 0.2 and body["max_tokens"] == 50 and "tools" not in body

    def check_tool_wire(self, body: dict[str, Any], tool: ToolSpec) -> None:
        assert body["tools"] == [{"type": "function", "function": {
            "name": "get_weather", "description": tool.description, "parameters": tool.parameters}}]
        assistant, tool_a, tool_b = body["messages"][2:]
        assert assistant["tool_calls"][0] == {
            "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        assert tool_a == {"role": "tool", "tool_call_id": "call_a", "content": "sunny, 21C"}
        assert tool_b["tool_call_id"] == "call_b"

    def test_stream_asks_for_usage(self, server, policy, question) -> None:
        server.enqueue_text("ok")
        collect(self.make(server, policy).stream(question))
        assert server.requests[-1].body["stream_options"] == {"include_usage": True}

    def test_message_translation_of_user_only_history(self) -> None:
        assert to_wire_messages([Message("user", "hi")]) == [{"role": "user", "content": "hi"}]


class TestOllamaPreset(TestOpenAIProvider):
    """The presets are the OpenAI provider with another default URL, key variable and model."""

    provider_class = OllamaProvider

    def test_needs_no_key_and_has_its_defaults(self) -> None:
        provider = OllamaProvider()
        assert provider.base_url == "http://localhost:11434/v1"
        assert provider.model == "llama3.2" and provider.api_key == "ollama"

    def test_missing_api_key_names_every_variable(self) -> None:
        """A local server needs no key: the placeholder is sent instead of failing."""
        assert OllamaProvider(model="m").api_key == "ollama"

    def test_unreachable_default_server_says_how_to_start_it(self, policy, question) -> None:
        from ragkit.errors import ProviderError
        from ragkit.testing.servers import free_port

        provider = OllamaProvider(base_url=f"http://127.0.0.1:{free_port()}/v1", retry=policy)
        with pytest.raises(ProviderError, match=r"is `ollama serve` running\? pass --base-url"):
            provider.complete(question)


def test_presets_are_registered_with_their_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GEMINI_API_KEY", "VLLM_API_KEY", "LLAMACPP_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    assert providers.get("openai") is OpenAIProvider and providers.get("ollama") is OllamaProvider
    assert providers.get("vllm") is VLLMProvider and providers.get("llamacpp") is LlamaCppProvider
    assert providers.get("gemini") is GeminiProvider
    assert VLLMProvider(model="m").base_url == "http://localhost:8000/v1"
    assert LlamaCppProvider().base_url == "http://localhost:8080/v1"
    with pytest.raises(Exception, match="GEMINI_API_KEY"):
        GeminiProvider()
    monkeypatch.setenv("GEMINI_API_KEY", "g-key")
    gemini = GeminiProvider()
    assert gemini.base_url == "https://generativelanguage.googleapis.com/v1beta/openai/"
    assert gemini.api_key == "g-key" and gemini.model.startswith("gemini-")
    with pytest.raises(Exception, match="needs a model name; pass --model"):
        VLLMProvider()


class TestAnthropicProvider(ProviderContract):
    provider_class = AnthropicProvider
    server_class = FakeAnthropicServer
    chat_path = "/v1/messages"
    call_id_prefix = "toolu_"

    def auth(self, request: Any) -> str:
        return str(request.headers.get("x-api-key", "") + request.headers.get("authorization", ""))

    def check_plain_request(self, body: dict[str, Any]) -> None:
        assert body["system"] == "You are terse."
        assert body["messages"] == [{"role": "user", "content": "What is the capital of France?"}]
        assert body["max_tokens"] == 50 and body["temperature"] == 0.2

    def check_tool_wire(self, body: dict[str, Any], tool: ToolSpec) -> None:
        assert body["tools"] == [{"name": "get_weather", "description": tool.description,
                                  "input_schema": tool.parameters}]
        user, assistant, results = body["messages"]
        assert user["role"] == "user"
        assert assistant == {"role": "assistant", "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_b", "name": "get_weather", "input": {"city": "Rome"}}]}
        assert results == {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "sunny, 21C"},
            {"type": "tool_result", "tool_use_id": "call_b", "content": "rainy, 15C"}]}

    def test_default_max_tokens_and_stop_sequences(self, server, policy, question) -> None:
        server.enqueue_text("Paris.")
        self.make(server, policy).complete(question)
        assert server.requests[-1].body["max_tokens"] == 1024
        server.enqueue_text("Par", finish="length")
        resp = self.make(server, policy, max_tokens=5).complete(question, stop="\n")
        assert resp.stop_reason == "length"
        assert server.requests[-1].body["max_tokens"] == 5 and server.requests[-1].body["stop_sequences"] == ["\n"]

    def test_text_next_to_tool_use_is_kept(self, server, policy) -> None:
        server.enqueue(ToolCallReply((ToolCall("get_weather", {"city": "Oslo"}, id="toolu_1"),), text="Checking."))
        resp = self.make(server, policy).complete(round_trip(), tools=[WEATHER])
        assert resp.content == "Checking." and resp.tool_calls[0].id == "toolu_1"

    def test_user_text_after_tool_results_joins_the_same_user_message(self) -> None:
        system, wire = to_wire([*round_trip(), Message("user", "And tomorrow?")])
        assert system == "You are terse."
        assert [m["role"] for m in wire] == ["user", "assistant", "user"]
        assert wire[-1]["content"][-1] == {"type": "text", "text": "And tomorrow?"}

    def test_retry_after_http_date_is_honoured_and_capped(self, server, sleeps, question) -> None:
        server.enqueue_error(529, "Overloaded", retry_after="Wed, 21 Oct 2099 07:28:00 GMT")
        server.enqueue_text("ok")
        policy = RetryPolicy(max_attempts=2, retry_after_cap=12.0, sleep=sleeps.append)
        assert self.make(server, policy).complete(question).content == "ok"
        assert sleeps == [12.0]


class TestCohereProvider(ProviderContract):
    provider_class = CohereProvider
    server_class = FakeCohereServer
    chat_path = "/v2/chat"

    def auth(self, request: Any) -> str:
        return str(request.headers["authorization"])

    def check_plain_request(self, body: dict[str, Any]) -> None:
        assert body["messages"][0] == {"role": "system", "content": "You are terse."}
        assert body["temperature"] == 0.2 and body["max_tokens"] == 50 and body["stream"] is False

    def check_tool_wire(self, body: dict[str, Any], tool: ToolSpec) -> None:
        assert body["tools"][0]["function"]["name"] == "get_weather"
        assistant, tool_a, tool_b = body["messages"][2:]
        assert assistant["role"] == "assistant" and assistant["tool_plan"] == "Let me check."
        assert assistant["tool_calls"][1]["function"] == {"name": "get_weather", "arguments": '{"city": "Rome"}'}
        assert tool_a == {"role": "tool", "tool_call_id": "call_a", "content": "sunny, 21C"}
        assert tool_b["tool_call_id"] == "call_b"

    def test_parameters_get_cohere_names(self, server, policy, question) -> None:
        server.enqueue_text("Paris, of course.")
        self.make(server, policy, temperature=0.3).complete(question, stop="\n\n", top_p=0.9)
        body = server.requests[-1].body
        assert body["temperature"] == 0.3 and body["p"] == 0.9 and body["stop_sequences"] == ["\n\n"]

    def test_tool_plan_is_the_content_next_to_tool_calls(self, server, policy) -> None:
        server.enqueue(ToolCallReply((ToolCall("get_weather", {"city": "Bern"}, id="tc1"),), text="I will look it up."))
        resp = self.make(server, policy).complete(round_trip(), tools=[WEATHER])
        assert resp.content == "I will look it up." and resp.tool_calls[0].id == "tc1"
