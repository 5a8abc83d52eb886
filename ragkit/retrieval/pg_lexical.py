"""A server-side lexical index: PostgreSQL full-text search, beside pgvector.

``lexical: {backend: postgres}`` keeps the lexical index in a table of the same database as the
``pgvector`` store (or ``lexical.dsn``), so an index run with a server store writes no local file
at all (a Ray cluster's driver, a search service on another host), and every commit applies only
its own upserts and deletes. The table is ``(id TEXT PRIMARY KEY, text TEXT, metadata JSONB,
tsv tsvector GENERATED from the indexed text)`` with a GIN index on ``tsv`` and a B-tree on the
metadata's ``source`` (the files a query may name, read one distinct source at a time): the chunk's
contextual header (``metadata.context_header``, when the splitter gave it one) and its text, as
``ragkit.types.indexed_text`` has them; hits show the text alone.

Ranking is PostgreSQL's ``ts_rank`` (term frequency, normalized by document length) over the
query's lexemes joined with OR, not BM25: scores differ from the local ``BM25Index``, which the
dense-first hybrid (the default) only uses for its rare-term boost (``rare_term_hits``: documents
holding the query's lexemes found in at most ``max_df`` of the documents). Filters are the
pgvector store's SQL over the JSONB metadata. It implements ``IndexSink`` and the methods
``BM25Retriever`` calls: the searches, ``sources()`` and ``passage_count()``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ragkit.errors import ConfigError, MissingDependencyError, StoreError
from ragkit.stores.base import SinkRecord
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

log = logging.getLogger(__name__)

_TABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_LANGUAGE = re.compile(r"^[a-z_]{2,40}$")
BATCH = 1000
#: how long the set of sources (for files a query names) is reused before it is read again
SOURCES_TTL_S = 10.0


class PgLexicalIndex:
    """PostgreSQL full-text search as the index's lexical sink (see the module docstring)."""

    local = False
    path = None

    def __init__(self, *, dsn: str, table: str = "ragkit_lexical", language: str = "english") -> None:
        if not dsn:
            raise ConfigError("lexical: backend postgres needs a dsn (lexical.dsn, or a pgvector store's dsn)")
        if not _TABLE.match(table):
            raise ConfigError(f"lexical.table must be a plain SQL identifier (got {table!r})")
        if not _LANGUAGE.match(language):
            raise ConfigError(f"lexical.language must be a PostgreSQL text search configuration name (got {language!r})")
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise MissingDependencyError("psycopg", "pgvector", "the postgres lexical index") from None
        from ragkit.stores.pgvector import describe_dsn

        self._dsn, self.table, self.language = dsn, table, language
        self._where = describe_dsn(dsn)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: list[Any] = []
        self._sources: tuple[float, set[str]] | None = None
        self._setup()

    # -- plumbing --------------------------------------------------------------------------
    def _conn(self) -> Any:
        import psycopg

        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            try:
                conn = psycopg.connect(self._dsn, autocommit=True, connect_timeout=10)
            except psycopg.Error as exc:
                raise StoreError(f"lexical index: cannot connect to PostgreSQL at {self._where} ({type(exc).__name__}); "
                                 "start the server or fix lexical.dsn") from None
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def _run(self, template: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        import psycopg
        from psycopg import sql

        query = sql.SQL(template).format(t=sql.Identifier(self.table), idx=sql.Identifier(self.table + "_tsv"),
                                         src=sql.Identifier(self.table + "_source"), lang=sql.Literal(self.language))
        try:
            cur = self._conn().execute(query, list(params))
            return cur.fetchall() if cur.description else []
        except psycopg.Error as exc:
            raise StoreError(f"lexical index: query failed on {self._where}: {exc}") from exc

    def _setup(self) -> None:
        self._run("CREATE TABLE IF NOT EXISTS {t} (id TEXT PRIMARY KEY, text TEXT NOT NULL, metadata JSONB NOT NULL, "
                  "tsv tsvector GENERATED ALWAYS AS (to_tsvector({lang}::regconfig, "
                  "coalesce((metadata->>'context_header') || E'\\n\\n', '') || text)) STORED)")
        self._run("CREATE INDEX IF NOT EXISTS {idx} ON {t} USING GIN (tsv)")
        self._run("CREATE INDEX IF NOT EXISTS {src} ON {t} ((metadata->>'source'))")

    # -- IndexSink -------------------------------------------------------------------------
    def upsert(self, records: Sequence[SinkRecord]) -> None:
        from psycopg.types.json import Jsonb

        rows = list({r.id: r for r in records}.values())  # a repeated id: the last one wins
        self._sources = None
        for a in range(0, len(rows), BATCH):
            part = rows[a : a + BATCH]
            self._run("INSERT INTO {t} (id, text, metadata) SELECT * FROM unnest(%s::text[], %s::text[], %s::jsonb[]) "
                      "ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, metadata = EXCLUDED.metadata",
                      [[r.id for r in part], [r.text for r in part], [Jsonb(dict(r.metadata)) for r in part]])

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        self._sources = None
        for a in range(0, len(ids), 10 * BATCH):
            self._run("DELETE FROM {t} WHERE id = ANY(%s)", [ids[a : a + 10 * BATCH]])

    def ids(self) -> set[str]:
        return set(self.iter_ids())

    def iter_ids(self) -> Iterator[str]:
        after = ""
        while True:  # keyset pages: never every id at once
            rows = self._run("SELECT id FROM {t} WHERE id > %s ORDER BY id LIMIT %s", [after, 50_000])
            if not rows:
                return
            yield from (r[0] for r in rows)
            after = rows[-1][0]

    def count(self) -> int:
        return int(self._run("SELECT count(*) FROM {t}")[0][0])

    def sources(self) -> set[str]:
        """The ``source`` of every row: one step of the source index per distinct source (never
        a scan of the rows), kept for :data:`SOURCES_TTL_S` seconds or until this index writes."""
        cached = self._sources
        if cached is not None and time.monotonic() - cached[0] < SOURCES_TTL_S:
            return cached[1]
        rows = self._run(
            "WITH RECURSIVE s(v) AS (SELECT min(metadata->>'source') FROM {t} UNION ALL "
            "SELECT (SELECT min(metadata->>'source') FROM {t} WHERE metadata->>'source' > s.v) FROM s WHERE s.v IS NOT NULL) "
            "SELECT v FROM s WHERE v IS NOT NULL")
        found = {r[0] for r in rows if r[0]}
        self._sources = (time.monotonic(), found)
        return found

    def best(self, query: str, filter: Filter | None = None) -> SearchHit | None:
        """The first hit of ``search`` (None for none)."""
        hits = self.search(query, k=1, filter=filter)
        return hits[0] if hits else None

    def passage_count(self, source: str) -> int:
        """How many rows have this ``source`` (read through the source index)."""
        return int(self._run("SELECT count(*) FROM {t} WHERE metadata->>'source' = %s", [source])[0][0])

    def persist(self) -> None:
        """Every write is committed as it runs (autocommit)."""

    def close(self) -> None:
        with self._lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()

    # -- search ----------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        """The ``k`` documents ranked highest by ``ts_rank`` for any of the query's lexemes."""
        if k < 1:
            raise StoreError(f"k must be at least 1 (got {k})")
        where, params = _filter_sql(filter)
        rows = self._run(
            "WITH q AS (SELECT nullif(replace(plainto_tsquery({lang}::regconfig, %s)::text, ' & ', ' | '), '')::tsquery AS q) "
            f"SELECT id, text, metadata, ts_rank(tsv, q.q, 1) AS score FROM {{t}}, q WHERE q.q IS NOT NULL AND tsv @@ q.q "
            f"AND {where} ORDER BY score DESC, id LIMIT %s", [query, *params, k])
        return [_hit(*r) for r in rows]

    def rare_term_hits(self, query: str, *, max_df: float, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        """Documents holding the query's rare lexemes (in at most ``max_df`` of the documents),
        scored by the fraction of those lexemes they hold, ties by id."""
        if k < 1:
            raise StoreError(f"k must be at least 1 (got {k})")
        lexemes = [r[0] for r in self._run("SELECT unnest(tsvector_to_array(to_tsvector({lang}::regconfig, %s)))", [query])]
        if not lexemes:
            return []
        limit = int(max_df * self.count())
        rare = [lx for lx in lexemes if self._run(  # at most limit + 1 rows read per lexeme (GIN)
            "SELECT count(*) FROM (SELECT 1 FROM {t} WHERE tsv @@ to_tsquery('simple', quote_literal(%s)) LIMIT %s) s",
            [lx, limit + 1])[0][0] <= limit]
        if not rare:
            return []
        where, params = _filter_sql(filter)
        holds = " + ".join(["(tsv @@ to_tsquery('simple', quote_literal(%s)))::int"] * len(rare))
        any_of = " OR ".join(["tsv @@ to_tsquery('simple', quote_literal(%s))"] * len(rare))
        rows = self._run(f"SELECT id, text, metadata, ({holds})::float / %s AS score FROM {{t}} "
                         f"WHERE ({any_of}) AND {where} ORDER BY score DESC, id LIMIT %s",
                         [*rare, len(rare), *rare, *params, k])
        return [_hit(*r) for r in rows]

    def describe(self) -> dict[str, Any]:
        return {"backend": "postgres", "where": self._where, "table": self.table, "rows": self.count()}


def _filter_sql(flt: Filter | None) -> tuple[str, list[Any]]:
    from ragkit.stores.pgvector import compile_filter

    return compile_filter(flt)


def _hit(doc_id: str, text: str, meta: Mapping[str, Any], score: float) -> SearchHit:
    metadata = dict(meta)
    metadata.setdefault("text", text)
    return SearchHit(id=doc_id, score=float(score), metadata=metadata)


__all__ = ["PgLexicalIndex"]
