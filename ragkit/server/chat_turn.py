"""One conversation turn of the server, shared by ``/v1/chat/completions``, ``/chat`` and the web UI.

``TurnRun`` is a thin face over a turn of the one turn owner (:mod:`ragkit.agent.conversation`, built by
``Engine.turn``): the owner takes the session's lease (waiting up to ``--session-wait``, across
workers and hosts), loads its history, stores the question as the run saw it (redacted by the
input guardrails) before the model sees it, and when the answer is complete stores it (with
citations, usage, agent name and trace id) and releases the lease. What the server adds: HTTP
errors for a busy (429) or ended (409) session before any response starts, the trace record of
every turn (``ok``, ``error`` or ``incomplete``), and a replay for a request whose
``Idempotency-Key`` was answered. ``close()`` is synchronous and always called by the route,
however the response ends: a client that went away mid-stream leaves the turn stored as
``incomplete`` with its partial text; a process killed mid-turn leaves the question stored as
``interrupted``. A failed turn stores no items (only its trace), so a retry never stores a turn twice.
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

from ragkit.server.engine import Answer, TurnOptions, answer_of, input_of, refused, structured
from ragkit.server.errors import ApiError, from_exception
from ragkit.sessions.base import SessionBusy, SessionEnded

log = logging.getLogger(__name__)
NO_RETRY = {"x-should-retry": "false"}
NOT_SCREENED = "[not stored: the turn ended before its input was screened]"


@dataclass
class Turn:
    messages: list[dict[str, Any]]  # earlier messages sent by the client, then the new user message
    model: str
    session_id: str | None = None
    system: str | None = None
    options: TurnOptions = field(default_factory=TurnOptions)
    request_id: str | None = None
    key_id: str | None = None  # the API key the turn is made with: its session and trace belong to it
    # with a session, the client's messages before the new ones: the history of a session that has none yet
    earlier: list[dict[str, Any]] = field(default_factory=list)


class TurnRun:
    def __init__(self, state: Any, turn: Turn) -> None:
        self.state, self.turn = state, turn
        self.id = uuid.uuid4().hex[:24]
        self.created = int(time.time())
        self.answer: Answer | None = None
        self.owner = state.engine.turn(turn.messages, turn.options, turn.system, session_id=turn.session_id,
                                       request_id=turn.request_id, trace_id=self.id)
        self._recorded = False
        self._t0 = time.perf_counter()

    @property
    def replayed(self) -> bool:
        return self.owner.replayed is not None

    # ------------------------------------------------------------------ before the answer
    async def start(self) -> None:
        """Take the session's lease and load its history (errors here are plain HTTP errors); a
        session with no history yet takes the client's earlier messages as its history."""
        try:
            await self.owner.abegin()
            if self.turn.earlier:
                await asyncio.to_thread(self.state.engine.adopt_history, self.owner, self.turn.earlier)
        except SessionBusy as exc:
            raise ApiError(429, f"session {self.turn.session_id} is busy with another turn; retry when it has "
                           "finished", code="session_busy", headers={"Retry-After": "1"}) from exc
        except SessionEnded as exc:
            raise ApiError(409, str(exc), code="session_ended", param="session_id") from exc

    # ------------------------------------------------------------------ the answer
    async def events(self) -> AsyncIterator[str | Answer]:
        if (item := self.owner.replayed) is not None:
            self.answer = Answer(content=item.content, citations=item.citations, usage=item.usage,
                                 trace_id=item.trace_id or "")
            self._recorded = True
            yield self.answer.content
            yield self.answer
            return
        # structured output: the text waits for the check (the agent holds it anyway), so an answer
        # that never matched the format is given as a refusal, never as text
        held: list[str] | None = [] if structured(self.turn.options) else None
        try:
            async for event in self.owner.aevents(streaming=True):
                if event.type == "text" and event.text:
                    if held is None:
                        yield event.text
                    else:
                        held.append(event.text)
                elif event.type == "result" and event.result is not None:
                    self.answer = answer_of(event.result, input=input_of(self.owner))
        except Exception as exc:
            error = from_exception(exc)
            await asyncio.to_thread(self._record, "error", {"error": error.body()["error"]})
            error.headers = {**error.headers, **NO_RETRY}
            raise error from exc
        assert self.answer is not None, "the turn ended without an answer"
        if self.answer.stop_reason == "invalid_output":
            self.answer = refused(self.answer, self.turn.options)
        a = self.answer
        for text in held if held and a.refusal is None else ():
            yield text
        refusal = {"refusal": a.refusal} if a.refusal else {}
        await asyncio.to_thread(self._record, "ok", {"run": a.trace, "citations": a.citations, "usage": a.usage,
                                                     "output": a.content, **refusal})
        yield a

    async def complete(self) -> Answer:
        async for piece in self.events():
            if isinstance(piece, Answer):
                return piece
        raise ApiError(500, "the turn ended without an answer", code="internal_error")

    # ------------------------------------------------------------------ the trace
    def _record(self, status: str, data: dict[str, Any]) -> None:
        """The turn's trace (once): the input as the run saw it, never the raw question."""
        if self._recorded:
            return
        self._recorded = True
        self.state.records.save_trace(
            self.id, session_id=self.turn.session_id, model=self.turn.model, status=status,
            duration=time.perf_counter() - self._t0, owner=self.turn.key_id,
            data={"input": input_of(self.owner) or NOT_SCREENED, "options": self.turn.options.__dict__,
                  "worker": os.getpid(), **data},
        )

    def close(self) -> None:
        """Always called when the response ends; a turn cut short is stored as ``incomplete``."""
        cut = self.owner.cut_short
        try:
            self.owner.close()
        finally:
            if cut:
                log.info("turn %s ended before its answer was complete; stored as incomplete", self.id)
                try:
                    self._record("incomplete", {"output": self.owner.text})
                except Exception:  # noqa: BLE001 - the turn is stored; a lost trace is logged
                    log.exception("turn %s: could not record its trace", self.id)
