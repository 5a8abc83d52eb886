"""Vector segments for ``ragkit.stores._segments``: exact search below a size, approximate above it.

A segment's vectors are one ``vectors.npy`` (memory-mapped, so a reader's memory is the page
cache, not a copy). A merged segment of at least ``ann_min`` rows also gets an approximate index.
By default (``ann: pq``) that is a 4-bit product-quantizer fast scan that shortlists ``rerank``
rows by their codes' scores (``ragkit.stores._pq_rerank``: files ``pq.faiss`` and ``pq.json``,
the shortlist calibrated when built). With ``ann: ivfpq`` the same codes sit in IVF lists and a
query scans only the ``nprobe`` lists nearest to it (``nprobe`` and ``rerank`` calibrated
together; the same two files, ``pq.json`` also holding ``nlist`` and ``nprobe``).

A search pools the shortlists of every PQ segment (either kind) by their codes' scores, keeps
the best ``SHORTLIST_FACTOR`` times the longest segment's shortlist and re-ranks those exactly
with ``vectors.npy`` (``search_payloads``): the exact reads stay the same however many segments
there are. A filter or tombstones that leave a quarter of a segment's rows or more lengthen its
shortlist in proportion; fewer are searched exactly; a shortlist left with fewer than k matching
rows falls back to exact search over the matching rows.

With ``ann: ivf`` (and in segments built before the PQ index existed) it is an IVF index: k-means
centroids (``ivf.centroids.npy``), its rows stored list by list (``ivf.lists.npy`` holds the
offsets), and ``ivf.json`` with the ``nprobe`` that reached the recall target against exact
search on a sample of the segment's own rows (``recall``, measured when it was built). A search
scans the ``nprobe`` nearest lists of each IVF segment (exact scores) and every segment without
an index exactly; a filter or tombstones that leave fewer than k candidates among the probed
lists fall back to exact search over the matching rows, so a filtered search returns
``min(k, matching rows)`` hits.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.stores._pq_rerank import PqIndex, exact_topk
from ragkit.stores._pq_rerank import build as build_pq
from ragkit.stores._pq_rerank import build_ivf as build_ivfpq
from ragkit.stores._segments import save_npy
from ragkit.stores.memory import top_k

log = logging.getLogger(__name__)

#: rows a merged segment needs to get an IVF index (smaller ones are always searched exactly)
ANN_MIN = 20_000
#: below this many live rows in the whole store, every search is exact
EXACT_MAX = 100_000
RECALL_TARGET = 0.95
#: the PQ shortlists of all segments are pooled and this many times the longest one re-ranked
SHORTLIST_FACTOR = 4
#: queries (rows of the segment) used to measure recall when an IVF index is built
CALIBRATION_QUERIES = 200
_BLOCK = 65_536


@dataclass(frozen=True)
class AnnOptions:
    """``approximate``: build approximate indexes at all (``index: auto``); ``method``: ``pq`` (PQ
    fast scan + exact re-rank, ``ragkit.stores._pq_rerank``), ``ivfpq`` (the same in IVF lists) or
    ``ivf``; the rest as in the module docstring (None: calibrated when built)."""

    approximate: bool = True
    method: str = "pq"
    ann_min: int = ANN_MIN
    exact_max: int = EXACT_MAX
    recall: float = RECALL_TARGET
    nlist: int | None = None
    nprobe: int | None = None
    pq_m: int | None = None
    rerank: int | None = None


@dataclass
class Ivf:
    centroids: np.ndarray  # (nlist, d)
    lists: np.ndarray  # (nlist + 1,) row offsets: list l holds rows lists[l]:lists[l+1]
    nprobe: int
    recall: float | None

    def write(self, folder: Path) -> None:
        save_npy(folder / "ivf.centroids.npy", self.centroids)
        save_npy(folder / "ivf.lists.npy", self.lists)
        (folder / "ivf.json").write_text(json.dumps({"nprobe": self.nprobe, "recall": self.recall}), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> Ivf | None:
        if not (folder / "ivf.json").is_file():
            return None
        info = json.loads((folder / "ivf.json").read_text(encoding="utf-8"))
        return cls(np.load(folder / "ivf.centroids.npy"), np.load(folder / "ivf.lists.npy"),
                   int(info["nprobe"]), info.get("recall"))

    def probe(self, vectors: np.ndarray, q: np.ndarray, nprobe: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows and scores of the ``nprobe`` lists nearest to ``q``."""
        cs = _dot(self.centroids, q)
        n = min(nprobe, cs.shape[0])
        chosen = np.argpartition(-cs, n - 1)[:n] if n < cs.shape[0] else np.arange(cs.shape[0])
        rows, scores = [], []
        for lst in chosen.tolist():
            a, b = int(self.lists[lst]), int(self.lists[lst + 1])
            if b > a:
                rows.append(np.arange(a, b))
                scores.append(_dot(vectors[a:b], q))
        if not rows:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        return np.concatenate(rows), np.concatenate(scores)


