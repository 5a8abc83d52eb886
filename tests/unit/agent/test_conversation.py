"""The one turn owner (``ragkit.agent.conversation``) on every failure path: the lease is always released
and the user's question, once stored, is never lost by a failed write (a full disk)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import pytest

from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.runner import AgentRunner
from ragkit.errors import ProviderError
from ragkit.sessions.base import SessionItem
from ragkit.sessions.db import lock_holder
from ragkit.sessions.memory import MemorySessionStore
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool


class FullDisk(MemorySessionStore):
    """A session store whose named operations fail as SQLite does on a full disk."""

    def __init__(self, *failing: str) -> None:
        super().__init__()
        self.failing = set(failing)

    def _check(self, op: str) -> None:
        if op in self.failing:
            raise sqlite3.OperationalError("database or disk is full")

    def add_items(self, session_id: str, items: Sequence[SessionItem]) -> list[SessionItem]:
        self._check("add_items")
        return super().add_items(session_id, items)

    def settle(self, session_id: str, **kw: Any) -> list[SessionItem]:
        self._check("settle")
        return super().settle(session_id, **kw)

    def unlock(self, session_id: str, holder: str) -> None:
        self._check("unlock")
        super().unlock(session_id, holder)


@tool
def note(text: str) -> str:
    """Write a note."""
    return f"noted: {text}"


def runner(store: Any, script: list[Any]) -> AgentRunner:
    return AgentRunner([AgentDefinition(name="solo", provider=ScriptedProvider(script), tools=[note])],
                       entry="solo", session_store=store)


def lease_is_free(store: Any, session: str = "s") -> bool:
    holder = lock_holder("probe")
    free = store.try_lock(session, holder, 60)
    if free:
        store.unlock(session, holder)
    return free


def test_a_full_disk_at_the_end_keeps_the_question_and_frees_the_session() -> None:
    store = FullDisk("settle")
    with pytest.raises(sqlite3.OperationalError):
        runner(store, ["an answer"]).run("my question", session_id="s")
    assert [(i.role, i.content, i.status) for i in store.get_items("s")] == [("user", "my question", "interrupted")]
    assert lease_is_free(store)
    store.failing.clear()  # space again: the next turn answers, the interrupted question stays visible
    assert runner(store, ["the answer"]).run("again", session_id="s").content == "the answer"
    assert [(i.content, i.status) for i in store.get_items("s")] == [
        ("my question", "interrupted"), ("again", "complete"), ("the answer", "complete")]


def test_a_full_disk_before_the_run_stores_nothing_and_frees_the_session() -> None:
    store = FullDisk("add_items")
    provider_calls = ScriptedProvider(["never"])
    solo = AgentDefinition(name="solo", provider=provider_calls)
    with pytest.raises(sqlite3.OperationalError):
        AgentRunner([solo], entry="solo", session_store=store).run("q", session_id="s")
    assert provider_calls.calls == []  # the model never saw a question that could not be stored
    assert store.get_items("s") == [] and lease_is_free(store)


def test_a_lease_the_disk_would_not_release_does_not_wedge_the_session() -> None:
    store = FullDisk("unlock")
    assert runner(store, ["one"]).run("q1", session_id="s").content == "one"
    # the lock row is still there, but its holder let go: this process's next turn takes it over
    assert runner(store, ["two"]).run("q2", session_id="s").content == "two"
    store.failing.clear()
    assert runner(store, ["three"]).run("q3", session_id="s").content == "three"  # and retries the delete
    assert lease_is_free(store)


def test_a_failed_run_stores_nothing_and_frees_the_session() -> None:
    store = MemorySessionStore()
    with pytest.raises(ProviderError):
        runner(store, [ProviderError("the model is down")]).run("q", session_id="s")
    assert store.get_items("s") == [] and lease_is_free(store)


def test_a_run_abandoned_mid_stream_is_stored_incomplete_and_frees_the_session() -> None:
    store = MemorySessionStore()
    events = runner(store, [tool_call_response(("note", {"text": "x"})), "done"]).stream("q", session_id="s")
    assert next(events).type == "tool_start"
    events.close()  # the caller went away
    assert [(i.role, i.status) for i in store.get_items("s")] == [("user", "complete"), ("assistant", "incomplete")]
    assert lease_is_free(store)


def test_the_question_is_stored_before_the_model_sees_it() -> None:
    store = MemorySessionStore()
    seen: list[list[tuple[str, str]]] = []

    def answer(messages: Sequence[Any], tools: Sequence[Any]) -> str:
        seen.append([(i.content, i.status) for i in store.get_items("s")])
        return "answered"

    assert runner(store, [answer]).run("q", session_id="s").content == "answered"
    assert seen == [[("q", "interrupted")]]
    assert [(i.content, i.status) for i in store.get_items("s")] == [("q", "complete"), ("answered", "complete")]
