"""``SessionStoreContract``: the conformance suite every ``SessionStore`` backend passes.

A pytest mixin; a backend's test module subclasses it and builds a store. ``reopen`` returns a
second store over the same data (another connection, as another process would have), or None for
stores that live in one process::

    class TestSQLite(SessionStoreContract):
        def make_store(self, tmp_path):
            return SQLSessionStore(tmp_path / "state.db")

        def reopen(self, store, tmp_path):
            return SQLSessionStore(tmp_path / "state.db")
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ragkit.sessions.base import SessionItem, SessionNotFound, SessionStore
from ragkit.testing.threads import run_in_threads

CITATION = {"n": 1, "source": "docs/a.md", "page": 2, "start": 10, "end": 40, "text": "The ferry sails."}
USAGE = {"prompt_tokens": 12, "completion_tokens": 5, "embedding_tokens": 3, "cost": 0.0012}


def turn(question: str, answer: str, *, agent: str = "rag", request_id: str | None = None) -> list[SessionItem]:
    return [SessionItem(role="user", content=question, request_id=request_id),
            SessionItem(role="assistant", content=answer, agent=agent, citations=[CITATION], usage=USAGE,
                        trace_id="trace-1", request_id=request_id, data={"tool_calls": [{"name": "search"}]})]


class SessionStoreContract:
    def make_store(self, tmp_path: Path) -> Any:
        raise NotImplementedError

    def reopen(self, store: Any, tmp_path: Path) -> Any | None:
        return None

    @pytest.fixture()
    def store(self, tmp_path: Path) -> Iterator[Any]:
        s = self.make_store(tmp_path)
        yield s
        s.close()

    def test_is_a_session_store(self, store: Any) -> None:
        assert isinstance(store, SessionStore)

    def test_items_round_trip_with_citations_usage_and_agent(self, store: Any, tmp_path: Path) -> None:
        stored = store.add_items("s1", turn("When does the ferry sail?", "On Tuesdays [1].", agent="planner"))
        assert [i.seq for i in stored] == [1, 2]
        for s in [store, self.reopen(store, tmp_path)]:
            if s is None:
                continue
            items = s.get_items("s1")
            assert [i.role for i in items] == ["user", "assistant"]
            answer = items[1]
            assert answer.content == "On Tuesdays [1]." and answer.agent == "planner"
            assert answer.citations == [CITATION] and answer.usage == USAGE
            assert answer.trace_id == "trace-1" and answer.data == {"tool_calls": [{"name": "search"}]}
            assert answer.status == "complete"

    def test_order_limit_pop_and_clear(self, store: Any) -> None:
        for n in range(3):
            store.add_items("s", turn(f"q{n}", f"a{n}"))
        assert [i.content for i in store.get_items("s")] == ["q0", "a0", "q1", "a1", "q2", "a2"]
        assert [i.content for i in store.get_items("s", limit=2)] == ["q2", "a2"]
        popped = store.pop_item("s")
        assert popped is not None and popped.content == "a2"
        assert store.get_items("s")[-1].content == "q2"
        store.add_items("s", [SessionItem(role="assistant", content="again")])
        assert store.get_items("s")[-1].seq == 6  # numbering continues after a pop
        store.clear("s")
        assert store.get_items("s") == [] and store.pop_item("s") is None
        assert store.get("s") is not None  # clearing keeps the session

    def test_sessions_create_list_end_delete(self, store: Any) -> None:
        info = store.create(title="Ferry questions", metadata={"user": "ana"})
        assert info.id and info.title == "Ferry questions" and info.metadata == {"user": "ana"} and not info.ended
        assert store.create(info.id).created_at == info.created_at  # create is idempotent
        store.add_items("other", turn("What is the lighthouse made of?", "Stone."))
        listed = store.list()
        assert {i.id for i in listed} == {info.id, "other"}
        assert listed[0].id == "other" and listed[0].items == 2  # most recently updated first
        assert store.get("other").title == "What is the lighthouse made of?"  # titled from the first question
        assert store.end(info.id).ended
        with pytest.raises(SessionNotFound):
            store.end("missing")
        assert store.delete("other") is True and store.delete("other") is False
        assert store.get("other") is None and store.get_items("other") == []
        assert store.get("missing") is None

    def test_incomplete_status_and_request_ids(self, store: Any) -> None:
        store.add_items("s", [SessionItem(role="user", content="q", request_id="r1"),
                              SessionItem(role="assistant", content="partial te", status="incomplete",
                                          request_id="r1")])
        found = store.find_request("s", "r1")
        assert [i.status for i in found] == ["complete", "incomplete"] and found[1].content == "partial te"
        assert store.find_request("s", "r2") == []

    def test_concurrent_writers_never_collide(self, store: Any, tmp_path: Path) -> None:
        other = self.reopen(store, tmp_path) or store

        def write(s: Any, n: int) -> None:
            for k in range(10):
                s.add_items("shared", turn(f"q{n}.{k}", f"a{n}.{k}"))

        errors = run_in_threads(partial(write, s, n) for n, s in enumerate([store, other, store, other]))
        assert not errors
        items = store.get_items("shared")
        assert [i.seq for i in items] == list(range(1, 81))
        for q, a in zip(items[::2], items[1::2], strict=True):  # each turn's two items stay together
            assert q.content[1:] == a.content[1:]

    def test_turn_lock_is_exclusive_and_released(self, store: Any, tmp_path: Path) -> None:
        other = self.reopen(store, tmp_path) or store
        assert store.try_lock("s", "worker-a", ttl=30)
        assert store.try_lock("s", "worker-a", ttl=30)  # re-entrant for its holder
        assert not other.try_lock("s", "worker-b", ttl=30)
        assert other.try_lock("t", "worker-b", ttl=30)  # other sessions are free
        store.unlock("s", "worker-a")
        assert other.try_lock("s", "worker-b", ttl=30)
        assert other.try_lock("u", "worker-b", ttl=-1)  # an expired lease is taken over
        assert store.try_lock("u", "worker-a", ttl=30)

    def test_tool_call_records_are_claimed_once(self, store: Any, tmp_path: Path) -> None:
        other = self.reopen(store, tmp_path) or store
        assert store.claim_tool_call("s", "call_1", {"tool": "refund", "arguments": {"amount": 5}}) is None
        seen = other.claim_tool_call("s", "call_1", {"tool": "refund", "arguments": {"amount": 5}})
        assert seen == {"tool": "refund", "arguments": {"amount": 5}, "result": None}  # claimed, not finished
        store.finish_tool_call("s", "call_1", {"content": "refunded 5", "is_error": False, "error_kind": None})
        again = other.claim_tool_call("s", "call_1", {"tool": "refund", "arguments": {"amount": 5}})
        assert again is not None and again["result"]["content"] == "refunded 5"
        assert store.claim_tool_call("other-session", "call_1", {}) is None  # keyed by session and call

    def test_concurrent_claims_have_one_winner(self, store: Any, tmp_path: Path) -> None:
        stores = [store, self.reopen(store, tmp_path) or store]
        winners: list[int] = []

        def claim(n: int) -> None:
            if stores[n % 2].claim_tool_call("s", "call_x", {"n": n}) is None:
                winners.append(n)

        assert not run_in_threads(partial(claim, n) for n in range(8))
        assert len(winners) == 1
