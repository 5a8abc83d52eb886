"""What a hostile or merely unusual client meets at the wire, through real clients against a real
`ragkit serve`: ``null`` for an optional OpenAI field is its default (the `openai` SDK, litellm's
embeddings), validation errors are 400s in OpenAI's envelope, a strict ``json_schema`` the model
never matches is a refusal (never a 200 ``stop`` with JSON that breaks the schema), an unreachable
upstream is a 502 that does not show its URL, and every response carries the anti-framing and
``nosniff`` headers."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import httpx
import openai
import pytest
from pydantic import BaseModel

from ragkit.testing.server_process import ServerProcess, ragkit_server
from ragkit.testing.servers.openai import CHAT_PATH
from ragkit.testing.servers_db import free_port

from .conftest import build_index

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm must not fetch its price list
pytestmark = [pytest.mark.slow, pytest.mark.network_local]
QUESTION = [{"role": "user", "content": "When does the ferry sail?"}]
NOT_JSON = "Tuesdays, I think."


class Ferry(BaseModel):
    day: str
    hour: int


def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="no-key-configured", max_retries=0)


# ---------------------------------------------------------------- null is the default
def test_null_for_optional_fields_is_their_default(local_server) -> None:
    url = local_server.base_url + "/chat/completions"
    body = {"model": "ragkit", "messages": QUESTION, "stream": None, "stream_options": None, "temperature": None,
            "top_k": None, "use_knowledge_base": None, "trace": None, "tools": None, "session_id": None}
    r = httpx.post(url, json=body, timeout=60)
    assert r.status_code == 200, r.text
    assert "Tuesdays" in r.json()["choices"][0]["message"]["content"]  # use_knowledge_base: null is true
    r = httpx.post(local_server.base_url + "/completions", json={"prompt": "When does the ferry sail?",
                                                                   "stream": None, "echo": None}, timeout=60)
    assert r.status_code == 200, r.text
    r = httpx.post(local_server.base_url + "/embeddings", json={"input": "ferry", "encoding_format": None,
                                                                  "dimensions": None, "model": None})
    assert r.status_code == 200 and isinstance(r.json()["data"][0]["embedding"], list), r.text
    r = httpx.post(url, json={"model": "ragkit", "messages": None})  # a required field stays required
    assert r.status_code == 400 and r.json()["error"]["param"] == "messages"


def test_litellm_embeddings_work(local_server) -> None:
    import litellm

    resp = litellm.embedding(model="openai/ragkit", api_base=local_server.base_url, api_key="x",
                             input=["When does the ferry sail?", "lighthouse"])
    vectors = [d["embedding"] for d in resp.data]
    assert len(vectors) == 2 and len(vectors[0]) == 64 and vectors[0] != vectors[1]


def test_validation_errors_are_400_in_the_openai_envelope(local_server) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        client(local_server).chat.completions.create(model="ragkit", messages=QUESTION, temperature="hot")
    assert err.value.status_code == 400 and err.value.body["param"] == "temperature"
    assert err.value.body["type"] == "invalid_request_error" and "temperature" in err.value.body["message"]
    r = httpx.post(local_server.base_url + "/embeddings", json={"input": "x", "encoding_format": "hex"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "encoding_format"
    assert set(r.json()["error"]) == {"message", "type", "param", "code"}


# ---------------------------------------------------------------- structured output
def _never_valid(upstream) -> None:
    for _ in range(3):  # the first answer and both retries
        upstream.enqueue_text(NOT_JSON)


def test_a_strict_schema_never_met_is_a_refusal_for_the_sdk(wired, upstream) -> None:
    _never_valid(upstream)
    before = len(upstream.requests_to(CHAT_PATH))
    resp = client(wired).chat.completions.parse(model="ragkit", messages=QUESTION, response_format=Ferry)
    choice = resp.choices[0]
    assert choice.message.parsed is None and choice.message.content is None
    assert "response_format" in choice.message.refusal and "not valid JSON" in choice.message.refusal
    assert choice.finish_reason == "stop"
    assert len(upstream.requests_to(CHAT_PATH)) - before == 3 and upstream.pending(CHAT_PATH) == 0
    trace = httpx.get(f"{wired.url}/traces/{resp.model_extra['trace_id']}").json()
    assert trace["refusal"] == choice.message.refusal and trace["run"]["rejected_output"] == NOT_JSON

    upstream.enqueue_text('{"day": "Tuesday", "hour": 9}')  # a valid answer still parses
    ok = client(wired).chat.completions.parse(model="ragkit", messages=QUESTION, response_format=Ferry)
    assert ok.choices[0].message.parsed == Ferry(day="Tuesday", hour=9) and ok.choices[0].message.refusal is None


def test_a_strict_schema_never_met_streams_a_refusal_and_no_text(wired, upstream) -> None:
    _never_valid(upstream)
    with client(wired).chat.completions.stream(model="ragkit", messages=QUESTION, response_format=Ferry) as stream:
        events = list(stream)
        final = stream.get_final_completion()
    message = final.choices[0].message
    assert "refusal.delta" in {e.type for e in events}
    assert not "".join(e.delta for e in events if e.type == "content.delta")  # no text of the rejected answer
    assert message.parsed is None and not message.content and "response_format" in message.refusal
    _never_valid(upstream)  # /chat says it too, beside an empty response
    schema = {"type": "json_schema", "json_schema": {"name": "ferry", "strict": True,
                                                     "schema": Ferry.model_json_schema()}}
    r = httpx.post(wired.url + "/chat", json={"message": "When does the ferry sail?", "response_format": schema},
                   timeout=60)
    assert r.status_code == 200 and r.json()["response"] == "" and "response_format" in r.json()["refusal"]


# ---------------------------------------------------------------- upstream URLs
@pytest.fixture(scope="module")
def unreachable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    """`ragkit serve --provider openai` whose model endpoint is a closed loopback port."""
    upstream = f"http://127.0.0.1:{free_port()}/v1"
    index = build_index(tmp_path_factory.mktemp("unreachable"))
    args = ["--model", "gpt-test", "--base-url", upstream, "--provider-option", "max_retries=0"]
    with ragkit_server(index, provider="openai", args=args, env={"OPENAI_API_KEY": "sk-test"}) as server:
        yield server, upstream


def test_an_unreachable_upstream_is_a_502_without_its_url(unreachable) -> None:
    server, upstream = unreachable
    port = upstream.split(":")[-1].split("/")[0]
    with pytest.raises(openai.InternalServerError) as err:
        client(server).chat.completions.create(model="ragkit", messages=QUESTION)
    assert err.value.status_code == 502 and err.value.body["code"] == "upstream_error"
    assert "model provider" in err.value.body["message"]
    payload = {"model": "ragkit", "messages": QUESTION, "stream": True}
    with httpx.stream("POST", server.base_url + "/chat/completions", json=payload, timeout=60) as r:
        streamed = r.read().decode()
    assert "upstream_error" in streamed
    for shown in (json.dumps(err.value.body), streamed):
        assert upstream not in shown and "127.0.0.1" not in shown and port not in shown
    assert port in server.log()  # the operator still sees where it failed


# ---------------------------------------------------------------- headers
def test_every_response_carries_nosniff_and_the_page_cannot_be_framed(local_server) -> None:
    page = httpx.get(local_server.url + "/")
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
    answers = [httpx.get(local_server.url + p) for p in ("/healthz", "/v1/models", "/static/app.js", "/nope")]
    answers.append(httpx.get(local_server.url + "/healthz", headers={"Host": "rebound.example"}))  # the guard's 421
    answers.append(httpx.post(local_server.base_url + "/chat/completions", json={}))  # a validation error
    assert [a.status_code for a in answers] == [200, 200, 200, 404, 421, 400]
    for answer in answers:
        assert answer.headers["x-content-type-options"] == "nosniff", answer.url
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["content-security-policy"].endswith("frame-ancestors 'none'")


def test_the_docs_page_still_loads_its_scripts(local_server) -> None:
    docs = httpx.get(local_server.url + "/docs")
    assert docs.status_code == 200 and docs.headers["content-security-policy"] == "frame-ancestors 'none'"

