"""``faiss``: the default vector store, files in the index directory.

Options (pipeline YAML ``store:`` keys)::

    type: faiss
    index: auto                 # auto (default) | flat | hnsw | ivf_flat | ivf_pq
    build:
      ann: pq                   #   auto: pq (PQ fast scan + exact re-rank) | ivfpq (the same in IVF lists) | ivf
      ann_min: 20000            #   auto: rows a merged segment needs to get an approximate index
      pq_m: auto                #   ann pq/ivfpq: sub-quantizers (4 bits each); auto = d/2 (pq: d if recall falls short)
      nlist: auto               #   ann ivfpq/ivf: lists per segment; auto = 4 sqrt(rows) (ivfpq), sqrt(rows) (ivf)
      merge_factor: 8           #   auto, flat: segments of one size class merged into one
    search:
      exact_max: 100000         #   auto: below this many rows every search is exact
      rerank: auto              #   ann pq/ivfpq: shortlist per segment; auto = what reached recall@10 >= 0.95 when built
      nprobe: auto              #   ann ivfpq/ivf: lists probed; auto = what reached recall@10 >= 0.95 when built

``auto`` and ``flat`` keep append-only *segments* (``ragkit.stores._segments``): ``add`` and
``delete`` collect in memory, ``persist`` writes them as one new segment and one tombstone file
and switches the manifest, so a commit costs what it adds, never the size of the store. A
background thread merges segments as they pile up; merged segments of ``ann_min``+ rows get an
approximate index calibrated when it is built (recall@10 against exact search, reported by
``describe()`` and ``ragkit status``): by default a PQ fast scan that shortlists ``rerank`` rows
(``ann: pq``), the same codes in IVF lists of which a query scans ``nprobe`` (``ann: ivfpq``), or
IVF lists of float rows probed ``nprobe`` at a time (``ann: ivf``; segments built by an older
ragkit keep theirs). The PQ shortlists of all segments are pooled and the best of them re-ranked
exactly (``ragkit.stores._vector_segments``). With ``auto`` a store below ``exact_max`` live
rows is searched exactly, larger ones through the approximate indexes (plus the small segments,
exactly); ``flat`` is always exact. Vectors are memory-mapped, so neither a writer nor a reader holds them all.

``hnsw``, ``ivf_flat`` and ``ivf_pq`` keep one FAISS index rewritten whole by every ``persist``
(``ragkit.stores._faiss_single``; see its options there): fine for a store built once, quadratic for
one that grows flush by flush. A store saved by an older ragkit as ``flat`` (one ``index.N.faiss``
file) is upgraded to segments when it is opened (its vectors are copied, nothing is re-embedded).

Scores are inner products (cosine on the embedders' normalized vectors). Filters are evaluated in
Python over each segment's metadata (cached per segment and filter); a filter that leaves fewer
than k rows among an IVF segment's probed lists falls back to exact search over the matching rows.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import StoreError
from ragkit.registry import stores
from ragkit.stores import _faiss_index as fx
from ragkit.stores import _persist
from ragkit.stores._segments import MANIFEST, Rows, SegmentLog
from ragkit.stores._vector_segments import AnnOptions, VectorKind, search_payloads
from ragkit.stores.base import Capabilities, check_query
from ragkit.stores.filters import ALL_OPS, Filter, check_supported
from ragkit.stores.memory import top_k, unique_batch
from ragkit.types import SearchHit
from ragkit.wiring import keyword_options

log = logging.getLogger(__name__)


@stores.register("faiss")
class FaissStore:
    """Vectors, ids and metadata in segments under ``path``; see the module docstring."""

    #: its whole state is files under ``path`` (see ``ragkit.stores.base``)
    local = True

    name = "faiss"

    def __new__(cls, **options: Any) -> Any:
        """``hnsw``, ``ivf_flat`` and ``ivf_pq`` are the single-file store (see the module docstring)."""
        index = options.get("index", "auto")
        if cls is FaissStore and index not in fx.SEGMENTED and index in fx.INDEX_KINDS:
            from ragkit.stores._faiss_single import SingleFileFaiss

            return SingleFileFaiss(**options)
        return super().__new__(cls)

    @keyword_options("store", "faiss")
    def __init__(
        self, *, dimension: int, path: Path | str | None = None, index: str = "auto",
        build: Mapping[str, Any] | None = None, search: Mapping[str, Any] | None = None,
    ) -> None:
        self.options = fx.parse_options(dimension, index, build, search)
        fx.import_faiss()  # k-means for the IVF indexes; a missing extra is reported now
        self.dimension = dimension
        self.path = Path(path) if path is not None else None
        self.capabilities = Capabilities(
            filter_ops=ALL_OPS, max_batch=None, persistent=self.path is not None, approximate=index != "flat",
        )
        b, s = self.options.build, self.options.search
        self.ann = AnnOptions(
            approximate=index == "auto", method=str(b.get("ann") or "pq"), ann_min=int(b.get("ann_min") or 0),
            nlist=b.get("nlist"), pq_m=b.get("pq_m"), exact_max=int(s.get("exact_max") or 0), nprobe=s.get("nprobe"),
            rerank=s.get("rerank"),
        )
        header = {"store": self.name, "dimension": dimension}
        self._check_dir()
        self._log = SegmentLog(self.path, VectorKind(dimension, self.ann), header=header,
                               label="faiss store", merge_factor=int(b["merge_factor"] or 8))
        self._check_header()
        self._closed = False
        self._upgrading: int | None = None
        if self.path is not None and not (self.path / MANIFEST).exists() and (self.path / _persist.MANIFEST).exists():
            self._upgrade()

    # -- opening -----------------------------------------------------------------------------
    def _check_dir(self) -> None:
        """A directory holding another store's files, or an older single-file faiss store of
        another kind, is refused before anything is written."""
        if self.path is None or (self.path / MANIFEST).exists():
            return
        old = _persist.read_manifest(self.path, store=self.name, dimension=self.dimension)
        if old is not None and old.get("index_type") not in fx.SEGMENTED:
            raise StoreError(
                f"faiss store at {self.path} was built as index '{old.get('index_type')}' but "
                f"'{self.options.kind}' was requested; set index: {old.get('index_type')}, or run `ragkit index` "
                "with the new pipeline, which rebuilds the store from the catalog and the embedding cache "
                "(nothing is re-embedded)"
            )

    def _check_header(self) -> None:
        stored = getattr(self._log, "stored_header", None)
        if stored is None:
            return
        if stored.get("store") != self.name:
            raise StoreError(f"{self.path} holds a '{stored.get('store')}' store, not a '{self.name}' store; "
                             f"use type '{stored.get('store')}' or choose another directory")
        if int(stored.get("dimension", -1)) != self.dimension:
            raise StoreError(
                f"{self.name}: the store at {self.path} holds {stored.get('dimension')}-d vectors but "
                f"{self.dimension}-d were requested; use the embedder it was built with, or delete {self.path} to rebuild"
            )

    def _upgrade(self) -> None:
        """Read a single-file ``flat`` store (an older ragkit's) into memory; the next ``persist``
        (the next `ragkit index` run that writes) saves it as segments and removes the old files.
        Readers never write."""
        from ragkit.stores._faiss_single import SingleFileFaiss

        assert self.path is not None
        old = SingleFileFaiss(dimension=self.dimension, path=self.path, index="flat")
        try:
            ids = sorted(old.ids())
            vectors = old._all_vectors()
            for start in range(0, len(ids), 50_000):
                part = ids[start : start + 50_000]
                labels = [old._labels[i] for i in part]
                self.add(part, vectors[labels], [old._meta[lab] or {} for lab in labels])
        finally:
            old.close()
        self._upgrading = len(ids)
        log.info("the faiss store at %s has the older single-file layout; the next `ragkit index` run saves it "
                 "as segments", self.path)

    @property
    def unsaved(self) -> bool:
        """Read from the older single-file layout; the next ``persist`` saves it as segments."""
        return self._upgrading is not None

    # -- writes ------------------------------------------------------------------------------
    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> None:
        id_list, arr, metas = unique_batch(ids, vectors, metadata, dimension=self.dimension, store=self.name)
        if not id_list:
            return
        self._check_open()
        lines = [Rows.encode(i, m) for i, m in zip(id_list, metas, strict=True)]
        self._log.add(id_list, lines, list(arr))

    def delete(self, ids: Sequence[str]) -> None:
        self._check_open()
        self._log.delete(list(dict.fromkeys(ids)))

    def clear(self) -> None:
        self._check_open()
        self._log.delete(list(self._log.ids()))

    def persist(self) -> None:
        self._check_open()
        self._log.persist()
        if self._upgrading is not None:
            log.warning("upgraded the faiss store at %s to segments (files that grow with each commit instead of "
                        "being rewritten): %d vectors copied, nothing is re-embedded", self.path, self._upgrading)
            self._upgrading = None

    # -- reads -------------------------------------------------------------------------------
    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        q = check_query(vector, self.dimension, k, self.name)
        norm = check_supported(filter, self.capabilities.filter_ops, self.name)
        self._check_open()
        segs = self._log.live_segments()
        live = sum(len(s) - s.n_dead() for s in segs)
        ann = self.ann.approximate and live >= self.ann.exact_max
        answers = search_payloads([s.payload for s in segs], q, k, [s.allowed(norm) for s in segs], ann=ann)
        found = [(seg, rows, scores) for seg, (rows, scores) in zip(segs, answers, strict=True) if rows.size]
        if not found:
            return []
        scores = np.concatenate([s for _, _, s in found])
        owner = np.concatenate([np.full(r.size, n) for n, (_, r, _) in enumerate(found)])
        rows = np.concatenate([r for _, r, _ in found])
        hits = []
        for i in top_k(scores, min(k, scores.size)).tolist():
            doc_id, meta = found[int(owner[i])][0].rows.get(int(rows[i]))
            hits.append(SearchHit(id=doc_id, score=float(scores[i]), metadata=meta))
        return hits

    def ids(self) -> set[str]:
        self._check_open()
        return self._log.ids()

    def iter_ids(self) -> Iterator[str]:
        """The ids, streamed (the index writer compares them with its catalog without a set)."""
        self._check_open()
        return self._log.iter_ids()

    def count(self) -> int:
        self._check_open()
        return self._log.count()

    def describe(self) -> dict[str, Any]:
        """Layout, segments and the approximate indexes with their measured recall (``ragkit status``)."""
        segs = self._log.live_segments()
        pqs = [s for s in segs if s.payload.pq is not None]
        ivfpq = [s for s in pqs if s.payload.pq.nprobe is not None]
        pq = [s for s in pqs if s.payload.pq.nprobe is None]
        ivf = [s for s in segs if s.payload.ivf is not None]
        live = sum(len(s) - s.n_dead() for s in segs)
        ann_rows = sum(len(s) for s in pqs + ivf)
        measured = [(len(s), s.payload.pq.recall) for s in pqs] + [(len(s), s.payload.ivf.recall) for s in ivf]
        recall = (sum(n * (r or 0.0) for n, r in measured) / ann_rows) if ann_rows else None
        return {
            "store": self.name, "index": self.options.kind, "build": dict(self.options.build),
            "search": dict(self.options.search), **self._log.describe(), "live": live,
            "ann_segments": len(pqs) + len(ivf), "ann_rows": ann_rows,
            "pq_segments": len(pq), "pq_rows": sum(len(s) for s in pq),
            "ivfpq_segments": len(ivfpq), "ivfpq_rows": sum(len(s) for s in ivfpq),
            "ivf_segments": len(ivf), "ivf_rows": sum(len(s) for s in ivf),
            "search_mode": "approximate" if self.ann.approximate and live >= self.ann.exact_max else "exact",
            "pq_m": sorted({s.payload.pq.m for s in pqs}),
            "rerank": sorted({self.ann.rerank or s.payload.pq.rerank for s in pqs}),
            "nlist": sorted({s.payload.pq.nlist for s in ivfpq} | {int(s.payload.ivf.centroids.shape[0]) for s in ivf}),
            "nprobe": sorted({self.ann.nprobe or s.payload.pq.nprobe for s in ivfpq} | {s.payload.ivf.nprobe for s in ivf}),
            "recall_at_10": None if recall is None else round(recall, 4),
        }

    # -- lifecycle ---------------------------------------------------------------------------
    def wait_merges(self) -> None:
        """Wait for the background merge, if one runs (tests and benchmarks)."""
        self._log.wait_merges()
        if self._log.merge_error is not None:
            raise StoreError(f"faiss store: a merge failed: {self._log.merge_error}")

    def close(self) -> None:
        if self._closed:
            return
        self._log.wait_merges()
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("faiss store is closed; create a new store object to use it again")

    def __repr__(self) -> str:
        return f"FaissStore(index={self.options.kind!r}, dimension={self.dimension}, path={self.path!s})"


# the options are those of __init__ (``__new__`` only picks the layout): what the pipeline check reads
FaissStore.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [p for p in inspect.signature(FaissStore.__init__).parameters.values() if p.name != "self"])

