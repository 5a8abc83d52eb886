"""A run's trace says when it started and completed (ISO 8601 UTC) and which sampling settings its
model requests carried (the provider's defaults, then the run's own); both survive JSON."""

from __future__ import annotations

from datetime import datetime

from ragkit.agent import Agent, AgentConfig, AgentTrace
from ragkit.providers.openai import OpenAIProvider
from ragkit.testing.scripted import ScriptedProvider
from ragkit.testing.servers import FakeOpenAIServer
from ragkit.testing.servers.openai import CHAT_PATH


def when(text: str) -> datetime:
    assert text.endswith("Z")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_the_trace_has_its_times_and_sampling_settings() -> None:
    config = AgentConfig(temperature=0.2, top_p=0.9, max_tokens=64)
    result = Agent(ScriptedProvider(["hi"]), config=config).run("hello")
    trace = result.trace
    assert when(trace.started_at) <= when(trace.completed_at)
    assert trace.sampling == {"temperature": 0.2, "top_p": 0.9, "max_tokens": 64}
    again = AgentTrace.from_json(trace.to_json())
    assert (again.started_at, again.completed_at, again.sampling) == (trace.started_at, trace.completed_at,
                                                                      trace.sampling)
    assert Agent(ScriptedProvider(["hi"])).run("hello").trace.sampling == {}  # nothing set: the provider's defaults


def test_the_provider_defaults_are_recorded_as_sent() -> None:
    with FakeOpenAIServer() as server:
        provider = OpenAIProvider(model="gpt-4o-mini", api_key="test", base_url=server.url, temperature=0.7,
                                  max_tokens=100)
        result = Agent(provider, config=AgentConfig(max_tokens=40)).run("hello")
        body = server.requests_to(CHAT_PATH)[-1].body
    assert result.trace.sampling == {"temperature": 0.7, "max_tokens": 40}
    assert (body["temperature"], body["max_tokens"]) == (0.7, 40)  # what the trace says is what was sent
