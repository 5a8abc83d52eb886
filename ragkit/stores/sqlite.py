"""``sqlite`` store: exact cosine search in SQLite with the ``sqlite-vec`` extension.

Rows live in ``path/vectors.sqlite`` as ``(id TEXT PRIMARY KEY, embedding BLOB, metadata TEXT)``.
Search ranks *the rows that match the filter* with ``vec_distance_cosine`` in SQL, so a filtered
search returns ``k`` hits whenever ``k`` rows match (a vec0 KNN with a post-filter would return
fewer). The scan is exact; it suits the small-to-medium indexes SQLite is chosen for.

Python builds without loadable-extension support (pyenv's default, some distributions) use the
``sqlean.py`` or ``pysqlite3`` driver instead of the standard library's ``sqlite3``.
Threads: a connection per thread in WAL mode; writes are serialized by a lock.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from ragkit.connections import PerThread
from ragkit.errors import ConfigError, MissingDependencyError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import Capabilities, check_query, check_vectors, dump_metadata
from ragkit.stores.filters import Filter
from ragkit.stores.sql_filters import (
    RANGE_SQL,
    Fragment,
    SQLDialect,
    canonical_json,
    json_path,
    needs_number_or_string,
)
from ragkit.stores.sql_filters import compile_filter as compile_sql_filter
from ragkit.types import SearchHit
from ragkit.wiring import keyword_options

log = logging.getLogger(__name__)

NAME = "sqlite"
FILENAME = "vectors.sqlite"
FILTER_OPS = frozenset({"$eq", "$in", "$gt", "$gte", "$lt", "$lte", "$glob"})
_memory_ids = itertools.count()


def sqlite_driver() -> ModuleType:
    """The first DB-API sqlite module that can load extensions: stdlib, sqlean, pysqlite3."""
    import sqlite3

    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    for name in ("sqlean", "pysqlite3.dbapi2"):
        try:
            return __import__(name, fromlist=["connect"])
        except ImportError:
            continue
    raise MissingDependencyError("sqlean.py", "sqlite", "loading sqlite-vec (this Python's sqlite3 "
                                 "cannot load extensions)")


def _eq(path: str, value: Any) -> Fragment:
    if isinstance(value, bool):
        return "(json_type(metadata, ?) = ?)", [path, "true" if value else "false"]
    if value is None:
        return "(json_type(metadata, ?) = 'null')", [path]
    if isinstance(value, (int, float, str)):
        return _compare(path, "$eq", value)
    return ("(json_type(metadata, ?) IN ('array', 'object') AND json_extract(metadata, ?) = ?)",
            [path, path, canonical_json(value)])


def _compare(path: str, op: str, value: Any) -> Fragment:
    sql_op = RANGE_SQL[op]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (f"(json_type(metadata, ?) IN ('integer', 'real') AND json_extract(metadata, ?) {sql_op} ?)",
                [path, path, value])
    if isinstance(value, str):
        return (f"(json_type(metadata, ?) = 'text' AND json_extract(metadata, ?) {sql_op} ?)",
                [path, path, value])
    raise needs_number_or_string(op, value)


_DIALECT = SQLDialect(
    path=json_path, eq=_eq, compare=_compare, true_sql="1", false_sql="0",
    # SQLite negates a class with [^...], fnmatch with [!...]
    glob=lambda path, pattern: ("(json_type(metadata, ?) = 'text' AND json_extract(metadata, ?) GLOB ?)",
                                [path, path, pattern.replace("[!", "[^")]))


def compile_filter(flt: Filter | None) -> Fragment:
    """Return ``(where_sql, params)`` for SQLite's JSON functions; ``"1"`` for no filter."""
    return compile_sql_filter(flt, FILTER_OPS, NAME, _DIALECT)


