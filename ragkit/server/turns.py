"""One conversation turn, shared by ``/v1/chat/completions``, ``/chat`` and the web UI.

``TurnRun`` serializes turns on a session (a lease in the session store, so it holds across
workers and hosts), loads the session's history, runs the engine, and stores the user message
(as the run saw it: redacted by the input guardrails) and the answer (with citations, usage, agent name and trace id) in one write when the answer is
complete. ``close()`` is synchronous and always called by the route, however the response ends:
a client that went away mid-stream leaves the turn stored as ``incomplete`` with its partial
text. A failed turn stores no items (only its trace), so a retry never stores a turn twice; a
retried request that carries an ``Idempotency-Key`` gets the stored answer back.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from ragkit.server.engine import Answer, TurnOptions
from ragkit.server.errors import ApiError, from_exception
from ragkit.sessions.base import SessionItem
from ragkit.sessions.db import lock_holder

log = logging.getLogger(__name__)
AGENT_NAME = "rag"
NO_RETRY = {"x-should-retry": "false"}


@dataclass
class Turn:
    messages: list[dict[str, Any]]  # earlier messages sent by the client, then the new user message
    model: str
    session_id: str | None = None
    system: str | None = None
    options: TurnOptions = field(default_factory=TurnOptions)
    request_id: str | None = None
    key_id: str | None = None  # the API key the turn is made with: its session and trace belong to it


class TurnRun:
    def __init__(self, state: Any, turn: Turn) -> None:
        self.state, self.turn = state, turn
        self.id = uuid.uuid4().hex[:24]
        self.created = int(time.time())
        self.parts: list[str] = []
        self.answer: Answer | None = None
        self.replayed = False
        self._holder: str | None = None
        self._history: list[dict[str, Any]] = []
        self._done = False
        self._started = False  # the answer began (so an early end is an incomplete turn)
        self._t0 = time.perf_counter()

    @property
    def question(self) -> str:
        return self.turn.messages[-1]["content"] if self.turn.messages else ""

    # ------------------------------------------------------------------ before the answer
    async def start(self) -> None:
        """Create or check the session, lock it, load its history (errors here are plain HTTP
        errors). One thread hop per attempt: the lock is polled while another turn holds it."""
        if self.turn.session_id is None:
            return
        self._holder = lock_holder(self.id)
        deadline = time.monotonic() + self.state.settings.session_lock_wait
        while not await asyncio.to_thread(self._begin):
            if time.monotonic() > deadline:
                self._holder = None
                raise ApiError(429, f"session {self.turn.session_id} is busy with another turn; retry when it "
                               "has finished", code="session_busy", headers={"Retry-After": "1"})
            await asyncio.sleep(0.05)

    def _begin(self) -> bool:
        sid, store = self.turn.session_id, self.state.sessions
        assert sid is not None and self._holder is not None
        info = store.get(sid)
        if info is None:
            store.create(sid, owner=self.turn.key_id)
        elif info.ended:
            self._holder = None
            raise ApiError(409, f"session {sid} has ended; start a new session", code="session_ended",
                           param="session_id")
        if not store.try_lock(sid, self._holder, self.state.settings.turn_lease):
            return False
        if self.turn.request_id:
            done = [i for i in store.find_request(sid, self.turn.request_id)
                    if i.role == "assistant" and i.status == "complete"]
            if done:
                self._replay(done[-1])
                return True
        self._history = [{"role": i.role, "content": i.content} for i in store.get_items(sid)
                         if i.role in ("user", "assistant") and i.content and i.status != "error"]
        return True

    def _replay(self, item: SessionItem) -> None:
        self.replayed = True
        self.answer = Answer(content=item.content, citations=item.citations, usage=item.usage,
                             trace_id=item.trace_id or "")
        self.parts = [item.content]
        self._done = True

    # ------------------------------------------------------------------ the answer
    async def events(self) -> AsyncIterator[str | Answer]:
        if self.replayed and self.answer is not None:
            yield self.answer.content
            yield self.answer
            return
        t = self.turn
        self._started = True
        try:
            async for piece in self.state.engine.stream([*self._history, *t.messages], t.options, t.system):
                if isinstance(piece, Answer):
                    self.answer = piece
                else:
                    self.parts.append(piece)
                    yield piece
        except Exception as exc:
            error = from_exception(exc)
            self._done = True
            await asyncio.to_thread(self._save_trace, "error", {"error": error.body()["error"]})
            error.headers = {**error.headers, **NO_RETRY}
            raise error from exc
        assert self.answer is not None, "the engine ended without an answer"
        await asyncio.to_thread(self._store, "complete")
        self._done = True
        yield self.answer

    async def complete(self) -> Answer:
        async for piece in self.events():
            if isinstance(piece, Answer):
                return piece
        raise ApiError(500, "the turn ended without an answer", code="internal_error")

    # ------------------------------------------------------------------ storing
    def _stored_question(self) -> str:
        """The user message as the run saw it (no raw PII when the input guardrails redact)."""
        if self.answer is not None and self.answer.input is not None:
            return self.answer.input
        try:
            return self.state.engine.screen_input(self.question, self.turn.options)
        except Exception:  # noqa: BLE001 - the agent could not even be built: keep nothing of the input
            log.exception("turn %s: the input could not be screened; it is not stored", self.id)
            return "[not stored: the input could not be screened]"

    def _store(self, status: str) -> None:
        a = self.answer
        content = a.content if a is not None and status == "complete" else "".join(self.parts)
        extra = {"run": a.trace, "citations": a.citations, "usage": a.usage} if a is not None else {}
        with self.state.db.transaction():  # one write: the turn, its trace, the released lock
            if self.turn.session_id is not None:
                rid = self.turn.request_id
                self.state.sessions.add_items(self.turn.session_id, [
                    SessionItem(role="user", content=self._stored_question(), request_id=rid),
                    SessionItem(role="assistant", content=content, agent=AGENT_NAME, status=status, request_id=rid,
                                citations=a.citations if a else [], usage=a.usage if a else {}, trace_id=self.id),
                ])
            self._save_trace("ok" if status == "complete" else status, {**extra, "output": content})
            self._unlock()

    def _save_trace(self, status: str, data: dict[str, Any]) -> None:
        self.state.records.save_trace(
            self.id, session_id=self.turn.session_id, model=self.turn.model, status=status,
            duration=time.perf_counter() - self._t0, owner=self.turn.key_id,
            data={"input": self._stored_question(), "options": self.turn.options.__dict__, "worker": os.getpid(), **data},
        )

    def close(self) -> None:
        """Always called when the response ends; stores a turn cut short as ``incomplete``."""
        try:
            if self._started and not self._done:
                self._done = True
                log.info("turn %s ended before its answer was complete; stored as incomplete", self.id)
                self._store("incomplete")
        finally:
            self._unlock()

    def _unlock(self) -> None:
        if self._holder is not None and self.turn.session_id is not None:
            self.state.sessions.unlock(self.turn.session_id, self._holder)
            self._holder = None
