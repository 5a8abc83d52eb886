"""The index's catalog, a DuckDB file next to the vector store.

It records what the store is supposed to hold: every source with its content hash and status
(indexed or skipped, with the reason), every chunk with its deterministic id, offsets and text
hash, every run with timings, counts and embedding usage, and an embedding cache keyed by
(model id, chunk text hash). Hashes cover content only, never mtime or size.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import IndexLockedError, RagkitError
from ragkit.index.cache_keys import CacheKeys, key_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS sources(
    source VARCHAR, root VARCHAR, content_hash VARCHAR, size BIGINT, status VARCHAR,
    reason VARCHAR, loader VARCHAR, chunks INTEGER, updated_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS chunks(
    id VARCHAR, source VARCHAR, ordinal INTEGER, part VARCHAR, start_offset INTEGER,
    end_offset INTEGER, text_hash VARCHAR, tokens INTEGER);
CREATE TABLE IF NOT EXISTS runs(
    id INTEGER, started_at TIMESTAMP, finished_at TIMESTAMP, status VARCHAR, stats VARCHAR,
    embedding_tokens BIGINT, embedding_cost DOUBLE, seconds DOUBLE);
CREATE TABLE IF NOT EXISTS embeddings(model VARCHAR, text_hash VARCHAR, vector BLOB);
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS text VARCHAR;
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS meta VARCHAR;
"""


#: DuckDB's memory for the catalog connection
MEMORY_LIMIT = "256MB"
#: the write-ahead log a writing catalog lets grow before DuckDB checkpoints it into the file. Each
#: checkpoint compresses the table's last row group again (up to 122,880 rows) and frees its old
#: blocks: at DuckDB's 16 MB, 100,000 cached vectors put 256 at a time took 7.7 CPU-seconds and
#: left 110 of the file's 320 blocks free, at 256 MB 5.4 s and none (a 100,000-chunk build's
#: catalog was a fifth free pages, 0.2 KB per chunk)
CHECKPOINT_THRESHOLD = "256MB"


@dataclass(frozen=True)
class SourceRow:
    source: str
    root: str
    content_hash: str | None
    size: int
    status: str  # "indexed" | "skipped"
    reason: str | None
    loader: str | None
    chunks: int


@dataclass(frozen=True)
class ChunkRow:
    id: str
    source: str
    ordinal: int
    part: str
    start: int
    end: int
    #: the hash of the text that is embedded (``ragkit.types.indexed_text``: the contextual header,
    #: when the chunk has one, and the text), the embedding cache's key
    text_hash: str
    tokens: int
    #: the chunk's text and its sink metadata (JSON): enough to rebuild any sink without the files
    text: str | None = None
    meta: str | None = None


@dataclass(frozen=True)
class ChunkRecord:
    """A chunk as the catalog can give it back to a sink: id, text, text hash, metadata."""

    id: str
    source: str
    text: str
    text_hash: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class IdDiff:
    """What ``Catalog.compare_ids`` found: ids only the sink holds (``orphans``), catalog chunks
    the sink lacks (``lacking``), and how many distinct ids the sink holds; each list is read back
    in batches with ``batches``."""

    catalog: Catalog
    orphans: int
    lacking: int
    held: int

    def batches(self, which: str, size: int) -> Iterator[list[str]]:
        """The ``orphans`` or ``lacking`` ids, sorted, ``size`` at a time."""
        table = {"orphans": "_orphans", "lacking": "_lacking"}[which]
        after = ""
        while True:  # keyset pages: other queries may run on the connection between them
            rows = self.catalog.con.execute(
                f"SELECT id FROM {table} WHERE id > ? ORDER BY id LIMIT ?", [after, size]).fetchall()
            if not rows:
                return
            yield [r[0] for r in rows]
            after = rows[-1][0]


