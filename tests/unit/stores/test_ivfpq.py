"""The IVF-PQ fast-scan index of a large vector segment (``ragkit.stores._pq_rerank.build_ivf``)
and the shortlists pooled across segments (``ragkit.stores._vector_segments.search_payloads``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("faiss")

from ragkit.stores._pq_rerank import PqIndex, build, build_ivf, default_nlist, exact_topk  # noqa: E402
from ragkit.stores._vector_segments import VectorPayload, _pool, search_payloads  # noqa: E402

DIM = 32


def _clustered(n: int, seed: int, centers: int = 40) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centers, DIM))
    x = c[rng.integers(0, centers, n)] + 0.6 * rng.normal(size=(n, DIM))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _queries(x: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Queries between rows: normalized sums of a few random rows plus noise."""
    rng = np.random.default_rng(seed)
    q = x[rng.integers(0, x.shape[0], (n, 3))].sum(axis=1) + 0.3 * rng.normal(size=(n, DIM))
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def _recall(payloads: list[VectorPayload], x: np.ndarray, queries: np.ndarray, offsets: list[int]) -> float:
    truth = exact_topk(x, queries, 10)
    found = 0
    for q, t in zip(queries, truth, strict=True):
        answers = search_payloads(payloads, q, 10, [None] * len(payloads), ann=True)
        rows = np.concatenate([r + off for (r, _), off in zip(answers, offsets, strict=True)])
        scores = np.concatenate([s for _, s in answers])
        got = rows[np.argsort(-scores)[:10]]
        found += len(set(t) & set(got.tolist()))
    return found / (10 * len(queries))


@pytest.fixture(scope="module")
def segment() -> tuple[np.ndarray, PqIndex]:
    x = _clustered(8000, 1)
    return x, build_ivf(x, recall=0.95)


def test_the_ivf_index_scans_part_of_the_lists_and_finds_the_exact_top_10(segment: tuple[np.ndarray, PqIndex]) -> None:
    x, pq = segment
    assert pq.nlist == default_nlist(8000) == 128  # 4 sqrt(n), 39+ rows each, a power of two
    assert pq.nprobe is not None and pq.nprobe < pq.nlist  # a query scans part of the segment
    assert pq.recall is not None and pq.recall >= 0.99  # the calibration sets' target (with margin)
    assert _recall([VectorPayload(x, pq=pq)], x, _queries(x, 60, 2), [0]) >= 0.95


def test_a_shortlist_holds_only_rows_of_the_probed_lists(segment: tuple[np.ndarray, PqIndex]) -> None:
    x, pq = segment
    q = _queries(x, 1, 3)[0]
    rows, scores = pq.scored(q, 500, nprobe=1)
    lists = np.argmax(x[rows] @ pq.index.quantizer.reconstruct_n(0, pq.nlist).T, axis=1)
    assert rows.size and np.unique(lists).size == 1  # one list probed: every row from the same list
    assert np.all(np.diff(scores) <= 1e-6)  # best first
    more, _ = pq.scored(q, 500, nprobe=pq.nlist)
    assert more.size == 500 and set(rows) - set(more)  # all lists: a different, longer list of candidates


def test_the_index_round_trips_with_its_calibration(tmp_path: Path, segment: tuple[np.ndarray, PqIndex]) -> None:
    x, pq = segment
    pq.write(tmp_path)
    info = json.loads((tmp_path / "pq.json").read_text(encoding="utf-8"))
    assert info["nlist"] == pq.nlist and info["nprobe"] == pq.nprobe and info["rerank"] == pq.rerank
    again = PqIndex.load(tmp_path)
    assert again is not None and (again.nprobe, again.nlist, again.m) == (pq.nprobe, pq.nlist, pq.m)
    q = _queries(x, 1, 4)[0]
    assert np.array_equal(np.sort(again.shortlist(q, 200)), np.sort(pq.shortlist(q, 200)))


def test_a_flat_pq_index_written_before_ivf_lists_still_loads_and_searches(tmp_path: Path) -> None:
    """``pq.json`` as older segments have it (``m``, ``rerank``, ``recall``): every code is scanned."""
    x = _clustered(3000, 5)
    flat = build(x, recall=0.95)
    flat.write(tmp_path)
    assert set(json.loads((tmp_path / "pq.json").read_text(encoding="utf-8"))) == {"m", "rerank", "recall"}
    old = PqIndex.load(tmp_path)
    assert old is not None and old.nprobe is None and old.nlist is None
    assert _recall([VectorPayload(x, pq=old)], x, _queries(x, 40, 6), [0]) >= 0.95


def test_pooled_shortlists_keep_the_best_codes_of_all_segments_and_the_recall() -> None:
    """Four segments: the shortlists are pooled by their codes' scores and cut to a length that
    does not grow with the segments (here 2 x the longest), and the top 10 over all segments is
    still found (``SHORTLIST_FACTOR`` x the longest)."""
    parts = [_clustered(3000, 10 + i) for i in range(4)]
    payloads = [VectorPayload(p, pq=build(p, recall=0.95)) for p in parts]  # the default flat PQ
    x = np.concatenate(parts)
    q = _queries(x, 1, 7)[0]
    found = [p.candidates(q, 10, None, ann=True) for p in payloads]
    assert not any(f.exact for f in found)
    everything = np.sort(np.concatenate([f.scores for f in found]))[::-1]
    size = 2 * max(p.rerank for p in payloads)
    assert size < everything.size
    _pool(found, [0, 1, 2, 3], size)
    kept = np.sort(np.concatenate([f.scores for f in found]))[::-1]
    assert np.array_equal(kept, everything[: kept.size]) and kept.size >= size  # the best codes (ties kept)
    assert kept.size < size + 4
    assert _recall(payloads, x, _queries(x, 40, 8), [0, 3000, 6000, 9000]) >= 0.95
