"""Recall, latency percentiles, and sanity checks that catch a broken store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ragkit.bench.datasets import synthetic
from ragkit.bench.measure import QueryPlan, measure_queries
from ragkit.bench.metrics import Sanity, latency_summary, mean_recall, recall_at
from ragkit.bench.report import markdown, rows
from ragkit.stores.memory import MemoryStore
from ragkit.types import SearchHit


def test_recall_is_overlap_over_k() -> None:
    truth = np.array([1, 2, 3, 4, -1])
    assert recall_at([1, 2, 9, 8], truth, 4) == 0.5
    assert recall_at([4, 3, 2, 1], truth, 4) == 1.0
    assert recall_at([1, 2, 3, 4, 5], truth, 5) == 1.0  # only 4 true rows exist
    assert mean_recall([[1], [7]], np.array([[1], [2]]), 1) == 0.5


def test_latency_summary_in_milliseconds() -> None:
    s = latency_summary([0.001] * 99 + [0.1])
    assert s["p50_ms"] == 1.0 and s["p99_ms"] > 1.0


def test_sanity_flags_duplicates_extra_hits_unknown_ids_and_filter_violations() -> None:
    s = Sanity()
    assert s.check(["v1", "v2"], k=2, n=10, where="ok") == [1, 2] and s.valid
    s.check(["v1", "v1"], k=2, n=10, where="dup")
    s.check(["v1", "v2", "v3"], k=2, n=10, where="many")
    s.check(["v99", "x"], k=2, n=10, where="unknown")
    s.check(["v0"], k=2, n=10, where="filter", allowed=np.zeros(10, dtype=bool))
    assert not s.valid
    assert set(s.counts) == {"duplicate_ids", "too_many_hits", "unknown_id", "filter_violated"}
    assert s.counts["unknown_id"] == 2


class DuplicatingStore:
    """A broken store: every result repeats its first hit."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner

    def search(
        self, vector: np.ndarray, k: int = 10, filter: Mapping[str, Any] | None = None
    ) -> list[SearchHit]:
        hits = self.inner.search(vector, k=k, filter=filter)
        return hits[:1] + hits[:-1] if len(hits) > 1 else hits


def _loaded(n: int = 400) -> tuple[Any, MemoryStore]:
    ds = synthetic(n=n, dimension=16, queries=12, clusters=4, seed=5)
    store = MemoryStore(dimension=16)
    store.add(ds.ids(), ds.vectors, ds.metadata(range(ds.n)))
    return ds, store


PLAN = QueryPlan(k=10, warmup=2, concurrency=(1, 2), filtered_queries=5)


def test_an_exact_store_scores_perfect_recall_and_passes_the_checks() -> None:
    ds, store = _loaded()
    out = measure_queries(store, ds, PLAN, label="memory")
    assert out["recall@10"] == 1.0 and out["recall@100"] == 1.0
    assert out["filtered"]["mean_recall"] == 1.0
    assert out["sanity"]["valid"] and set(out["qps"]) == {"1", "2"}


def test_a_store_returning_duplicate_ids_is_marked_invalid_in_the_report() -> None:
    ds, store = _loaded()
    out = measure_queries(DuplicatingStore(store), ds, PLAN, label="broken")
    assert not out["sanity"]["valid"] and out["sanity"]["problems"]["duplicate_ids"] > 0
    record = {
        "backends": [
            {
                "backend": "broken",
                "store": "fake",
                "build": {"build_s": 1.0, "count_ok": True},
                "settings": [{"setting": {}, **out}],
            }
        ]
    }
    table = rows(record)
    assert table[0]["status"].startswith("INVALID (duplicate_ids") and not table[0]["valid"]
    assert "INVALID" in markdown(table)
