"""A small SQL connection wrapper over SQLite (WAL) and PostgreSQL, so each query is written once.

SQL is written with ``?`` placeholders and portable types (TEXT, BIGINT, DOUBLE PRECISION,
``INSERT ... ON CONFLICT``); for PostgreSQL the placeholders become ``%s``. Each thread gets its
own connection. SQLite runs in WAL mode with a busy timeout, so several processes on one host
(the server's workers) share the file; PostgreSQL serves several hosts.

    db = Database.open("sqlite:///path/state.db")        # or a path ending in .db
    db = Database.open("postgresql://user@host/dbname")
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragkit.connections import PerThread
from ragkit.errors import ConfigError, MissingDependencyError

log = logging.getLogger(__name__)
BUSY_TIMEOUT_MS = 30_000


class Database:
    def __init__(self, url: str) -> None:
        self.url = url
        if url.startswith(("postgresql://", "postgres://")):
            self.dialect = "postgres"
        elif url.startswith("sqlite:///"):
            self.dialect = "sqlite"
            self.path = Path(url.removeprefix("sqlite:///"))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            private(self.path)
        else:
            raise ConfigError(
                f"unsupported database URL {redact(url)!r}; use sqlite:///PATH or postgresql://USER@HOST/DB"
            )
        self._conns: PerThread[Any] = PerThread(self._connect, name=f"database {redact(url)}")
        self._local = threading.local()  # each thread's transaction depth
        self._write_lock = threading.Lock()

    @classmethod
    def open(cls, url_or_path: str | Path) -> Database:
        text = str(url_or_path)
        if "://" not in text:
            text = "sqlite:///" + str(Path(text).absolute())
        return cls(text)

    # ------------------------------------------------------------------ connections
    def _connect(self) -> Any:
        if self.dialect == "sqlite":
            import sqlite3

            con = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                  check_same_thread=False)
            con.execute("PRAGMA journal_mode=WAL")
            con.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            con.execute("PRAGMA synchronous=NORMAL")
            return con
        try:
            import psycopg
        except ImportError as exc:
            raise MissingDependencyError("psycopg", "pgvector", "PostgreSQL sessions") from exc
        return psycopg.connect(self.url, autocommit=True)

    @property
    def con(self) -> Any:
        return self._conns.get()

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgres" else sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement; returns its rows (empty for statements without a result)."""
        cur = self.con.execute(self._sql(sql), tuple(params))
        try:
            return list(cur.fetchall()) if cur.description else []
        finally:
            cur.close()

    def script(self, sql: str) -> None:
        for statement in (s.strip() for s in sql.split(";")):
            if statement:
                self.execute(statement)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite, so writers queue instead of failing).

        Re-entrant: a nested ``transaction()`` joins the outer one. Writers of one process take
        turns on a lock first, so only writers of different processes meet SQLite's busy wait."""
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield
            finally:
                self._local.depth = depth
            return
        with self._write_lock:
            self.con.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN")
            self._local.depth = 1
            try:
                yield
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            else:
                self.con.execute("COMMIT")
            finally:
                self._local.depth = 0

    def add_columns(self, table: str, columns: dict[str, str]) -> None:
        """Add the ``columns`` (name -> SQL type) ``table`` lacks: a schema written by an older
        ragkit gains them in place, once, whichever process gets there first."""
        with self.transaction():
            if self.dialect == "sqlite":
                have = {r[1] for r in self.execute(f"PRAGMA table_info({table})")}
            else:
                have = {r[0] for r in self.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table])}
            for name, kind in columns.items():
                if name not in have:
                    self.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

    def write(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """``execute`` for one writing statement, as its own transaction."""
        with self.transaction():
            return self.execute(sql, params)

    def close(self) -> None:
        """Close every thread's connection (a later query opens new ones)."""
        self._conns.close()
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"Database({redact(self.url)!r})"


def private(path: Path) -> None:
    """Create the SQLite file ``path`` readable by its owner only (0600), or make it so: it holds
    conversations and API key hashes. SQLite gives its ``-wal`` and ``-shm`` files the same mode."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        for f in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if f.exists() and f.stat().st_mode & 0o077:
                f.chmod(0o600)
    except PermissionError:  # another user's file: leave it as it is
        log.warning("cannot make %s private (0600): not its owner", path)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    if "://" in url and "@" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}" if ":" in creds else url
    return url


#: the lock holders of this process that are still holding (see ``lock_holder``/``drop_holder``)
_live: set[str] = set()
_live_lock = threading.Lock()


def lock_holder(suffix: str) -> str:
    """A lock holder's name: host, pid (so ``holder_is_dead`` can check it) and ``suffix``. The
    holder counts as alive in this process until ``drop_holder``."""
    holder = f"{socket.gethostname()}:{os.getpid()}:{suffix}"
    with _live_lock:
        _live.add(holder)
    return holder


def drop_holder(holder: str) -> None:
    """The holder has let go (called before its lock is deleted, so a delete that fails, on a full
    disk for one, cannot keep the lock from the next turn of this process)."""
    with _live_lock:
        _live.discard(holder)


def holder_is_dead(holder: str) -> bool:
    """True when ``holder`` names a process on this host that no longer exists (killed), or a
    holder of this very process that has let go."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        with _live_lock:
            return holder not in _live
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


__all__ = ["Database", "drop_holder", "holder_is_dead", "lock_holder", "private", "redact"]
