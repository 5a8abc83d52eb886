"""``ProviderContract``: the conformance suite every remote provider passes against its wire server.

A pytest mixin (no ``Test`` prefix). A vendor's test module subclasses it, names the provider
class and the loopback server that speaks its wire protocol (:mod:`ragkit.testing.servers`), and
implements three hooks that check what only that vendor's wire format says::

    class TestOpenAIProvider(ProviderContract):
        provider_class = OpenAIProvider
        server_class = FakeOpenAIServer
        chat_path = "/v1/chat/completions"

        def auth(self, request): return request.headers["authorization"]
        def check_plain_request(self, body): assert body["messages"][0]["role"] == "system"
        def check_tool_wire(self, body, tool): ...

The suite covers completion (content, stop reasons, usage, parameters), the tool wire format both
ways, malformed tool arguments (never raise), streaming with text and tools, retries of 429
(``Retry-After``), 500, dropped connections and timeouts, errors that are not retried, a missing
key naming its variables, keys from each variable, an unreachable server failing fast, and the
async path (``acomplete``/``astream``, a new event loop per ``asyncio.run``).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest

from ragkit.errors import ProviderError
from ragkit.messages import Message, StreamEvent, ToolCall, ToolSpec
from ragkit.retry import RetryPolicy
from ragkit.testing.remote_fixtures import RemoteFixtures, Sleeps
from ragkit.testing.servers import Disconnect, FakeServer, Hang, ToolCallReply, count_tokens, free_port
from ragkit.testing.servers import ToolCall as WireCall

WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather in a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def collect(events: Any) -> tuple[str, StreamEvent]:
    """(joined text, the done event); checks there is exactly one ``done`` and it is last."""
    events = list(events)
    assert [e.type for e in events].count("done") == 1 and events[-1].type == "done"
    return "".join(e.text for e in events if e.type == "text"), events[-1]


def round_trip() -> list[Message]:
    """A conversation that already contains two tool calls and their results."""
    call = ToolCall(id="call_a", name="get_weather", arguments={"city": "Paris"})
    call2 = ToolCall(id="call_b", name="get_weather", arguments={"city": "Rome"})
    return [
        Message("system", "You are terse."),
        Message("user", "Weather in Paris and Rome?"),
        Message("assistant", "Let me check.", tool_calls=(call, call2)),
        Message("tool", "sunny, 21C", tool_call_id="call_a", name="get_weather"),
        Message("tool", "rainy, 15C", tool_call_id="call_b", name="get_weather"),
    ]


class ProviderContract(RemoteFixtures):
    provider_class: ClassVar[type[Any]]
    chat_path: ClassVar[str]
    model: ClassVar[str] = "test-model"
    call_id_prefix: ClassVar[str] = "call_"  # ids the server generates for streamed tool calls

    # -- vendor hooks ----------------------------------------------------------------------------
    def auth(self, request: Any) -> str:
        """The header text that carries the API key."""
        raise NotImplementedError

    def check_plain_request(self, body: dict[str, Any]) -> None:
        """The request of ``complete(question, temperature=0.2, max_tokens=50)``."""
        raise NotImplementedError

    def check_tool_wire(self, body: dict[str, Any], tool: ToolSpec) -> None:
        """The request of ``complete(round_trip(), tools=[tool])``: tools and the tool round trip."""
        raise NotImplementedError

    # -- fixtures (and those of RemoteFixtures) ---------------------------------------------
    @pytest.fixture
    def question(self) -> list[Message]:
        return [Message("system", "You are terse."), Message("user", "What is the capital of France?")]

    def make(self, server: FakeServer, policy: RetryPolicy, **kwargs: Any) -> Any:
        kwargs.setdefault("api_key", "key-test")
        return self.provider_class(model=self.model, base_url=server.url, retry=policy, **kwargs)

    # -- completion ------------------------------------------------------------------------------
    def test_registered_under_its_name(self) -> None:
        from ragkit.registry import providers

        assert providers.get(self.provider_class.name) is self.provider_class

    def test_completion_usage_parameters_and_auth(self, server, policy, question) -> None:
        server.enqueue_text("Paris is the capital.")
        resp = self.make(server, policy, temperature=0.2).complete(question, max_tokens=50)
        assert resp.content == "Paris is the capital." and resp.stop_reason == "stop"
        assert resp.model == self.model
        assert resp.usage.input_tokens == 9  # 3 words system + 6 words user (the fakes count words)
        assert resp.usage.output_tokens == 4
        request = server.requests[-1]
        assert request.path == self.chat_path and "key-test" in self.auth(request)
        self.check_plain_request(request.body)

    def test_length_stop_reason(self, server, policy, question) -> None:
        server.enqueue_text("Paris is", finish="length")
        assert self.make(server, policy).complete(question).stop_reason == "length"

    def test_tool_calls_and_tool_results_wire_format(self, server, policy) -> None:
        server.enqueue(ToolCallReply((WireCall("get_weather", {"city": "Paris"}, id="c1"),
                                      WireCall("get_weather", {"city": "Rome"}, id="c2"))))
        resp = self.make(server, policy).complete(round_trip(), tools=[WEATHER])
        assert resp.stop_reason == "tool_calls"
        assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [
            ("c1", "get_weather", {"city": "Paris"}), ("c2", "get_weather", {"city": "Rome"})]
        assert all(c.parse_error is None for c in resp.tool_calls)
        self.check_tool_wire(server.requests[-1].body, WEATHER)

    def test_malformed_tool_arguments_never_raise(self, server, policy, question) -> None:
        server.enqueue_tool_call("get_weather", '{"city": "Par')
        call = self.make(server, policy).complete(question, tools=[WEATHER]).tool_calls[0]
        assert call.arguments == {} and call.raw_arguments == '{"city": "Par'
        assert call.parse_error and "invalid JSON" in call.parse_error

    # -- streaming -------------------------------------------------------------------------------
    def test_streaming_text_and_usage(self, server, policy, question) -> None:
        server.enqueue_text("Paris is the capital of France.")
        text, done = collect(self.make(server, policy).stream(question))
        assert text == "Paris is the capital of France."
        assert done.response is not None and done.response.content == text
        assert done.response.usage.input_tokens == 9 and done.response.usage.output_tokens == count_tokens(text)
        assert server.requests[-1].body["stream"] is True

    def test_streaming_tool_calls_with_malformed_arguments(self, server, policy, question) -> None:
        server.enqueue(ToolCallReply((WireCall("get_weather", {"city": "Paris, the capital"}),
                                      WireCall("get_weather", '{"city": ')), text="Checking."))
        text, done = collect(self.make(server, policy).stream(question, tools=[WEATHER]))
        assert text == "Checking."
        resp = done.response
        assert resp is not None and resp.stop_reason == "tool_calls"
        good, bad = resp.tool_calls
        assert good.arguments == {"city": "Paris, the capital"} and good.id.startswith(self.call_id_prefix)
        assert bad.arguments == {} and bad.parse_error and bad.raw_arguments == '{"city": '
        assert resp.usage.output_tokens > 0

    # -- retries ---------------------------------------------------------------------------------
    def test_429_with_retry_after_then_success(self, server, policy, sleeps, question) -> None:
        server.enqueue_error(429, "Rate limit reached", retry_after="7")
        server.enqueue_text("ok")
        assert self.make(server, policy).complete(question).content == "ok"
        assert sleeps == [7.0] and len(server.requests) == 2
        retried_by_sdk = server.requests[1].headers.get("x-stainless-retry-count", "0")
        assert retried_by_sdk == "0"  # the SDK did not retry by itself

    def test_500_then_success_waits_a_jittered_backoff(self, server, policy, sleeps, question) -> None:
        server.enqueue_error(500, "upstream hiccup")
        server.enqueue_text("ok")
        assert self.make(server, policy).complete(question).content == "ok"
        assert len(sleeps) == 1 and 0 <= sleeps[0] <= policy.base_delay

    def test_connection_drop_is_retried(self, server, policy, sleeps, question) -> None:
        server.enqueue(Disconnect())
        server.enqueue_text("ok")
        assert self.make(server, policy).complete(question).content == "ok"
        assert len(sleeps) == 1

    def test_exhausted_retries_name_status_and_message(self, server, policy, sleeps, question) -> None:
        for _ in range(3):
            server.enqueue_error(503, "The engine is currently overloaded")
        with pytest.raises(ProviderError) as info:
            self.make(server, policy).complete(question)
        msg = str(info.value)
        assert "HTTP 503" in msg and "The engine is currently overloaded" in msg and "after 3 attempts" in msg
        assert f"{self.provider_class.name} {self.provider_class.action}" in msg and "max_retries" in msg
        assert info.value.status_code == 503  # type: ignore[attr-defined]
        assert len(sleeps) == 2 and server.pending() == 0

    def test_client_errors_are_not_retried(self, server, policy, sleeps, question) -> None:
        server.enqueue_error(401, "Incorrect API key provided")
        with pytest.raises(ProviderError, match="HTTP 401: Incorrect API key provided.*check the API key"):
            self.make(server, policy).complete(question)
        server.enqueue_error(400, "invalid model")
        with pytest.raises(ProviderError, match="HTTP 400: invalid model"):
            self.make(server, policy).complete(question)
        assert sleeps == [] and len(server.requests) == 2

    def test_stream_retries_before_the_first_event(self, server, policy, sleeps, question) -> None:
        server.enqueue(Disconnect())
        server.enqueue_error(429, "slow down", retry_after="2")
        server.enqueue_text("streamed fine")
        text, _ = collect(self.make(server, policy).stream(question))
        assert text == "streamed fine" and len(sleeps) == 2 and sleeps[1] == 2.0

    def test_timeout_is_retried_then_reported(self, server, policy, sleeps, question) -> None:
        server.enqueue(Hang(), Hang(), Hang())
        with pytest.raises(ProviderError, match=r"after 3 attempts \(no HTTP response: request timed out after 0.05s\)"):
            self.make(server, policy, timeout=0.05).complete(question)
        assert len(sleeps) == 2

    def test_timeout_then_success(self, server, policy, sleeps, question) -> None:
        server.enqueue(Hang())
        server.enqueue_text("ok")
        # the retry's loopback answer must come within the timeout on any machine, also one at load 10+
        # on 2 cores, where a thread can wait past 0.5 s for the CPU; the Hang costs exactly this much
        assert self.make(server, policy, timeout=2.0).complete(question).content == "ok"
        assert len(sleeps) == 1

    def test_unreachable_server_fails_fast_with_a_hint(self, policy, sleeps, question) -> None:
        provider = self.provider_class(model=self.model, api_key="k", base_url=f"http://127.0.0.1:{free_port()}/v1",
                                       retry=policy)
        with pytest.raises(ProviderError, match="no HTTP response: cannot connect to .*running"):
            provider.complete(question)
        assert sleeps == []  # connection refused: nothing listens there, waiting will not help

    # -- keys and settings -----------------------------------------------------------------------
    def test_missing_api_key_names_every_variable(self) -> None:
        with pytest.raises(ProviderError) as info:
            self.provider_class(model=self.model)
        msg = str(info.value)
        variables = self.provider_class.vendor.key_vars
        assert all(var in msg for var in variables) and f"export {variables[0]}=" in msg

    def test_api_key_from_each_environment_variable(self, server, policy, question, monkeypatch) -> None:
        for var in self.provider_class.vendor.key_vars:
            monkeypatch.setenv(var, f"from-{var}")
            self.provider_class(model=self.model, base_url=server.url, retry=policy).complete(question)
            assert f"from-{var}" in self.auth(server.requests[-1])
            monkeypatch.delenv(var)

    @pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"temperature": 3.0}, {"max_tokens": 0},
                                        {"max_retries": -1}])
    def test_invalid_settings_fail_at_construction(self, kwargs: dict[str, Any]) -> None:
        with pytest.raises(ProviderError):
            self.provider_class(model=self.model, api_key="k", **kwargs)

    def test_close_then_reuse(self, server, policy, question) -> None:
        provider = self.make(server, policy)
        provider.complete(question)
        provider.close()
        assert provider.complete(question).content.startswith("echo:")

    # -- async -----------------------------------------------------------------------------------
    def test_async_complete_and_stream_with_tools_and_retries(self, server, policy, sleeps, question) -> None:
        provider = self.make(server, policy)

        async def scenario() -> tuple[Any, list[StreamEvent]]:
            server.enqueue_error(502, "bad gateway")
            server.enqueue_text("async answer")
            resp = await provider.acomplete(question)
            server.enqueue_error(429, "slow", retry_after="2")
            server.enqueue(ToolCallReply((WireCall("get_weather", {"city": "Oslo"}),)))
            return resp, [e async for e in provider.astream(question, tools=[WEATHER])]

        resp, events = asyncio.run(scenario())
        assert resp.content == "async answer" and len(sleeps) == 2 and sleeps[1] == 2.0
        done = events[-1].response
        assert done is not None and done.tool_calls[0].arguments == {"city": "Oslo"}
        assert done.usage.input_tokens == 9

    def test_async_path_uses_the_async_client(self, server, policy, question) -> None:
        provider = self.make(server, policy)

        async def scenario() -> tuple[str, list[StreamEvent], bool]:
            answer = (await provider.acomplete(question)).content
            events = [e async for e in provider.astream(question)]
            return answer, events, asyncio.get_running_loop() in provider._aclients

        answer, events, has_async_client = asyncio.run(scenario())
        assert answer.startswith("echo:") and events[-1].type == "done" and has_async_client
        assert provider._client is None  # the sync client (and a thread around it) was never used

    def test_async_client_survives_a_new_event_loop(self, server, policy, question) -> None:
        provider = self.make(server, policy)
        for _ in range(2):
            assert asyncio.run(provider.acomplete(question)).content.startswith("echo:")


__all__ = ["WEATHER", "ProviderContract", "Sleeps", "collect", "round_trip"]
