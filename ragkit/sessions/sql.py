"""``SQLSessionStore``: sessions in SQLite (WAL, the default) or PostgreSQL, through ``Database``.

Items are numbered per session inside a write transaction that first touches the session row, so
concurrent writers (threads, worker processes, hosts) queue instead of colliding. Turn locks are
leases in ``session_locks``: a holder that died on this host (``kill -9``) or whose lease expired
loses it to the next caller.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragkit.sessions.base import (
    SessionInfo,
    SessionItem,
    SessionNotFound,
    new_session_id,
    title_from,
)
from ragkit.sessions.db import Database, holder_is_dead

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions(
    id TEXT PRIMARY KEY, title TEXT, created_at DOUBLE PRECISION, updated_at DOUBLE PRECISION,
    ended_at DOUBLE PRECISION, metadata TEXT);
CREATE TABLE IF NOT EXISTS session_items(
    session_id TEXT, seq BIGINT, role TEXT, content TEXT, agent TEXT, citations TEXT, usage TEXT,
    status TEXT, trace_id TEXT, request_id TEXT, data TEXT, created_at DOUBLE PRECISION,
    PRIMARY KEY (session_id, seq));
CREATE INDEX IF NOT EXISTS session_items_request ON session_items(session_id, request_id);
CREATE TABLE IF NOT EXISTS session_locks(session_id TEXT PRIMARY KEY, holder TEXT, expires DOUBLE PRECISION);
CREATE TABLE IF NOT EXISTS session_tool_calls(
    session_id TEXT, call_id TEXT, data TEXT, result TEXT, created_at DOUBLE PRECISION,
    PRIMARY KEY (session_id, call_id))
"""
_ITEM_COLS = "seq, role, content, agent, citations, usage, status, trace_id, request_id, data, created_at"
_SESSION_COLS = ("id, title, created_at, updated_at, ended_at, metadata, "
                 "(SELECT COUNT(*) FROM session_items i WHERE i.session_id = s.id), owner")


