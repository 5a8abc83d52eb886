"""The turn owner through ``ragkit serve`` and the official ``openai`` SDK (each test failed before its fix):

- a model that cites out of order (``... 1998 [2] ... 9:00 [1]``): the server streamed the model's
  own numbers but returned and stored citations renumbered by first appearance, so ``[n]`` pointed
  at the wrong file. Now the streamed text, the answer, its citations and the session all agree;
- a turn killed by ``kill -9`` mid-answer left nothing: now its question stays, ``interrupted``,
  and the next turn on the session takes the dead turn's lease over.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
import openai
import pytest

from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.testing.server_process import ragkit_server
from ragkit.testing.servers import FakeOpenAIServer

from ...unit.pipeline.helpers import make_spec, write_tree

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
FACTS = {"ferry.md": "The ferry sails at 9:00 every morning from the north pier.",
         "lighthouse.md": "The lighthouse on the cape was built in 1998 by the harbour board."}
QUERY = "ferry lighthouse"


def _index(root: Path) -> tuple[Path, dict[str, int]]:
    """The two-fact corpus, and the number each file gets in a turn's search for QUERY."""
    spec = make_spec(root / "index")
    IndexingPipeline(spec).index_paths([write_tree(root / "docs", FACTS)])
    kb = KnowledgeBase(spec, root / "index")
    try:
        hits = kb.search(QUERY, k=2)
    finally:
        kb.close()
    return root / "index", {h.source: n for n, h in enumerate(hits, 1)}


def _answer(numbers: dict[str, int]) -> str:
    """An answer that cites the passage numbered 2 first (out of order)."""
    first, second = sorted(numbers, key=lambda source: -numbers[source])
    sentence = {"ferry.md": "The ferry leaves at 9:00", "lighthouse.md": "The lighthouse dates from 1998"}
    return f"{sentence[first]} [{numbers[first]}]. {sentence[second]} [{numbers[second]}]."


def _agree(content: str, citations: list[dict]) -> None:
    """Every [n] of ``content`` cites the file that holds its fact, numbered as the text shows them."""
    by_n = {c["n"]: c["source"] for c in citations}
    cited = [(fact, int(n)) for fact, n in re.findall(r"(9:00|1998) \[(\d+)\]", content)]
    assert len(cited) == 2 and sorted(by_n) == [1, 2], (content, citations)
    assert [n for _, n in cited] == [1, 2], content  # numbered in order of first appearance
    for fact, n in cited:
        assert fact in FACTS[by_n[n]], f"[{n}] after {fact!r} cites {by_n[n]} in {content!r}"


def test_out_of_order_citations_agree_in_stream_answer_session_and_chat(tmp_path: Path) -> None:
    index, numbers = _index(tmp_path)
    text = _answer(numbers)
    with FakeOpenAIServer() as fake:
        for _ in range(3):  # non-streamed, streamed, /chat: a search, then the answer
            fake.enqueue_tool_call("search_knowledge_base", {"query": QUERY, "top_k": 2})
            fake.enqueue_text(text)
        args = ["--model", "gpt-4o-mini", "--base-url", fake.url]
        with ragkit_server(index, provider="openai", args=args, env={"OPENAI_API_KEY": "test"}) as server:
            sid = httpx.post(server.url + "/sessions", json={}).json()["id"]
            oa = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
            kw = {"model": "ragkit", "messages": [{"role": "user", "content": "When does the ferry sail?"}],
                  "extra_body": {"session_id": sid}}
            full = oa.chat.completions.create(**kw).choices[0].message
            _agree(full.content or "", full.model_extra["citations"])
            chunks = list(oa.chat.completions.create(stream=True, **kw))
            streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            cites = next(c.choices[0].delta.model_extra["citations"] for c in chunks
                         if c.choices and "citations" in (c.choices[0].delta.model_extra or {}))
            _agree(streamed, cites)
            assert streamed == full.content and cites == full.model_extra["citations"]
            chat = httpx.post(server.url + "/chat", json={"message": "And the lighthouse?"}, timeout=60).json()
            _agree(chat["response"], chat["citations"])
            items = httpx.get(f"{server.url}/sessions/{sid}").json()["messages"]
    answers = [i for i in items if i["role"] == "assistant"]
    assert [a["content"] for a in answers] == [full.content, streamed]
    for a in answers:
        _agree(a["content"], a["citations"])


def test_a_turn_killed_mid_answer_leaves_its_question_interrupted(tmp_path: Path) -> None:
    index, _ = _index(tmp_path)
    args = ["--provider-option", "delay=0.3"]
    with ragkit_server(index, provider="echo", args=args) as server:
        sid = httpx.post(server.url + "/sessions", json={}).json()["id"]
        payload = {"model": "ragkit", "stream": True, "session_id": sid,
                   "messages": [{"role": "user", "content": "a question the server will not live to answer"}]}
        with httpx.stream("POST", server.base_url + "/chat/completions", json=payload, timeout=60) as r:
            for line in r.iter_lines():
                if '"content":"' in line and '"content":""' not in line:
                    server.kill9()  # mid-answer: no handler, no finally runs
                    break
    with ragkit_server(index, provider="echo") as server:
        items = httpx.get(f"{server.url}/sessions/{sid}").json()["messages"]
        assert [(i["role"], i["content"], i["status"]) for i in items] == [
            ("user", "a question the server will not live to answer", "interrupted")]
        start = time.monotonic()  # the dead process's lease is taken over at once
        oa = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        answer = oa.chat.completions.create(model="ragkit", messages=[{"role": "user", "content": "again?"}],
                                            extra_body={"session_id": sid}).choices[0].message.content
        assert answer and answer.startswith("You asked: again?") and time.monotonic() - start < 30
        items = httpx.get(f"{server.url}/sessions/{sid}").json()["messages"]
    assert [(i["role"], i["status"]) for i in items] == [
        ("user", "interrupted"), ("user", "complete"), ("assistant", "complete")]
