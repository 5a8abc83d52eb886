"""``pgvector`` store: a PostgreSQL table with an HNSW index (psycopg 3 + pgvector).

Options (pipeline YAML): ``dsn`` (a libpq URI or key=value string; put the password in the
environment, e.g. ``postgresql://rag:${PGPASSWORD}@db:5432/rag``), ``table`` (default
``ragkit_vectors``), HNSW build parameters ``m`` and ``ef_construction``, and the query-time
``ef_search`` (applied with ``SET LOCAL``). The table is
``(id TEXT PRIMARY KEY, embedding vector(dimension), metadata JSONB)`` with a
``vector_cosine_ops`` HNSW index; the extension and table are created when missing. Filters are
SQL on the JSONB column, and on pgvector >= 0.8 searches use ``hnsw.iterative_scan`` so a
filtered search still returns ``k`` hits when ``k`` rows match.

Threads: a connection per thread; writes are serialized by a lock.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.connections import PerThread
from ragkit.errors import ConfigError, MissingDependencyError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import Capabilities, check_query, check_vectors, dump_metadata
from ragkit.stores.filters import ALL_OPS, Filter
from ragkit.stores.sql_filters import RANGE_SQL, Fragment, SQLDialect, check_field, needs_number_or_string
from ragkit.stores.sql_filters import compile_filter as compile_sql_filter
from ragkit.types import SearchHit
from ragkit.wiring import keyword_options

log = logging.getLogger(__name__)

NAME = "pgvector"
DEFAULTS: dict[str, Any] = {"table": "ragkit_vectors", "m": 16, "ef_construction": 64, "ef_search": 100}
BATCH = 1000
MAX_HNSW_DIMENSION = 2000
_TABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_REGEX_SPECIAL = set("\\.^$|?*+()[]{}")


def glob_to_regex(pattern: str) -> str:
    """An anchored POSIX regex with ``fnmatch`` semantics (``*``, ``?``, ``[seq]``, ``[!seq]``)."""
    out, i, n = ["^"], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and (end := _class_end(pattern, i)) > 0:
            body = pattern[i:end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append("\\" + c if c in _REGEX_SPECIAL else c)
    return "".join(out) + "$"


def _class_end(pattern: str, i: int) -> int:
    """Index of the ``]`` closing a class that starts at ``i`` (after ``[``), or -1."""
    j = i + 1 if pattern[i:i + 1] == "!" else i
    j = j + 1 if pattern[j:j + 1] == "]" else j
    return pattern.find("]", j)


def _jsonb(value: Any) -> Any:
    from psycopg.types.json import Jsonb

    return Jsonb(value)


def _compare(field: str, op: str, value: Any) -> Fragment:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (f"(jsonb_typeof(metadata -> %s) = 'number' AND metadata -> %s {RANGE_SQL[op]} %s)",
                [field, field, _jsonb(value)])
    if isinstance(value, str):
        return (f"(jsonb_typeof(metadata -> %s) = 'string' AND (metadata ->> %s) COLLATE \"C\" {RANGE_SQL[op]} %s)",
                [field, field, value])
    raise needs_number_or_string(op, value)


_DIALECT = SQLDialect(
    path=check_field, compare=_compare,
    eq=lambda field, value: ("(metadata -> %s = %s)", [field, _jsonb(value)]),
    glob=lambda field, pattern: ("(jsonb_typeof(metadata -> %s) = 'string' AND (metadata ->> %s) ~ %s)",
                                 [field, field, glob_to_regex(pattern)]))


def compile_filter(flt: Filter | None) -> Fragment:
    """Return ``(where_sql, params)`` over the JSONB column; ``"TRUE"`` for no filter."""
    return compile_sql_filter(flt, ALL_OPS, NAME, _DIALECT)


def describe_dsn(dsn: str) -> str:
    """``host:port/dbname`` of a DSN, never its password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(dsn)
    except Exception:  # noqa: BLE001 - an unparsable DSN is described as such
        return "<unparsable dsn>"
    host = str(info.get("host") or info.get("hostaddr") or "localhost (default socket)")
    return f"{host}:{info.get('port') or 5432}/{info.get('dbname') or info.get('user') or 'postgres'}"


def _scrub(text: str, dsn: str) -> str:
    from psycopg.conninfo import conninfo_to_dict

    try:
        password = conninfo_to_dict(dsn).get("password")
    except Exception:  # noqa: BLE001
        return text
    return text.replace(str(password), "***") if password else text


@stores.register(NAME)
class PgVectorStore:
    """PostgreSQL + pgvector with an HNSW cosine index (``type: pgvector``)."""

    @keyword_options("store", "pgvector")
    def __init__(
        self, *, dimension: int, path: Path | None = None, dsn: str | None = None,
        ef_construction: int = DEFAULTS["ef_construction"], ef_search: int = DEFAULTS["ef_search"],
        m: int = DEFAULTS["m"], table: str = DEFAULTS["table"],
    ) -> None:
        self._opts = _validate_options(
            {"dsn": dsn, "ef_construction": ef_construction, "ef_search": ef_search, "m": m, "table": table}
        )
        if not 1 <= dimension <= MAX_HNSW_DIMENSION:
            raise StoreError(f"pgvector: dimension must be 1-{MAX_HNSW_DIMENSION} for an HNSW index "
                             f"(got {dimension}); use a smaller embedding model")
        try:
            import pgvector.psycopg  # noqa: F401
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise MissingDependencyError(exc.name or "psycopg", "pgvector", "the pgvector store") from exc
        self.dimension = dimension
        self.capabilities = Capabilities(filter_ops=ALL_OPS, max_batch=None, persistent=True, approximate=True)
        self._dsn: str = self._opts["dsn"]
        self._where = describe_dsn(self._dsn)
        self._conns: PerThread[Any] = PerThread(
            self._connect, name="pgvector", alive=lambda conn: not conn.closed,
            closed_error=lambda: StoreError("pgvector: the store is closed; open a new one"))
        self._write_lock = threading.Lock()
        self._iterative = False
        try:
            self._setup()
        except BaseException:
            self.close()
            raise

    # -- plumbing --------------------------------------------------------------------------
    def _connect(self, *, register: bool = True) -> Any:
        import psycopg
        from pgvector.psycopg import register_vector

        try:
            conn = psycopg.connect(self._dsn, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(
                f"pgvector: cannot connect to PostgreSQL at {self._where}: {_scrub(str(exc), self._dsn)}; "
                f"start the server or fix the store's dsn option"
            ) from exc
        if register:
            register_vector(conn)
        return conn

    def _sql(self, template: str) -> Any:
        from psycopg import sql

        return sql.SQL(template).format(t=sql.Identifier(self._opts["table"]),
                                        idx=sql.Identifier(self._opts["table"] + "_embedding_hnsw"))

    def _run(self, query: Any, params: Sequence[Any] = (), conn: Any = None) -> list[tuple[Any, ...]]:
        import psycopg

        try:
            cur = (conn or self._conns.get()).execute(query, list(params))
            return cur.fetchall() if cur.description else []
        except psycopg.Error as exc:
            raise StoreError(f"pgvector: query failed on {self._where}: {_scrub(str(exc), self._dsn)}") from exc

    def _setup(self) -> None:
        conn = self._connect(register=False)
        self._ensure_extension(conn)
        from pgvector.psycopg import register_vector

        register_vector(conn)
        self._conns.adopt(conn)
        d, table = self.dimension, self._opts["table"]
        self._run(self._sql(f"CREATE TABLE IF NOT EXISTS {{t}} (id TEXT PRIMARY KEY, "
                            f"embedding vector({d}) NOT NULL, metadata JSONB NOT NULL)"))
        have = self._run("SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(%s) "
                         "AND attname = 'embedding'", [table])
        if not have or have[0][0] != d:
            got = have[0][0] if have else "no embedding column"
            raise StoreError(
                f"pgvector: table {table!r} at {self._where} holds {got}-d vectors but the store was opened "
                f"with dimension {d}; use the embedder the index was built with, or another table"
            )
        m, efc = int(self._opts["m"]), int(self._opts["ef_construction"])
        self._run(self._sql(f"CREATE INDEX IF NOT EXISTS {{idx}} ON {{t}} USING hnsw "
                            f"(embedding vector_cosine_ops) WITH (m = {m}, ef_construction = {efc})"))

    def _ensure_extension(self, conn: Any) -> None:
        rows = self._run("SELECT installed_version, default_version FROM pg_available_extensions "
                         "WHERE name = 'vector'", conn=conn)
        if not rows:
            raise StoreError(
                f"pgvector: the PostgreSQL server at {self._where} does not have the 'vector' extension; "
                f"install pgvector on the server (e.g. apt install postgresql-NN-pgvector, or the "
                f"pgvector/pgvector Docker image) — see https://github.com/pgvector/pgvector#installation"
            )
        version = rows[0][0]
        if version is None:
            self._run("CREATE EXTENSION IF NOT EXISTS vector", conn=conn)
            version = self._run("SELECT extversion FROM pg_extension WHERE extname = 'vector'", conn=conn)[0][0]
        self._iterative = tuple(int(p) for p in re.findall(r"\d+", str(version))[:2]) >= (0, 8)

    # -- VectorStore -----------------------------------------------------------------------
    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> None:
        from psycopg.types.json import Jsonb

        x = check_vectors(vectors, self.dimension, len(ids), NAME)
        if len(metadata) != len(ids):
            raise StoreError(f"pgvector: got {len(ids)} ids but {len(metadata)} metadata dicts")
        last = {str(i): n for n, i in enumerate(ids)}  # duplicate ids in one call: the last one wins
        rows = [(i, x[n], Jsonb(_checked(metadata[n]))) for i, n in last.items()]
        query = self._sql("INSERT INTO {t} (id, embedding, metadata) VALUES (%s, %s, %s) ON CONFLICT (id) "
                          "DO UPDATE SET embedding = EXCLUDED.embedding, metadata = EXCLUDED.metadata")
        for start in range(0, len(rows), BATCH):
            self._write(query, rows[start:start + BATCH])

    def _write(self, query: Any, rows: list[tuple[Any, ...]]) -> None:
        import psycopg

        with self._write_lock:
            conn = self._conns.get()
            try:
                with conn.transaction(), conn.cursor() as cur:
                    cur.executemany(query, rows)
            except psycopg.Error as exc:
                raise StoreError(f"pgvector: write failed on {self._where}: {_scrub(str(exc), self._dsn)}") from exc

    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        import psycopg

        q = check_query(vector, self.dimension, k, NAME)
        where, params = compile_filter(filter)
        query = self._sql("SELECT id, 1 - (embedding <=> %s) AS score, metadata FROM {t} WHERE " + where
                          + " ORDER BY embedding <=> %s, id LIMIT %s")
        ef = str(min(max(int(self._opts["ef_search"]), k), 1000))
        conn = self._conns.get()
        try:
            with conn.transaction():
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [ef])
                if self._iterative:
                    conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', true)")
                rows = conn.execute(query, [q, *params, q, k]).fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"pgvector: search failed on {self._where}: {_scrub(str(exc), self._dsn)}") from exc
        return [SearchHit(id=r[0], score=float(r[1]), metadata=r[2]) for r in rows]

    def delete(self, ids: Sequence[str]) -> None:
        unique = list(dict.fromkeys(str(i) for i in ids))
        for start in range(0, len(unique), BATCH):
            with self._write_lock:
                self._run(self._sql("DELETE FROM {t} WHERE id = ANY(%s)"), [unique[start:start + BATCH]])

    def clear(self) -> None:
        with self._write_lock:
            self._run(self._sql("DELETE FROM {t}"))

    def ids(self) -> set[str]:
        return {r[0] for r in self._run(self._sql("SELECT id FROM {t}"))}

    def count(self) -> int:
        return int(self._run(self._sql("SELECT count(*) FROM {t}"))[0][0])

    def persist(self) -> None:
        """Every write is committed when it returns; nothing to flush."""

    def close(self) -> None:
        self._conns.close()

    def __repr__(self) -> str:
        return f"PgVectorStore(dimension={self.dimension}, at={self._where!r}, table={self._opts['table']!r})"


def _checked(meta: Mapping[str, Any]) -> dict[str, Any]:
    dump_metadata(meta, NAME)  # refuses what JSON cannot hold, naming it
    return dict(meta)


def _validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    opts = dict(options)
    dsn = opts.get("dsn")
    if not isinstance(dsn, str) or not dsn.strip():
        raise ConfigError("the pgvector store needs the option dsn, e.g. "
                          "dsn: postgresql://user:${PGPASSWORD}@localhost:5432/dbname")
    if "${" in dsn:
        raise ConfigError("pgvector option dsn still contains a ${...} placeholder; set that environment "
                          "variable (or give the value a default with ${NAME:-value})")
    if not isinstance(opts["table"], str) or not _TABLE.match(opts["table"]):
        raise ConfigError(f"pgvector option table must be a SQL identifier of letters, digits and '_' "
                          f"(at most 63, not starting with a digit) (got {opts['table']!r})")
    for key, low, high in (("m", 2, 100), ("ef_construction", 4, 1000), ("ef_search", 1, 1000)):
        value = opts[key]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ConfigError(f"pgvector option {key} must be an integer {low}-{high} (got {value!r})")
    return opts