class Catalog:
    """Open (and create) the catalog at ``path``. ``read_only`` for status and search."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        import duckdb

        self.path = Path(path)
        if read_only and not self.path.exists():
            raise RagkitError(f"no index catalog at {self.path}; run `ragkit index PATH` first")
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.ConnectionException as exc:
            if "different configuration" not in str(exc):
                raise RagkitError(f"cannot open index catalog {self.path}: {exc}") from None
            # this process holds the file open the other way (read-only vs read-write)
            raise IndexLockedError(
                f"the index catalog {self.path} is being {'written' if read_only else 'read'} by this process; "
                "try again when that finishes"
            ) from None
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise IndexLockedError(
                    f"the index catalog {self.path} is in use by another ragkit process "
                    "(an index run?); try again when it finishes"
                ) from None
            raise RagkitError(f"cannot open index catalog {self.path}: {exc}") from None
        # DuckDB caches up to 80% of RAM by default; the catalog's work is batch-sized (bigger
        # queries spill to disk), so an index run's memory stays bounded by the batch
        self.con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        if not read_only:
            self.con.execute(f"SET checkpoint_threshold = '{CHECKPOINT_THRESHOLD}'")
            self.con.execute(SCHEMA)
        #: per model, the keys of the cached texts (read on the first lookup; ``cache_keys.py``)
        self._cache_keys: dict[str, CacheKeys] = {}
        self._cache_key: bool | None = None  # whether the cache table has an older catalog's primary key

    def close(self) -> None:
        self.con.close()

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])

    # ------------------------------------------------------------------ sources and chunks
    def sources(self) -> dict[str, SourceRow]:
        rows = self.con.execute(
            "SELECT source, root, content_hash, size, status, reason, loader, chunks FROM sources"
        ).fetchall()
        return {r[0]: SourceRow(*r) for r in rows}

    def chunk_metadata(self, ids: Iterable[str]) -> dict[str, str | None]:
        """chunk id -> the sink metadata (JSON) the catalog holds for it, for the ``ids`` it has."""
        wanted = list(ids)
        if not wanted:
            return {}
        rows = self.con.execute("SELECT id, meta FROM chunks WHERE id IN (SELECT unnest(?))", [wanted]).fetchall()
        return dict(rows)

    def chunk_ids(self, sources: Iterable[str] | None = None) -> dict[str, list[str]]:
        """source -> its chunk ids (all sources when ``sources`` is None)."""
        if sources is None:
            rows = self.con.execute("SELECT source, id FROM chunks ORDER BY source, ordinal").fetchall()
        else:
            wanted = list(sources)
            if not wanted:
                return {}
            rows = self.con.execute(
                "SELECT source, id FROM chunks WHERE source IN (SELECT unnest(?)) ORDER BY source, ordinal",
                [wanted],
            ).fetchall()
        out: dict[str, list[str]] = {}
        for src, cid in rows:
            out.setdefault(src, []).append(cid)
        return out

    def chunk_records(self, ids: Iterable[str] | None = None) -> list[ChunkRecord]:
        """The chunks (all, or those of ``ids``) whose text the catalog keeps (an index built
        before texts were kept has none; its sinks are repaired by re-reading the files)."""
        where = "text IS NOT NULL"
        args: list[Any] = []
        if ids is not None:
            wanted = list(ids)
            if not wanted:
                return []
            where += " AND id IN (SELECT unnest(?))"
            args.append(wanted)
        import duckdb

        try:
            rows = self.con.execute(
                f"SELECT id, source, text, text_hash, meta FROM chunks WHERE {where} ORDER BY source, ordinal", args
            ).fetchall()
        except duckdb.BinderException:  # a catalog opened read-only from before the text column
            return []
        return [ChunkRecord(r[0], r[1], r[2], r[3], json.loads(r[4]) if r[4] else {}) for r in rows]

    def chunk_count(self) -> int:
        row = self.con.execute("SELECT count(*) FROM chunks").fetchone()
        return int(row[0]) if row else 0

    def all_chunk_ids(self) -> set[str]:
        return {r[0] for r in self.con.execute("SELECT id FROM chunks").fetchall()}

    def compare_ids(self, held: Iterable[str], *, batch: int = 100_000) -> IdDiff:
        """Compare the ids a sink holds (streamed) with the catalog's chunks, in DuckDB (which
        spills to disk), so neither set is held in memory. Works on a read-only catalog too."""
        self.con.execute("CREATE OR REPLACE TEMP TABLE _held(id VARCHAR)")
        part: list[str] = []
        for doc_id in held:
            part.append(doc_id)
            if len(part) >= batch:
                _insert(self.con, "_held", [(i,) for i in part])
                part = []
        _insert(self.con, "_held", [(i,) for i in part])
        self.con.execute("CREATE OR REPLACE TEMP TABLE _orphans AS SELECT DISTINCT id FROM _held "
                         "WHERE id NOT IN (SELECT id FROM chunks) ORDER BY id")
        self.con.execute("CREATE OR REPLACE TEMP TABLE _lacking AS SELECT id FROM chunks "
                         "WHERE id NOT IN (SELECT id FROM _held) ORDER BY id")
        counts = self.con.execute(
            "SELECT (SELECT count(*) FROM _orphans), (SELECT count(*) FROM _lacking), (SELECT count(DISTINCT id) FROM _held)"
        ).fetchone()
        assert counts is not None
        self.con.execute("DROP TABLE _held")
        return IdDiff(self, int(counts[0]), int(counts[1]), int(counts[2]))

    def write_sources(self, rows: Sequence[SourceRow], chunks: Sequence[ChunkRow]) -> None:
        """Replace the given sources and their chunks (call inside a transaction)."""
        names = [r.source for r in rows]
        if not names:
            return
        self.con.execute("DELETE FROM chunks WHERE source IN (SELECT unnest(?))", [names])
        self.con.execute("DELETE FROM sources WHERE source IN (SELECT unnest(?))", [names])
        now = _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
        _insert(self.con, "sources", [(*_src_tuple(r), now) for r in rows])
        _insert(self.con, "chunks", [
            (c.id, c.source, c.ordinal, c.part, c.start, c.end, c.text_hash, c.tokens, c.text, c.meta) for c in chunks
        ])

    def remove_sources(self, names: Sequence[str]) -> None:
        if names:
            self.con.execute("DELETE FROM chunks WHERE source IN (SELECT unnest(?))", [list(names)])
            self.con.execute("DELETE FROM sources WHERE source IN (SELECT unnest(?))", [list(names)])

    def rename_sources(
        self, renames: Mapping[str, str], rekey: Callable[[str, dict[str, Any], str], str | None]
    ) -> list[str]:
        """Rename sources and their chunks (call inside a transaction). ``rekey(new_source,
        metadata, text)`` gives a chunk its new id (None when it cannot). A chunk that cannot be
        re-keyed (no text kept: an older index) keeps its id and sink rows (found under the old
        name until the file is read again) and its source is marked dirty, so the next run over
        it re-reads it; those sources are returned."""
        if not renames:
            return []
        olds = list(renames)
        self.con.execute("CREATE TEMP TABLE IF NOT EXISTS _renames(old VARCHAR, new VARCHAR)")
        self.con.execute("DELETE FROM _renames")
        _insert(self.con, "_renames", list(renames.items()))
        rows = self.con.execute(
            "SELECT id, source, ordinal, part, start_offset, end_offset, text_hash, tokens, text, meta "
            "FROM chunks WHERE source IN (SELECT unnest(?))", [olds],
        ).fetchall()
        moved, dirty = [], set()
        for r in rows:
            new = renames[r[1]]
            meta = json.loads(r[9]) if r[9] else None
            cid = rekey(new, meta, r[8]) if meta is not None and r[8] is not None else None
            if cid is None:
                dirty.add(new)
                moved.append((r[0], new, *r[2:10]))
                continue
            meta["source"] = new  # type: ignore[index]
            moved.append((cid, new, *r[2:9], json.dumps(meta)))
        self.con.execute("DELETE FROM chunks WHERE source IN (SELECT unnest(?))", [olds])
        _insert(self.con, "chunks", moved)
        self.con.execute("UPDATE sources SET source = r.new FROM _renames r WHERE sources.source = r.old")
        self.mark_dirty(sorted(dirty))
        return sorted(dirty)

    def mark_dirty(self, names: Sequence[str]) -> None:
        """Forget the content hash so the next run re-processes these sources."""
        if names:
            self.con.execute(
                "UPDATE sources SET content_hash = NULL WHERE source IN (SELECT unnest(?))", [list(names)]
            )

    def sources_of_chunks(self, ids: Iterable[str]) -> set[str]:
        wanted = list(ids)
        if not wanted:
            return set()
        rows = self.con.execute(
            "SELECT DISTINCT source FROM chunks WHERE id IN (SELECT unnest(?))", [wanted]
        ).fetchall()
        return {r[0] for r in rows}

    # ------------------------------------------------------------------ transactions
    def begin(self) -> None:
        self.con.execute("BEGIN TRANSACTION")

    def commit(self) -> None:
        self.con.execute("COMMIT")

    def rollback(self) -> None:
        self.con.execute("ROLLBACK")

    # ------------------------------------------------------------------ embedding cache
    def cached_embeddings(self, model: str, hashes: Sequence[str], dimension: int) -> dict[str, np.ndarray]:
        keys = self._keys(model)
        unique = list(set(hashes))
        wanted = [h for h, maybe in zip(unique, keys.may_hold(key_of(h) for h in unique), strict=True) if maybe]
        if not wanted:  # none of them cached: nothing to ask DuckDB (a scan of the whole hash column)
            return {}
        # two steps: which rows hold the hashes (a scan of the hash column only), then the vectors of
        # those rows alone; one join that also selected ``vector`` read every cached vector per batch
        # (0.5-0.7 s per lookup at a million cached texts, most batches finding nothing)
        found = self.con.execute(
            "SELECT rowid FROM embeddings WHERE model = ? AND text_hash IN (SELECT unnest(?))",
            [model, wanted],
        ).fetchall()
        if not found:
            return {}
        rows = self.con.execute(
            "SELECT text_hash, vector FROM embeddings WHERE rowid IN (SELECT unnest(?))", [[r for (r,) in found]]
        ).fetchall()
        out = {}
        for h, blob in rows:
            vec = np.frombuffer(blob, dtype=np.float32)
            if vec.shape[0] == dimension:
                out[h] = vec
        return out

    def cached_hashes(self, model: str) -> set[str]:
        """The text hashes the embedding cache holds for ``model`` (what need not be embedded)."""
        rows = self.con.execute("SELECT text_hash FROM embeddings WHERE model = ?", [model]).fetchall()
        return {h for (h,) in rows}

    def cached_keys(self, model: str, *, batch: int = 200_000) -> np.ndarray:
        """The embedding cache of ``model`` as sorted 64-bit keys (the first 16 hex digits of each
        text hash): 8 bytes per cached text instead of a set of strings (~100), read in batches.
        A key match may (very rarely) be a different text: ``key_of`` users treat a match as
        "probably cached" and whoever commits embeds what the cache turns out to lack."""
        cur = self.con.execute("SELECT text_hash FROM embeddings WHERE model = ?", [model])
        parts = []
        while rows := cur.fetchmany(batch):
            parts.append(np.fromiter((key_of(h) for (h,) in rows), dtype=np.uint64, count=len(rows)))
        keys = np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)
        keys.sort()
        return keys

    def put_embeddings(self, model: str, items: dict[str, np.ndarray]) -> None:
        """Add vectors to the cache, each text once. The texts whose key the cache cannot hold (the
        writer puts only what its lookup found missing: all of them, as a rule) are a plain
        ``INSERT``; any other goes through an anti-join that scans the hash column (the few whose
        key matched another text, or a text put twice). The table has no primary key: DuckDB
        rewrote the key's whole index at every checkpoint, ~3 s every other flush at a million
        cached texts, so a flush cost what the index held. Catalogs made with the key keep it
        (their inserts skip the texts it holds) until rebuilt."""
        if not items:
            return
        keys = self._keys(model)
        hashes = list(items)
        held = keys.may_hold(key_of(h) for h in hashes)
        new = [h for h, maybe in zip(hashes, held, strict=True) if not maybe]
        again = [h for h, maybe in zip(hashes, held, strict=True) if maybe]
        verb = "INSERT OR IGNORE" if self._cache_has_key() else "INSERT"
        if new:
            self.con.execute(f"{verb} INTO embeddings SELECT unnest($1), unnest($2), unnest($3)",
                             [[model] * len(new), new, [_blob(items[h]) for h in new]])
        if again:
            self.con.execute(
                "INSERT INTO embeddings SELECT n.m, n.h, n.v FROM (SELECT unnest($1) AS m, unnest($2) AS h, unnest($3) AS v) n "
                "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = n.m AND e.text_hash = n.h)",
                [[model] * len(again), again, [_blob(items[h]) for h in again]],
            )
        keys.add(key_of(h) for h in new)

    def _keys(self, model: str) -> CacheKeys:
        found = self._cache_keys.get(model)
        if found is None:
            found = self._cache_keys[model] = CacheKeys(self.cached_keys(model))
        return found

    def _cache_has_key(self) -> bool:
        """Whether the embedding cache is a table made with a primary key (older catalogs)."""
        if self._cache_key is None:
            row = self.con.execute("SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'embeddings' "
                                   "AND constraint_type = 'PRIMARY KEY'").fetchone()
            self._cache_key = bool(row and row[0])
        return self._cache_key

    # ------------------------------------------------------------------ runs
    def start_run(self) -> int:
        row = self.con.execute("SELECT coalesce(max(id), 0) + 1 FROM runs").fetchone()
        run_id = int(row[0]) if row else 1
        now = _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
        self.con.execute(
            "INSERT INTO runs VALUES (?, ?, NULL, 'running', NULL, 0, 0, 0)", [run_id, now]
        )
        return run_id

    def finish_run(self, run_id: int, *, status: str, stats: dict[str, Any], tokens: int, cost: float | None, seconds: float) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
        self.con.execute(
            "UPDATE runs SET finished_at = ?, status = ?, stats = ?, embedding_tokens = ?, "
            "embedding_cost = ?, seconds = ? WHERE id = ?",
            [now, status, json.dumps(stats), tokens, cost, seconds, run_id],
        )

    def runs(self, limit: int = 10) -> list[dict[str, Any]]:
        cur = self.con.execute(
            "SELECT id, started_at, finished_at, status, stats, embedding_tokens, embedding_cost, seconds "
            "FROM runs ORDER BY id DESC LIMIT ?", [limit],
        )
        cols = [d[0] for d in cur.description]
        out = []
        for row in cur.fetchall():
            rec = dict(zip(cols, row, strict=True))
            rec["stats"] = json.loads(rec["stats"]) if rec["stats"] else {}
            for k in ("started_at", "finished_at"):
                rec[k] = rec[k].isoformat() if rec[k] else None
            out.append(rec)
        return out

    def totals(self) -> dict[str, Any]:
        src = self.con.execute(
            "SELECT count(*) FILTER (WHERE status = 'indexed'), count(*) FILTER (WHERE status = 'skipped') FROM sources"
        ).fetchone()
        chunks = self.con.execute("SELECT count(*), coalesce(sum(tokens), 0) FROM chunks").fetchone()
        emb = self.con.execute(  # a run with tokens but no cost used an unpriced model: the total is unknown
            "SELECT coalesce(sum(embedding_tokens), 0), CASE WHEN bool_or(embedding_cost IS NULL AND embedding_tokens > 0) "
            "THEN NULL ELSE coalesce(sum(embedding_cost), 0) END FROM runs"
        ).fetchone()
        assert src and chunks and emb
        return {
            "sources": int(src[0]), "skipped": int(src[1]), "chunks": int(chunks[0]),
            "chunk_tokens": int(chunks[1]), "embedding_tokens_all_runs": int(emb[0]),
            "embedding_cost_all_runs": None if emb[1] is None else float(emb[1]),
        }

    def skipped(self) -> list[tuple[str, str]]:
        rows = self.con.execute(
            "SELECT source, reason FROM sources WHERE status = 'skipped' ORDER BY source"
        ).fetchall()
        return [(r[0], r[1] or "") for r in rows]


def has_key(keys: np.ndarray, key: int) -> bool:
    """Whether the sorted ``keys`` hold ``key``."""
    pos = int(np.searchsorted(keys, np.uint64(key)))
    return pos < keys.shape[0] and int(keys[pos]) == key


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _src_tuple(r: SourceRow) -> tuple[Any, ...]:
    return (r.source, r.root, r.content_hash, r.size, r.status, r.reason, r.loader, r.chunks)


def _insert(con: Any, table: str, rows: Sequence[tuple[Any, ...]], *, verb: str = "INSERT") -> None:
    """One ``INSERT ... SELECT unnest(column lists)``: ~4x faster than multi-row VALUES in DuckDB."""
    if not rows:
        return
    cols = [list(col) for col in zip(*rows, strict=True)]
    sel = ", ".join(f"unnest(${i + 1})" for i in range(len(cols)))
    con.execute(f"{verb} INTO {table} SELECT {sel}", cols)
