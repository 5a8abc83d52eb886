"""Request parameters reach the model: a real `ragkit serve` with the OpenAI provider in
front of a loopback OpenAI-wire server that records what it receives, driven by the `openai` SDK;
parameters ragkit cannot honour are a 400 naming them; the local provider honours max_tokens and
stop; /chat takes the same parameters; the design's endpoints (model optional, system_prompt,
trace, /session/*)."""

from __future__ import annotations

import httpx
import openai
import pytest

from ragkit.testing.server_process import ServerProcess
from ragkit.testing.servers import FakeOpenAIServer
from ragkit.testing.servers.openai import CHAT_PATH

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
QUESTION = "When does the ferry sail?"
PARAMS = {"temperature": 0.3, "top_p": 0.9, "max_tokens": 50, "stop": ["\n\n", "END"], "seed": 7,
          "presence_penalty": 0.5, "frequency_penalty": 0.25, "user": "user-42"}


def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="no-key-configured", max_retries=0)


def last_request(upstream: FakeOpenAIServer) -> dict:
    return upstream.requests_to(CHAT_PATH)[-1].body


@pytest.mark.parametrize("stream", [False, True])
def test_every_sampling_parameter_reaches_the_model(wired, upstream, stream) -> None:
    messages = [{"role": "user", "content": QUESTION}]
    resp = client(wired).chat.completions.create(model="ragkit", messages=messages, stream=stream, **PARAMS)
    if stream:
        text = "".join(c.choices[0].delta.content or "" for c in resp if c.choices)
    else:
        text = resp.choices[0].message.content
    assert text.startswith("echo: ")
    body = last_request(upstream)
    for name, value in PARAMS.items():
        assert body[name] == value, name
    assert body["model"] == "gpt-test"


def test_max_completion_tokens_and_tool_choice_reach_the_model(wired, upstream) -> None:
    client(wired).chat.completions.create(model="ragkit", messages=[{"role": "user", "content": QUESTION}],
                                          max_completion_tokens=33, tool_choice="required")
    body = last_request(upstream)
    assert body["max_tokens"] == 33 and body["tool_choice"] == "required"
    assert [t["function"]["name"] for t in body["tools"]] == ["search_knowledge_base"]


def test_response_format_reaches_the_model_and_json_comes_back(wired, upstream) -> None:
    upstream.enqueue_text('{"answer": "Tuesdays"}')
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
              "additionalProperties": False}
    fmt = {"type": "json_schema", "json_schema": {"name": "ferry", "schema": schema, "strict": True}}
    resp = client(wired).chat.completions.create(model="ragkit", messages=[{"role": "user", "content": QUESTION}],
                                                 response_format=fmt)
    assert resp.choices[0].message.content == '{"answer": "Tuesdays"}'
    assert last_request(upstream)["response_format"] == fmt


def test_an_invalid_structured_answer_goes_back_to_the_model(wired, upstream) -> None:
    upstream.enqueue_text("Tuesdays, I think.")
    upstream.enqueue_text('{"answer": "Tuesdays"}')
    before = len(upstream.requests_to(CHAT_PATH))
    resp = client(wired).chat.completions.create(model="ragkit", messages=[{"role": "user", "content": QUESTION}],
                                                 response_format={"type": "json_object"})
    assert resp.choices[0].message.content == '{"answer": "Tuesdays"}'
    requests = upstream.requests_to(CHAT_PATH)[before:]
    assert len(requests) == 2 and "not valid JSON" in requests[1].body["messages"][-1]["content"]


@pytest.mark.parametrize(("field", "value"), [("n", 2), ("logprobs", True), ("top_logprobs", 3)])
def test_parameters_ragkit_cannot_honour_are_a_400_naming_them(wired, upstream, field, value) -> None:
    before = len(upstream.requests)
    with pytest.raises(openai.BadRequestError) as err:
        client(wired).chat.completions.create(model="ragkit", messages=[{"role": "user", "content": QUESTION}],
                                              **{field: value})
    assert err.value.body["param"] == field and f"'{field}' is not supported" in err.value.body["message"]
    assert len(upstream.requests) == before  # nothing reached the model
    ok = client(wired).chat.completions.create(model="ragkit", messages=[{"role": "user", "content": QUESTION}],
                                               n=1, logprobs=False)
    assert ok.choices[0].finish_reason == "stop"


