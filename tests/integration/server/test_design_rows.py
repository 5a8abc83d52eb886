"""A platform that keeps its own history: ``POST /chat`` sends the model the whole conversation a
request gives, exactly as ``/v1/chat/completions`` does, and a session stores it once (a real
`ragkit serve` in front of a loopback OpenAI-wire server that records what the model receives)."""

from __future__ import annotations

import httpx
import openai
import pytest

from ragkit.testing.servers import FakeOpenAIServer
from ragkit.testing.servers.openai import CHAT_PATH

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
HISTORY = [{"role": "system", "content": "Answer like a ferry captain."},
           {"role": "user", "content": "My name is Ada and I live on Beta Island."},
           {"role": "assistant", "content": "Noted, Ada of Beta Island."},
           {"role": "user", "content": "When does my ferry sail?"}]


def dialogue(upstream: FakeOpenAIServer) -> list[tuple[str, str]]:
    """The user and assistant messages of the model's last request (the system prompt aside)."""
    sent = upstream.requests_to(CHAT_PATH)[-1].body["messages"]
    return [(m["role"], m["content"]) for m in sent if m["role"] in ("user", "assistant")]


def test_chat_sends_a_platform_history_as_chat_completions_does(wired, upstream) -> None:
    sdk = openai.OpenAI(base_url=wired.base_url, api_key="no-key-configured", max_retries=0)
    sdk.chat.completions.create(model="ragkit", messages=HISTORY)
    via_v1 = upstream.requests_to(CHAT_PATH)[-1].body["messages"]
    expected = [(m["role"], m["content"]) for m in HISTORY[1:]]
    assert dialogue(upstream) == expected

    r = httpx.post(wired.url + "/chat", json={"messages": HISTORY}, timeout=60)
    assert r.status_code == 200, r.text
    assert upstream.requests_to(CHAT_PATH)[-1].body["messages"] == via_v1  # the same request, message for message
    sid, answer = r.json()["session_id"], r.json()["response"]
    session = httpx.get(f"{wired.url}/sessions/{sid}").json()
    assert [(m["role"], m["content"]) for m in session["messages"]] == [*expected, ("assistant", answer)]

    # the next turn resends everything plus a new question: the stored history is not sent twice
    again = [*HISTORY, {"role": "assistant", "content": answer}, {"role": "user", "content": "And back?"}]
    r = httpx.post(wired.url + "/chat", json={"messages": again, "session_id": sid}, timeout=60)
    assert r.status_code == 200, r.text
    assert dialogue(upstream) == [*expected, ("assistant", answer), ("user", "And back?")]
    assert httpx.get(f"{wired.url}/sessions/{sid}").json()["items"] == 6


def test_a_named_session_without_history_takes_the_platform_history(wired, upstream) -> None:
    sid = httpx.post(wired.url + "/sessions", json={}).json()["id"]
    r = httpx.post(wired.url + "/chat", json={"messages": HISTORY, "session_id": sid}, timeout=60)
    assert r.status_code == 200, r.text
    assert dialogue(upstream) == [(m["role"], m["content"]) for m in HISTORY[1:]]
    # the same through the SDK's endpoint with a session: one code path for both
    sdk = openai.OpenAI(base_url=wired.base_url, api_key="no-key-configured", max_retries=0)
    sid2 = httpx.post(wired.url + "/sessions", json={}).json()["id"]
    sdk.chat.completions.create(model="ragkit", messages=HISTORY, extra_body={"session_id": sid2})
    assert dialogue(upstream) == [(m["role"], m["content"]) for m in HISTORY[1:]]
    assert httpx.get(f"{wired.url}/sessions/{sid2}").json()["items"] == 4


def test_search_takes_a_min_score(wired) -> None:
    url = wired.url + "/search"
    every = httpx.post(url, json={"query": "ferry Tuesdays harbour", "top_k": 10, "retriever": "dense"}).json()["data"]
    between = (every[0]["score"] + every[1]["score"]) / 2  # (scores are rounded in the reply)
    kept = httpx.post(url, json={"query": "ferry Tuesdays harbour", "top_k": 10, "retriever": "dense",
                                 "min_score": between}).json()["data"]
    assert len(every) > 1 and [h["id"] for h in kept] == [every[0]["id"]]
    for bad in ("high", True):
        r = httpx.post(url, json={"query": "ferry", "min_score": bad})
        assert r.status_code == 422 and r.json()["error"]["param"] == "min_score"


def test_the_design_response_shapes_beside_ragkits_own(wired) -> None:
    started = httpx.post(wired.url + "/session/start", json={}).json()
    assert started["session_id"] == started["id"] and started["started_at"] == started["created_at"] > 0
    sid = started["session_id"]
    assert httpx.post(wired.url + "/chat", json={"message": "When does the ferry sail?", "session_id": sid},
                      timeout=60).status_code == 200
    ended = httpx.post(wired.url + "/session/end", json={"session_id": sid}).json()
    assert ended["session_id"] == ended["id"] == sid and ended["message_count"] == ended["items"] == 2
    assert ended["ended"]
    listed = httpx.get(wired.url + "/traces", params={"session_id": sid}).json()
    assert listed["traces"] == listed["data"] and listed["count"] == listed["total"] == 1
