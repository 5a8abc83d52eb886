"""Request parameters through ``AgentConfig`` into providers, ``tool_choice``, and structured output
(``Agent.run(..., response_format=...)`` -> ``result.parsed``)."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel

from ragkit.agent import Agent, AgentConfig
from ragkit.errors import ConfigError
from ragkit.messages import Message, Response, ToolSpec
from ragkit.providers.anthropic import AnthropicProvider
from ragkit.providers.cohere import CohereProvider
from ragkit.providers.params import ParamError
from ragkit.providers.text_tools import with_text_tool_calls
from ragkit.rag.local import LocalProvider
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool

SAMPLING = {"temperature": 0.2, "top_p": 0.8, "max_tokens": 40, "stop": ["END"], "seed": 3,
            "presence_penalty": 0.1, "frequency_penalty": -0.1, "user": "u1"}


@tool
def lookup(term: str) -> str:
    """Look a term up in the glossary."""
    return f"{term}: a word"


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


class Ferry(BaseModel):
    day: str
    hour: int


def test_every_sampling_parameter_reaches_the_provider() -> None:
    provider = ScriptedProvider(["done"])
    Agent(provider, config=AgentConfig(**SAMPLING)).run("q")
    assert provider.calls[0].params == SAMPLING


@pytest.mark.parametrize(("changes", "param"), [
    ({"temperature": 2.5}, "temperature"), ({"top_p": 1.5}, "top_p"), ({"max_tokens": 0}, "max_tokens"),
    ({"stop": ["a", "b", "c", "d", "e"]}, "stop"), ({"stop": [""]}, "stop"), ({"seed": 1.5}, "seed"),
    ({"presence_penalty": -3}, "presence_penalty"), ({"user": "x" * 300}, "user"),
    ({"model_params": {"n": 2}}, "n"), ({"model_params": {"logprobs": True}}, "logprobs"),
    ({"tool_choice": 7}, "tool_choice"), ({"response_format": {"type": "xml"}}, "response_format"),
])
def test_bad_values_name_the_parameter(changes, param) -> None:
    with pytest.raises(ParamError) as err:
        AgentConfig(**changes)
    assert err.value.param == param and param in str(err.value)


def test_neutral_values_of_refused_parameters_pass() -> None:
    AgentConfig(model_params={"n": 1, "logprobs": False})


def test_a_provider_that_cannot_honour_a_parameter_refuses_it_at_construction(monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    provider = AnthropicProvider(model="claude-test")
    with pytest.raises(ConfigError, match="'seed' is not supported by the 'anthropic' provider"):
        Agent(provider, config=AgentConfig(seed=1))
    wire = provider.wire_params({"stop": "END", "user": "u1", "tool_choice": "required", "top_p": 0.5})
    assert wire == {"max_tokens": 1024, "stop_sequences": ["END"], "metadata": {"user_id": "u1"},
                    "tool_choice": {"type": "any"}, "top_p": 0.5}


def test_cohere_maps_parameters_to_its_names(monkeypatch) -> None:
    monkeypatch.setenv("COHERE_API_KEY", "test")
    provider = CohereProvider(model="command-test")
    fmt = {"type": "json_schema", "json_schema": {"name": "f", "schema": {"type": "object"}}}
    wire = provider.wire_params({"stop": "END", "top_p": 0.5, "user": "u1", "tool_choice": "required",
                                 "response_format": fmt, "seed": 4})
    assert wire == {"stop_sequences": ["END"], "p": 0.5, "tool_choice": "REQUIRED", "seed": 4,
                    "response_format": {"type": "json_object", "json_schema": {"type": "object"}}}


def test_agent_configured_copies_with_new_parameters() -> None:
    provider = ScriptedProvider(["a", "b"])
    agent = Agent(provider, tools=[lookup], config=AgentConfig(temperature=0.1))
    agent.configured(max_tokens=9).run("q")
    agent.run("q")
    assert provider.calls[0].params == {"temperature": 0.1, "max_tokens": 9}
    assert provider.calls[1].params == {"temperature": 0.1}
    with pytest.raises(ParamError):
        agent.configured(top_p=9)


# --- tool_choice ---------------------------------------------------------------------------------

def test_tool_choice_none_offers_no_tools() -> None:
    provider = ScriptedProvider(["plain"])
    Agent(provider, tools=[lookup], config=AgentConfig(tool_choice="none")).run("q")
    assert provider.calls[0].tools == [] and "tool_choice" not in provider.calls[0].params


def test_tool_choice_required_applies_until_the_first_call() -> None:
    provider = ScriptedProvider([tool_call_response(("lookup", {"term": "x"})), "answer"])
    result = Agent(provider, tools=[lookup, weather], config=AgentConfig(tool_choice="required")).run("q")
    assert result.content == "answer"
    assert provider.calls[0].params["tool_choice"] == "required" and len(provider.calls[0].tools) == 2
    assert "tool_choice" not in provider.calls[1].params and len(provider.calls[1].tools) == 2


@pytest.mark.parametrize("choice", ["weather", {"type": "function", "function": {"name": "weather"}}])
def test_a_named_tool_choice_offers_only_that_tool(choice) -> None:
    provider = ScriptedProvider([tool_call_response(("weather", {"city": "Oslo"})), "sunny"])
    Agent(provider, tools=[lookup, weather], config=AgentConfig(tool_choice=choice)).run("q")
    assert provider.calls[0].tool_names == ["weather"] and provider.calls[0].params["tool_choice"] == "required"
    assert provider.calls[1].tool_names == ["lookup", "weather"]


def test_a_named_tool_choice_must_name_a_tool() -> None:
    with pytest.raises(ParamError, match="'nope', which is not one of the tools"):
        Agent(ScriptedProvider(["x"]), tools=[lookup], config=AgentConfig(tool_choice="nope"))  # at construction


# --- structured output ---------------------------------------------------------------------------

def test_pydantic_response_format_parses_and_instructs_a_provider_without_native_support() -> None:
    provider = ScriptedProvider(['{"day": "Tuesday", "hour": 9}'])
    result = Agent(provider).run("When?", response_format=Ferry)
    assert result.parsed == Ferry(day="Tuesday", hour=9) and result.stop_reason == "stop"
    system = provider.calls[0].messages[0]
    assert system.role == "system" and '"hour"' in system.content and "JSON" in system.content
    assert "response_format" not in provider.calls[0].params
    assert all(m.role != "system" for m in result.messages)  # the instruction is not stored


def test_an_invalid_answer_goes_back_with_what_is_wrong() -> None:
    provider = ScriptedProvider(["Tuesday at nine", '{"day": "Tuesday"}', '```json\n{"day": "Tuesday", "hour": 9}\n```'])
    result = Agent(provider).run("When?", response_format=Ferry)
    assert result.parsed == Ferry(day="Tuesday", hour=9) and result.iterations == 3
    assert "not valid JSON" in provider.calls[1].messages[-1].content
    assert "hour: Field required" in provider.calls[2].messages[-1].content


def test_an_answer_that_never_matches_ends_with_invalid_output() -> None:
    provider = ScriptedProvider(["no", "still no", "never"])
    result = Agent(provider).run("When?", response_format={"type": "json_object"})
    assert result.stop_reason == "invalid_output" and result.parsed is None and result.content == "never"


def test_a_json_schema_dict_is_checked_with_refs() -> None:
    schema = {"type": "object", "properties": {"ferry": {"$ref": "#/$defs/F"}}, "required": ["ferry"],
              "$defs": {"F": {"type": "object", "properties": {"hour": {"type": "integer"}}, "required": ["hour"]}}}
    fmt = {"type": "json_schema", "json_schema": {"name": "out", "schema": schema, "strict": True}}
    provider = ScriptedProvider(['{"ferry": {"hour": "nine"}}', '{"ferry": {"hour": 9}}'])
    result = Agent(provider).run("When?", response_format=fmt)
    assert result.parsed == {"ferry": {"hour": 9}}
    assert "'ferry.hour' must be integer" in provider.calls[1].messages[-1].content


def test_native_providers_get_the_wire_format_and_the_stream_holds_until_checked() -> None:
    class Native(ScriptedProvider):
        native_response_format = True

    provider = Native(['{"day": "Mon", "hour": 1}'])
    events = list(Agent(provider).stream("When?", response_format=Ferry))
    texts = [e.text for e in events if e.type == "text"]
    assert texts == ['{"day": "Mon", "hour": 1}'] and events[-1].result.parsed == Ferry(day="Mon", hour=1)
    sent = provider.calls[0].params["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "Ferry"
    assert provider.calls[0].messages[0].role == "user"  # no instruction for a native provider


def test_async_run_takes_a_response_format() -> None:
    result = asyncio.run(Agent(ScriptedProvider(['{"day": "Sun", "hour": 2}'])).arun("q", response_format=Ferry))
    assert result.parsed.hour == 2


def test_a_structured_answer_is_never_read_as_a_text_tool_call() -> None:
    specs = [ToolSpec("lookup", "Look up.", {"type": "object", "properties": {"term": {"type": "string"}}})]
    answer = json.dumps({"answer": 'write TOOL_CALL: {"tool": "lookup", "parameters": {"term": "x"}}'})
    response = with_text_tool_calls(Response(content=answer), specs, [Message("user", "q")])
    assert response.tool_calls == () and response.content == answer
    plain = with_text_tool_calls(Response(content='TOOL_CALL: {"tool": "lookup", "parameters": {"term": "x"}}'),
                                 specs, [Message("user", "q")])
    assert [c.name for c in plain.tool_calls] == ["lookup"]


# --- the local provider --------------------------------------------------------------------------

def test_local_provider_honours_max_tokens_stop_and_json() -> None:
    local = LocalProvider()
    full = local.complete([Message("user", "hi")])
    cut = local.complete([Message("user", "hi")], max_tokens=3)
    assert cut.stop_reason == "length" and full.content.startswith(cut.content) and cut.usage.output_tokens <= 3
    stopped = local.complete([Message("user", "hi")], stop="offline")
    assert stopped.content == full.content[:full.content.index("offline")] and stopped.stop_reason == "stop"
    result = Agent(local).run("hi", response_format=Ferry)
    assert result.parsed == Ferry(day=full.content, hour=0)
    assert json.loads(Agent(local).run("hi", response_format={"type": "json_object"}).content) == \
        {"answer": full.content, "sources": []}


# --- client tools --------------------------------------------------------------------------------

CLIENT = {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city.",
                                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}


def test_a_client_tool_call_ends_the_run_for_the_caller_after_the_agents_own_calls() -> None:
    from ragkit.agent import ConversationMemory

    both = tool_call_response(("lookup", {"term": "fog"}), ("get_weather", {"city": "Oslo"}))
    provider = ScriptedProvider([both, "Foggy and sunny in Oslo."])
    memory = ConversationMemory()
    agent = Agent(provider, tools=[lookup], config=AgentConfig(client_tools=[CLIENT], memory=memory))
    result = agent.run("Weather and fog?")
    assert result.stop_reason == "tool_calls" and [c.name for c in result.client_calls] == ["get_weather"]
    assert [r.name for r in result.tool_calls] == ["lookup"]  # the agent's own tool ran in the same turn
    assert [t.name for t in provider.calls[0].tools] == ["lookup", "get_weather"]
    call = result.client_calls[0]
    answer = agent.run([Message("tool", "sunny", tool_call_id=call.id, name=call.name)])  # the caller's result
    assert answer.content == "Foggy and sunny in Oslo." and answer.stop_reason == "stop"
    sent = provider.calls[1].messages
    assert [m.role for m in sent] == ["user", "assistant", "tool", "tool"]
    assert sent[2].content == "fog: a word" and sent[3].tool_call_id == call.id


def test_client_tools_are_checked() -> None:
    with pytest.raises(ParamError, match="tools\\[0\\] must be"):
        AgentConfig(client_tools=[{"type": "function", "function": {"name": "bad name"}}])
    with pytest.raises(ParamError, match="share a name"):
        AgentConfig(client_tools=[CLIENT, CLIENT])
    clash = {"type": "function", "function": {"name": "lookup"}}
    with pytest.raises(ParamError, match="names of the agent's own tools"):
        Agent(ScriptedProvider(["x"]), tools=[lookup], config=AgentConfig(client_tools=[clash])).run("q")


def test_a_named_tool_choice_can_force_a_client_tool() -> None:
    provider = ScriptedProvider([tool_call_response(("get_weather", {"city": "Rome"}))])
    config = AgentConfig(client_tools=[CLIENT], tool_choice="get_weather")
    result = Agent(provider, tools=[lookup], config=config).run("q")
    assert provider.calls[0].tool_names == ["get_weather"] and result.client_calls[0].arguments == {"city": "Rome"}
