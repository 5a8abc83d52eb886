"""One database connection per thread, written once.

SQLite, DuckDB and psycopg connections must not be shared by threads at the same time, yet the
server, the tools and ``batch`` call a store from many threads. :class:`PerThread` makes a
thread's connection on its first use, keeps every one it made, and closes them all in
``close()``; the SQLite, DuckDB and pgvector stores and the sessions' ``Database`` use it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class PerThread(Generic[T]):
    """``get()``: this thread's connection, made by ``connect`` on first use (and again when
    ``alive`` says it died). ``close()`` closes every one; afterwards ``get()`` raises
    ``closed_error()`` when given, else starts over with new connections."""

    def __init__(self, connect: Callable[[], T], *, name: str, alive: Callable[[T], bool] | None = None,
                 closed_error: Callable[[], Exception] | None = None) -> None:
        self._connect, self._name, self._alive, self._closed_error = connect, name, alive, closed_error
        self._local = threading.local()
        self._all: list[T] = []
        self._lock = threading.Lock()
        self.closed = False

    def get(self) -> T:
        if self.closed and self._closed_error is not None:
            raise self._closed_error()
        conn: T | None = getattr(self._local, "conn", None)
        if conn is None or (self._alive is not None and not self._alive(conn)):
            conn = self._connect()
            self.adopt(conn)
        return conn

    def adopt(self, conn: T) -> None:
        """Make ``conn`` this thread's connection (closed with the others)."""
        self._local.conn = conn
        with self._lock:
            self._all.append(conn)

    def close(self, close: Callable[[T], None] | None = None) -> None:
        """Close every connection made (``close(conn)``, default ``conn.close()``); best effort."""
        with self._lock:
            conns, self._all = self._all, []
            self.closed = True
            self._local = threading.local()
        for conn in conns:
            try:
                close(conn) if close is not None else conn.close()  # type: ignore[attr-defined]
            except Exception:  # noqa: BLE001 - closing a broken connection must not raise
                log.debug("%s: closing a connection failed", self._name, exc_info=True)
        if self._closed_error is None:
            self.closed = False  # a new get() starts over


__all__ = ["PerThread"]
