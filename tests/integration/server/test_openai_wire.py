"""`ragkit serve` through the official openai SDK: every wire fact of chat completions and models."""

from __future__ import annotations

import asyncio
import json

import httpx
import openai
import pytest

from ragkit.testing.echo import BAD_MARKER_TRIGGER, FAIL_TRIGGER

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
QUESTION = "When does the ferry sail?"
CITATION_FIELDS = {"n", "source", "page", "page_unit", "start", "end", "text"}


def client(server, **kw):
    return openai.OpenAI(base_url=server.base_url, api_key="no-key-configured", max_retries=0, **kw)


def ask(server, **kw):
    return client(server).chat.completions.create(model="ragkit", messages=[{"role": "user", "content": QUESTION}],
                                                  **kw)


def test_models_list(local_server) -> None:
    models = client(local_server).models.list()
    assert [m.id for m in models.data] == ["ragkit"]
    m = models.data[0]
    assert m.object == "model" and m.owned_by == "ragkit" and isinstance(m.created, int)


def test_non_streamed_answer_with_citations_and_usage(local_server) -> None:
    resp = ask(local_server)
    assert resp.object == "chat.completion" and resp.id.startswith("chatcmpl-")
    choice = resp.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    assert "Tuesdays" in choice.message.content and "[1]" in choice.message.content
    citations = choice.message.model_extra["citations"]
    assert citations and all(set(c) == CITATION_FIELDS for c in citations)
    assert citations[0]["n"] == 1 and citations[0]["source"] == "notes/gamma.txt" and "Tuesdays" in citations[0]["text"]
    u = resp.usage
    assert u.prompt_tokens > 0 and u.completion_tokens > 0 and u.total_tokens == u.prompt_tokens + u.completion_tokens
    assert u.model_extra["embedding_tokens"] > 0 and u.model_extra["cost"] > 0  # priced embedding model