@stores.register(NAME)
class SQLiteStore:
    """Exact cosine search in SQLite + sqlite-vec (``type: sqlite``)."""

    #: its whole state is files under ``path`` (see ``ragkit.stores.base``)
    local = True

    @keyword_options("store", "sqlite")
    def __init__(self, *, dimension: int, path: Path | None = None, busy_timeout: float = 30.0) -> None:
        timeout = busy_timeout
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout < 0:
            raise ConfigError(f"sqlite option busy_timeout must be seconds >= 0 (got {timeout!r})")
        if dimension < 1:
            raise StoreError(f"dimension must be at least 1 (got {dimension})")
        try:
            import sqlite_vec
        except ImportError as exc:
            raise MissingDependencyError("sqlite-vec", "sqlite", "the sqlite store") from exc
        self._vec = sqlite_vec
        self._db = sqlite_driver()
        self.dimension = dimension
        self.capabilities = Capabilities(filter_ops=FILTER_OPS, max_batch=None,
                                         persistent=path is not None, approximate=False)
        self._timeout = float(timeout)
        if path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            self._target, self._uri = str(Path(path) / FILENAME), False
        else:
            self._target, self._uri = f"file:ragkit-{next(_memory_ids)}?mode=memory&cache=shared", True
        self._conns: PerThread[Any] = PerThread(
            self._connect, name="sqlite", closed_error=lambda: StoreError("sqlite: the store is closed; open a new one"))
        self._write_lock = threading.Lock()
        self._setup()

    # -- plumbing --------------------------------------------------------------------------
    def _connect(self) -> Any:
        try:
            conn = self._db.connect(self._target, uri=self._uri, timeout=self._timeout,
                                    check_same_thread=False, isolation_level=None)
            conn.enable_load_extension(True)
            self._vec.load(conn)
            conn.enable_load_extension(False)
        except self._db.Error as exc:
            raise StoreError(f"sqlite: cannot open {self._target}: {exc}") from exc
        if not self._uri:
            conn.execute("PRAGMA journal_mode=WAL")
        return conn

    def _run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conns.get().execute(sql, list(params)).fetchall()
        except self._db.Error as exc:
            raise StoreError(f"sqlite: query failed on {self._target}: {exc}") from exc

    def _setup(self) -> None:
        self._run("CREATE TABLE IF NOT EXISTS vectors (id TEXT PRIMARY KEY, embedding BLOB NOT NULL, "
                  "metadata TEXT NOT NULL)")
        self._run("CREATE TABLE IF NOT EXISTS ragkit_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._run("INSERT OR IGNORE INTO ragkit_meta VALUES ('dimension', ?)", [str(self.dimension)])
        have = int(self._run("SELECT value FROM ragkit_meta WHERE key = 'dimension'")[0][0])
        if have != self.dimension:
            self.close()
            raise StoreError(
                f"sqlite: {self._target} holds {have}-d vectors but the store was opened with dimension "
                f"{self.dimension}; use the embedder the index was built with, or delete the index directory"
            )

    def _write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self._write_lock:
            conn = self._conns.get()
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(sql, rows)
                conn.execute("COMMIT")
            except self._db.Error as exc:
                conn.execute("ROLLBACK")
                raise StoreError(f"sqlite: write failed on {self._target}: {exc}") from exc

    # -- VectorStore -----------------------------------------------------------------------
    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> None:
        x = check_vectors(vectors, self.dimension, len(ids), NAME)
        if len(metadata) != len(ids):
            raise StoreError(f"sqlite: got {len(ids)} ids but {len(metadata)} metadata dicts")
        rows: list[tuple[Any, ...]] = [
            (str(i), vec.tobytes(), dump_metadata(meta, NAME)) for i, vec, meta in zip(ids, x, metadata, strict=True)
        ]
        if rows:
            self._write("INSERT INTO vectors (id, embedding, metadata) VALUES (?, ?, ?) ON CONFLICT(id) "
                        "DO UPDATE SET embedding = excluded.embedding, metadata = excluded.metadata", rows)

    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        q = check_query(vector, self.dimension, k, NAME)
        where, params = compile_filter(filter)
        sql = (f"SELECT id, 1.0 - vec_distance_cosine(embedding, ?) AS score, metadata FROM vectors "
               f"WHERE {where} ORDER BY score DESC, id LIMIT ?")
        rows = self._run(sql, [q.tobytes(), *params, k])
        return [SearchHit(id=r[0], score=float(r[1]), metadata=json.loads(r[2])) for r in rows]

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._write("DELETE FROM vectors WHERE id = ?", [(str(i),) for i in ids])

    def clear(self) -> None:
        self._write("DELETE FROM vectors", [()])

    def ids(self) -> set[str]:
        return {r[0] for r in self._run("SELECT id FROM vectors")}

    def count(self) -> int:
        return int(self._run("SELECT count(*) FROM vectors")[0][0])

    def persist(self) -> None:
        """Every write is committed; fold the WAL into the main file."""
        if self.capabilities.persistent:
            with self._write_lock:
                self._run("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        self._conns.close()

    def __repr__(self) -> str:
        return f"SQLiteStore(dimension={self.dimension}, file={self._target!r})"
