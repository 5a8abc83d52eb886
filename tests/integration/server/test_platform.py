"""The platform endpoints: POST /chat, /sessions (create, list, read, end, delete), /search."""

from __future__ import annotations

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.network_local]


def test_chat_creates_a_session_and_keeps_the_history(local_server) -> None:
    url = local_server.url
    r = httpx.post(url + "/chat", json={"message": "When does the ferry sail?"}, timeout=60).json()
    assert set(r) >= {"response", "session_id", "trace"} and "Tuesdays" in r["response"]
    assert r["citations"][0]["source"] == "notes/gamma.txt" and r["trace"]["id"]
    assert [s["type"] for s in r["trace"]["steps"]] == ["llm_call", "tool_call", "llm_call", "tool_call", "llm_call"]  # search, draft, search in the cited file, answer
    sid = r["session_id"]
    # a partial history: only the new question, in the same session
    r2 = httpx.post(url + "/chat", json={"message": "Who built the lighthouse at Alpha Point?", "session_id": sid},
                    timeout=60).json()
    assert r2["session_id"] == sid and "Thomas Reid" in r2["response"]
    # a full history: the client resends everything; only the last question is new
    history = [{"role": "user", "content": "When does the ferry sail?"},
               {"role": "assistant", "content": r["response"]},
               {"role": "user", "content": "When was the rain gauge replaced?"}]
    r3 = httpx.post(url + "/chat", json={"messages": history, "session_id": sid}, timeout=60).json()
    assert "1999" in r3["response"]
    session = httpx.get(f"{url}/sessions/{sid}").json()
    assert session["items"] == 6 and [m["role"] for m in session["messages"]] == ["user", "assistant"] * 3
    trace = httpx.get(f"{url}/traces/{r3['trace']['id']}").json()
    # the agent saw the stored history: its first model call got the earlier turns
    assert trace["run"]["steps"][0]["input_tokens"] > r["trace"]["steps"][0]["input_tokens"]
    r = httpx.post(url + "/chat", json={"message": "x", "messages": []})
    assert r.status_code == 400 and r.json()["error"]["param"] == "message"
    r = httpx.post(url + "/chat", json={"message": "x", "unknown": 1})
    assert r.status_code == 400 and r.json()["error"]["param"] == "unknown"


def test_session_lifecycle(local_server) -> None:
    url = local_server.url
    created = httpx.post(url + "/sessions", json={"title": "Ferry planning", "metadata": {"team": "ops"}})
    assert created.status_code == 201
    s = created.json()
    assert s["object"] == "session" and s["title"] == "Ferry planning" and not s["ended"]
    assert s["id"] in {x["id"] for x in httpx.get(url + "/sessions").json()["data"]}
    httpx.post(url + "/chat", json={"message": "When does the ferry sail?", "session_id": s["id"]}, timeout=60)
    ended = httpx.post(f"{url}/sessions/{s['id']}/end", json={}).json()
    assert ended["ended"] and ended["items"] == 2
    r = httpx.post(url + "/chat", json={"message": "more?", "session_id": s["id"]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "session_ended"
    assert httpx.get(f"{url}/sessions/{s['id']}").json()["items"] == 2  # the refused turn stored nothing
    assert httpx.delete(f"{url}/sessions/{s['id']}").json() == {"id": s["id"], "object": "session.deleted",
                                                                "deleted": True}
    for r in (httpx.get(f"{url}/sessions/{s['id']}"), httpx.delete(f"{url}/sessions/{s['id']}"),
              httpx.post(f"{url}/sessions/{s['id']}/end", json={})):
        assert r.status_code == 404 and r.json()["error"]["code"] == "session_not_found"


def test_search_and_rag_options(local_server) -> None:
    url = local_server.url
    hits = httpx.post(url + "/search", json={"query": "ferry harbour", "top_k": 2}).json()["data"]
    assert len(hits) == 2 and hits[0]["source"] == "notes/gamma.txt" and set(hits[0]) >= {"score", "text", "start"}
    only = httpx.post(url + "/search", json={"query": "ferry harbour", "filter": {"source": "alpha.md"}}).json()["data"]
    assert only and {h["source"] for h in only} == {"alpha.md"}
    body = {"model": "ragkit", "messages": [{"role": "user", "content": "When does the ferry sail?"}],
            "filter": {"source": "beta.txt"}, "top_k": 1}
    resp = httpx.post(url + "/v1/chat/completions", json=body, timeout=60).json()
    assert {c["source"] for c in resp["choices"][0]["message"]["citations"]} <= {"beta.txt"}
    trace = httpx.get(f"{url}/traces/{resp['trace_id']}").json()
    assert trace["options"]["top_k"] == 1 and trace["options"]["filter"] == {"source": "beta.txt"}
    for path, bad in (("/search", {"query": "x", "filter": {"source": {"$regex": "a"}}}),
                      ("/v1/chat/completions", {**body, "filter": {"page": {"$in": "1"}}})):
        r = httpx.post(url + path, json=bad)
        assert r.status_code == 400 and r.json()["error"]["param"] == "filter", r.text
    no_kb = {**body, "use_knowledge_base": False}
    resp = httpx.post(url + "/v1/chat/completions", json=no_kb, timeout=60).json()
    assert resp["choices"][0]["message"]["citations"] == [] and resp["usage"]["embedding_tokens"] == 0
