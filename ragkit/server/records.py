"""The server's other durable records, in the same database as the sessions: traces, ingest
jobs, uploaded documents (who uploaded them) and API keys (only their SHA-256 hashes are stored).

Every trace, job and upload records its owner: the id of the API key that made it (``None`` on a
server without keys). ``Principal`` is who a request is: a key, or the local user of a keyless
server; an admin (the first key created, or one created with ``--admin``) sees everything.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from dataclasses import dataclass
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
CREATE TABLE IF NOT EXISTS api_keys(hash TEXT PRIMARY KEY, name TEXT, created_at DOUBLE PRECISION);
CREATE TABLE IF NOT EXISTS uploads(source TEXT PRIMARY KEY, owner TEXT, created_at DOUBLE PRECISION)
"""
#: columns added since the first schema (a state.db of an older ragkit gains them in place)
COLUMNS = {
    "traces": {"owner": "TEXT"},
    "jobs": {"owner": "TEXT", "attempts": "INTEGER"},
    "api_keys": {"id": "TEXT", "admin": "INTEGER", "last_used_at": "DOUBLE PRECISION",
                 "revoked_at": "DOUBLE PRECISION"},
}
KEY_PREFIX = "rk-"
#: how often a job is started at most: one whose process ended during it this often is failed
MAX_JOB_STARTS = 2
#: a key's last use is written at most this often (seconds): a read per request, a write per minute
LAST_USE_EVERY = 60.0


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Principal:
    """Who sends a request: an API key (``key_id``), or ``None`` on a server without keys."""

    key_id: str | None
    name: str = ""
    admin: bool = False

    @property
    def owner(self) -> str | None:
        """What the records it creates are stamped with."""
        return self.key_id

    def sees(self, owner: str | None) -> bool:
        return self.admin or (owner is not None and owner == self.key_id)


LOCAL = Principal(None, "local", admin=True)  # the user of a server without keys: everything is theirs


