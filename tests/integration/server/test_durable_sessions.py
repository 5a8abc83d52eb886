"""Sessions and traces survive kill -9 and are shared by every worker; citations agree everywhere."""

from __future__ import annotations

import concurrent.futures as cf
import time
import uuid
from pathlib import Path

import httpx
import openai
import pytest

from ragkit.testing.server_process import ragkit_server

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
QUESTIONS = ["When does the ferry sail?", "Who built the lighthouse?", "When was the rain gauge replaced?"]


def test_three_turns_survive_kill9_and_a_restart_with_four_workers(tmp_path: Path) -> None:
    index = build_index(tmp_path)
    answers = []
    with ragkit_server(index) as server:
        oa = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        sid = httpx.post(server.url + "/sessions", json={"title": "durability"}).json()["id"]
        for n, q in enumerate(QUESTIONS):
            kw = {"model": "ragkit", "messages": [{"role": "user", "content": q}], "extra_body": {"session_id": sid}}
            if n == 1:  # one turn streamed: its citations must match the stored ones too
                chunks = list(oa.chat.completions.create(stream=True, stream_options={"include_usage": True}, **kw))
                cites = next(c.choices[0].delta.model_extra["citations"] for c in chunks
                             if c.choices and "citations" in (c.choices[0].delta.model_extra or {}))
                content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                usage = chunks[-1].usage.model_dump()
                trace_id = chunks[-1].id.removeprefix("chatcmpl-")
            else:
                resp = oa.chat.completions.create(**kw)
                cites, content = resp.choices[0].message.model_extra["citations"], resp.choices[0].message.content
                usage, trace_id = resp.usage.model_dump(), resp.model_extra["trace_id"]
                assert resp.model_extra["session_id"] == sid
            assert cites, q
            answers.append((content, cites, usage, trace_id))
        server.kill9()
    assert server.proc.returncode == -9

    with ragkit_server(index, workers=4) as server:
        stored = None
        for _ in range(8):  # several requests, so several workers serve them
            stored = httpx.get(f"{server.url}/sessions/{sid}", timeout=30).json()
        assert stored["title"] == "durability" and stored["items"] == 6
        items = stored["messages"]
        assert [i["role"] for i in items] == ["user", "assistant"] * 3
        assert [i["content"] for i in items[::2]] == QUESTIONS
        for item, (content, cites, usage, trace_id) in zip(items[1::2], answers, strict=True):
            assert item["content"] == content and item["citations"] == cites and item["status"] == "complete"
            assert item["agent"] == "rag" and item["trace_id"] == trace_id
            assert {k: item["usage"][k] for k in ("prompt_tokens", "embedding_tokens", "cost")} == \
                {k: usage[k] for k in ("prompt_tokens", "embedding_tokens", "cost")}
            trace = httpx.get(f"{server.url}/traces/{trace_id}", timeout=30).json()
            assert trace["session_id"] == sid and trace["citations"] == cites and trace["status"] == "ok"
            steps = trace["run"]["steps"]
            assert [s["type"] for s in steps] == ["llm_call", "tool_call", "llm_call", "tool_call", "llm_call"]  # search, draft, search in the cited file, answer
            assert all(s["duration"] >= 0 for s in steps) and steps[0]["input_tokens"] > 0
        listed = httpx.get(f"{server.url}/traces", params={"session_id": sid, "limit": 2}, timeout=30).json()
        assert listed["total"] == 3 and len(listed["data"]) == 2 and listed["has_more"]
        page2 = httpx.get(f"{server.url}/traces", params={"session_id": sid, "limit": 2, "offset": 2}).json()
        assert {t["id"] for t in listed["data"] + page2["data"]} == {a[3] for a in answers}

        # a fourth turn on any worker sees the history; concurrent turns spread over the workers
        oa = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        oa.chat.completions.create(model="ragkit", messages=[{"role": "user", "content": "And on which days?"}],
                                   extra_body={"session_id": sid})
        assert httpx.get(f"{server.url}/sessions/{sid}").json()["items"] == 8
        with cf.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda q: oa.chat.completions.create(
                model="ragkit", messages=[{"role": "user", "content": q}]), QUESTIONS * 4))
        everything = httpx.get(f"{server.url}/traces", params={"limit": 100}).json()
        assert everything["total"] == 3 + 1 + 12
        workers = {httpx.get(f"{server.url}/traces/{t['id']}").json()["worker"] for t in everything["data"]}
        assert server.proc.pid not in workers and all(isinstance(w, int) for w in workers)


def test_concurrent_turns_on_one_session_are_serialized(echo_server) -> None:
    sid = httpx.post(echo_server.url + "/sessions", json={}).json()["id"]
    oa = openai.OpenAI(base_url=echo_server.base_url, api_key="x", max_retries=0)

    def turn(n: int) -> str:
        return oa.chat.completions.create(model="ragkit", messages=[{"role": "user", "content": f"question {n}"}],
                                          extra_body={"session_id": sid}).choices[0].message.content

    with cf.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(turn, range(4)))
    assert all(a.startswith(f"You asked: question {n}.") for n, a in enumerate(answers))
    items = httpx.get(f"{echo_server.url}/sessions/{sid}").json()["messages"]
    assert len(items) == 8
    for q, a in zip(items[::2], items[1::2], strict=True):  # each answer right after its own question
        assert q["role"] == "user" and a["content"].startswith(f"You asked: {q['content']}.")