def test_stream_wire_format_matches_the_non_streamed_answer(local_server) -> None:
    full = ask(local_server)
    chunks = list(ask(local_server, stream=True, stream_options={"include_usage": True}))
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert len({c.id for c in chunks}) == 1 and len({c.created for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    usage_chunk = chunks[-1]
    assert usage_chunk.choices == [] and usage_chunk.usage.prompt_tokens > 0
    assert usage_chunk.usage.model_extra["embedding_tokens"] > 0 and "cost" in usage_chunk.usage.model_extra
    body = chunks[:-1]
    assert all(len(c.choices) == 1 and c.usage is None for c in body)
    finishes = [i for i, c in enumerate(body) if c.choices[0].finish_reason is not None]
    assert finishes == [len(body) - 1] and body[-1].choices[0].finish_reason == "stop"
    last_delta = body[-1].choices[0].delta
    assert last_delta.content is None and last_delta.role is None and not last_delta.model_extra
    cited = [i for i, c in enumerate(body) if "citations" in (c.choices[0].delta.model_extra or {})]
    assert cited == [len(body) - 2]  # once, in a dedicated chunk just before the finish chunk
    assert body[cited[0]].choices[0].delta.content is None
    text = "".join(c.choices[0].delta.content or "" for c in body)
    assert text == full.choices[0].message.content
    assert body[cited[0]].choices[0].delta.model_extra["citations"] == full.choices[0].message.model_extra["citations"]


def test_raw_stream_ends_with_done(local_server) -> None:
    payload = {"model": "ragkit", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}
    with httpx.stream("POST", local_server.base_url + "/chat/completions", json=payload, timeout=60) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [line for line in r.iter_lines() if line]
    assert events[-1] == "data: [DONE]" and all(e.startswith("data: ") for e in events)
    assert sum('"citations"' in e for e in events) == 1
    assert not any('"usage"' in e for e in events)  # no include_usage: no usage chunk


def test_async_client_stream_and_complete(local_server) -> None:
    async def run() -> tuple[str, str, dict]:
        aclient = openai.AsyncOpenAI(base_url=local_server.base_url, api_key="x", max_retries=0)
        messages = [{"role": "user", "content": "Who built the lighthouse?"}]
        full = await aclient.chat.completions.create(model="ragkit", messages=messages)
        stream = await aclient.chat.completions.create(model="ragkit", messages=messages, stream=True,
                                                       stream_options={"include_usage": True})
        parts, usage = [], {}
        async for chunk in stream:
            if chunk.choices:
                parts.append(chunk.choices[0].delta.content or "")
            else:
                usage = chunk.usage.model_dump()
        await aclient.close()
        return full.choices[0].message.content, "".join(parts), usage

    full, streamed, usage = asyncio.run(run())
    assert "Thomas Reid" in full and streamed == full
    assert usage["prompt_tokens"] > 0 and "embedding_tokens" in usage


def test_unknown_model_is_not_found(local_server) -> None:
    with pytest.raises(openai.NotFoundError) as err:
        client(local_server).chat.completions.create(model="gpt-nope", messages=[{"role": "user", "content": "hi"}])
    assert err.value.status_code == 404 and err.value.code == "model_not_found"
    assert err.value.body["param"] == "model" and "gpt-nope" in err.value.body["message"]


def test_error_mid_stream_raises_api_error_and_never_enters_the_answer(echo_server) -> None:
    stream = client(echo_server).chat.completions.create(
        model="ragkit", stream=True, messages=[{"role": "user", "content": f"Please {FAIL_TRIGGER} now"}])
    text = []
    with pytest.raises(openai.APIError) as err:
        for chunk in stream:
            if chunk.choices:
                text.append(chunk.choices[0].delta.content or "")
    assert "failed mid-stream" in str(err.value.message)
    assert "".join(text) == "You asked: Please " and "fail" not in "".join(text).lower()
    payload = {"model": "ragkit", "stream": True, "messages": [{"role": "user", "content": FAIL_TRIGGER}]}
    with httpx.stream("POST", echo_server.base_url + "/chat/completions", json=payload, timeout=60) as r:
        events = [line for line in r.iter_lines() if line]
    error = json.loads(events[-1].removeprefix("data: "))
    assert set(error) == {"error"} and set(error["error"]) == {"message", "type", "param", "code"}
    assert "[DONE]" not in events[-1]


def test_errors_use_the_openai_envelope(local_server) -> None:
    url = local_server.base_url + "/chat/completions"
    r = httpx.post(url, json={"model": "ragkit"}, timeout=30)
    assert r.status_code == 400 and "detail" not in r.json()
    assert r.json()["error"]["param"] == "messages" and "messages" in r.json()["error"]["message"]
    r = httpx.post(url, json={"model": "ragkit", "messages": [{"role": "assistant", "content": "hi"}]}, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["param"] == "messages"
    r = httpx.post(url, json={"model": "ragkit", "top_k": 0, "messages": [{"role": "user", "content": "q"}]},
                   timeout=30)
    assert r.status_code == 400 and r.json()["error"]["param"] == "top_k"
    r = httpx.get(local_server.url + "/nope", timeout=30)
    assert r.status_code == 404 and set(r.json()["error"]) == {"message", "type", "param", "code"}
    r = httpx.post(url, content=b"{not json", headers={"content-type": "application/json"}, timeout=30)
    assert r.status_code == 400 and "error" in r.json()


def test_a_marker_no_search_returned_is_dropped_from_stream_and_answer_alike(echo_server) -> None:
    oa = client(echo_server)
    messages = [{"role": "user", "content": f"ferry {BAD_MARKER_TRIGGER}"}]
    full = oa.chat.completions.create(model="ragkit", messages=messages).choices[0].message
    streamed = "".join(c.choices[0].delta.content or "" for c in
                       oa.chat.completions.create(model="ragkit", messages=messages, stream=True) if c.choices)
    assert streamed == full.content and "[99]" not in full.content and "See also." in full.content
    assert [c["n"] for c in full.model_extra["citations"]] == [1]
