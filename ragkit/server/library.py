"""The server's one adapter to the index: open it, search it, list and ingest documents.

Everything the server needs from ``ragkit.index.reader``, ``ragkit.index.writer`` and
``ragkit.index.catalog`` is imported here and nowhere else in ``ragkit/server``.

Uploaded documents are files in the index's upload area (``<index>/uploads``); an ingest job
indexes that folder as one root through ``IndexingPipeline`` (incremental: identical content is a
no-op; a removed file is pruned; the pipeline's single-writer lock serializes jobs with each
other and with ``ragkit index``). After a job, the ``generation`` file changes, and every worker
reopens its ``KnowledgeBase`` on its next request.

One writer for the DuckDB catalog: only the ingest job opens it (read-write) in the server. The
job writes what the server shows of the catalog (its sources) into the ``generation`` file, while
it still holds the index's lock, and every worker reads the documents from there: no reader opens
the catalog while a job writes it (DuckDB refuses a second connection of another kind in one
process, and any connection while another process writes), so listings, uploads and searches
answer during a job, with the documents as of the last job. (An index built by ``ragkit index``
alone is read from its catalog once.)

Sources cross here under the names the server shows (``ragkit.server.names``): uploads by their
upload name, the others as the index names them; ``scoped`` maps every hit and source filter.
``hidden_sources`` (set per request: other API keys' uploads) is left out of every search.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError, IndexLockedError
from ragkit.index.layout import IndexLayout
from ragkit.index.reader import KnowledgeBase, resolve_spec
from ragkit.server.names import SourceNames
from ragkit.types import SearchHit

log = logging.getLogger(__name__)
RETIRE_GRACE_SECONDS = 120.0
MAX_NAME_BYTES, MAX_PART_BYTES = 1024, 255  # what file systems take
#: uploaded documents (as the server names them) the current request may not see: searches leave
#: them out (a context variable: set by the request, read by the search tool wherever it runs)
hidden_sources: ContextVar[frozenset[str]] = ContextVar("hidden_sources", default=frozenset())


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
        # one writer discipline for the DuckDB catalog in this process: a job holds this lock for its
        # whole run; a reader never waits for it (it uses the last snapshot), and never opens the
        # catalog while this process writes it (DuckDB refuses a read-only and a read-write
        # connection to one file in one process)
        self._catalog_lock = threading.Lock()
        self._snap: tuple[tuple[int, int], dict[str, Any], Path | None, SourceNames] | None = None

    # ------------------------------------------------------------------ reading
    def ensure_index(self) -> None:
        """Create an empty index (over the empty upload area) when the directory has none."""
        self.uploads_dir.mkdir(parents=True, exist_ok=True)
        if not IndexLayout(self.index_dir).catalog.exists():
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

    def _generation(self) -> tuple[int, int]:
        """What changes when the index does: the ``generation`` file a server job writes, and the
        catalog file (a ``ragkit index`` run)."""
        return _mtime(IndexLayout(self.index_dir).server_generation), _mtime(IndexLayout(self.index_dir).catalog)

    def search(self, query: str, *, k: int | None, filter: dict[str, Any] | None,
               kind: str | None, min_score: float | None = None) -> list[dict[str, Any]]:
        hits = self.scoped(None, None).search(query, k, filter, kind=kind, min_score=min_score)
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
        as the server shows them, as of the last job (read once per generation from the
        ``generation`` file; from the catalog for an index no server job wrote yet)."""
        generation = self._generation()
        snap = self._snap
        if snap is not None and snap[0] == generation:
            return snap[1], snap[2], snap[3]
        try:
            # the job's snapshot, unless a `ragkit index` run changed the catalog after it
            fresh = generation[0] >= generation[1]
            rows, base = (self._read_generation() if fresh else None) or self._read_catalog()
        except IndexLockedError:
            if snap is None:
                raise
            log.info("the catalog is being written: the documents as of the last job stand")
            return snap[1], snap[2], snap[3]
        names = SourceNames(base, self.uploads_dir, {n: r.root for n, r in rows.items()})
        self._snap = (generation, rows, base, names)
        return rows, base, names

    def _read_generation(self) -> tuple[dict[str, Any], Path | None] | None:
        from ragkit.index.catalog import SourceRow

        try:
            data = json.loads((IndexLayout(self.index_dir).server_generation).read_text(encoding="utf-8"))
            rows = {r[0]: SourceRow(*r) for r in data["sources"]}
        except (OSError, ValueError, TypeError, KeyError):
            return None  # none yet, or written by an older ragkit (a bare timestamp)
        return rows, (Path(data["base"]) if data.get("base") else None)

    def _write_generation(self, catalog: Any) -> None:
        """Called by the job's pipeline with its catalog, under the index lock: the sources every
        worker lists from now on (written atomically: the file's change is the new generation)."""
        import dataclasses

        target = IndexLayout(self.index_dir).server_generation
        data = {"written_ns": time.time_ns(), "base": catalog.get_meta("base"),
                "sources": [list(dataclasses.astuple(r)) for r in catalog.sources().values()]}
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            tmp.write_text(json.dumps(data), encoding="utf-8")
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)

    def _read_catalog(self) -> tuple[dict[str, Any], Path | None]:
        from ragkit.index.catalog import Catalog

        if not self._catalog_lock.acquire(blocking=False):
            raise IndexLockedError("an ingest job of this server process is writing the index catalog")
        try:
            catalog = Catalog(IndexLayout(self.index_dir).catalog, read_only=True)
            try:
                base = catalog.get_meta("base")
                return catalog.sources(), (Path(base) if base else None)
            finally:
                catalog.close()
        finally:
            self._catalog_lock.release()

    def documents(self, hidden: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
        """Every source in the index as of the last ingest job, but the uploads in ``hidden``."""
        rows, _, names = self._snapshot()
        docs = [{"source": names.show(r.source), "status": r.status, "chunks": r.chunks, "size": r.size,
                 "reason": r.reason, "uploaded": names.is_upload(r.source)} for r in rows.values()]
        return sorted((d for d in docs if d["source"] not in hidden), key=lambda d: d["source"])

    def upload_of(self, source: str) -> str | None:
        """The upload-area path of the document the server shows as ``source`` (``None`` when it
        was indexed from a folder)."""
        return self._current()[1].upload_of(source)

    def taken(self, uploads: list[str]) -> list[str]:
        """The upload names among ``uploads`` that are already names of folder-indexed documents."""
        names = self._current()[1]  # the names as of the last job: no wait for a running one
        return [u for u in uploads if names.taken(u)]

    def refusal(self, name: str, size: int) -> str | None:
        """Why an upload named ``name`` (``size`` bytes) would not be indexed, or ``None``: the
        same rules an ingest job applies (hidden files, the pipeline's ``sources`` include and
        exclude patterns and size limit, assets, extensions without a loader), said before
        anything is written instead of a document silently left out."""
        import pathspec

        from ragkit.loaders.assets import is_asset, ocr_image
        from ragkit.loaders.base import DEFAULT_LOADERS, loader_name_for

        spec, _ = resolve_spec(self.pipeline, self.index_dir)
        parts = name.split("/")
        if any(p.startswith(".") for p in parts):
            return "hidden files and folders (names starting with '.') are never indexed; rename it"
        exclude = pathspec.GitIgnoreSpec.from_lines(spec.sources.exclude)
        dirs = ["/".join(parts[:n]) + "/" for n in range(1, len(parts))]
        if any(exclude.match_file(d) for d in dirs) or exclude.match_file(name):
            return f"the pipeline's sources.exclude patterns ({', '.join(spec.sources.exclude)}) leave it out"
        if not pathspec.GitIgnoreSpec.from_lines(spec.sources.include).match_file(name):
            return f"the pipeline's sources.include patterns ({', '.join(spec.sources.include)}) leave it out"
        if size > spec.sources.max_file_size_mb * 1024 * 1024:
            return f"it is larger than the pipeline's sources.max_file_size_mb ({spec.sources.max_file_size_mb:g} MB)"
        overrides = {k: v.type for k, v in spec.loader_overrides().items()}
        if is_asset(name, overrides) and not (spec.sources.ocr_images and ocr_image(name)):
            return "images, styles and other assets are not indexed (map the extension under loaders: to index it)"
        if loader_name_for(Path(name), overrides) is None:
            ext = Path(name).suffix or "extension-less"
            return (f"no loader reads '{ext}' files (these are read: {', '.join(sorted(DEFAULT_LOADERS))}); "
                    "install ragkit[unstructured] on the server or map the extension under loaders:")
        return None

    def indexed(self) -> list[dict[str, Any]]:
        """The indexed documents (skipped ones left out), as of the last job, fresh per call."""
        return [d for d in self.documents() if d["status"] == "indexed"]

    def document_text(self, source: str, max_chars: int = 2_000_000) -> str:
        """The text of an indexed document as the pipeline's loader extracted it (a PDF's pages
        as ``[page N]`` sections, a DOCX's paragraphs), for MCP resources; loaded under the
        pipeline's limits like any file of a run (a file over one raises ``LoaderError`` naming it)."""
        from ragkit.index.loading import tag_name
        from ragkit.index.prepare import load_alone

        rows, base, names = self._snapshot()
        row = rows.get(names.stored(source))
        if row is None or row.status != "indexed":
            raise ConfigError(f"no indexed document '{source}'")
        path = Path(os.path.normpath((base or Path(row.root)) / row.source))
        if not path.is_file():
            raise ConfigError(f"the document '{source}' is indexed but its file is gone")
        uploaded = path.resolve().is_relative_to(self.uploads_dir.resolve())
        spec = self._upload_spec() if uploaded else resolve_spec(self.pipeline, self.index_dir)[0]
        docs = load_alone(spec, path, row.source, tag_name(row.loader) if row.loader else None)  # the limits of an indexing run hold here too
        paged = len(docs) > 1 and all(d.metadata.get("page") is not None for d in docs)
        text = "\n\n".join(f"[page {d.metadata['page']}]\n{d.text}" if paged else d.text for d in docs)
        return text[:max_chars]

    def _upload_spec(self) -> Any:
        """The pipeline the upload area is read with: includes off (``max_included_mb: 0``), since
        every key's uploads share the area and one key's page may not pull another key's file into
        its own text (``{{#include ../their/notes.md}}``, ``.. include:: their.rst``)."""
        spec, _ = resolve_spec(self.pipeline, self.index_dir)
        limits = spec.sources.limits.model_copy(update={"max_included_mb": 0.0})
        return spec.model_copy(update={"sources": spec.sources.model_copy(update={"limits": limits})})

    # ------------------------------------------------------------------ writing
    def ingest(self) -> dict[str, Any]:
        """Index the upload area; raises ``IndexLockedError`` when another writer holds the index."""
        from ragkit.index.writer import IndexingPipeline

        spec = self._upload_spec()
        self.uploads_dir.mkdir(parents=True, exist_ok=True)
        with self._catalog_lock:  # readers of this process use their snapshot meanwhile
            # the upload area is the server's own: a document deleted through the API is meant to go,
            # even the last one (the guard against an emptied folder is for folders users index)
            pipeline = IndexingPipeline(spec, index_dir=self.index_dir)
            pipeline.after_run = self._write_generation
            report = pipeline.index_paths([self.uploads_dir], prune=True).to_dict()
            os.utime(IndexLayout(self.index_dir).server_generation)  # newer than the catalog the run closed
        names = self._read_names(keep=self._names)
        for key in ("added", "updated", "removed"):
            report[key] = [names.show(n) for n in report.get(key, [])]
        report["skipped"] = [{**s, "source": names.show(s["source"])} for s in report.get("skipped", [])]
        return report

    def set_aside(self, names: list[str], folder: str) -> list[str]:
        """Move these uploads out of the upload area to ``<index>/quarantine/<folder>/`` (kept
        there, never indexed); returns the names moved."""
        moved = []
        for name in names:
            try:
                source = resolve_upload(self.uploads_dir, name)
            except ConfigError:
                continue
            if not source.is_file():
                continue
            target = IndexLayout(self.index_dir).quarantine / folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
            moved.append(name)
        return moved

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
               kind: str | None = None, min_score: float | None = None) -> list[SearchHit]:
        merged = {**(filter or {}), **self._filter}  # the request's filter wins over the model's
        scoped = self._names.filter(merged, hidden=hidden_sources.get())
        hits = self._kb.search(query, k, scoped or None, kind=kind or self._kind, min_score=min_score)
        return [self._names.hit(h) for h in hits]


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def check_filter(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """Validate a request's metadata filter (pydantic validator: errors become a 400 on ``filter``)."""
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
    if any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in clean):
        raise ConfigError(f"invalid document name {name[:100]!r}: it holds control characters or invalid Unicode")
    if len(clean.encode("utf-8")) > MAX_NAME_BYTES or any(len(p.encode("utf-8")) > MAX_PART_BYTES for p in parts):
        raise ConfigError(f"invalid document name {name[:60]!r}…: a name may have at most {MAX_NAME_BYTES} bytes, "
                          f"and each of its folders {MAX_PART_BYTES}")
    base = root.resolve()
    target = base.joinpath(*parts).resolve()
    if not target.is_relative_to(base) or target == base:
        raise ConfigError(f"invalid document name {name!r}: it points outside the upload area")
    return target


__all__ = ["IndexLockedError", "Library", "check_filter", "resolve_upload"]