def test_out_of_range_values_are_a_400_naming_the_field(wired) -> None:
    url = wired.base_url + "/chat/completions"
    for field, value in (("temperature", 3), ("top_p", -0.5), ("max_tokens", 0), ("stop", ["a"] * 5),
                         ("tool_choice", {"type": "function", "function": {"name": "nope"}}),
                         ("response_format", {"type": "json_schema", "json_schema": {"schema": "x"}})):
        r = httpx.post(url, json={"messages": [{"role": "user", "content": "q"}], field: value}, timeout=30)
        assert r.status_code == 400 and r.json()["error"]["param"] == field, (field, r.text)
    r = httpx.post(url, json={"messages": [{"role": "user", "content": "q"}], "stream": True, "n": 3}, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["param"] == "n"  # before the stream starts


def test_chat_takes_the_same_parameters(wired, upstream) -> None:
    r = httpx.post(wired.url + "/chat", json={"message": QUESTION, **PARAMS, "system_prompt": "Answer in French."},
                   timeout=60)
    assert r.status_code == 200, r.text
    body = last_request(upstream)
    assert all(body[k] == v for k, v in PARAMS.items())
    assert "Answer in French." in body["messages"][0]["content"]  # beside the RAG instructions
    r = httpx.post(wired.url + "/chat", json={"message": QUESTION, "n": 2}, timeout=60)
    assert r.status_code == 400 and r.json()["error"]["param"] == "n"


def test_model_is_optional_and_trace_comes_inline(wired) -> None:
    url = wired.base_url + "/chat/completions"
    r = httpx.post(url, json={"messages": [{"role": "user", "content": QUESTION}], "trace": True}, timeout=60)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["model"] == "ragkit" and body["trace"]["id"] == body["trace_id"]
    assert body["trace"]["steps"][0]["type"] == "llm_call" and body["trace"]["stop_reason"] == "stop"
    assert "trace" not in httpx.post(url, json={"messages": [{"role": "user", "content": QUESTION}]},
                                     timeout=60).json()
    payload = {"messages": [{"role": "user", "content": QUESTION}], "trace": True, "stream": True}
    with httpx.stream("POST", url, json=payload, timeout=60) as resp:
        events = [line for line in resp.iter_lines() if line.startswith("data: {")]
    assert sum('"trace":{' in e for e in events) == 1


def test_local_provider_cuts_the_answer_at_max_tokens(local_server) -> None:
    oa = client(local_server)
    messages = [{"role": "user", "content": QUESTION}]
    full = oa.chat.completions.create(model="ragkit", messages=messages)
    cut = oa.chat.completions.create(model="ragkit", messages=messages, max_tokens=4)
    assert full.choices[0].finish_reason == "stop" and cut.choices[0].finish_reason == "length"
    assert full.choices[0].message.content.startswith(cut.choices[0].message.content.rstrip())
    assert len(cut.choices[0].message.content) <= 16 < len(full.choices[0].message.content)
    chunks = list(oa.chat.completions.create(model="ragkit", messages=messages, max_tokens=4, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == cut.choices[0].message.content
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["length"]
    stopped = oa.chat.completions.create(model="ragkit", messages=messages, stop=["Tuesdays"])
    assert "Tuesdays" not in stopped.choices[0].message.content and stopped.choices[0].finish_reason == "stop"


def test_design_session_routes_are_aliases(local_server) -> None:
    base = local_server.url
    started = httpx.post(base + "/session/start", json={"title": "ferries"}, timeout=30)
    assert started.status_code == 201
    sid = started.json()["session_id"]
    assert started.json()["id"] == sid
    assert httpx.post(base + "/chat", json={"message": QUESTION, "session_id": sid}, timeout=60).status_code == 200
    got = httpx.get(f"{base}/session/{sid}", timeout=30).json()
    assert got == httpx.get(f"{base}/sessions/{sid}", timeout=30).json()
    assert got["title"] == "ferries" and [m["role"] for m in got["messages"]] == ["user", "assistant"]
    ended = httpx.post(base + "/session/end", json={"session_id": sid}, timeout=30).json()
    assert ended["ended"] is True
    assert httpx.get(base + "/session/nope", timeout=30).status_code == 404
    assert httpx.get(base + "/session/start", timeout=30).status_code == 405  # the alias routes' own words

