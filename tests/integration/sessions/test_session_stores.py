"""Every SessionStore backend passes the same contract: memory, SQLite (WAL) and real PostgreSQL."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from ragkit.sessions.db import Database, redact
from ragkit.sessions.memory import MemorySessionStore
from ragkit.sessions.sql import SQLSessionStore
from ragkit.testing.sessions import SessionStoreContract


class TestMemorySessionStore(SessionStoreContract):
    def make_store(self, tmp_path: Path) -> Any:
        return MemorySessionStore()


class TestSQLiteSessionStore(SessionStoreContract):
    def make_store(self, tmp_path: Path) -> Any:
        return SQLSessionStore(tmp_path / "state.db")

    def reopen(self, store: Any, tmp_path: Path) -> Any:
        return SQLSessionStore(tmp_path / "state.db")

    def test_wal_mode(self, store: Any) -> None:
        assert store.db.execute("PRAGMA journal_mode")[0][0] == "wal"


@pytest.mark.slow
class TestPostgresSessionStore(SessionStoreContract):
    @pytest.fixture(autouse=True)
    def _dsn(self, postgres_dsn: str) -> None:
        self.dsn = postgres_dsn

    def make_store(self, tmp_path: Path) -> Any:
        self.schema = "t" + uuid.uuid4().hex[:10]  # a fresh database per test
        admin = Database(self.dsn)
        admin.execute(f"CREATE DATABASE {self.schema}")
        admin.close()
        return SQLSessionStore(Database(self._url()))

    def _url(self) -> str:
        base, _, query = self.dsn.partition("?")
        return base.rsplit("/", 1)[0] + "/" + self.schema + (f"?{query}" if query else "")

    def reopen(self, store: Any, tmp_path: Path) -> Any:
        return SQLSessionStore(Database(self._url()))


def test_unsupported_url_and_redaction() -> None:
    with pytest.raises(Exception, match="unsupported database URL 'mysql://u:\\*\\*\\*@h/db'"):
        Database("mysql://u:secret@h/db")
    assert redact("postgresql://me:pw@host/db") == "postgresql://me:***@host/db"
