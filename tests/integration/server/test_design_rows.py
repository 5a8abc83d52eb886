"""Rows of the served-agent design, through a real `ragkit serve` in front of a loopback
OpenAI-wire server that records what the model receives: a platform's own history on ``POST
/chat`` (sent whole, as ``/v1/chat/completions`` does, and stored once), ``min_score`` on
``/search``, the design's response shapes beside ragkit's, and server-side tools."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.testing.server_process import ServerProcess, ragkit_server
from ragkit.testing.servers import FakeOpenAIServer
from ragkit.testing.servers.openai import CHAT_PATH

from .conftest import build_index

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


def test_a_platform_history_ending_in_its_tool_results(wired, upstream) -> None:
    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    history = [{"role": "user", "content": "Weather in Oslo?"},
               {"role": "assistant", "content": None, "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 C"}]
    r = httpx.post(wired.url + "/chat", json={"messages": history, "tools": [weather]}, timeout=60)
    assert r.status_code == 200, r.text
    sent = upstream.requests_to(CHAT_PATH)[-1].body["messages"]
    assert [m["role"] for m in sent if m["role"] != "system"] == ["user", "assistant", "tool"]
    assert sent[-2]["tool_calls"][0]["id"] == "call_1" and sent[-1]["content"] == "sunny, 21 C"


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
        assert r.status_code == 400 and r.json()["error"]["param"] == "min_score"


def test_chat_takes_a_min_score_for_its_knowledge_base(wired, upstream) -> None:
    from ragkit.rag.prompts import NO_RESULTS

    for min_score, found in ((None, True), (100.0, False)):
        upstream.enqueue_tool_call("search_knowledge_base", {"query": "ferry Tuesdays"})
        upstream.enqueue_text("Done.")
        body = {"message": "When does the ferry sail?", **({"min_score": min_score} if min_score else {})}
        assert httpx.post(wired.url + "/chat", json=body, timeout=60).status_code == 200
        result = upstream.requests_to(CHAT_PATH)[-1].body["messages"][-1]
        assert result["role"] == "tool" and (result["content"] == NO_RESULTS) is not found
    r = httpx.post(wired.url + "/v1/chat/completions", json={"messages": [{"role": "user", "content": "x"}],
                                                             "min_score": "high"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "min_score"


def test_the_design_response_shapes_beside_ragkits_own(wired) -> None:
    started = httpx.post(wired.url + "/session/start", json={}).json()
    assert started["session_id"] == started["id"] and started["started_at"] == started["created_at"] > 0
    sid = started["session_id"]
    assert httpx.post(wired.url + "/chat", json={"message": "When does the ferry sail?", "session_id": sid},
                      timeout=60).status_code == 200
    ended = httpx.post(wired.url + "/session/end", json={"session_id": sid}).json()
    assert ended["session_id"] == ended["id"] == sid and ended["message_count"] == ended["items"] == 2
    assert ended["ended"]
    missing = httpx.post(wired.url + "/session/end", json={"session_id": "never-started"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "session_not_found"
    assert httpx.get(wired.url + "/sessions/never-started").status_code == 404  # ending it did not create it
    listed = httpx.get(wired.url + "/traces", params={"session_id": sid}).json()
    assert listed["traces"] == listed["data"] and listed["count"] == listed["total"] == 1


@pytest.fixture(scope="module")
def tooled(tmp_path_factory: pytest.TempPathFactory, upstream: FakeOpenAIServer) -> Iterator[ServerProcess]:
    """`ragkit serve` with the calculator and search_files (over a folder of its own) as server-side tools."""
    root = tmp_path_factory.mktemp("tooled")
    files = root / "files"
    (files / "ops").mkdir(parents=True)
    (files / "ops" / "rota.md").write_text("# Rota\nThe ferry crew changes on Mondays.\n", encoding="utf-8")
    args = ["--model", "gpt-test", "--base-url", upstream.url, "--tool", "calculator", "--tool", "search_files",
            "--tool-option", f"search_files.roots=[{files}]", "--tool-option", "search_files.max_results=5"]
    with ragkit_server(build_index(root), provider="openai", args=args, env={"OPENAI_API_KEY": "sk-test"}) as server:
        yield server


def test_server_side_tools_run_on_the_server(tooled, upstream) -> None:
    sdk = openai.OpenAI(base_url=tooled.base_url, api_key="no-key-configured", max_retries=0)
    upstream.enqueue_tool_call("calculator", {"expression": "sqrt(16) * pi"})
    upstream.enqueue_text("About 12.57.")
    resp = sdk.chat.completions.create(model="ragkit", messages=[{"role": "user", "content": "4 times pi?"}],
                                       extra_body={"trace": True})
    assert resp.choices[0].message.content == "About 12.57." and resp.choices[0].finish_reason == "stop"
    first, second = upstream.requests_to(CHAT_PATH)[-2:]
    offered = {t["function"]["name"] for t in first.body["tools"]}
    assert offered == {"search_knowledge_base", "calculator", "search_files"}
    assert second.body["messages"][-1]["role"] == "tool" and second.body["messages"][-1]["content"] == "12.5663706143592"
    assert [c["name"] for c in resp.model_extra["trace"]["tool_calls"]] == ["calculator"]

    upstream.enqueue_tool_call("search_files", {"pattern": "**/*.md", "contains": "ferry"})
    upstream.enqueue_text("On Mondays.")
    r = httpx.post(tooled.url + "/chat", json={"message": "When does the crew change?"}, timeout=60).json()
    assert r["response"] == "On Mondays." and r["trace"]["tool_calls"][0]["name"] == "search_files"
    sent = upstream.requests_to(CHAT_PATH)[-1].body["messages"][-1]
    assert sent["content"] == "ops/rota.md:2: The ferry crew changes on Mondays."


def test_serve_refuses_an_unknown_tool_or_option_before_starting(index_dir: Path) -> None:
    for args, message in [
        (["--tool", "calculater"], "unknown tool 'calculater'; did you mean 'calculator'"),
        (["--tool", "os.system"], "unknown tool 'os.system'"),
        (["--tool", "search_files", "--tool-option", "search_files.root=docs"], "unknown option 'root'"),
        (["--tool-option", "calculator.x=1"], "'calculator' is not a tool of this server; add --tool calculator"),
    ]:
        res = CliRunner().invoke(cli, ["serve", "--index", str(index_dir), *args])
        assert res.exit_code != 0 and message in res.stderr, res.stderr
