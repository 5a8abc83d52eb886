"""``duckdb`` store: exact cosine search in a DuckDB table of its own.

Rows live in ``path/vectors.duckdb`` (a file this store shares with nothing else) as
``(id VARCHAR PRIMARY KEY, embedding FLOAT[dimension], metadata JSON)``. Search is a full scan with
``array_cosine_similarity`` — exact, fast enough for tens of thousands of rows — and filters are
compiled to SQL on the JSON column with every value passed as a parameter.

Threads: one database connection, a cursor per thread; writes are serialized by a lock.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.connections import PerThread
from ragkit.errors import StoreError
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

NAME = "duckdb"
FILENAME = "vectors.duckdb"
FILTER_OPS = frozenset({"$eq", "$in", "$gt", "$gte", "$lt", "$lte", "$glob"})
_NUMBER_TYPES = "('BIGINT', 'UBIGINT', 'DOUBLE')"


def _eq(path: str, value: Any) -> Fragment:
    """SQL for ``metadata[field] == value`` with JSON-type awareness."""
    if isinstance(value, bool):
        return ("(json_type(metadata, ?) = 'BOOLEAN' AND json_extract_string(metadata, ?) = ?)",
                [path, path, "true" if value else "false"])
    if isinstance(value, (int, float)):
        return _range(path, "$eq", value)
    if isinstance(value, str):
        return ("(json_type(metadata, ?) = 'VARCHAR' AND json_extract_string(metadata, ?) = ?)",
                [path, path, value])
    if value is None:
        return "(json_type(metadata, ?) = 'NULL')", [path]
    return ("(json_type(metadata, ?) IN ('ARRAY', 'OBJECT') "
            "AND CAST(json_extract(metadata, ?) AS VARCHAR) = ?)", [path, path, canonical_json(value)])


def _range(path: str, op: str, value: Any) -> Fragment:
    sql_op = RANGE_SQL[op]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (f"(json_type(metadata, ?) IN {_NUMBER_TYPES} "
                f"AND TRY_CAST(json_extract(metadata, ?) AS DOUBLE) {sql_op} ?)", [path, path, float(value)])
    if isinstance(value, str):
        return (f"(json_type(metadata, ?) = 'VARCHAR' AND json_extract_string(metadata, ?) {sql_op} ?)",
                [path, path, value])
    raise needs_number_or_string(op, value)


_DIALECT = SQLDialect(
    path=json_path, eq=_eq, compare=_range,
    glob=lambda path, pattern: (
        "(json_type(metadata, ?) = 'VARCHAR' AND json_extract_string(metadata, ?) GLOB ?)", [path, path, pattern]))


def compile_filter(flt: Filter | None) -> Fragment:
    """Return ``(where_sql, params)``; ``"TRUE"`` for no filter."""
    return compile_sql_filter(flt, FILTER_OPS, NAME, _DIALECT)


@stores.register(NAME)
class DuckDBStore:
    """Exact cosine search over a DuckDB table (``type: duckdb``)."""

    #: its whole state is files under ``path`` (see ``ragkit.stores.base``)
    local = True

    @keyword_options("store", "duckdb")
    def __init__(self, *, dimension: int, path: Path | None = None) -> None:
        if dimension < 1:
            raise StoreError(f"dimension must be at least 1 (got {dimension})")
        import duckdb

        self.dimension = dimension
        self.capabilities = Capabilities(filter_ops=FILTER_OPS, max_batch=None,
                                         persistent=path is not None, approximate=False)
        self._file = ":memory:"
        if path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            self._file = str(Path(path) / FILENAME)
        try:
            self._conn: Any = duckdb.connect(self._file)
        except duckdb.Error as exc:
            raise StoreError(f"duckdb: cannot open {self._file}: {exc}; is another process using it?") from exc
        self._cursors: PerThread[Any] = PerThread(  # a cursor per thread over the one connection
            self._conn.cursor, name="duckdb", closed_error=lambda: StoreError("duckdb: the store is closed; open a new one"))
        self._lock = threading.Lock()  # serializes writes
        self._setup()

    def _setup(self) -> None:
        d = self.dimension
        self._run(f"CREATE TABLE IF NOT EXISTS vectors (id VARCHAR PRIMARY KEY, "
                  f"embedding FLOAT[{d}] NOT NULL, metadata JSON NOT NULL)")
        rows = self._run("SELECT data_type FROM information_schema.columns "
                         "WHERE table_name = 'vectors' AND column_name = 'embedding'")
        have = rows[0][0] if rows else ""
        if have != f"FLOAT[{d}]":
            m = re.search(r"\[(\d+)\]", have)
            got = m.group(1) if m else have
            self.close()
            raise StoreError(
                f"duckdb: {self._file} holds {got}-d vectors but the store was opened with dimension "
                f"{d}; use the embedder the index was built with, or delete the index directory"
            )

    # -- plumbing --------------------------------------------------------------------------
    def _run(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        import duckdb

        try:
            return self._cursors.get().execute(sql, list(params or [])).fetchall()
        except duckdb.Error as exc:
            raise StoreError(f"duckdb: query failed on {self._file}: {exc}") from exc

    # -- VectorStore -----------------------------------------------------------------------
    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> None:
        ids = [str(i) for i in ids]
        x = check_vectors(vectors, self.dimension, len(ids), NAME)
        if len(metadata) != len(ids):
            raise StoreError(f"duckdb: got {len(ids)} ids but {len(metadata)} metadata dicts")
        if not ids:
            return
        last = {i: n for n, i in enumerate(ids)}  # duplicate ids in one call: the last one wins
        keep = sorted(last.values())
        ids_k = [ids[n] for n in keep]
        meta_k = [dump_metadata(metadata[n], NAME) for n in keep]
        batch_rows = np.empty((self.dimension + 1, len(keep)), dtype=np.float32)
        batch_rows[0] = np.arange(len(keep), dtype=np.float32)
        batch_rows[1:] = x[keep].T
        cols = ", ".join(f"column{j + 1}" for j in range(self.dimension))
        sql = (f"INSERT OR REPLACE INTO vectors SELECT $1[i + 1], e, CAST($2[i + 1] AS JSON) FROM "
               f"(SELECT CAST(column0 AS BIGINT) AS i, CAST([{cols}] AS FLOAT[{self.dimension}]) AS e "
               f"FROM batch_rows)")
        with self._lock:
            cur = self._cursors.get()
            cur.register("batch_rows", batch_rows)
            try:
                self._run(sql, [ids_k, meta_k])
            finally:
                cur.unregister("batch_rows")

    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        q = check_query(vector, self.dimension, k, NAME)
        where, params = compile_filter(filter)
        sql = (f"SELECT id, array_cosine_similarity(embedding, CAST(? AS FLOAT[{self.dimension}])) AS score, "
               f"metadata FROM vectors WHERE {where} ORDER BY score DESC, id LIMIT ?")
        rows = self._run(sql, [q.tolist(), *params, k])
        return [SearchHit(id=r[0], score=float(r[1]), metadata=json.loads(r[2])) for r in rows]

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        with self._lock:
            self._run("DELETE FROM vectors WHERE id IN (SELECT unnest(?))", [[str(i) for i in ids]])

    def clear(self) -> None:
        with self._lock:
            self._run("DELETE FROM vectors")

    def ids(self) -> set[str]:
        return {r[0] for r in self._run("SELECT id FROM vectors")}

    def count(self) -> int:
        return int(self._run("SELECT count(*) FROM vectors")[0][0])

    def persist(self) -> None:
        if self.capabilities.persistent:
            with self._lock:
                self._run("CHECKPOINT")

    def close(self) -> None:
        if self._cursors.closed:
            return
        self._cursors.close()
        self._conn.close()

    def __repr__(self) -> str:
        return f"DuckDBStore(dimension={self.dimension}, file={self._file!r})"
