"""The server's other durable records, in the same database as the sessions: traces, ingest
jobs and API keys (only their SHA-256 hashes are stored)."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from typing import Any

from ragkit.sessions.db import Database, holder_is_dead

SCHEMA = """
CREATE TABLE IF NOT EXISTS traces(
    id TEXT PRIMARY KEY, session_id TEXT, created_at DOUBLE PRECISION, model TEXT, status TEXT,
    duration DOUBLE PRECISION, data TEXT);
CREATE INDEX IF NOT EXISTS traces_session ON traces(session_id, created_at);
CREATE TABLE IF NOT EXISTS jobs(
    id TEXT PRIMARY KEY, kind TEXT, status TEXT, created_at DOUBLE PRECISION, started_at DOUBLE PRECISION,
    finished_at DOUBLE PRECISION, request TEXT, result TEXT, error TEXT, holder TEXT);
CREATE TABLE IF NOT EXISTS api_keys(hash TEXT PRIMARY KEY, name TEXT, created_at DOUBLE PRECISION)
"""
KEY_PREFIX = "rk-"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class Records:
    def __init__(self, db: Database) -> None:
        self.db = db
        with db.transaction():
            db.script(SCHEMA)

    # ------------------------------------------------------------------ traces
    def save_trace(self, trace_id: str, *, session_id: str | None, model: str, status: str,
                   duration: float, data: dict[str, Any]) -> None:
        self.db.write(
            "INSERT INTO traces VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            [trace_id, session_id, time.time(), model, status, duration, json.dumps(data, default=str)],
        )

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        rows = self.db.execute("SELECT id, session_id, created_at, model, status, duration, data FROM traces "
                               "WHERE id = ?", [trace_id])
        return {**_trace_summary(rows[0]), **json.loads(rows[0][6])} if rows else None

    def traces(self, *, session_id: str | None, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        where, params = ("WHERE session_id = ?", [session_id]) if session_id else ("", [])
        total = self.db.execute(f"SELECT COUNT(*) FROM traces {where}", params)[0][0]
        rows = self.db.execute(
            f"SELECT id, session_id, created_at, model, status, duration FROM traces {where} "
            "ORDER BY created_at DESC, id LIMIT ? OFFSET ?", [*params, int(limit), int(offset)],
        )
        return [_trace_summary(r) for r in rows], int(total)

    # ------------------------------------------------------------------ jobs
    def add_job(self, kind: str, request: dict[str, Any]) -> str:
        job_id = "job_" + uuid.uuid4().hex[:16]
        self.db.write("INSERT INTO jobs VALUES (?, ?, 'queued', ?, NULL, NULL, ?, NULL, NULL, NULL)",
                        [job_id, kind, time.time(), json.dumps(request)])
        return job_id

    def job(self, job_id: str) -> dict[str, Any] | None:
        rows = self.db.execute("SELECT id, kind, status, created_at, started_at, finished_at, request, result, "
                               "error FROM jobs WHERE id = ?", [job_id])
        if not rows:
            return None
        r = rows[0]
        return {"id": r[0], "object": "job", "kind": r[1], "status": r[2], "created_at": r[3],
                "started_at": r[4], "finished_at": r[5], "request": json.loads(r[6] or "{}"),
                "result": json.loads(r[7]) if r[7] else None, "error": r[8]}

    def claim_job(self, holder: str) -> dict[str, Any] | None:
        """Take the oldest queued job (jobs of a dead worker are queued again first)."""
        if not self.db.execute("SELECT 1 FROM jobs WHERE status IN ('queued', 'running') LIMIT 1"):
            return None  # the common case: a read, no write lock taken
        with self.db.transaction():
            for job_id, owner in self.db.execute("SELECT id, holder FROM jobs WHERE status = 'running'"):
                if owner and holder_is_dead(owner):
                    self.db.execute("UPDATE jobs SET status = 'queued', holder = NULL WHERE id = ?", [job_id])
            rows = self.db.execute("SELECT id FROM jobs WHERE status = 'queued' ORDER BY created_at, id LIMIT 1")
            if not rows:
                return None
            self.db.execute("UPDATE jobs SET status = 'running', holder = ?, started_at = ? WHERE id = ?",
                            [holder, time.time(), rows[0][0]])
        return self.job(rows[0][0])

    def requeue_job(self, job_id: str) -> None:
        self.db.write("UPDATE jobs SET status = 'queued', holder = NULL WHERE id = ?", [job_id])

    def finish_job(self, job_id: str, *, result: dict[str, Any] | None, error: str | None) -> None:
        self.db.write("UPDATE jobs SET status = ?, finished_at = ?, result = ?, error = ? WHERE id = ?",
                        ["failed" if error else "succeeded", time.time(),
                         json.dumps(result) if result is not None else None, error, job_id])

    # ------------------------------------------------------------------ API keys
    def create_key(self, name: str = "") -> str:
        """A new key; it is returned once and only its hash is stored."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        self.db.write("INSERT INTO api_keys VALUES (?, ?, ?)", [hash_key(key), name, time.time()])
        return key

    def has_keys(self) -> bool:
        return bool(self.db.execute("SELECT 1 FROM api_keys LIMIT 1"))

    def key_valid(self, key: str) -> bool:
        return bool(self.db.execute("SELECT 1 FROM api_keys WHERE hash = ?", [hash_key(key)]))


def _trace_summary(r: Any) -> dict[str, Any]:
    return {"id": r[0], "object": "trace", "session_id": r[1], "created_at": r[2], "model": r[3],
            "status": r[4], "duration": r[5]}
