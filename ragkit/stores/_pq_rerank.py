"""The approximate index of a large merged vector segment (``ragkit.stores._vector_segments``):
FAISS's 4-bit product-quantizer fast scan (``IndexPQFastScan``) to shortlist ``rerank`` rows, then
an exact re-rank of that shortlist with the segment's own float vectors (memory-mapped).

``build`` scans every code of the segment; ``build_ivf`` (``ann: ivfpq``) puts the same codes in
IVF lists (``IndexIVFPQFastScan``, about ``4 * sqrt(rows)`` k-means lists) so a query scans the
``nprobe`` lists nearest to it. How much that saves depends on the vectors: where rows form
clusters a few lists hold a query's neighbours; where they do not (the hashing embedder's
bag-of-words vectors, and short queries of any embedder, which lie between clusters) the lists
must cover a quarter or more of the rows, and scanning a list costs more per code than the flat
scan.

Why not plain IVF or HNSW: on vectors without cluster structure IVF needed half its lists to
reach recall@10 0.95, and HNSW's graph did worse; the fast scan reads every code (``m``
half-bytes per row, from SIMD registers) at a few ms per million rows on one core and keeps its
ranking usable to the tail, so a shortlist of a few hundred to a few thousand rows holds the true
top 10.

``m`` (sub-quantizers) and ``rerank`` (shortlist length), and with IVF lists ``nprobe``, are
chosen when the segment is built: the smallest shortlist (the cheapest ``nprobe`` and shortlist)
whose measured recall@10 against exact search reaches the target on query sets drawn from the
segment (see ``calibration_sets``), with ``m = d/2`` first and ``m = d`` (twice the code, twice
the scan) when even the longest shortlist falls short. Files: ``pq.faiss`` (the codes, and the
lists) and ``pq.json`` (``m``, ``rerank``, ``recall`` measured when built; ``nlist`` and
``nprobe`` with IVF lists).
"""

from __future__ import annotations

