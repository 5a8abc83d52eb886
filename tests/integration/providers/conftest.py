from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from ragkit.providers.base import Message, ToolSpec
from ragkit.retry import RetryPolicy

KEY_VARS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "CO_API_KEY",
    "COHERE_API_KEY",
    "OLLAMA_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "CO_API_URL",
)

WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather in a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)


class Sleeps(list[float]):
    """Records requested waits instead of sleeping (sync and async)."""

    async def async_sleep(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def policy(sleeps: Sleeps) -> Iterator[RetryPolicy]:
    rng = random.Random(1234)
    yield RetryPolicy(
        max_attempts=3, base_delay=0.5, sleep=sleeps.append, async_sleep=sleeps.async_sleep, random=rng.random
    )


@pytest.fixture
def weather_tool() -> ToolSpec:
    return WEATHER


@pytest.fixture
def question() -> list[Message]:
    return [Message("system", "You are terse."), Message("user", "What is the capital of France?")]


@pytest.fixture
def tool_round_trip() -> list[Message]:
    """A conversation that already contains a tool call and its result."""
    from ragkit.providers.base import ToolCall

    call = ToolCall(id="call_a", name="get_weather", arguments={"city": "Paris"})
    call2 = ToolCall(id="call_b", name="get_weather", arguments={"city": "Rome"})
    return [
        Message("system", "You are terse."),
        Message("user", "Weather in Paris and Rome?"),
        Message("assistant", "Let me check.", tool_calls=(call, call2)),
        Message("tool", "sunny, 21C", tool_call_id="call_a", name="get_weather"),
        Message("tool", "rainy, 15C", tool_call_id="call_b", name="get_weather"),
    ]