class VectorPayload:
    def __init__(self, vectors: np.ndarray, ivf: Ivf | None = None, scratch: Path | None = None,
                 pq: PqIndex | None = None, rerank: int | None = None, nprobe: int | None = None) -> None:
        self.vectors = vectors
        self.ivf = ivf
        self.pq = pq
        self._rerank = rerank  # search.rerank when set (else the one calibrated when built)
        self._nprobe = nprobe  # search.nprobe for an IVF-PQ index (else the calibrated one)
        self._scratch = scratch  # a merged segment's vectors, written beside it, moved in by write()

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def write(self, folder: Path) -> None:
        if self._scratch is not None:
            if isinstance(self.vectors, np.memmap):
                self.vectors.flush()
            _fsync(self._scratch)
            os.replace(self._scratch, folder / "vectors.npy")
            self._scratch = None
        else:
            save_npy(folder / "vectors.npy", np.ascontiguousarray(self.vectors, dtype=np.float32))
        if self.ivf is not None:
            self.ivf.write(folder)
        if self.pq is not None:
            self.pq.write(folder)

    def candidates(self, q: np.ndarray, k: int, allowed: np.ndarray | None, *, ann: bool) -> Found:
        """The rows to consider among ``allowed`` (a bool mask; None = all): a PQ shortlist with its
        codes' scores (``exact`` False: ``search_payloads`` re-ranks the best of every segment's),
        or rows with exact scores (IVF lists probed, or an exact search)."""
        n_allowed = len(self) if allowed is None else int(allowed.sum())
        want = min(k, n_allowed)
        if want == 0:
            return Found(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32), exact=True)
        if ann and self.pq is not None and (allowed is None or n_allowed * 4 >= len(self)):
            # the shortlist grows as a filter (or tombstones) thins the rows out, so about as many
            # matching rows are re-ranked as without one; a selective filter is searched exactly
            rows, scores = self.pq.scored(q, -(-self.rerank * len(self) // max(n_allowed, 1)), self._nprobe)
            if allowed is not None:
                keep = allowed[rows]
                rows, scores = rows[keep], scores[keep]
            if rows.size >= want:
                return Found(rows, scores, exact=False)
        if ann and self.ivf is not None:
            rows, scores = self.ivf.probe(self.vectors, q, self.ivf.nprobe)
            if allowed is not None:
                keep = allowed[rows]
                rows, scores = rows[keep], scores[keep]
            if rows.size >= want:
                return _best(rows, scores, want)
        if allowed is not None and n_allowed * 4 < len(self):
            rows = np.flatnonzero(allowed)
            scores = _dot(self.vectors[rows], q)
        else:
            scores = _dot(self.vectors, q)
            rows = np.arange(len(self)) if allowed is None else np.flatnonzero(allowed)
            scores = scores[rows] if allowed is not None else scores
        return _best(rows, scores, want)

    @property
    def rerank(self) -> int:
        """The PQ shortlist's length: ``search.rerank``, else the one calibrated when built."""
        assert self.pq is not None
        return self._rerank or self.pq.rerank

    def exact(self, rows: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``rows`` (in row order, read in one pass over the memory map) with their exact scores."""
        rows = np.sort(rows)
        return rows, _dot(self.vectors[rows], q)


@dataclass
class Found:
    rows: np.ndarray
    scores: np.ndarray
    exact: bool  # exact inner products (else the PQ codes' estimates: a shortlist to re-rank)


def _best(rows: np.ndarray, scores: np.ndarray, want: int) -> Found:
    order = top_k(scores, want)
    return Found(rows[order], scores[order], exact=True)


def search_payloads(payloads: Sequence[VectorPayload], q: np.ndarray, k: int,
                    allowed: Sequence[np.ndarray | None], *, ann: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each payload's candidates for the top ``k`` (rows, exact scores; their union holds the top
    ``k`` of all). The PQ shortlists of every segment are pooled by their codes' scores and only
    the best ``SHORTLIST_FACTOR`` times the longest segment's shortlist are re-ranked exactly, so
    the exact reads do not grow with the number of segments."""
    found = [p.candidates(q, k, a, ann=ann) for p, a in zip(payloads, allowed, strict=True)]
    approx = [n for n, f in enumerate(found) if not f.exact]
    if len(approx) > 1:
        _pool(found, approx, SHORTLIST_FACTOR * max(payloads[n].rerank for n in approx))
    out = []
    for p, f in zip(payloads, found, strict=True):
        if f.exact:
            out.append((f.rows, f.scores))
        elif f.rows.size:
            rows, scores = p.exact(f.rows, q)
            keep = top_k(scores, min(k, rows.size))
            out.append((rows[keep], scores[keep]))
        else:
            out.append((f.rows, f.scores))
    return out


def _pool(found: list[Found], approx: list[int], size: int) -> None:
    """Keep, over the shortlists ``found[approx]``, the ``size`` rows whose codes score highest."""
    scores = np.concatenate([found[n].scores for n in approx])
    if scores.size <= size:
        return
    cut = np.partition(scores, scores.size - size)[scores.size - size]
    for n in approx:
        f = found[n]
        keep = f.scores >= cut
        found[n] = Found(f.rows[keep], f.scores[keep], exact=False)


class VectorKind:
    name = "vectors"

    def __init__(self, dimension: int, ann: AnnOptions) -> None:
        self.dimension, self.ann = dimension, ann

    def build(self, rows: list[Any]) -> VectorPayload:
        if not rows:
            return VectorPayload(np.empty((0, self.dimension), dtype=np.float32))
        return VectorPayload(np.ascontiguousarray(np.stack(rows), dtype=np.float32))

    def unindexed(self, payload: VectorPayload) -> bool:
        """A segment big enough for an approximate index (``ann_min``) that has none."""
        return (self.ann.approximate and len(payload) >= self.ann.ann_min
                and payload.pq is None and payload.ivf is None)

    def load(self, folder: Path, n: int) -> VectorPayload:
        vectors = np.load(folder / "vectors.npy", mmap_mode="r")
        if vectors.shape != (n, self.dimension):
            raise ValueError(f"{folder.name}/vectors.npy has shape {vectors.shape}, expected ({n}, {self.dimension})")
        return VectorPayload(vectors, Ivf.load(folder), pq=PqIndex.load(folder), rerank=self.ann.rerank,
                             nprobe=self.ann.nprobe)

    def merge(self, parts: Sequence[tuple[Any, np.ndarray]], scratch: Path | None) -> tuple[VectorPayload, np.ndarray | None]:
        src = _Concat(parts, self.dimension)
        n = src.n
        order = ivf = pq = None
        if self.ann.approximate and n >= self.ann.ann_min and self.ann.method == "ivf":
            order, ivf = build_ivf(src, self.ann)
        out = (np.lib.format.open_memmap(scratch, mode="w+", dtype=np.float32, shape=(n, self.dimension))
               if scratch is not None and n else np.empty((n, self.dimension), dtype=np.float32))
        for a in range(0, n, _BLOCK):
            sel = order[a : a + _BLOCK] if order is not None else np.arange(a, min(n, a + _BLOCK))
            out[a : a + sel.size] = src.take(sel)
        if ivf is not None:
            ivf.nprobe, ivf.recall = calibrate(out, ivf, self.ann)
        if self.ann.approximate and n >= self.ann.ann_min and self.ann.method == "pq":
            pq = build_pq(out, recall=self.ann.recall, m=self.ann.pq_m, rerank=self.ann.rerank)
        if self.ann.approximate and n >= self.ann.ann_min and self.ann.method == "ivfpq":
            pq = build_ivfpq(out, recall=self.ann.recall, m=self.ann.pq_m, rerank=self.ann.rerank,
                             nlist=self.ann.nlist, nprobe=self.ann.nprobe)
        for payload, _ in parts:
            release(payload.vectors)
        release(out)
        return VectorPayload(out, ivf, scratch if scratch is not None and n else None, pq=pq, rerank=self.ann.rerank,
                             nprobe=self.ann.nprobe), order


class _Concat:
    """The live rows of several payloads as one (row numbers 0..n-1), read without copying them all."""

    def __init__(self, parts: Sequence[tuple[Any, np.ndarray]], dimension: int) -> None:
        self.parts = [(p.vectors, idx) for p, idx in parts]
        self.offsets = np.cumsum([0] + [int(idx.size) for _, idx in parts])
        self.n = int(self.offsets[-1])
        self.dimension = dimension

    def take(self, sel: np.ndarray) -> np.ndarray:
        out = np.empty((sel.size, self.dimension), dtype=np.float32)
        part = np.searchsorted(self.offsets, sel, side="right") - 1
        for p, (vectors, idx) in enumerate(self.parts):
            m = part == p
            if m.any():
                rows = idx[sel[m] - self.offsets[p]]
                srt = np.argsort(rows, kind="stable")
                block = np.asarray(vectors[rows[srt]])
                out[np.flatnonzero(m)[srt]] = block
        return out


def build_ivf(src: _Concat, ann: AnnOptions) -> tuple[np.ndarray, Ivf]:
    """Train centroids on a sample and assign every row; the order that groups rows by list."""
    n = src.n
    nlist = ann.nlist or max(16, int(np.sqrt(n)))
    nlist = max(1, min(nlist, n // 39))
    rng = np.random.default_rng(1234)
    sample = np.sort(rng.choice(n, size=min(n, nlist * 64), replace=False))
    centroids = _kmeans(src.take(sample), nlist)
    assign = np.empty(n, dtype=np.int32)
    for a in range(0, n, _BLOCK):
        assign[a : a + _BLOCK] = np.argmax(src.take(np.arange(a, min(n, a + _BLOCK))) @ centroids.T, axis=1)
    order = np.argsort(assign, kind="stable")
    lists = np.zeros(nlist + 1, dtype=np.int64)
    np.cumsum(np.bincount(assign, minlength=nlist), out=lists[1:])
    return order, Ivf(centroids, lists, ann.nprobe or 1, None)


def _kmeans(x: np.ndarray, k: int) -> np.ndarray:
    """Spherical k-means centroids (FAISS's, single-threaded: OpenMP spin-waits on a busy box)."""
    import faiss

    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        km = faiss.Kmeans(x.shape[1], k, niter=12, seed=1234, spherical=True, max_points_per_centroid=64,
                          min_points_per_centroid=1, verbose=False)
        km.train(x)
    finally:
        faiss.omp_set_num_threads(threads)
    return np.ascontiguousarray(km.centroids, dtype=np.float32)


def calibrate(vectors: np.ndarray, ivf: Ivf, ann: AnnOptions) -> tuple[int, float]:
    """The smallest ``nprobe`` that reaches the recall target against exact search on two query
    sets drawn from the segment, and the lower of the two recalls it measured.

    Real queries are unknown when the index is built, and they are harder than the segment's own
    rows (a short query's vector lies between clusters): on msmarco-5k queries with the hashing
    embedder, rows used as queries reached 0.96 at an ``nprobe`` where the real queries had 0.89.
    So both sets must pass, with margin: rows of the segment as queries (their own row left out)
    must reach ``1 - (1 - target) / 2.5`` (0.98), and normalized sums of three random rows
    (queries between clusters) the target itself; there the real queries reached 0.96."""
    n = vectors.shape[0]
    rng = np.random.default_rng(99)
    m = min(CALIBRATION_QUERIES, n)
    qrows = np.sort(rng.choice(n, size=m, replace=False))
    mixed = np.asarray(vectors[np.sort(rng.choice(n, size=3 * m))]).reshape(m, 3, -1)[rng.permutation(m)].sum(axis=1)
    mixed /= np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)
    sets = [(np.ascontiguousarray(vectors[qrows], dtype=np.float32), qrows, 1 - (1 - ann.recall) / 2.5),
            (np.ascontiguousarray(mixed, dtype=np.float32), None, ann.recall)]
    exact = [exact_topk(vectors, queries, 11) for queries, _, _ in sets]
    nlist = ivf.centroids.shape[0]
    # a true neighbour is found by nprobe lists exactly when its list ranks below nprobe among the
    # query's nearest centroids: the recall of every nprobe from one ranking, no probing
    ranks = [_truth_list_ranks(ivf, queries, own, truth) for (queries, own, _), truth in zip(sets, exact, strict=True)]
    candidates = [ann.nprobe] if ann.nprobe else sorted({min(nlist, int(2 ** (i / 2))) for i in range(0, 40)
                                                         if 2 ** (i / 2) <= 2 * nlist})
    best = (candidates[-1], 0.0)
    for nprobe in candidates:
        recalls = [float((r < nprobe).mean()) if r.size else 1.0 for r in ranks]
        best = (nprobe, min(recalls))
        if all(rec >= target for rec, (_, _, target) in zip(recalls, sets, strict=True)):
            break
    log.info("IVF index over %d rows: %d lists, nprobe %d reaches recall@10 %.3f", n, nlist, best[0], best[1])
    return best


def _truth_list_ranks(ivf: Ivf, queries: np.ndarray, own: np.ndarray | None, exact: list[list[int]],
                      k: int = 10) -> np.ndarray:
    """For each query's true top ``k`` rows (its own row left out), the rank of the row's list
    among the query's nearest centroids."""
    order = np.argsort(-(queries @ ivf.centroids.T), axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(order.shape[1]), order.shape), axis=1)
    out = []
    for qi, truth in enumerate(exact):
        skip = -1 if own is None else int(own[qi])
        rows = np.asarray([r for r in truth if r != skip][:k], dtype=np.int64)
        lists = np.searchsorted(ivf.lists, rows, side="right") - 1
        out.append(rank[qi, lists])
    return np.concatenate(out) if out else np.empty(0, dtype=np.int64)


def release(arr: np.ndarray) -> None:
    """Drop a memory map's pages from this process (they stay in the page cache): a merge reads and
    writes whole segments through maps, which would otherwise count in its resident memory."""
    mm = getattr(arr, "_mmap", None)
    if mm is None and isinstance(getattr(arr, "base", None), mmap.mmap):
        mm = arr.base
    if isinstance(mm, mmap.mmap) and hasattr(mm, "madvise"):
        try:
            mm.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError):  # pragma: no cover - best effort
            pass


def _dot(vectors: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``vectors @ q`` without BLAS: a query is a matrix-vector product bound by memory, and
    OpenBLAS's threads only add contention (on a loaded 2-core box ``@`` took ~5x longer)."""
    return np.einsum("ij,j->i", np.asarray(vectors), q)


def _fsync(p: Path) -> None:
    with open(p, "rb") as fh:
        os.fsync(fh.fileno())
