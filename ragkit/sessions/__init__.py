"""Durable conversations: the ``SessionStore`` protocol and its backends.

- ``MemorySessionStore``: one process, nothing persisted.
- ``SQLSessionStore`` over SQLite in WAL mode (``sqlite:///PATH``; the server's default is
  ``state.db`` in the index directory), shared by several processes on one host.
- ``SQLSessionStore`` over PostgreSQL (``postgresql://...``), shared by several hosts.

``open_session_store(url)`` picks the backend from the URL (``memory`` for the in-memory one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.sessions.base import (
    SessionError,
    SessionInfo,
    SessionItem,
    SessionNotFound,
    SessionStore,
    new_session_id,
)


def open_session_store(url: str | Path) -> Any:
    if str(url) == "memory":
        from ragkit.sessions.memory import MemorySessionStore

        return MemorySessionStore()
    from ragkit.sessions.sql import SQLSessionStore

    return SQLSessionStore(url)


__all__ = ["SessionError", "SessionInfo", "SessionItem", "SessionNotFound", "SessionStore",
           "new_session_id", "open_session_store"]
