"""The server's one adapter to the index: open it, search it, list and ingest documents.

Everything the server needs from ``ragkit.index.reader``, ``ragkit.index.writer`` and
``ragkit.index.catalog`` is imported here and nowhere else in ``ragkit/server``.

Uploaded documents are files in the index's upload area (``<index>/uploads``); an ingest job
indexes that folder as one root through ``IndexingPipeline`` (incremental: identical content is a
no-op; a removed file is pruned; the pipeline's single-writer lock serializes jobs with each
other and with ``ragkit index``). After a job, the ``generation`` file changes, and every worker
reopens its ``KnowledgeBase`` on its next request.

Sources cross here under the names the server shows (``ragkit.server.names``): uploads by their
upload name, the others as the index names them; ``scoped`` maps every hit and source filter.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError, IndexLockedError
from ragkit.index.reader import KnowledgeBase, resolve_spec
from ragkit.server.names import SourceNames
from ragkit.types import SearchHit

log = logging.getLogger(__name__)
GENERATION_FILE = "server.generation"
RETIRE_GRACE_SECONDS = 120.0


class Library:
    def __init__(self, index_dir: Path, *, pipeline: str | None, uploads_dir: Path) -> None:
        self.index_dir = index_dir
        self.pipeline = pipeline
        self.uploads_dir = uploads_dir
        self._kb: KnowledgeBase | None = None
        self._names: SourceNames | None = None
        self._seen: int | None = None
        self._retired: list[tuple[float, KnowledgeBase]] = []
        self._lock = threading.Lock()
        self._embed_lock = threading.Lock()

    # ------------------------------------------------------------------ reading
    def ensure_index(self) -> None:
        """Create an empty index (over the empty upload area) when the directory has none."""
        self.uploads_dir.mkdir(parents=True, exist_ok=True)
        if not (self.index_dir / "catalog.duckdb").exists():
            log.info("no index at %s yet: creating an empty one", self.index_dir)
            self.ingest()

    @property
    def kb(self) -> KnowledgeBase:
        return self._current()[0]

    def _current(self) -> tuple[KnowledgeBase, SourceNames]:
        with self._lock:
            generation = self._generation()
            if self._kb is None or self._names is None or generation != self._seen:
                self._names = self._read_names(keep=self._names)
                if self._kb is not None:
                    log.info("the index changed (an ingest job ran): reopening it")
                    self._retire(self._kb)
                self._kb = KnowledgeBase.open(pipeline=self.pipeline, index=self.index_dir)
                self._seen = generation
            return self._kb, self._names

    def _read_names(self, keep: SourceNames | None = None) -> SourceNames:
        """The names of the catalog's sources; while another job writes the catalog, the ones known
        before (``keep``) stay in use: a new upload is still named right, only collisions and
        source filters may miss the documents that job adds."""
        try:
            return self._snapshot()[2]
        except IndexLockedError:
            if keep is None:
                raise
            log.info("the catalog is being written; source names stay as they were")
            return keep

    def _retire(self, kb: KnowledgeBase) -> None:
        """Close replaced knowledge bases only after a grace period: a turn may still search one."""
        now = time.monotonic()
        keep = []
        for since, old in self._retired:
            if now - since > RETIRE_GRACE_SECONDS:
                old.close()
            else:
                keep.append((since, old))
        self._retired = [*keep, (now, kb)]

    def _generation(self) -> int:
        try:
            return (self.index_dir / GENERATION_FILE).stat().st_mtime_ns
        except FileNotFoundError:
            return 0

    def search(self, query: str, *, k: int | None, filter: dict[str, Any] | None,
               kind: str | None) -> list[dict[str, Any]]:
        hits = self.scoped(None, None).search(query, k, filter, kind=kind)
        return [{"id": h.id, "source": h.source, "score": round(float(h.score), 6), "text": h.text,
                 "page": h.metadata.get("page"), "start": h.metadata.get("start"), "end": h.metadata.get("end"),
                 "heading": h.metadata.get("heading")} for h in hits]

    def embed(self, texts: list[str]) -> tuple[Any, int, float | None]:
        """The index's embedder over ``texts`` (as documents): vectors, tokens and cost of this call."""
        embedder = self.kb.embedder
        with self._embed_lock:  # keeps the tokens of this call apart from other embed calls
            before = embedder.usage.snapshot()
            vectors = embedder.embed_documents(texts)
            used = embedder.usage.since(before)
        return vectors, used.tokens, used.cost

    def embedder_names(self) -> tuple[str, int]:
        """The index's embedding model id and its dimension."""
        embedder = self.kb.embedder
        return embedder.model_id, embedder.dimension

    def scoped(self, filter: dict[str, Any] | None, kind: str | None) -> Any:
        """The knowledge base as the search tool sees it: the request's filter and retriever, and
        sources under the names the server shows."""
        kb, names = self._current()
        return _ScopedKB(kb, names, filter or {}, kind)

    def _snapshot(self) -> tuple[dict[str, Any], Path | None, SourceNames]:
        """The catalog's sources, the base directory their names are relative to, and their names
        as the server shows them."""
        rows, base = self._read_catalog()
        return rows, base, SourceNames(base, self.uploads_dir, {n: r.root for n, r in rows.items()})

    def _read_catalog(self) -> tuple[dict[str, Any], Path | None]:
        from ragkit.index.catalog import Catalog
        from ragkit.index.layout import IndexLayout

        catalog = Catalog(IndexLayout(self.index_dir).catalog, read_only=True)
        try:
            base = catalog.get_meta("base")
            return catalog.sources(), (Path(base) if base else None)
        finally:
            catalog.close()

    def documents(self) -> list[dict[str, Any]]:
        """Every source in the index (``IndexLockedError`` while a writer holds the catalog)."""
        rows, _, names = self._snapshot()
        docs = [{"source": names.show(r.source), "status": r.status, "chunks": r.chunks, "size": r.size,
                 "reason": r.reason, "uploaded": names.is_upload(r.source)} for r in rows.values()]
        return sorted(docs, key=lambda d: d["source"])

    def upload_of(self, source: str) -> str | None:
        """The upload-area path of the document the server shows as ``source`` (``None`` when it
        was indexed from a folder)."""
        return self._current()[1].upload_of(source)

    def taken(self, uploads: list[str]) -> list[str]:
        """The upload names among ``uploads`` that are already names of folder-indexed documents."""
        names = self._current()[1]  # the names as of the last job: no wait for a running one
        return [u for u in uploads if names.taken(u)]

    def document_text(self, source: str, max_bytes: int = 2_000_000) -> str:
        """The text of an indexed source file (decoded as UTF-8), for MCP resources."""
        rows, base, names = self._snapshot()
        row = rows.get(names.stored(source))
        if row is None:
            raise ConfigError(f"no document '{source}' in the index at {self.index_dir}")
        path = Path(os.path.normpath((base or Path(row.root)) / row.source))
        if not path.is_file():
            raise ConfigError(f"the document '{source}' is indexed but its file {path} is gone")
        return path.read_bytes()[:max_bytes].decode("utf-8", errors="replace")

    # ------------------------------------------------------------------ writing
    def ingest(self) -> dict[str, Any]:
        """Index the upload area; raises ``IndexLockedError`` when another writer holds the index."""
        from ragkit.index.writer import IndexingPipeline

        spec, _ = resolve_spec(self.pipeline, self.index_dir)
        self.uploads_dir.mkdir(parents=True, exist_ok=True)
        # the upload area is the server's own: a document deleted through the API is meant to go,
        # even the last one (the guard against an emptied folder is for folders users index)
        report = IndexingPipeline(spec, index_dir=self.index_dir).index_paths([self.uploads_dir], prune=True).to_dict()
        (self.index_dir / GENERATION_FILE).write_text(str(time.time_ns()), encoding="utf-8")
        names = self._read_names(keep=self._names)
        for key in ("added", "updated", "removed"):
            report[key] = [names.show(n) for n in report.get(key, [])]
        report["skipped"] = [{**s, "source": names.show(s["source"])} for s in report.get("skipped", [])]
        return report

    def close(self) -> None:
        with self._lock:
            for _, old in self._retired:
                old.close()
            self._retired = []
            if self._kb is not None:
                self._kb.close()
                self._kb = None


