"""Client tools through a real `ragkit serve`: the request's ``tools`` join the
knowledge-base tool; a client tool call ends the response with ``finish_reason: "tool_calls"`` in
OpenAI's exact format (streamed deltas included); ``role: "tool"`` messages continue the turn;
``tool_choice`` is honoured; ``search_knowledge_base`` still runs server-side and cites. Driven by
the `openai` SDK, LangChain's ``bind_tools`` and litellm; the recording upstream shows what the
model was offered."""

from __future__ import annotations

import json
import os

import httpx
import openai
import pytest

from ragkit.testing.server_process import ServerProcess
from ragkit.testing.servers.openai import CHAT_PATH

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
WEATHER = "What is the weather in Oslo?"
FERRY = "When does the ferry sail?"
TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "the city"}},
                   "required": ["city"]}}}


def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="no-key-configured", max_retries=0)


def ask(server: ServerProcess, messages: list, **kw):
    return client(server).chat.completions.create(model="ragkit", messages=messages, **kw)


def test_a_client_tool_call_ends_the_response_and_the_tool_result_continues_it(local_server) -> None:
    first = ask(local_server, [{"role": "user", "content": WEATHER}], tools=[TOOL])
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "get_weather" and call.id
    assert "Oslo" in json.loads(call.function.arguments)["city"]
    history = [{"role": "user", "content": WEATHER}, choice.message.model_dump(exclude_none=True),
               {"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 degrees"}]
    final = ask(local_server, history, tools=[TOOL])
    assert final.choices[0].finish_reason == "stop" and "sunny, 21 degrees" in final.choices[0].message.content


def test_streamed_tool_calls_use_openais_delta_format(local_server) -> None:
    chunks = list(ask(local_server, [{"role": "user", "content": WEATHER}], tools=[TOOL], stream=True))
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    calls = [d.tool_calls for d in deltas if d.tool_calls]
    assert calls and calls[0][0].index == 0 and calls[0][0].id and calls[0][0].type == "function"
    assert calls[0][0].function.name == "get_weather"
    assert all(c[0].index == 0 and c[0].id is None and c[0].function.name is None for c in calls[1:])
    arguments = "".join(c[0].function.arguments or "" for c in calls)
    assert "Oslo" in json.loads(arguments)["city"]
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["tool_calls"] and not any(d.content for d in deltas)
    full = ask(local_server, [{"role": "user", "content": WEATHER}], tools=[TOOL])
    assert json.loads(arguments) == json.loads(full.choices[0].message.tool_calls[0].function.arguments)


def test_the_knowledge_base_tool_still_runs_on_the_server_and_cites(local_server) -> None:
    resp = ask(local_server, [{"role": "user", "content": FERRY}], tools=[TOOL])
    assert resp.choices[0].finish_reason == "stop" and "Tuesdays" in resp.choices[0].message.content
    assert resp.choices[0].message.model_extra["citations"][0]["source"] == "notes/gamma.txt"


@pytest.mark.parametrize(("choice", "finish"), [("none", "stop"), ("required", "tool_calls"),
                                               ({"type": "function", "function": {"name": "get_weather"}},
                                                "tool_calls")])
def test_tool_choice_is_honoured(local_server, choice, finish) -> None:
    resp = ask(local_server, [{"role": "user", "content": FERRY}], tools=[TOOL], tool_choice=choice)
    assert resp.choices[0].finish_reason == finish
    if isinstance(choice, dict):
        assert resp.choices[0].message.tool_calls[0].function.name == "get_weather"


