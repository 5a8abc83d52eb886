"""``MemorySessionStore``: sessions in a dict, for one process (tests, scripts, a notebook)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ragkit.sessions.base import SessionInfo, SessionItem, SessionNotFound, new_session_id, title_from
from ragkit.sessions.db import holder_is_dead


class MemorySessionStore:
    def __init__(self) -> None:
        self._sessions: dict[str, SessionInfo] = {}
        self._items: dict[str, list[SessionItem]] = {}
        self._locks: dict[str, tuple[str, float]] = {}
        self._calls: dict[tuple[str, str], dict[str, Any]] = {}
        self._mutex = threading.RLock()

    def create(self, session_id: str | None = None, *, title: str = "",
               metadata: dict[str, Any] | None = None, owner: str | None = None) -> SessionInfo:
        sid = session_id or new_session_id()
        with self._mutex:
            if sid not in self._sessions:
                now = time.time()
                self._sessions[sid] = SessionInfo(sid, title, now, now, None, 0, dict(metadata or {}), owner)
                self._items[sid] = []
            return self._info(sid)

    def _info(self, sid: str) -> SessionInfo:
        return replace(self._sessions[sid], items=len(self._items[sid]))

    def get(self, session_id: str) -> SessionInfo | None:
        with self._mutex:
            return self._info(session_id) if session_id in self._sessions else None

    def list(self, *, limit: int = 50, offset: int = 0, owner: str | None = None) -> list[SessionInfo]:
        with self._mutex:
            infos = sorted((self._info(s) for s in self._sessions
                            if owner is None or self._sessions[s].owner == owner), key=lambda i: (-i.updated_at, i.id))
        return infos[offset:offset + limit]

    def end(self, session_id: str) -> SessionInfo:
        with self._mutex:
            info = self._sessions.get(session_id)
            if info is None:
                raise SessionNotFound(f"no session {session_id!r}")
            if info.ended_at is None:
                self._sessions[session_id] = replace(info, ended_at=time.time())
            return self._info(session_id)

    def delete(self, session_id: str) -> bool:
        with self._mutex:
            self._items.pop(session_id, None)
            self._locks.pop(session_id, None)
            for key in [k for k in self._calls if k[0] == session_id]:
                del self._calls[key]
            return self._sessions.pop(session_id, None) is not None

    def get_items(self, session_id: str, limit: int | None = None) -> list[SessionItem]:
        with self._mutex:
            items = list(self._items.get(session_id, []))
        return items if limit is None else items[len(items) - min(limit, len(items)):]

    def add_items(self, session_id: str, items: Sequence[SessionItem]) -> list[SessionItem]:
        with self._mutex:
            self.create(session_id)
            have = self._items[session_id]
            last = have[-1].seq if have else 0
            stored = [item.numbered(last + i + 1) for i, item in enumerate(items)]
            have.extend(stored)
            info = self._sessions[session_id]
            self._sessions[session_id] = replace(info, updated_at=time.time(), title=info.title or title_from(items))
            return stored

    def settle(self, session_id: str, *, update: Sequence[SessionItem] = (), remove: Sequence[int] = (),
               add: Sequence[SessionItem] = ()) -> list[SessionItem]:
        with self._mutex:
            new = {i.seq: i for i in update}
            gone = set(remove)
            if session_id in self._items:
                self._items[session_id] = [new.get(i.seq, i) for i in self._items[session_id] if i.seq not in gone]
            return self.add_items(session_id, add) if add else []

    def pop_item(self, session_id: str) -> SessionItem | None:
        with self._mutex:
            items = self._items.get(session_id)
            return items.pop() if items else None

    def clear(self, session_id: str) -> None:
        with self._mutex:
            if session_id in self._items:
                self._items[session_id] = []

    def find_request(self, session_id: str, request_id: str) -> list[SessionItem]:
        return [i for i in self.get_items(session_id) if i.request_id == request_id]

    def claim_tool_call(self, session_id: str, call_id: str, data: dict[str, Any]) -> dict[str, Any] | None:
        with self._mutex:
            record = self._calls.get((session_id, call_id))
            if record is None:
                self._calls[(session_id, call_id)] = {**data, "result": None}
                return None
            return dict(record)

    def finish_tool_call(self, session_id: str, call_id: str, result: dict[str, Any]) -> None:
        with self._mutex:
            if (session_id, call_id) in self._calls:
                self._calls[(session_id, call_id)]["result"] = dict(result)

    def try_lock(self, session_id: str, holder: str, ttl: float) -> bool:
        now = time.time()
        with self._mutex:
            current = self._locks.get(session_id)
            if current and current[0] != holder and current[1] > now and not holder_is_dead(current[0]):
                return False
            self._locks[session_id] = (holder, now + ttl)
            return True

    def unlock(self, session_id: str, holder: str) -> None:
        with self._mutex:
            if self._locks.get(session_id, ("", 0))[0] == holder:
                del self._locks[session_id]

    def close(self) -> None:
        pass


__all__ = ["MemorySessionStore"]