class _ScopedKB:
    """Delegates to a ``KnowledgeBase``; every search gets the request's filter and retriever, and
    source names cross as the server shows them (in filters and in hits)."""

    def __init__(self, kb: KnowledgeBase, names: SourceNames, filter: dict[str, Any], kind: str | None) -> None:
        self._kb, self._names, self._filter, self._kind = kb, names, filter, kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kb, name)

    def search(self, query: str, k: int | None = None, filter: dict[str, Any] | None = None, *,
               kind: str | None = None) -> list[SearchHit]:
        merged = {**(filter or {}), **self._filter}  # the request's filter wins over the model's
        hits = self._kb.search(query, k, self._names.filter(merged) or None, kind=kind or self._kind)
        return [self._names.hit(h) for h in hits]


def check_filter(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """Validate a request's metadata filter (pydantic validator: errors become 422 on ``filter``)."""
    from ragkit.errors import StoreError
    from ragkit.stores.filters import normalize

    try:
        normalize(value)
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    return value


def resolve_upload(root: Path, name: str) -> Path:
    """The path for an uploaded file named ``name`` inside ``root``; refuses to leave it."""
    clean = name.replace("\\", "/").strip()
    parts = [p for p in clean.split("/") if p not in ("", ".")]
    if not parts or clean.startswith("/") or ".." in parts or any(":" in p or "\0" in p for p in parts):
        raise ConfigError(f"invalid document name {name!r}: use a relative path without '..', e.g. notes/faq.md")
    base = root.resolve()
    target = base.joinpath(*parts).resolve()
    if not target.is_relative_to(base) or target == base:
        raise ConfigError(f"invalid document name {name!r}: it points outside the upload area")
    return target


__all__ = ["IndexLockedError", "Library", "check_filter", "resolve_upload"]
