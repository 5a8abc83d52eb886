"""IndexingPipeline: load -> split -> embed -> upsert, incremental and crash-safe.

Flow of a run:

1. Take the index's write lock (a second concurrent run stops with a clear message).
2. Reconcile store and catalog: ids in the store that the catalog does not know are deleted
   (a run killed after a store write); catalog chunks missing from the store mark their source
   dirty so this run redoes it. After this, the catalog describes the store exactly.
3. A producer thread walks the sources, hashes their content (content only: touching a file
   changes nothing) and loads + splits the new and changed ones; a bounded queue hands them to
   the consumer, which overlaps embedding with loading.
4. The consumer collects prepared sources into batches of about ``flush_chunks`` chunks. It
   hands the texts the embedding cache lacks to an embedding thread as soon as ``EMBED_AHEAD`` of
   them are collected, so embedding overlaps the loading of the next files and the consumer's
   own work; the thread embeds them in slices of ``EMBED_SLICE`` texts, and the consumer commits
   each slice to the cache as soon as it sees it, so an interrupted run never computes an
   embedding twice (``ragkit.index.vectors``). Per batch it updates the store (delete old ids,
   add new ones), persists it, then commits the catalog rows. A kill at any point leaves a state
   that step 2 repairs.
5. Sources that disappeared are removed from the store, then from the catalog (a folder root that
   would lose all, or more than half, of its sources needs ``prune=True``: an unmounted drive
   must not empty the index).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit import ids as _ids
from ragkit.config import PipelineSpec
from ragkit.embedders.base import Embedder
from ragkit.errors import (
    ConfigError,
    IndexLockedError,
    LoaderError,
    RagkitError,
    StoreDamagedError,
    StoreError,
)
from ragkit.index.catalog import Catalog, ChunkRecord, ChunkRow, SourceRow
from ragkit.index.components import Components
from ragkit.index.layout import IndexLayout
from ragkit.index.lock import describe_holder
from ragkit.index.prepare import DOCUMENTS_ROOT, Prepared, Preparer, RunTextBudget, Unit, document_units
from ragkit.index.rename import rebase
from ragkit.index.report import IndexReport
from ragkit.index.sinks import settle, sink_ids
from ragkit.index.sources import LinkNotes, Root, check_removals, common_base, discover, is_under, make_roots
from ragkit.index.vectors import EMBED_AHEAD, EMBED_SLICE, RunVectors
from ragkit.loaders.assets import AssetTally
from ragkit.stores.base import IndexSink, SinkRecord
from ragkit.types import Chunk, Document, indexed_text

log = logging.getLogger(__name__)
_DONE = object()
#: progress events: ``total`` (files), ``file``, ``embed_total`` / ``embedded`` (texts to embed /
#: embedded), ``chunks`` (chunks stored)
Progress = Callable[[str, int], None]
#: the local sinks' file layout (2: segments); part of the sinks' state, so the first run after a
#: layout change opens the sinks, which read the older files, and saves them in the new layout
SINK_LAYOUT = 2
#: a sink being restored (a new or damaged sink, or every source renamed) is persisted after this
#: many rows: its unsaved rows, held in memory, stay bounded whatever the index's size, and a
#: segmented store gets segments its merges take in (and index) instead of one of every row
RESTORE_PERSIST_ROWS = 65_536


class IndexingPipeline:
    def __init__(
        self,
        spec: PipelineSpec,
        *,
        index_dir: str | Path | None = None,
        strict: bool = False,
        flush_chunks: int | None = None,
        progress: Progress | None = None,
    ) -> None:
        flush_chunks = flush_chunks if flush_chunks is not None else spec.indexing.flush_chunks
        if flush_chunks < 1:
            raise ConfigError(f"flush_chunks must be at least 1 (got {flush_chunks})")
        self.layout = IndexLayout(index_dir if index_dir is not None else spec.index)
        self.components = Components(spec, self.layout)
        self.spec = spec
        self.strict = strict
        self.flush_chunks = flush_chunks
        self.progress = progress or (lambda event, n: None)
        #: the report of the current (or last) run, also when it was interrupted
        self.report: IndexReport | None = None
        #: called with the catalog when a run succeeded, while the run still holds the index's
        #: lock (what the server reads of the catalog for every worker, so none opens it meanwhile)
        self.after_run: Callable[[Catalog], None] | None = None

    @property
    def index_dir(self) -> Path:
        return self.layout.root

    # ------------------------------------------------------------------ public entry points
    def index_paths(self, paths: Sequence[str | Path], *, prune: bool = False) -> IndexReport:
        """Index files and folders. ``prune``: allow removing all (or more than half) of the
        sources indexed from a folder that is now empty or mostly gone."""
        paths = list(paths) or list(self.spec.sources.paths)
        if not paths:
            raise ConfigError("nothing to index: pass PATH arguments or list sources.paths in the pipeline")
        roots = make_roots(paths)

        def units(base: Path) -> Iterator[Unit]:
            assert self.report is not None
            tally, links = AssetTally(), LinkNotes()
            files = list(discover(roots, self.spec.sources, base=base, skip_dirs=[self.index_dir], assets=tally,
                                  links=links))
            self.report.links_not_followed = links.lines
            self.report.assets_skipped = dict(tally.by_extension)
            self.report.assets_summary = tally.summary()
            for root in roots:
                if root.only is None and not any(f.root == root for f in files):
                    log.warning("no files to index under %s (an empty folder?)", root.path)
            self.progress("total", len(files))
            return (Unit.from_file(f) for f in files)

        return self._run(units, roots=roots, prune=prune)

    def index_documents(self, docs: Iterable[Document], *, prune: bool = False) -> IndexReport:
        """Index in-memory ``Document``s, grouped by their ``source`` metadata."""
        return self._run(lambda base: document_units(docs), roots=[], prune=prune)

    # ------------------------------------------------------------------ the run
    def _run(
        self, units: Callable[[Path], Iterator[Unit]], *, roots: Sequence[Root], prune: bool = False
    ) -> IndexReport:
        from filelock import FileLock, Timeout

        self.index_dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.layout.lock))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise IndexLockedError(
                f"another `ragkit index` is already running on {self.index_dir} (lock file "
                f"{self.layout.lock}{describe_holder(self.layout)}); wait for it to finish, then run again"
            ) from None
        try:
            self.layout.run_file.write_text(str(os.getpid()), encoding="utf-8")
            catalog = Catalog(self.layout.catalog)
            try:
                run = _Run(self, catalog, roots, prune=prune)
                self.report = run.report
                report = run.execute(lambda: units(run.base))
                if self.after_run is not None:
                    self.after_run(catalog)
                return report
            finally:
                catalog.close()
                self.components.close()
        finally:
            self.layout.run_file.unlink(missing_ok=True)
            lock.release()


class _Run:
    """One indexing run; holds the per-run state so the pipeline object stays reusable."""

    def __init__(self, pipe: IndexingPipeline, catalog: Catalog, roots: Sequence[Root], *, prune: bool) -> None:
        self.pipe, self.parts, self.catalog = pipe, pipe.components, catalog
        self.sinks: list[IndexSink] = []
        self.roots, self.prune = roots, prune
        self.report = IndexReport(index_dir=str(pipe.index_dir))
        self.known = catalog.sources()
        self.base = self._base()
        self.seen: set[str] = set()
        self.batch: list[Prepared] = []
        self.batch_chunks = 0
        self.missing: set[str] = set()
        self.vectors = RunVectors(self.parts.embedder, catalog, self.report, pipe.progress)
        #: texts of the collected batch not yet resolved ahead of the flush (hash -> text)
        self.pending: dict[str, str] = {}
        #: whether the embedding worker was started (with the first source that has texts to embed)
        self.warmed = False
        #: the text this run may still load (``limits.max_text_per_run_mb``)
        self.text_budget = RunTextBudget(pipe.spec)

    def execute(self, units: Callable[[], Iterator[Unit]]) -> IndexReport:
        t0 = time.perf_counter()
        self.report.chunks_before = self.catalog.chunk_count()
        self._check_index_identity()
        self.report.run_id = self.catalog.start_run()
        usage0 = self.parts.embedder.usage.snapshot()
        status = "failed"
        try:
            before = self._sinks_state()
            if before is None or before != self.catalog.get_meta("sinks_state"):
                self._reconcile()
            if not self.known and self.pipe.spec.indexing.engine != "ray":
                self._warm()  # a new index: every source is embedded; load the model while files are found
            for prepared in self._prepared(units()):
                self._consume(prepared)
            self._flush()
            self._prune()
            for sink in self.sinks:
                if getattr(sink, "unsaved", False):  # read from an older layout: saved in the new one
                    sink.persist()
                settle(sink)  # background merges end before the files are fingerprinted
            status = "ok"
            state = self._sinks_state()
            self.catalog.set_meta("sinks_state", state or "")
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            self.vectors.close()
            used = self.parts.embedder.usage.since(usage0)
            self.report.embedding_tokens, self.report.embedding_cost = used.tokens, used.cost
            self.report.seconds = time.perf_counter() - t0
            self.report.chunks_total = self.catalog.chunk_count()
            self.catalog.finish_run(
                self.report.run_id, status=status, stats=self.report.to_dict(),
                tokens=used.tokens, cost=used.cost, seconds=self.report.seconds,
            )
        return self.report

    # ------------------------------------------------------------------ identity and repair
    def _base(self) -> Path:
        """The directory source names are relative to: fixed by the first run over files, and
        moved up when a later run adds a root outside it (see ``_rebase``)."""
        stored = self.catalog.get_meta("base")
        if stored is None and not self.roots:
            return Path("/")  # not used: in-memory documents carry their own names
        if stored is None:
            # an index built before the base was recorded named sources relative to their one root
            legacy = {r.root for r in self.known.values() if r.root != DOCUMENTS_ROOT}
            base = Path(legacy.pop()) if len(legacy) == 1 else common_base(self.roots)
            self.catalog.set_meta("base", str(base))
        else:
            base = Path(stored)
        # the index's own folders (`ragkit serve`'s upload area) never move the base: the server
        # names uploads by their upload name
        own = self.pipe.index_dir.resolve()
        outside = [r for r in self.roots if not is_under(r.path, base) and not is_under(r.path, own)]
        if outside and not is_under(base, own):
            new = common_base([*outside, Root(base)])
            rebase(self.catalog, self.known, base, new)
            base, self.known = new, self.catalog.sources()
        return base

    def _check_index_identity(self) -> None:
        emb = self.parts.embedder
        model = self.catalog.get_meta("embedder")
        if model is not None and model != emb.model_id and self.known:
            if _base_model(model) != _base_model(emb.model_id):
                raise ConfigError(
                    f"the index at {self.pipe.index_dir} was built with embedder '{model}', but this pipeline "
                    f"uses '{emb.model_id}'; vectors of different models cannot be mixed: use another "
                    "--index directory, or delete this one to rebuild it"
                )
            self._switch_embedder(model, emb.model_id)
        # what decides the chunks and their vectors (not keys, URLs or timeouts)
        # (the model, not its backend: another backend or int8 recipe has the same tokens, same chunks)
        fingerprint = self.pipe.spec.settings_key("loaders", "splitter") + "|" + _base_model(emb.model_id)
        if self.catalog.get_meta("fingerprint") not in (None, fingerprint):
            log.info("loader/splitter/embedder settings changed: every source will be re-split")
            self.catalog.mark_dirty(list(self.known))
            self.known = self.catalog.sources()
        self.catalog.set_meta("embedder", emb.model_id)
        self.catalog.set_meta("fingerprint", fingerprint)
        self._check_store_settings()
        _write_if_changed(self.pipe.layout.pipeline_file, _spec_yaml(self.pipe.spec, emb))

    def _switch_embedder(self, old: str, new: str) -> None:
        """The same model through another backend or int8 recipe (asked for with ``--pipeline``):
        every chunk is embedded again, from the texts the catalog keeps, into a new store; the old
        vectors stay in the embedding cache, so switching back costs nothing."""
        count = self.catalog.chunk_count()
        self.report.embedder_switch = f"{old} -> {new}"
        log.warning(
            "the embedder changed from %s to %s: embedding all %d chunks of the index again (from the "
            "catalog's texts; the old vectors stay in the embedding cache)", old, new, count,
        )
        self.parts.discard_store(self.catalog.get_meta("store_type") or self.pipe.spec.store.type)
        self.catalog.set_meta("sinks_state", "")  # reconcile fills the new store

    def _check_store_settings(self) -> None:
        """A changed store (type or build options) is built anew from the catalog and the
        embedding cache by reconcile; nothing is re-embedded, and no folder has to be deleted. The
        new store is opened once first (extra installed, server reachable): when it cannot be, the
        run stops before the store in use or the saved pipeline is touched."""
        store = self.pipe.spec.store
        settings = json.dumps(
            {"type": store.type, **{k: v for k, v in store.options.items() if k != "search"}}, sort_keys=True, default=str
        )
        key, old_type = _ids.text_hash(settings), self.catalog.get_meta("store_type")
        if self.catalog.get_meta("store_key") not in (None, key) and self.known:
            try:
                self.parts.check_store()
            except RagkitError as exc:
                raise StoreError(
                    f"cannot switch the index at {self.pipe.index_dir} to the {store.type} store: {exc}. Nothing "
                    f"was changed: the index keeps its {old_type} store (search and status work); fix this and "
                    "run `ragkit index` again, or go back to the previous store in the pipeline"
                ) from exc
            log.warning(
                "the store changed (%s -> %s): building the new store from the catalog and the embedding cache",
                old_type, store.type,
            )
            self.parts.discard_store(old_type)
            self.catalog.set_meta("sinks_state", "")  # reconcile fills the new store
        self.catalog.set_meta("store_key", key)
        self.catalog.set_meta("store_type", store.type)

    def _sinks_state(self) -> str | None:
        """A cheap fingerprint of the local sinks' files (names, sizes, inodes, mtimes), or None
        when a sink is not local (a server) and must always be reconciled.

        A run that ended cleanly records it; when the next run finds the files exactly as left, no
        write happened in between, so reconcile (which opens the store) can be skipped and an
        unchanged re-run does not even load the vector index."""
        dirs = self.parts.sink_dirs()
        if dirs is None:
            return None
        root = self.pipe.index_dir
        parts = [f"layout:{SINK_LAYOUT}"]  # a state recorded by an older layout's run differs: reconcile
        for sub in dirs:
            parts.append(f"sink:{sub.name}")  # a sink added since (a new BM25 index) changes the state
            if not sub.exists():
                continue
            for f in sorted(sub.rglob("*")):
                st = f.stat()
                parts.append(f"{f.relative_to(root)}:{st.st_size}:{st.st_ino}:{st.st_mtime_ns}")
        return _ids.text_hash("\n".join(parts)) if parts else None

    def _reconcile(self) -> None:
        """Make every sink hold exactly the catalog's chunks. The ids are compared inside the
        catalog (``Catalog.compare_ids``) and handled a batch at a time, so no set of every chunk
        id is held in memory."""
        missing: set[str] = set()
        step = self.pipe.flush_chunks
        for sink in self._sinks():
            diff = self.catalog.compare_ids(sink_ids(sink))
            if diff.orphans:
                log.warning("removing %d chunks the catalog no longer holds (left by an interrupted run, or renamed)",
                            diff.orphans)
                for part in diff.batches("orphans", 50_000):
                    sink.delete(part)
                sink.persist()
            if diff.lacking:
                before = unsaved = self.report.chunks_restored
                for part in diff.batches("lacking", step):
                    missing |= set(part) - self._restore(sink, set(part))
                    if self.report.chunks_restored - unsaved >= RESTORE_PERSIST_ROWS:
                        sink.persist()
                        unsaved = self.report.chunks_restored
                sink.persist()
                if self.report.chunks_restored > before:
                    log.warning("restored %d chunks into %s from the catalog and the embedding cache",
                                self.report.chunks_restored - before, sink.path or type(sink).__name__)
        self.missing = missing
        if missing:
            dirty = self.catalog.sources_of_chunks(missing)
            log.warning("%d sources were left incomplete by an interrupted run; redoing them", len(dirty))
            self.catalog.mark_dirty(sorted(dirty))
            self.known = self.catalog.sources()

    def _restore(self, sink: IndexSink, ids: set[str]) -> set[str]:
        """Put the catalog's chunks ``ids`` back into ``sink`` from the texts the catalog keeps
        and the vectors of the embedding cache (a new, damaged or extra sink: nothing is
        re-embedded, no file re-read). Returns the ids restored; the others (an index from before
        the catalog kept texts) make their sources dirty."""
        restored: set[str] = set()
        step = self.pipe.flush_chunks
        pending = sorted(ids)
        for i in range(0, len(pending), step):
            recs: list[ChunkRecord] = [r for r in self.catalog.chunk_records(pending[i : i + step]) if r.text]
            if not recs:
                continue
            texts = [indexed_text(r.text, r.metadata) for r in recs]
            vectors = self.vectors.get([r.text_hash for r in recs], texts, {}, count_hits=False)
            sink.upsert([SinkRecord(r.id, r.text, v, r.metadata) for r, v in zip(recs, vectors, strict=True)])
            restored.update(r.id for r in recs)
        self.report.chunks_restored += len(restored)
        return restored

    # ------------------------------------------------------------------ producer
    def _prepared(self, units: Iterator[Unit]) -> Iterator[Prepared]:
        """Run loading and splitting in a thread, overlapping with embedding in this one (or, with
        ``indexing.engine: ray``, load, split and embed on a Ray cluster: ``engines/ray.py``)."""
        if self.pipe.spec.indexing.engine == "ray":
            from ragkit.index.engines.ray import prepared_on_ray

            yield from prepared_on_ray(units, self.parts, self.pipe.spec, self.known, self.catalog, self.report)
            return
        preparer = Preparer(self.parts, self.pipe.spec, self.known)
        try:
            yield from self._produced(preparer, units)
        finally:
            preparer.close()

    def _produced(self, preparer: Preparer, units: Iterator[Unit]) -> Iterator[Prepared]:
        q: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()
        # the producer runs ahead by at most two flushes of chunks (and 256 sources), so memory
        # is bounded by the batch, never by the corpus
        budget = threading.Condition()
        ahead = {"chunks": 0, "items": 0}
        limit = 2 * self.pipe.flush_chunks

        def produce() -> None:
            try:
                for p in preparer.prepare_all(_until(stop, units)):
                    if stop.is_set():
                        return
                    with budget:
                        while (ahead["items"] and (ahead["chunks"] >= limit or ahead["items"] >= 256)
                               and not stop.is_set()):
                            budget.wait(0.5)
                        ahead["chunks"] += len(p.chunks)
                        ahead["items"] += 1
                    q.put(p)
                q.put(_DONE)
            except BaseException as exc:  # handed to the consumer
                q.put(exc)

        worker = threading.Thread(target=produce, name="ragkit-prepare", daemon=True)
        worker.start()
        try:
            while True:
                item = q.get()
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                with budget:
                    ahead["chunks"] -= len(item.chunks)
                    ahead["items"] -= 1
                    budget.notify()
                yield item
        finally:
            stop.set()
            with budget:
                budget.notify_all()
            while worker.is_alive():
                try:
                    q.get_nowait()
                except queue.Empty:
                    worker.join(0.05)

    # ------------------------------------------------------------------ consumer
    def _consume(self, p: Prepared) -> None:
        self.seen.add(p.source)
        self.pipe.progress("file", 1)
        self.text_budget.take(p)
        self.report.warnings.extend((p.source, w) for w in p.warnings)
        if p.unchanged:
            if p.error is not None:  # skipped before, same content: not loaded again
                self.report.skipped.append((p.source, p.error))
            else:
                self.report.unchanged += 1
            return
        if p.error is not None:
            self.report.skipped.append((p.source, p.error))
            if self.pipe.strict:
                self._flush()
                raise LoaderError(f"{p.source}: {p.error} (--strict stops at the first unreadable file)", path=p.source)
        if p.chunks and not p.vectors:  # the first source to embed: load the model meanwhile
            self._warm()
        self.batch.append(p)
        self.batch_chunks += len(p.chunks)
        if self.batch_chunks >= self.pipe.flush_chunks:
            self._flush()
        elif not p.vectors:  # (an engine's workers embedded the rest already)
            self.pending.update(zip(p.chunk_hashes(), (c.indexed_text for c in p.chunks), strict=True))
            if len(self.pending) >= EMBED_AHEAD:
                todo, self.pending = self.pending, {}
                self.vectors.ahead(todo)

    def _warm(self) -> None:
        if not self.warmed:
            self.warmed = True
            self.vectors.warm()

    def _flush(self) -> None:
        if not self.batch:
            return
        batch, self.batch, self.batch_chunks = self.batch, [], 0
        old = self.catalog.chunk_ids([p.source for p in batch])
        new_chunks = [c for p in batch for c in p.chunks]
        old_ids = {cid for ids in old.values() for cid in ids}
        new_ids = {c.id for c in new_chunks}
        # ids the catalog already had are in the store (after reconcile), except the missing ones;
        # a kept chunk whose metadata changed (a new title, the same text) is written again
        kept_meta = self.catalog.chunk_metadata(new_ids & old_ids)
        meta = {c.id: _metadata(c) for c in new_chunks}  # once per chunk: every sink and the catalog share it
        meta_json = {cid: json.dumps(m) for cid, m in meta.items()}
        to_add = [c for c in new_chunks if c.id not in old_ids or c.id in self.missing
                  or kept_meta.get(c.id) != meta_json[c.id]]
        stale = sorted(old_ids - new_ids)
        hash_of = {c.id: h for p in batch for c, h in zip(p.chunks, p.chunk_hashes(), strict=True)}
        hashes = [hash_of[c.id] for c in to_add]
        computed = {h: v for p in batch for h, v in p.vectors.items()}
        # the batch's last texts go to the embedding thread now, and the sinks that need no vectors
        # (BM25) are written while they embed
        self.vectors.ahead({h: c.indexed_text for h, c in zip(hashes, to_add, strict=True) if h not in computed})
        sinks = self._sinks()
        for sink in [s for s in sinks if not getattr(s, "needs_vectors", True)]:
            _write(sink, stale, [SinkRecord(c.id, c.text, None, meta[c.id]) for c in to_add])
        vectors = self._vectors(to_add, hashes, computed)
        records = [SinkRecord(c.id, c.text, vec, meta[c.id]) for c, vec in zip(to_add, vectors, strict=True)]
        for sink in [s for s in sinks if getattr(s, "needs_vectors", True)]:
            _write(sink, stale, records)
        self.vectors.clear()
        self.pending = {}
        self._commit_batch(batch, old, meta_json)
        self.report.chunks_added += len(new_ids - old_ids)
        self.report.chunks_removed += len(stale)
        self.pipe.progress("chunks", len(new_chunks))

    def _sinks(self) -> list[IndexSink]:
        if not self.sinks:
            self.sinks = self.parts.sinks(on_damage=self._damaged)
        return self.sinks

    def _damaged(self, exc: StoreDamagedError) -> None:
        log.warning("%s; rebuilding it from the catalog and the embedding cache", str(exc).split("; ")[0])
        self.report.store_rebuilt = True

    def _vectors(self, chunks: Sequence[Chunk], hashes: Sequence[str],
                 computed: Mapping[str, np.ndarray]) -> np.ndarray:
        """Vectors of ``chunks`` (their text ``hashes``): from the cache, else ``computed`` elsewhere
        (an engine's workers), else embedded here."""
        return self.vectors.get(hashes, [c.indexed_text for c in chunks], computed)  # the contextual header and the text

    def _commit_batch(self, batch: Sequence[Prepared], old: dict[str, list[str]], meta_json: Mapping[str, str]) -> None:
        rows, chunk_rows = [], []
        for p in batch:
            status = "skipped" if p.error is not None else "indexed"
            rows.append(SourceRow(p.source, p.root, p.content_hash, p.size, status, p.error, p.loader, len(p.chunks)))
            chunk_rows.extend(
                ChunkRow(c.id, p.source, i, str(c.metadata.get("page", c.metadata.get("row", ""))),
                         c.start, c.end, h, n, c.text, meta_json[c.id])
                for i, (c, n, h) in enumerate(zip(p.chunks, p.tokens, p.chunk_hashes(), strict=True))
            )
            if p.error is None:
                # a source skipped before (unreadable) that loads now is new to the index
                was = self.known.get(p.source)
                (self.report.updated if was is not None and was.status == "indexed" else self.report.added).append(p.source)
        self.catalog.begin()
        try:
            self.catalog.write_sources(rows, chunk_rows)
            self.catalog.commit()
        except BaseException:
            self.catalog.rollback()
            raise

    def _prune(self) -> None:
        """Remove the sources no longer found under this run's folders (a single-file root
        removes nothing; a folder root only what lies inside it)."""
        folders = [r.path for r in self.roots if r.only is None]
        gone = []
        held: dict[Path, list[str]] = {f: [] for f in folders}  # folder -> its indexed sources
        for name, row in self.known.items():
            inside = [f for f in folders if is_under(Path(os.path.normpath(self.base / name)), f)]
            for f in inside:
                held[f].append(name)
            if name in self.seen:
                continue
            if row.root == DOCUMENTS_ROOT:
                if self.prune:
                    gone.append(name)
            elif inside:
                gone.append(name)
        if not gone:
            return
        if not self.prune:
            check_removals(held, set(gone))
        ids = [cid for lst in self.catalog.chunk_ids(gone).values() for cid in lst]
        if ids:
            for sink in self._sinks():
                sink.delete(ids)
                sink.persist()
        self.catalog.begin()
        self.catalog.remove_sources(gone)
        self.catalog.commit()
        self.report.removed.extend(sorted(gone))
        self.report.chunks_removed += len(ids)


def _write(sink: IndexSink, stale: list[str], records: list[SinkRecord]) -> None:
    """One flush's change to one sink: stale ids out, new rows in, saved."""
    if stale:
        sink.delete(stale)
    sink.upsert(records)
    sink.persist()


def _until(stop: threading.Event, units: Iterator[Unit]) -> Iterator[Unit]:
    """``units`` until ``stop`` is set."""
    for unit in units:
        if stop.is_set():
            return
        yield unit


def _metadata(chunk: Chunk) -> dict[str, Any]:
    """What a sink keeps beside a chunk's text: its JSON-able metadata and its span."""
    meta = {k: v for k, v in chunk.metadata.items() if _jsonable(v)}
    meta.update(start=chunk.start, end=chunk.end)
    return meta


def _jsonable(v: Any) -> bool:
    if v is None or isinstance(v, (str, int, float, bool)):
        return v is not None
    return isinstance(v, (list, tuple)) and all(isinstance(x, (str, int, float)) for x in v)


def _spec_yaml(spec: PipelineSpec, embedder: Embedder) -> str:
    """The pipeline as the index keeps it, with the embedder's vector-deciding options pinned
    (backend, int8 recipe), so a later change of their defaults never changes this index."""
    import yaml

    saved = spec.to_saved_dict()
    saved["embedder"] = {**saved["embedder"], **{k: v for k, v in embedder.saved_options().items()
                                                   if k not in saved["embedder"]}}
    return "# resolved pipeline this index was built with (written by ragkit index)\n" + yaml.safe_dump(
        saved, sort_keys=False
    )


def _base_model(model_id: str) -> str:
    """The model of an embedder id without its backend and recipe (``all-MiniLM-L6-v2+onnx-int8-s8-rr``)."""
    return model_id.split("+", 1)[0]


def _write_if_changed(target: Path, text: str) -> None:
    """Replace ``target`` atomically (a reader, a server reopening the index, never sees it
    empty or half written), and only when its text changes."""
    try:
        if target.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


__all__ = ["EMBED_SLICE", "IndexReport", "IndexingPipeline"]