class SQLSessionStore:
    def __init__(self, db: Database | str | Path) -> None:
        self.db = db if isinstance(db, Database) else Database.open(db)
        with self.db.transaction():
            self.db.script(SCHEMA)
        self.db.add_columns("sessions", {"owner": "TEXT"})

    # ------------------------------------------------------------------ sessions
    def create(self, session_id: str | None = None, *, title: str = "",
               metadata: dict[str, Any] | None = None, owner: str | None = None) -> SessionInfo:
        sid = session_id or new_session_id()
        now = time.time()
        self.db.write(
            "INSERT INTO sessions (id, title, created_at, updated_at, ended_at, metadata, owner) "
            "VALUES (?, ?, ?, ?, NULL, ?, ?) ON CONFLICT (id) DO NOTHING",
            [sid, title, now, now, json.dumps(metadata or {}), owner],
        )
        info = self.get(sid)
        assert info is not None
        return info

    def get(self, session_id: str) -> SessionInfo | None:
        rows = self.db.execute(f"SELECT {_SESSION_COLS} FROM sessions s WHERE id = ?", [session_id])
        return _info(rows[0]) if rows else None

    def list(self, *, limit: int = 50, offset: int = 0, owner: str | None = None) -> list[SessionInfo]:
        where, params = ("WHERE owner = ?", [owner]) if owner is not None else ("", [])
        rows = self.db.execute(
            f"SELECT {_SESSION_COLS} FROM sessions s {where} ORDER BY updated_at DESC, id LIMIT ? OFFSET ?",
            [*params, int(limit), int(offset)],
        )
        return [_info(r) for r in rows]

    def end(self, session_id: str) -> SessionInfo:
        self.db.write("UPDATE sessions SET ended_at = COALESCE(ended_at, ?) WHERE id = ?", [time.time(), session_id])
        info = self.get(session_id)
        if info is None:
            raise SessionNotFound(f"no session {session_id!r}")
        return info

    def delete(self, session_id: str) -> bool:
        with self.db.transaction():
            found = bool(self.db.execute("SELECT 1 FROM sessions WHERE id = ?", [session_id]))
            self.db.execute("DELETE FROM session_items WHERE session_id = ?", [session_id])
            self.db.execute("DELETE FROM session_locks WHERE session_id = ?", [session_id])
            self.db.execute("DELETE FROM session_tool_calls WHERE session_id = ?", [session_id])
            self.db.execute("DELETE FROM sessions WHERE id = ?", [session_id])
        return found

    # ------------------------------------------------------------------ items
    def get_items(self, session_id: str, limit: int | None = None) -> list[SessionItem]:
        if limit is None:
            rows = self.db.execute(f"SELECT {_ITEM_COLS} FROM session_items WHERE session_id = ? ORDER BY seq",
                                   [session_id])
        else:
            rows = self.db.execute(
                f"SELECT {_ITEM_COLS} FROM session_items WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
                [session_id, int(limit)],
            )[::-1]
        return [_item(r) for r in rows]

    def add_items(self, session_id: str, items: Sequence[SessionItem]) -> list[SessionItem]:
        now = time.time()
        with self.db.transaction():
            title = title_from(items)
            self.db.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at, ended_at, metadata) "
                "VALUES (?, ?, ?, ?, NULL, '{}') ON CONFLICT (id) DO UPDATE SET updated_at = ?, "
                "title = CASE WHEN sessions.title = '' THEN ? ELSE sessions.title END",
                [session_id, title, now, now, now, title],
            )
            last = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM session_items WHERE session_id = ?",
                                   [session_id])[0][0]
            stored = [item.numbered(int(last) + i + 1) for i, item in enumerate(items)]
            for it in stored:
                self.db.execute(
                    f"INSERT INTO session_items (session_id, {_ITEM_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [session_id, it.seq, it.role, it.content, it.agent, json.dumps(it.citations),
                     json.dumps(it.usage), it.status, it.trace_id, it.request_id, json.dumps(it.data),
                     it.created_at],
                )
        return stored

    def settle(self, session_id: str, *, update: Sequence[SessionItem] = (), remove: Sequence[int] = (),
               add: Sequence[SessionItem] = ()) -> list[SessionItem]:
        with self.db.transaction():
            for it in update:
                self.db.execute(
                    "UPDATE session_items SET role = ?, content = ?, agent = ?, citations = ?, usage = ?, status = ?, "
                    "trace_id = ?, request_id = ?, data = ? WHERE session_id = ? AND seq = ?",
                    [it.role, it.content, it.agent, json.dumps(it.citations), json.dumps(it.usage), it.status,
                     it.trace_id, it.request_id, json.dumps(it.data), session_id, it.seq],
                )
            for seq in remove:
                self.db.execute("DELETE FROM session_items WHERE session_id = ? AND seq = ?", [session_id, seq])
            return self.add_items(session_id, add) if add else []

    def pop_item(self, session_id: str) -> SessionItem | None:
        with self.db.transaction():
            rows = self.db.execute(
                f"SELECT {_ITEM_COLS} FROM session_items WHERE session_id = ? ORDER BY seq DESC LIMIT 1", [session_id]
            )
            if not rows:
                return None
            self.db.execute("DELETE FROM session_items WHERE session_id = ? AND seq = ?", [session_id, rows[0][0]])
        return _item(rows[0])

    def clear(self, session_id: str) -> None:
        self.db.write("DELETE FROM session_items WHERE session_id = ?", [session_id])

    def find_request(self, session_id: str, request_id: str) -> list[SessionItem]:
        rows = self.db.execute(
            f"SELECT {_ITEM_COLS} FROM session_items WHERE session_id = ? AND request_id = ? ORDER BY seq",
            [session_id, request_id],
        )
        return [_item(r) for r in rows]

    # ------------------------------------------------------------------ tool-call records
    def claim_tool_call(self, session_id: str, call_id: str, data: dict[str, Any]) -> dict[str, Any] | None:
        """Claim ``call_id`` before running it: None when this caller claimed it (run the tool), else
        the existing record (``result`` is None while the first claimant has not finished)."""
        with self.db.transaction():
            got = self.db.execute(
                "INSERT INTO session_tool_calls VALUES (?, ?, ?, NULL, ?) ON CONFLICT (session_id, call_id) "
                "DO NOTHING RETURNING call_id", [session_id, call_id, json.dumps(data), time.time()])
            if got:
                return None
            rows = self.db.execute("SELECT data, result FROM session_tool_calls WHERE session_id = ? AND call_id = ?",
                                   [session_id, call_id])
        return {**json.loads(rows[0][0] or "{}"), "result": json.loads(rows[0][1]) if rows[0][1] else None}

    def finish_tool_call(self, session_id: str, call_id: str, result: dict[str, Any]) -> None:
        self.db.write("UPDATE session_tool_calls SET result = ? WHERE session_id = ? AND call_id = ?",
                      [json.dumps(result), session_id, call_id])

    # ------------------------------------------------------------------ turn locks
    def try_lock(self, session_id: str, holder: str, ttl: float) -> bool:
        now = time.time()
        with self.db.transaction():
            rows = self.db.execute("SELECT holder, expires FROM session_locks WHERE session_id = ?", [session_id])
            if rows and rows[0][0] != holder and rows[0][1] > now and not holder_is_dead(rows[0][0]):
                return False
            seen = rows[0][0] if rows else holder  # take over only what we saw (a racing insert wins)
            self.db.execute(
                "INSERT INTO session_locks VALUES (?, ?, ?) ON CONFLICT (session_id) "
                "DO UPDATE SET holder = excluded.holder, expires = excluded.expires WHERE session_locks.holder = ?",
                [session_id, holder, now + ttl, seen],
            )
            got = self.db.execute("SELECT holder FROM session_locks WHERE session_id = ?", [session_id])
        return bool(got) and got[0][0] == holder

    def unlock(self, session_id: str, holder: str) -> None:
        self.db.write("DELETE FROM session_locks WHERE session_id = ? AND holder = ?", [session_id, holder])

    def close(self) -> None:
        self.db.close()


def _info(row: Sequence[Any]) -> SessionInfo:
    sid, title, created, updated, ended, metadata, count, owner = row
    return SessionInfo(id=sid, title=title or "", created_at=float(created), updated_at=float(updated),
                       ended_at=None if ended is None else float(ended), items=int(count),
                       metadata=json.loads(metadata or "{}"), owner=owner)


def _item(row: Sequence[Any]) -> SessionItem:
    seq, role, content, agent, citations, usage, status, trace_id, request_id, data, created = row
    return SessionItem(role=role, content=content or "", agent=agent, citations=json.loads(citations or "[]"),
                       usage=json.loads(usage or "{}"), status=status, trace_id=trace_id,
                       request_id=request_id, data=json.loads(data or "{}"), created_at=float(created),
                       seq=int(seq))


__all__ = ["SQLSessionStore"]
