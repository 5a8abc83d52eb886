from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from ragkit.errors import ProviderError
from ragkit.messages import Message, Response, StreamEvent, ToolSpec
from ragkit.providers.anthropic import AnthropicProvider
from ragkit.providers.base import BaseProvider
from ragkit.providers.fallback import FallbackProvider
from ragkit.providers.openai import OpenAIProvider
from ragkit.registry import providers
from ragkit.retry import RetryPolicy
from ragkit.testing.servers import FakeAnthropicServer, FakeOpenAIServer, free_port

pytestmark = pytest.mark.network_local


def dead_openai(policy: RetryPolicy) -> OpenAIProvider:
    """An OpenAI provider pointed at a closed port on loopback."""
    return OpenAIProvider(
        model="gpt-dead", api_key="k", base_url=f"http://127.0.0.1:{free_port()}/v1", retry=policy
    )


@pytest.fixture
def anthropic_server() -> Any:
    with FakeAnthropicServer() as srv:
        yield srv


def test_registered() -> None:
    assert providers.get("fallback") is FallbackProvider


def test_falls_back_from_a_dead_endpoint(anthropic_server, policy, sleeps, question, caplog) -> None:
    dead = dead_openai(policy)
    live = AnthropicProvider(model="claude-live", api_key="k", base_url=anthropic_server.url, retry=policy)
    anthropic_server.enqueue_text("Paris.")
    fallback = FallbackProvider(providers=[dead, live])
    with caplog.at_level(logging.WARNING, logger="ragkit.providers.fallback"):
        resp = fallback.complete(question)
    assert resp.content == "Paris."
    assert fallback.last_used is live and fallback.model == "claude-live"
    assert [name for name, _ in fallback.last_errors] == ["openai(gpt-dead)"]
    assert "no HTTP response" in str(fallback.last_errors[0][1])
    assert sleeps == []  # connection refused: nothing listens there, so no retries (fails fast)
    assert any("openai(gpt-dead) failed" in r.getMessage() for r in caplog.records)


def test_first_provider_answers_when_healthy(anthropic_server, policy, question) -> None:
    with FakeOpenAIServer() as openai_server:
        primary = OpenAIProvider(model="gpt-a", api_key="k", base_url=openai_server.url, retry=policy)
        backup = AnthropicProvider(api_key="k", base_url=anthropic_server.url, retry=policy)
        fallback = FallbackProvider(providers=[primary, backup])
        assert fallback.complete(question).content.startswith("echo:")
        assert fallback.last_used is primary and fallback.last_errors == []
        assert anthropic_server.requests == []


def test_specs_from_yaml_style_mappings(anthropic_server, question) -> None:
    fallback = FallbackProvider(
        providers=[
            {
                "type": "openai",
                "model": "gpt-dead",
                "api_key": "k",
                "base_url": f"http://127.0.0.1:{free_port()}/v1",
                "max_retries": 0,
            },
            {"type": "anthropic", "api_key": "k", "base_url": anthropic_server.url, "max_retries": 0},
        ]
    )
    assert fallback.complete(question).content.startswith("echo:")
    assert isinstance(fallback.last_used, AnthropicProvider)


def test_all_failing_names_every_provider(anthropic_server, policy, question) -> None:
    anthropic_server.enqueue_error(401, "invalid x-api-key")
    live = AnthropicProvider(api_key="bad", base_url=anthropic_server.url, retry=policy)
    with pytest.raises(ProviderError) as info:
        FallbackProvider(providers=[dead_openai(policy), live]).complete(question)
    msg = str(info.value)
    assert "all 2 providers" in msg and "openai(gpt-dead)" in msg and "HTTP 401: invalid x-api-key" in msg


def test_stream_falls_back_before_the_first_event(anthropic_server, policy, question) -> None:
    anthropic_server.enqueue_text("streamed from the backup")
    live = AnthropicProvider(api_key="k", base_url=anthropic_server.url, retry=policy)
    fallback = FallbackProvider(providers=[dead_openai(policy), live])
    events = list(fallback.stream(question))
    assert "".join(e.text for e in events if e.type == "text") == "streamed from the backup"
    assert events[-1].type == "done" and fallback.last_used is live


class BreaksMidStream(BaseProvider):
    """A local fake: one text delta, then a provider failure."""

    name = "breaks"
    model = "m"

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Iterator[StreamEvent]:
        yield StreamEvent("text", text="partial ")
        raise ProviderError("connection lost mid-stream")

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        raise ProviderError("down")


def test_failure_after_text_was_streamed_propagates(anthropic_server, policy, question) -> None:
    live = AnthropicProvider(api_key="k", base_url=anthropic_server.url, retry=policy)
    stream = FallbackProvider(providers=[BreaksMidStream(), live]).stream(question)
    assert next(stream).text == "partial "
    with pytest.raises(ProviderError, match="mid-stream"):
        list(stream)
    assert anthropic_server.requests == []


def test_async_twins(anthropic_server, policy, question) -> None:
    live = AnthropicProvider(api_key="k", base_url=anthropic_server.url, retry=policy)
    fallback = FallbackProvider(providers=[dead_openai(policy), live])

    async def scenario() -> tuple[Response, list[StreamEvent]]:
        anthropic_server.enqueue_text("async one")
        anthropic_server.enqueue_text("async two")
        resp = await fallback.acomplete(question)
        return resp, [e async for e in fallback.astream(question)]

    resp, events = asyncio.run(scenario())
    assert resp.content == "async one"
    assert events[-1].response is not None and events[-1].response.content == "async two"
    assert fallback.last_used is live


@pytest.mark.parametrize("bad", [[], [{"model": "x"}], [42]])
def test_invalid_configuration(bad: list[Any]) -> None:
    with pytest.raises(ProviderError):
        FallbackProvider(providers=bad)