import json
import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: shortlist lengths tried, smallest first (capped at the segment's rows)
RERANK_LADDER = (64, 100, 150, 200, 300, 450, 650, 1000, 1500, 2200, 3200, 4800, 7000)
#: calibration: queries per set, and how much stricter than the target the sets must be (see
#: ``calibration_sets``)
CALIBRATION_QUERIES = 200
MARGIN = 10.0
#: the cost of re-ranking one shortlisted row, in codes scanned (choosing ``nprobe`` and ``rerank``)
RERANK_COST = 100
_TRAIN = 65_536
_BLOCK = 65_536


@contextmanager
def one_thread(faiss: Any) -> Any:
    """FAISS single-threaded for the call: OpenMP's spinning threads only add contention for one
    query, and a merge runs beside the indexing on a busy machine."""
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


@dataclass
class PqIndex:
    index: Any  # faiss.IndexPQFastScan, or IndexIVFPQFastScan (``nprobe`` set), over the rows in order
    m: int
    rerank: int
    recall: float | None
    nprobe: int | None = None  # IVF lists scanned per query (None: every code is scanned)

    @property
    def nlist(self) -> int | None:
        return int(self.index.nlist) if self.nprobe is not None else None

    def write(self, folder: Path) -> None:
        import faiss

        faiss.write_index(self.index, str(folder / "pq.faiss"))
        with open(folder / "pq.faiss", "rb") as fh:
            os.fsync(fh.fileno())
        info: dict[str, Any] = {"m": self.m, "rerank": self.rerank, "recall": self.recall}
        if self.nprobe is not None:
            info |= {"nlist": self.nlist, "nprobe": self.nprobe}
        (folder / "pq.json").write_text(json.dumps(info), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> PqIndex | None:
        if not (folder / "pq.json").is_file():
            return None
        import faiss

        info = json.loads((folder / "pq.json").read_text(encoding="utf-8"))
        nprobe = info.get("nprobe")
        return cls(faiss.read_index(str(folder / "pq.faiss")), int(info["m"]), int(info["rerank"]), info.get("recall"),
                   None if nprobe is None else int(nprobe))

    def shortlist(self, q: np.ndarray, n: int, nprobe: int | None = None) -> np.ndarray:
        """The ``n`` rows whose codes score highest against ``q`` (row numbers, unordered)."""
        return self.scored(q, n, nprobe)[0]

    def scored(self, q: np.ndarray, n: int, nprobe: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` rows whose codes score highest against ``q`` and those (approximate) scores,
        best first; an IVF index scans ``nprobe`` lists (None: the calibrated number)."""
        import faiss

        n = min(n, int(self.index.ntotal))
        params = None
        if self.nprobe is not None:
            params = faiss.SearchParametersIVF(nprobe=min(self.nlist or 1, nprobe or self.nprobe))
        with one_thread(faiss):
            scores, rows = self.index.search(np.ascontiguousarray(q, dtype=np.float32)[None], n, params=params)
        keep = rows[0] >= 0
        return rows[0][keep], scores[0][keep]


def default_m_ladder(d: int) -> list[int]:
    """``d/2`` then ``d`` sub-quantizers (the largest divisors of ``d`` up to each)."""
    out = []
    for cap in (max(1, d // 2), d):
        m = max(x for x in range(1, cap + 1) if d % x == 0)
        if m not in out:
            out.append(m)
    return out


def build(vectors: np.ndarray, *, recall: float, m: int | None = None, rerank: int | None = None) -> PqIndex:
    """Train and fill the codes over ``vectors`` (rows in order) and calibrate the shortlist."""
    import faiss

    n, d = vectors.shape
    sets = calibration_sets(vectors, recall)
    best: PqIndex | None = None
    for mm in [m] if m else default_m_ladder(d):
        index = faiss.IndexPQFastScan(d, mm, 4, faiss.METRIC_INNER_PRODUCT)
        _fill(index, vectors, _TRAIN)
        r, measured, ok = calibrate(index, sets, fixed=rerank)
        best = PqIndex(index, mm, r, measured)
        log.info("PQ fast-scan index over %d rows: m %d, re-rank %d reaches recall@10 %.3f", n, mm, r, measured)
        if ok:
            break
    assert best is not None
    return best


def build_ivf(vectors: np.ndarray, *, recall: float, m: int | None = None, rerank: int | None = None,
              nlist: int | None = None, nprobe: int | None = None) -> PqIndex:
    """``build`` with IVF lists: the 4-bit codes (of each row's residual from its list's
    centroid) grouped by list, so a query scans the ``nprobe`` lists nearest to it instead of
    every code. ``nprobe`` and ``rerank`` are calibrated together (``calibrate_ivf``)."""
    import faiss

    n, d = vectors.shape
    mm = m or default_m_ladder(d)[0]
    lists = nlist or default_nlist(n)
    quantizer = faiss.IndexFlatIP(d)
    index = faiss.IndexIVFPQFastScan(quantizer, d, lists, mm, 4, faiss.METRIC_INNER_PRODUCT)
    index.cp.max_points_per_centroid = max(1, _TRAIN // lists)
    index.cp.niter = 12
    _fill(index, vectors, max(_TRAIN, lists * 39))
    probes, r, measured = calibrate_ivf(index, calibration_sets(vectors, recall),
                                        fixed_nprobe=nprobe, fixed_rerank=rerank)
    index.nprobe = probes  # stored in pq.faiss too: a reader that ignores pq.json's nprobe probes as many
    log.info("IVF-PQ fast-scan index over %d rows: %d lists, m %d, nprobe %d and re-rank %d reach recall@10 %.3f",
             n, lists, mm, probes, r, measured)
    return PqIndex(index, mm, r, measured, probes)


def default_nlist(n: int) -> int:
    """About ``4 * sqrt(n)`` lists (a power of two), at least 39 rows each."""
    target = max(1, min(4 * int(np.sqrt(n)), n // 39))
    return 1 << int(np.floor(np.log2(target)))


def _fill(index: Any, vectors: np.ndarray, train: int) -> None:
    """Train ``index`` on a sample of ``train`` rows, then add every row in order (one thread)."""
    import faiss

    n = vectors.shape[0]
    with one_thread(faiss):
        rng = np.random.default_rng(1)
        sample = np.sort(rng.choice(n, size=min(n, train), replace=False))
        index.train(np.ascontiguousarray(vectors[sample], dtype=np.float32))
        for a in range(0, n, _BLOCK):
            index.add(np.ascontiguousarray(vectors[a : a + _BLOCK], dtype=np.float32))


def calibration_sets(vectors: np.ndarray, target: float) -> list[tuple[np.ndarray, float, list[list[int]]]]:
    """Two query sets drawn from the segment, each with the recall it must reach and its exact top
    10: normalized sums of 8 and of 16 random rows. Real queries are unknown when a segment is
    built; a short query lies far from every row, between many of them, and so do these sums (the
    segment's own rows, or sums of 3, were far easier than real queries). Both must reach
    ``1 - (1 - target) / MARGIN``: with the hashing embedder over 100k msmarco rows, msmarco and
    dbpedia queries missed up to ~10x more true neighbours than these sets at the same shortlist."""
    n = vectors.shape[0]
    rng = np.random.default_rng(99)
    qn = min(CALIBRATION_QUERIES, n)
    strict = 1 - (1 - target) / MARGIN
    out = []
    for parts in (8, 16):
        picks = np.sort(rng.choice(n, size=parts * qn))
        mixed = np.asarray(vectors[picks], dtype=np.float32).reshape(qn, parts, -1)[rng.permutation(qn)].sum(axis=1)
        mixed /= np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)
        queries = np.ascontiguousarray(mixed, dtype=np.float32)
        out.append((queries, strict, exact_topk(vectors, queries, 10)))
    return out


def calibrate(index: Any, sets: list[tuple[np.ndarray, float, list[list[int]]]],
              fixed: int | None = None, k: int = 10) -> tuple[int, float, bool]:
    """The shortest shortlist (``rerank``) at which every set reaches its recall, the lowest recall
    measured there, and whether the targets were met. One search per query with the longest
    shortlist: a true neighbour is found by a shortlist of R rows exactly when its rank in the
    codes' order is below R (the re-rank is exact)."""
    import faiss

    n = int(index.ntotal)
    longest = min(n, fixed or RERANK_LADDER[-1])
    ranks = []
    for queries, _, truth in sets:
        with one_thread(faiss):
            _, order = index.search(queries, longest)
        ranks.append(_ranks(order, [t[:k] for t in truth], longest))
    ladder = [fixed] if fixed else sorted({min(n, x) for x in RERANK_LADDER})
    best = (ladder[-1], 0.0, False)
    for size in ladder:
        recalls = [float((r < size).mean()) if r.size else 1.0 for r in ranks]
        ok = all(rec >= target for rec, (_, target, _) in zip(recalls, sets, strict=True))
        best = (size, min(recalls), ok)
        if ok:
            break
    return best


def calibrate_ivf(index: Any, sets: list[tuple[np.ndarray, float, list[list[int]]]], *,
                  fixed_nprobe: int | None = None, fixed_rerank: int | None = None,
                  k: int = 10) -> tuple[int, int, float]:
    """The cheapest (``nprobe``, ``rerank``) at which every set reaches its recall, and the lowest
    recall measured there. For each ``nprobe`` of a doubling ladder, one search per query with the
    longest shortlist gives the recall of every shortlist length (as ``calibrate``); the cost of a
    pair is the codes scanned plus ``RERANK_COST`` per re-ranked row. Targets no pair meets: the
    best recall found."""
    import faiss

    n, nlist = int(index.ntotal), int(index.nlist)
    longest = min(n, fixed_rerank or RERANK_LADDER[-1])
    ladder = [fixed_rerank] if fixed_rerank else sorted({min(n, x) for x in RERANK_LADDER})
    probes = [fixed_nprobe] if fixed_nprobe else sorted({min(nlist, 1 << i) for i in range(nlist.bit_length() + 1)})
    best: tuple[float, int, int, float] | None = None  # (cost, nprobe, rerank, recall) of a pair that passes
    fallback = (probes[-1], ladder[-1], -1.0)
    for nprobe in probes:
        ranks = []
        for queries, _, truth in sets:
            with one_thread(faiss):
                _, order = index.search(queries, longest, params=faiss.SearchParametersIVF(nprobe=nprobe))
            ranks.append(_ranks(order, [t[:k] for t in truth], longest))
        for size in ladder:
            recalls = [float((r < size).mean()) if r.size else 1.0 for r in ranks]
            if min(recalls) > fallback[2]:
                fallback = (nprobe, size, min(recalls))
            if all(rec >= target for rec, (_, target, _) in zip(recalls, sets, strict=True)):
                cost = nprobe * n / nlist + RERANK_COST * size
                if best is None or cost < best[0]:
                    best = (cost, nprobe, size, min(recalls))
                break
        if best is not None and nprobe * n / nlist >= best[0]:
            break  # scanning more lists alone costs more than the best pair found
    return best[1:] if best is not None else fallback


def _ranks(order: np.ndarray, truth: list[list[int]], missing: int) -> np.ndarray:
    """The position of each true row in its query's ``order`` (``missing`` when absent), query by
    query, flattened."""
    out = []
    for qi, t in enumerate(truth):
        rows = np.asarray(t, dtype=np.int64)
        hit = order[qi][None, :] == rows[:, None]  # (true rows, shortlist)
        out.append(np.where(hit.any(axis=1), hit.argmax(axis=1), missing))
    return np.concatenate(out) if out else np.empty(0, dtype=np.int64)


def exact_topk(vectors: np.ndarray, queries: np.ndarray, k: int, block: int = 8192) -> list[list[int]]:
    """The exact top ``k`` rows of ``vectors`` for each query, best first (blocks of rows)."""
    best_s = np.full((queries.shape[0], 0), -np.inf, dtype=np.float32)
    best_r = np.empty((queries.shape[0], 0), dtype=np.int64)
    for a in range(0, vectors.shape[0], block):
        s = queries @ np.asarray(vectors[a : a + block]).T
        r = np.broadcast_to(np.arange(a, a + s.shape[1]), s.shape)
        s, r = np.concatenate([best_s, s], axis=1), np.concatenate([best_r, r], axis=1)
        keep = np.argpartition(-s, min(k, s.shape[1]) - 1, axis=1)[:, :k]
        best_s, best_r = np.take_along_axis(s, keep, 1), np.take_along_axis(r, keep, 1)
    order = np.argsort(-best_s, axis=1, kind="stable")
    return np.take_along_axis(best_r, order, 1).tolist()


__all__ = ["PqIndex", "build", "build_ivf", "calibrate", "calibrate_ivf", "calibration_sets", "default_nlist", "default_m_ladder", "exact_topk", "one_thread"]