class Records:
    def __init__(self, db: Database) -> None:
        self.db = db
        with db.transaction():
            db.script(SCHEMA)
        for table, columns in COLUMNS.items():
            db.add_columns(table, columns)
        self._name_old_keys()

    # ------------------------------------------------------------------ traces
    def save_trace(self, trace_id: str, *, session_id: str | None, model: str, status: str,
                   duration: float, data: dict[str, Any], owner: str | None = None) -> None:
        self.db.write(
            "INSERT INTO traces (id, session_id, created_at, model, status, duration, data, owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            [trace_id, session_id, time.time(), model, status, duration, json.dumps(data, default=str), owner],
        )

    def trace(self, trace_id: str, who: Principal = LOCAL) -> dict[str, Any] | None:
        rows = self.db.execute("SELECT id, session_id, created_at, model, status, duration, data, owner FROM traces "
                               "WHERE id = ?", [trace_id])
        if not rows or not who.sees(rows[0][7]):
            return None
        return {**_trace_summary(rows[0]), **json.loads(rows[0][6])}

    def owner_of(self, kind: str, ident: str) -> tuple[bool, str | None]:
        """Whether the trace, job or upload ``ident`` exists, and its owner."""
        table, column = {"trace": ("traces", "id"), "job": ("jobs", "id"), "upload": ("uploads", "source")}[kind]
        rows = self.db.execute(f"SELECT owner FROM {table} WHERE {column} = ?", [ident])
        return (True, rows[0][0]) if rows else (False, None)

    def traces(self, *, session_id: str | None, limit: int, offset: int,
               who: Principal = LOCAL) -> tuple[list[dict[str, Any]], int]:
        conditions, params = ([], []) if who.admin else (["owner = ?"], [who.owner])
        if session_id:
            conditions.append("session_id = ?")
            params.append(session_id)
        where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
        total = self.db.execute(f"SELECT COUNT(*) FROM traces {where}", params)[0][0]
        rows = self.db.execute(
            f"SELECT id, session_id, created_at, model, status, duration FROM traces {where} "
            "ORDER BY created_at DESC, id LIMIT ? OFFSET ?", [*params, int(limit), int(offset)],
        )
        return [_trace_summary(r) for r in rows], int(total)

    # ------------------------------------------------------------------ jobs
    def add_job(self, kind: str, request: dict[str, Any], owner: str | None = None) -> str:
        job_id = "job_" + uuid.uuid4().hex[:16]
        self.db.write("INSERT INTO jobs (id, kind, status, created_at, request, owner) VALUES (?, ?, 'queued', ?, ?, ?)",
                      [job_id, kind, time.time(), json.dumps(request), owner])
        return job_id

    def job(self, job_id: str, who: Principal = LOCAL) -> dict[str, Any] | None:
        rows = self.db.execute("SELECT id, kind, status, created_at, started_at, finished_at, request, result, "
                               "error, owner, attempts FROM jobs WHERE id = ?", [job_id])
        if not rows or not who.sees(rows[0][9]):
            return None
        r = rows[0]
        return {"id": r[0], "object": "job", "kind": r[1], "status": r[2], "created_at": r[3],
                "started_at": r[4], "finished_at": r[5], "attempts": r[10] or 0, "request": json.loads(r[6] or "{}"),
                "result": json.loads(r[7]) if r[7] else None, "error": r[8]}

    def claim_job(self, holder: str) -> dict[str, Any] | None:
        """Take the oldest queued job (a start: its ``attempts`` count one more)."""
        if not self.db.execute("SELECT 1 FROM jobs WHERE status = 'queued' LIMIT 1"):
            return None  # the common case: a read, no write lock taken
        with self.db.transaction():
            rows = self.db.execute("SELECT id FROM jobs WHERE status = 'queued' ORDER BY created_at, id LIMIT 1")
            if not rows:
                return None
            self.db.execute("UPDATE jobs SET status = 'running', holder = ?, started_at = ?, "
                            "attempts = COALESCE(attempts, 0) + 1 WHERE id = ?", [holder, time.time(), rows[0][0]])
        return self.job(rows[0][0])

    def recover_jobs(self, max_starts: int = MAX_JOB_STARTS) -> list[dict[str, Any]]:
        """Jobs whose server process ended while running them (killed, out of memory): queued
        again, or failed once they were started ``max_starts`` times, so that a document which
        kills the process is not run again and again. Returns the jobs failed now."""
        running = self.db.execute("SELECT id, holder FROM jobs WHERE status = 'running'")
        if not any(holder and holder_is_dead(holder) for _, holder in running):
            return []  # the common case: a read, no write lock taken
        failed: list[str] = []
        with self.db.transaction():
            for job_id, holder, starts in self.db.execute(
                    "SELECT id, holder, attempts FROM jobs WHERE status = 'running'"):
                if not holder or not holder_is_dead(holder):
                    continue
                if (starts or 0) >= max_starts:
                    self.db.execute("UPDATE jobs SET status = 'failed', holder = NULL, finished_at = ?, error = ? "
                                    "WHERE id = ?", [time.time(), died_during(starts), job_id])
                    failed.append(job_id)
                else:
                    self.db.execute("UPDATE jobs SET status = 'queued', holder = NULL WHERE id = ?", [job_id])
        return [job for job in map(self.job, failed) if job is not None]

    def requeue_job(self, job_id: str, *, counted: bool = False) -> None:
        """Queue a claimed job again: one that could not start (the index was locked) is not
        counted as a start; ``counted``: one that started and whose process ended is."""
        self.db.write("UPDATE jobs SET status = 'queued', holder = NULL, attempts = COALESCE(attempts, 1) - ? "
                      "WHERE id = ?", [0 if counted else 1, job_id])

    def finish_job(self, job_id: str, *, result: dict[str, Any] | None, error: str | None) -> None:
        self.db.write("UPDATE jobs SET status = ?, finished_at = ?, result = ?, error = ?, holder = NULL WHERE id = ?",
                      ["failed" if error else "succeeded", time.time(),
                       json.dumps(result) if result is not None else None, error, job_id])

    # ------------------------------------------------------------------ uploaded documents
    def uploads_of_others(self, who: Principal) -> set[str]:
        """The uploaded documents ``who`` may not see (none for an admin)."""
        if who.admin:
            return set()
        rows = self.db.execute("SELECT source FROM uploads WHERE owner IS NULL OR owner <> ?", [who.owner])
        return {r[0] for r in rows}

    def record_uploads(self, sources: list[str], owner: str | None) -> None:
        now = time.time()
        with self.db.transaction():
            for source in sources:
                self.db.execute("INSERT INTO uploads VALUES (?, ?, ?) ON CONFLICT (source) DO NOTHING",
                                [source, owner, now])

    def forget_upload(self, source: str) -> None:
        self.db.write("DELETE FROM uploads WHERE source = ?", [source])

    # ------------------------------------------------------------------ API keys
    def create_key(self, name: str = "", *, admin: bool = False) -> tuple[str, dict[str, Any]]:
        """A new key and its public record; the key is returned once and only its hash is stored.
        The first key of a server is an admin key whatever ``admin`` says."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        key_id = "key_" + secrets.token_hex(6)
        with self.db.transaction():
            first = not self.db.execute("SELECT 1 FROM api_keys LIMIT 1")
            self.db.execute("INSERT INTO api_keys (hash, name, created_at, id, admin) VALUES (?, ?, ?, ?, ?)",
                            [hash_key(key), name, time.time(), key_id, int(admin or first)])
        record = next(k for k in self.keys() if k["id"] == key_id)
        return key, record

    def keys(self) -> list[dict[str, Any]]:
        """Every key's public record: id, name, admin, creation, last use, revocation (never a secret)."""
        rows = self.db.execute("SELECT id, name, admin, created_at, last_used_at, revoked_at FROM api_keys "
                               "ORDER BY created_at, id")
        return [{"id": r[0], "name": r[1] or "", "admin": bool(r[2]), "created_at": r[3], "last_used_at": r[4],
                 "revoked_at": r[5], "revoked": r[5] is not None} for r in rows]

    def revoke_key(self, id_or_name: str) -> dict[str, Any]:
        """Revoke the key with this id (or this name, when one key has it); every worker refuses it
        from its next request on (keys are checked against the database on every request)."""
        matches = [k for k in self.keys() if id_or_name in (k["id"], k["name"])]
        if not matches:
            raise LookupError(f"no API key with the id or name {id_or_name!r} (see `ragkit serve keys list`)")
        if len(matches) > 1:
            raise LookupError(f"{len(matches)} keys are named {id_or_name!r}; revoke one by its id: "
                              + ", ".join(k["id"] for k in matches))
        self.db.write("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
                      [time.time(), matches[0]["id"]])
        return next(k for k in self.keys() if k["id"] == matches[0]["id"])

    def has_keys(self) -> bool:
        """Whether the server requires keys: once any key was created (revoked ones count, so
        revoking every key never opens the server)."""
        return bool(self.db.execute("SELECT 1 FROM api_keys LIMIT 1"))

    def principal(self, key: str) -> Principal | None:
        """Who ``key`` is, or ``None`` for an unknown or revoked key; notes the key's last use."""
        rows = self.db.execute("SELECT id, name, admin, last_used_at FROM api_keys WHERE hash = ? AND revoked_at IS NULL",
                               [hash_key(key)])
        if not rows:
            return None
        key_id, name, admin, last = rows[0]
        now = time.time()
        if last is None or now - last > LAST_USE_EVERY:
            self.db.write("UPDATE api_keys SET last_used_at = ? WHERE id = ?", [now, key_id])
        return Principal(key_id, name or "", bool(admin))

    def key_valid(self, key: str) -> bool:
        return self.principal(key) is not None

    def _name_old_keys(self) -> None:
        """Keys made by an older ragkit get an id; the oldest of them becomes the admin key."""
        if not self.db.execute("SELECT 1 FROM api_keys WHERE id IS NULL LIMIT 1"):
            return
        with self.db.transaction():
            old = self.db.execute("SELECT hash FROM api_keys WHERE id IS NULL ORDER BY created_at")
            has_admin = bool(self.db.execute("SELECT 1 FROM api_keys WHERE admin = 1 LIMIT 1"))
            for n, (h,) in enumerate(old):
                self.db.execute("UPDATE api_keys SET id = ?, admin = ? WHERE hash = ?",
                                ["key_" + h[:12], int(n == 0 and not has_admin), h])


def died_during(starts: int, how: str = "the server process was killed") -> str:
    """Why a job is failed after the process running it ended ``starts`` times."""
    return (f"not retried: the process running this job ended {starts} times before the job finished (last: "
            f"{how}); a document in it may need more memory than the server has. Its documents were set aside "
            "in the index's quarantine folder, not indexed: check them, then upload them again")


def _trace_summary(r: Any) -> dict[str, Any]:
    return {"id": r[0], "object": "trace", "session_id": r[1], "created_at": r[2], "model": r[3],
            "status": r[4], "duration": r[5]}