def test_client_disconnect_mid_stream_stores_an_incomplete_turn(tmp_path: Path) -> None:
    index = build_index(tmp_path)
    with ragkit_server(index, provider="echo", args=["--provider-option", "delay=0.3"]) as server:
        sid = httpx.post(server.url + "/sessions", json={}).json()["id"]
        payload = {"model": "ragkit", "stream": True, "session_id": sid,
                   "messages": [{"role": "user", "content": "a long question that takes a while to answer"}]}
        with httpx.stream("POST", server.base_url + "/chat/completions", json=payload, timeout=60) as r:
            got = []
            for line in r.iter_lines():
                if '"content":"' in line and '"content":""' not in line:
                    got.append(line)
                if len(got) == 2:
                    break  # leave mid-answer
        deadline = time.monotonic() + 30
        items: list = []
        while time.monotonic() < deadline and len(items) < 2:
            items = httpx.get(f"{server.url}/sessions/{sid}").json()["messages"]
            time.sleep(0.2)
        assert [i["status"] for i in items] == ["complete", "incomplete"]
        partial = items[1]["content"]
        assert partial.startswith("You asked:") and not partial.endswith("says so [1].")


def test_retries_never_store_a_turn_twice(echo_server) -> None:
    from ragkit.testing.echo import FAIL_TRIGGER

    sid = httpx.post(echo_server.url + "/sessions", json={}).json()["id"]
    oa = openai.OpenAI(base_url=echo_server.base_url, api_key="x")  # the SDK's default: 2 retries on 5xx
    with pytest.raises(openai.APIStatusError) as err:
        oa.chat.completions.create(model="ragkit", messages=[{"role": "user", "content": FAIL_TRIGGER}],
                                   extra_body={"session_id": sid})
    assert err.value.status_code >= 500 and err.value.response.headers["x-should-retry"] == "false"
    assert "traceback" not in err.value.message.lower()
    traces = httpx.get(f"{echo_server.url}/traces", params={"session_id": sid}).json()
    assert [t["status"] for t in traces["data"]] == ["error"]  # run once: the SDK did not retry
    assert httpx.get(f"{echo_server.url}/sessions/{sid}").json()["items"] == 0  # a failed turn stores nothing

    body = {"model": "ragkit", "session_id": sid, "messages": [{"role": "user", "content": "ferry days?"}]}
    first = httpx.post(echo_server.base_url + "/chat/completions", json=body, headers={"Idempotency-Key": "k1"},
                       timeout=60).json()
    again = httpx.post(echo_server.base_url + "/chat/completions", json=body, headers={"Idempotency-Key": "k1"},
                       timeout=60).json()
    assert again["choices"][0]["message"]["content"] == first["choices"][0]["message"]["content"]
    assert again["choices"][0]["message"]["citations"] == first["choices"][0]["message"]["citations"]
    assert httpx.get(f"{echo_server.url}/sessions/{sid}").json()["items"] == 2  # stored once


def test_sessions_in_postgres_survive_a_restart(tmp_path: Path, postgres_dsn: str) -> None:
    from ragkit.sessions.db import Database

    name = "serve" + uuid.uuid4().hex[:8]
    admin = Database(postgres_dsn)
    admin.execute(f"CREATE DATABASE {name}")
    admin.close()
    base, _, query = postgres_dsn.partition("?")
    url = base.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")
    index = build_index(tmp_path)
    args = ["--sessions-url", url]
    with ragkit_server(index, args=args) as server:
        r = httpx.post(server.url + "/chat", json={"message": QUESTIONS[0]}, timeout=60).json()
        server.kill9()
    assert not (index / "state.db").exists()  # nothing went to SQLite
    with ragkit_server(index, workers=2, args=args) as server:
        items = httpx.get(f"{server.url}/sessions/{r['session_id']}").json()["messages"]
        assert [i["content"] for i in items] == [QUESTIONS[0], r["response"]]
        assert items[1]["citations"] == r["citations"]
        assert httpx.get(f"{server.url}/traces/{r['trace']['id']}").json()["citations"] == r["citations"]


def test_a_turn_that_waits_too_long_for_its_session_gets_429(tmp_path: Path) -> None:
    index = build_index(tmp_path)
    args = ["--provider-option", "delay=0.2", "--session-wait", "0.5"]
    with ragkit_server(index, provider="echo", args=args) as server:
        sid = httpx.post(server.url + "/sessions", json={}).json()["id"]
        body = {"model": "ragkit", "session_id": sid, "messages": [{"role": "user", "content": "a slow question"}]}
        with cf.ThreadPoolExecutor(2) as pool:
            slow = pool.submit(httpx.post, server.base_url + "/chat/completions", json=body, timeout=60)
            time.sleep(0.5)
            busy = httpx.post(server.base_url + "/chat/completions", json=body, timeout=60)
            assert slow.result().status_code == 200
        assert busy.status_code == 429 and busy.json()["error"]["code"] == "session_busy"
        assert busy.headers["retry-after"] == "1"
        assert httpx.get(f"{server.url}/sessions/{sid}").json()["items"] == 2