def test_bad_tools_and_tool_messages_are_400s(local_server) -> None:
    url = local_server.base_url + "/chat/completions"
    bad = {"messages": [{"role": "user", "content": "q"}], "tools": [{"type": "function", "function": {}}]}
    r = httpx.post(url, json=bad, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["param"] == "tools"
    orphan = {"messages": [{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "x", "content": "1"}]}
    r = httpx.post(url, json=orphan, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["param"] == "messages" and "tool_call_id" in r.text


def test_the_model_is_offered_both_tools_and_the_named_choice(wired, upstream) -> None:
    upstream.enqueue_tool_call("get_weather", {"city": "Oslo"})
    resp = ask(wired, [{"role": "user", "content": WEATHER}], tools=[TOOL], tool_choice="auto", parallel_tool_calls=False)
    assert resp.choices[0].message.tool_calls[0].function.arguments == '{"city": "Oslo"}'
    body = upstream.requests_to(CHAT_PATH)[-1].body
    assert [t["function"]["name"] for t in body["tools"]] == ["search_knowledge_base", "get_weather"]
    assert body["tools"][1] == TOOL and "tool_choice" not in body
    upstream.enqueue_text("It is sunny in Oslo.")
    call = resp.choices[0].message.tool_calls[0]
    final = ask(wired, [{"role": "user", "content": WEATHER}, resp.choices[0].message.model_dump(exclude_none=True),
                        {"role": "tool", "tool_call_id": call.id, "content": "sunny"}], tools=[TOOL])
    assert final.choices[0].message.content == "It is sunny in Oslo."
    sent = upstream.requests_to(CHAT_PATH)[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2]["tool_calls"][0]["id"] == call.id and sent[3] == {"role": "tool", "tool_call_id": call.id,
                                                                     "content": "sunny"}


# --- agent frameworks ----------------------------------------------------------------------------

def get_weather(city: str) -> str:
    """The current weather in a city.

    Args:
        city: the city
    """
    return f"sunny, 21 degrees in {city}"


def chat_model(server):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="ragkit", base_url=server.base_url, api_key="no-key-configured", max_retries=0)


@pytest.mark.parametrize("stream", [False, True])
def test_langchain_bind_tools_round_trip(local_server, stream) -> None:
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    weather = tool(get_weather)
    llm = chat_model(local_server).bind_tools([weather])
    question = HumanMessage(WEATHER)
    if stream:
        message = None
        for chunk in llm.stream([question]):
            message = chunk if message is None else message + chunk
    else:
        message = llm.invoke([question])
    assert message.response_metadata["finish_reason"] == "tool_calls"
    (call,) = message.tool_calls
    assert call["name"] == "get_weather" and "Oslo" in call["args"]["city"]
    result = ToolMessage(weather.invoke(call["args"]), tool_call_id=call["id"])
    final = llm.invoke([question, message, result])
    assert "sunny, 21 degrees" in final.content and final.response_metadata["finish_reason"] == "stop"
    cited = llm.invoke([HumanMessage(FERRY)])  # the knowledge base still answers, server-side
    assert "Tuesdays" in cited.content and not cited.tool_calls


@pytest.mark.parametrize("stream", [False, True])
def test_litellm_with_a_client_tool(local_server, stream) -> None:
    import litellm

    kw = {"model": "openai/ragkit", "api_base": local_server.base_url, "api_key": "no-key-configured",
          "tools": [TOOL]}
    messages = [{"role": "user", "content": WEATHER}]
    resp = litellm.completion(messages=messages, stream=stream, **kw)
    if stream:
        resp = litellm.stream_chunk_builder(list(resp), messages=messages)
    assert resp.choices[0].finish_reason == "tool_calls"
    call = resp.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather"
    messages += [resp.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 degrees"}]
    final = litellm.completion(messages=messages, **kw)
    assert "sunny, 21 degrees" in final.choices[0].message.content


def test_a_session_keeps_the_client_tool_round_trip(local_server) -> None:
    sid = httpx.post(local_server.url + "/sessions", json={}, timeout=30).json()["id"]
    first = ask(local_server, [{"role": "user", "content": WEATHER}], tools=[TOOL], extra_body={"session_id": sid})
    call = first.choices[0].message.tool_calls[0]
    # the client sends only what is new: the tool's result
    final = ask(local_server, [{"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 degrees"}],
                tools=[TOOL], extra_body={"session_id": sid})
    assert "sunny, 21 degrees" in final.choices[0].message.content
    items = httpx.get(f"{local_server.url}/sessions/{sid}", timeout=30).json()["messages"]
    assert [i["role"] for i in items] == ["user", "assistant", "tool", "assistant"]
    assert items[1]["data"]["tool_calls"][0]["id"] == call.id and items[2]["data"]["tool_call_id"] == call.id
    assert all(i["status"] == "complete" for i in items)
