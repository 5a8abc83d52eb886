"""``VectorStoreContract``: the conformance suite every vector store passes.

A pytest mixin (no ``Test`` prefix, so it is not collected by itself). A backend's test module
subclasses it and says how to build a store; calling ``make_store`` again with the same ``path``
must reopen the saved store (persistent stores)::

    from ragkit.testing.contract import VectorStoreContract

    class TestFaissHNSW(VectorStoreContract):
        approximate = True

        def make_store(self, path: Path, dimension: int) -> VectorStore:
            return FaissStore(dimension=dimension, path=path, index="hnsw")

Class attributes tune the suite: ``approximate`` (compare by recall instead of exact order),
``recall_threshold``, ``score_atol`` (how close reported scores must be to the true cosine),
``dimension`` and ``n_vectors``. Every check compares against brute force over the same seeded
data, so the suite needs no fixtures on disk and runs in seconds per backend.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from ragkit.errors import StoreError
from ragkit.stores.base import VectorStore
from ragkit.stores.filters import ALL_OPS, Filter, matches, normalize
from ragkit.testing.threads import run_in_threads
from ragkit.types import SearchHit

Rows = tuple[list[str], np.ndarray, list[dict[str, Any]]]

# name -> (filter, operators it needs); each case is compared with brute force
FILTER_CASES: dict[str, tuple[Filter, frozenset[str]]] = {
    "eq": ({"source": "doc3.md"}, frozenset({"$eq"})),
    "eq_explicit": ({"chunk_kind": {"$eq": "body"}}, frozenset({"$eq"})),
    "in": ({"source": {"$in": ["doc1.md", "doc4.md"]}}, frozenset({"$in"})),
    "gt": ({"page": {"$gt": 9}}, frozenset({"$gt"})),
    "gte_lt": ({"page": {"$gte": 3, "$lt": 6}}, frozenset({"$gte", "$lt"})),
    "lte": ({"page": {"$lte": 1}}, frozenset({"$lte"})),
    "glob": ({"source": {"$glob": "*3.md"}}, frozenset({"$glob"})),
    "and": ({"source": "doc2.md", "page": {"$gte": 5}}, frozenset({"$eq", "$gte"})),
    "no_match": ({"source": "missing.md"}, frozenset({"$eq"})),
}


def make_rows(n: int, dimension: int, seed: int, *, prefix: str = "id") -> Rows:
    """Seeded clustered unit vectors with pipeline-like metadata (every 10th row has no page)."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((16, dimension))
    x = centers[rng.integers(0, 16, n)] + 0.6 * rng.standard_normal((n, dimension))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    ids = [f"{prefix}-{seed}-{i:05d}" for i in range(n)]
    meta: list[dict[str, Any]] = []
    for i in range(n):
        m: dict[str, Any] = {
            "text": f"passage number {i}",
            "source": f"doc{i % 7}.md",
            "chunk_index": i,
            "chunk_kind": "body" if i % 3 else "heading",
        }
        if i % 10:
            m["page"] = i % 13
        meta.append(m)
    return ids, x, meta


def make_queries(n: int, dimension: int, seed: int) -> np.ndarray:
    """Queries from the same mixture as ``make_rows(..., seed)`` but fresh noise."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((16, dimension))
    noise_rng = np.random.default_rng(seed + 10_000)
    q = centers[noise_rng.integers(0, 16, n)] + 0.6 * noise_rng.standard_normal((n, dimension))
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def brute_force(rows: Rows, query: np.ndarray, k: int, flt: Filter | None = None) -> list[tuple[str, float]]:
    """The reference answer: exact inner product over the rows that match ``flt``."""
    ids, x, meta = rows
    norm = normalize(flt)
    keep = np.array([matches(m, norm) for m in meta], dtype=bool) if norm else np.ones(len(ids), bool)
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        return []
    scores = x[idx] @ query
    order = np.argsort(-scores, kind="stable")[:k]
    return [(ids[idx[i]], float(scores[i])) for i in order]


class VectorStoreContract:
    """Mixin with the checks every ``VectorStore`` must pass. Override ``make_store``."""

    approximate: ClassVar[bool] = False
    recall_threshold: ClassVar[float] = 0.95
    score_atol: ClassVar[float] = 1e-4
    dimension: ClassVar[int] = 32
    n_vectors: ClassVar[int] = 2000
    n_queries: ClassVar[int] = 50

    # -- to override -----------------------------------------------------------------------
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        """Build (or, when ``path`` holds a saved store, reopen) the store under test."""
        raise NotImplementedError("a VectorStoreContract subclass must implement make_store")

    # -- fixtures --------------------------------------------------------------------------
    @pytest.fixture
    def store_path(self, tmp_path: Path) -> Path:
        return tmp_path / "store"

    @pytest.fixture
    def store(self, store_path: Path) -> Iterator[VectorStore]:
        s = self.make_store(store_path, self.dimension)
        try:
            yield s
        finally:
            s.close()

    # -- helpers ---------------------------------------------------------------------------
    def rows(self, n: int | None = None, seed: int = 7) -> Rows:
        return make_rows(n or self.n_vectors, self.dimension, seed)

    def persistent_store(self, path: Path) -> VectorStore:
        """A new store at ``path`` for a persistence check; the test is skipped (the store closed)
        when the store is not persistent."""
        s = self.make_store(path, self.dimension)
        if not s.capabilities.persistent:
            s.close()
            pytest.skip("store is not persistent")
        return s

    def fill(self, store: VectorStore, n: int | None = None, seed: int = 7) -> Rows:
        rows = self.rows(n, seed)
        store.add(*rows)
        return rows

    def check_well_formed(self, hits: Sequence[SearchHit], k: int) -> None:
        assert len(hits) <= k, f"asked for {k} hits, got {len(hits)}"
        got = [h.id for h in hits]
        assert len(set(got)) == len(got), f"duplicate ids in hits: {got}"
        assert all(isinstance(h, SearchHit) and isinstance(h.id, str) for h in hits)
        scores = [h.score for h in hits]
        assert all(isinstance(s, float) for s in scores), f"scores must be floats: {scores}"
        assert all(a >= b - 1e-6 for a, b in zip(scores, scores[1:], strict=False)), f"scores not sorted: {scores}"

    def check_scores(self, hits: Sequence[SearchHit], rows: Rows, query: np.ndarray) -> None:
        """Every reported score is the true cosine of that row (within ``score_atol``)."""
        ids, x, _ = rows
        pos = {i: n for n, i in enumerate(ids)}
        for h in hits:
            true = float(x[pos[h.id]] @ query)
            assert abs(h.score - true) <= self.score_atol, f"{h.id}: score {h.score} != cosine {true}"

    def check_against_brute_force(
        self, store: VectorStore, rows: Rows, queries: np.ndarray, k: int, flt: Filter | None = None
    ) -> None:
        found = relevant = 0
        for q in queries:
            expected = brute_force(rows, q, k, flt)
            hits = store.search(q, k=k, filter=flt)
            self.check_well_formed(hits, k)
            self.check_scores(hits, rows, q)
            assert len(hits) == len(expected), f"{len(hits)} hits, {len(expected)} rows match (k={k})"
            if flt:
                norm = normalize(flt)
                assert all(matches(h.metadata, norm) for h in hits), "a hit does not match the filter"
            if self.approximate:
                found += len({h.id for h in hits} & {e[0] for e in expected})
                relevant += len(expected)
                continue
            for rank, (hit, (exp_id, exp_score)) in enumerate(zip(hits, expected, strict=True)):
                same = hit.id == exp_id or abs(hit.score - exp_score) <= self.score_atol
                assert same, f"rank {rank}: got {hit.id} ({hit.score}), expected {exp_id} ({exp_score})"
        if self.approximate and relevant:
            recall = found / relevant
            assert recall >= self.recall_threshold, f"recall@{k} {recall:.3f} < {self.recall_threshold}"

    # -- basics ----------------------------------------------------------------------------
    def test_empty_store(self, store: VectorStore) -> None:
        assert store.count() == 0
        assert store.ids() == set()
        assert store.search(make_queries(1, self.dimension, 1)[0], k=5) == []
        assert store.dimension == self.dimension

    def test_add_count_ids(self, store: VectorStore) -> None:
        ids, _, _ = self.fill(store, 300)
        assert store.count() == 300
        assert store.ids() == set(ids)

    def test_add_empty_batch_is_noop(self, store: VectorStore) -> None:
        store.add([], np.zeros((0, self.dimension), dtype=np.float32), [])
        assert store.count() == 0

    def test_add_rejects_mismatched_lengths(self, store: VectorStore) -> None:
        ids, x, meta = self.rows(10)
        with pytest.raises(StoreError):
            store.add(ids, x[:9], meta)
        with pytest.raises(StoreError):
            store.add(ids, x, meta[:9])

    def test_metadata_round_trip(self, store: VectorStore) -> None:
        meta = {
            "text": "Grüße — ünïcode ✓ \"quoted\"", "source": "sub dir/a.md", "page": 3,
            "chunk_index": 0, "start": 0, "end": 17, "headings": ["Intro", "Setup"],
            "title": None, "ratio": 0.25, "flag": True, "extra": {"a": [1, 2]},
        }
        _, x, _ = self.rows(2)
        store.add(["a", "b"], x, [meta, {"text": ""}])
        hits = store.search(x[0], k=2)
        assert hits[0].id == "a"
        assert hits[0].metadata == meta
        assert {h.id: h.metadata for h in hits}["b"] == {"text": ""}

    # -- upsert ----------------------------------------------------------------------------
    def test_upsert_is_idempotent(self, store: VectorStore) -> None:
        ids, x, meta = self.fill(store, 200)
        store.add(ids, x, meta)
        store.add(ids[:50], x[:50], meta[:50])
        assert store.count() == 200
        assert store.ids() == set(ids)

    def test_upsert_replaces_vector_and_metadata(self, store: VectorStore) -> None:
        rows = self.fill(store, 200)
        ids, x, meta = rows
        _, new_x, _ = make_rows(10, self.dimension, seed=99)
        new_meta = [{"text": f"new {i}", "source": "new.md"} for i in range(10)]
        store.add(ids[:10], new_x, new_meta)
        assert store.count() == 200
        current = (ids, np.concatenate([new_x, x[10:]]), new_meta + meta[10:])
        for i in range(10):
            hits = store.search(new_x[i], k=3)
            assert hits[0].id == ids[i] and hits[0].metadata == new_meta[i]
            self.check_scores(hits, current, new_x[i])
        old_hits = store.search(x[0], k=20)
        self.check_scores(old_hits, current, x[0])

    # -- search ----------------------------------------------------------------------------
    def test_search_matches_brute_force(self, store: VectorStore) -> None:
        rows = self.fill(store)
        queries = make_queries(self.n_queries, self.dimension, seed=7)
        self.check_against_brute_force(store, rows, queries, k=10)

    def test_search_returns_stored_metadata(self, store: VectorStore) -> None:
        ids, x, meta = self.fill(store, 100)
        hits = store.search(x[42], k=1)
        assert hits[0].id == ids[42]
        assert hits[0].metadata == meta[42]
        assert abs(hits[0].score - 1.0) <= self.score_atol

    def test_k_larger_than_count(self, store: VectorStore) -> None:
        rows = self.fill(store, 5)
        q = make_queries(1, self.dimension, 3)[0]
        hits = store.search(q, k=50)
        assert sorted(h.id for h in hits) == sorted(rows[0])
        assert [h.id for h in hits] == [e[0] for e in brute_force(rows, q, 50)]

    def test_k_must_be_positive(self, store: VectorStore) -> None:
        self.fill(store, 5)
        with pytest.raises(StoreError):
            store.search(make_queries(1, self.dimension, 3)[0], k=0)

    # -- delete ----------------------------------------------------------------------------
    def test_delete(self, store: VectorStore) -> None:
        ids, x, meta = self.fill(store, 300)
        gone = ids[:30]
        store.delete(gone)
        assert store.count() == 270
        assert store.ids() == set(ids[30:])
        for i in range(30):
            assert ids[i] not in {h.id for h in store.search(x[i], k=10)}
        kept = (ids[30:], x[30:], meta[30:])
        self.check_against_brute_force(store, kept, make_queries(10, self.dimension, 5), k=10)

    def test_delete_unknown_ids_is_noop(self, store: VectorStore) -> None:
        ids, _, _ = self.fill(store, 20)
        store.delete(["no-such-id", "another"])
        store.delete([])
        store.delete(ids[:2] + ids[:2])
        assert store.count() == 18

    def test_delete_then_re_add(self, store: VectorStore) -> None:
        ids, x, meta = self.fill(store, 50)
        store.delete(ids[:10])
        store.add(ids[:10], x[:10], meta[:10])
        assert store.count() == 50
        assert store.search(x[3], k=1)[0].id == ids[3]

    def test_clear(self, store: VectorStore) -> None:
        ids, x, meta = self.fill(store, 120)
        store.clear()
        assert store.count() == 0 and store.ids() == set()
        assert store.search(x[0], k=5) == []
        store.clear()  # clearing an empty store is harmless
        store.add(ids[:10], x[:10], meta[:10])  # the store stays usable, same dimension
        assert store.count() == 10 and store.search(x[3], k=1)[0].id == ids[3]

    def test_clear_persists(self, store_path: Path) -> None:
        s = self.persistent_store(store_path)
        ids, x, meta = self.fill(s, 50)
        s.persist()
        s.clear()
        s.add(ids[:3], x[:3], meta[:3])
        s.persist()
        s.close()
        s2 = self.make_store(store_path, self.dimension)
        try:
            assert s2.count() == 3 and s2.ids() == set(ids[:3])
        finally:
            s2.close()

    # -- filters ---------------------------------------------------------------------------
    @pytest.mark.parametrize("case", sorted(FILTER_CASES))
    def test_filter_matches_brute_force(self, store: VectorStore, case: str) -> None:
        flt, needs = FILTER_CASES[case]
        missing = needs - store.capabilities.filter_ops
        if missing:
            pytest.skip(f"store does not support {sorted(missing)}")
        rows = self.fill(store, 1000)
        queries = make_queries(10, self.dimension, seed=11)
        self.check_against_brute_force(store, rows, queries, k=10, flt=flt)

    def test_filter_sees_writes(self, store: VectorStore) -> None:
        if "$eq" not in store.capabilities.filter_ops:
            pytest.skip("store does not support $eq")
        ids, x, meta = self.fill(store, 100)
        flt = {"source": "doc3.md"}
        q = make_queries(1, self.dimension, 3)[0]
        before = {h.id for h in store.search(q, k=100, filter=flt)}
        store.add(["fresh"], x[:1], [{"source": "doc3.md"}])
        expected = before | {"fresh"}
        assert {h.id for h in store.search(q, k=100, filter=flt)} == expected
        moved = sorted(before)[0]
        store.add([moved], x[ids.index(moved)][None, :], [{"source": "elsewhere.md"}])
        expected.discard(moved)
        assert {h.id for h in store.search(q, k=100, filter=flt)} == expected
        gone = sorted(before)[1]
        store.delete([gone])
        expected.discard(gone)
        assert {h.id for h in store.search(q, k=100, filter=flt)} == expected

    @pytest.mark.parametrize("op", sorted(ALL_OPS))
    def test_unsupported_filter_op_raises(self, store: VectorStore, op: str) -> None:
        if op in store.capabilities.filter_ops:
            pytest.skip(f"{op} is supported")
        self.fill(store, 20)
        value: Any = ["doc1.md"] if op == "$in" else ("doc*" if op == "$glob" else 3)
        with pytest.raises(StoreError, match=r"\$"):
            store.search(make_queries(1, self.dimension, 3)[0], k=5, filter={"page": {op: value}})

    def test_unknown_filter_operator_raises(self, store: VectorStore) -> None:
        self.fill(store, 20)
        with pytest.raises(StoreError):
            store.search(make_queries(1, self.dimension, 3)[0], k=5, filter={"page": {"$near": 3}})

    # -- dimension and batching ------------------------------------------------------------
    def test_dimension_mismatch_on_add(self, store: VectorStore) -> None:
        bad = self.dimension + 1
        with pytest.raises(StoreError) as err:
            store.add(["x"], np.ones((1, bad), dtype=np.float32), [{}])
        assert str(self.dimension) in str(err.value) and str(bad) in str(err.value)

    def test_dimension_mismatch_on_search(self, store: VectorStore) -> None:
        self.fill(store, 10)
        bad = self.dimension + 1
        with pytest.raises(StoreError) as err:
            store.search(np.ones(bad, dtype=np.float32), k=3)
        assert str(self.dimension) in str(err.value) and str(bad) in str(err.value)

    def test_batch_larger_than_max_batch(self, store: VectorStore) -> None:
        limit = store.capabilities.max_batch
        n = limit + 10 if limit else 3000
        ids, x, _ = self.fill(store, n, seed=21)
        assert store.count() == n
        assert store.ids() == set(ids)
        assert store.search(x[n - 1], k=1)[0].id == ids[n - 1]

    # -- persistence -----------------------------------------------------------------------
    def test_persist_and_reopen(self, store_path: Path) -> None:
        s = self.persistent_store(store_path)
        ids, x, meta = self.fill(s, 300)
        s.delete(ids[:20])
        queries = make_queries(5, self.dimension, seed=13)
        before = [s.search(q, k=10) for q in queries]
        s.persist()
        s.close()
        s2 = self.make_store(store_path, self.dimension)
        try:
            assert s2.count() == 280
            assert s2.ids() == set(ids[20:])
            for q, old in zip(queries, before, strict=True):
                new = s2.search(q, k=10)
                assert [h.id for h in new] == [h.id for h in old]
                assert [h.metadata for h in new] == [h.metadata for h in old]
            s2.add(ids[:5], x[:5], meta[:5])
            assert s2.count() == 285
        finally:
            s2.close()

    def test_reopen_with_other_dimension_raises(self, store_path: Path) -> None:
        s = self.persistent_store(store_path)
        self.fill(s, 10)
        s.persist()
        s.close()
        other = self.dimension * 2
        with pytest.raises(StoreError) as err:
            self.make_store(store_path, other).close()
        assert str(self.dimension) in str(err.value) and str(other) in str(err.value)

    def test_close_twice_is_harmless(self, store_path: Path) -> None:
        s = self.make_store(store_path, self.dimension)
        self.fill(s, 10)
        s.close()
        s.close()

    # -- concurrency -----------------------------------------------------------------------
    def test_concurrent_readers_and_writer(self, store: VectorStore) -> None:
        ids, x, meta = self.rows(600, seed=31)
        store.add(ids[:200], x[:200], meta[:200])
        results: list[list[SearchHit]] = []
        done = threading.Event()
        use_filter = "$eq" in store.capabilities.filter_ops

        def writer() -> None:
            try:
                for s in range(200, 600, 50):
                    store.add(ids[s:s + 50], x[s:s + 50], meta[s:s + 50])
                store.delete(ids[:10])
            finally:
                done.set()

        def reader(seed: int) -> None:
            queries = make_queries(50, self.dimension, seed)
            n = 0
            while n < len(queries) and (not done.is_set() or n < 20):
                flt: Mapping[str, Any] | None = {"source": "doc2.md"} if use_filter and n % 2 else None
                results.append(store.search(queries[n], k=10, filter=flt))
                n += 1

        errors = run_in_threads([writer, partial(reader, 41), partial(reader, 42)])
        assert not errors, f"concurrent use raised: {errors[0]!r}"
        known = set(ids)
        for hits in results:
            self.check_well_formed(hits, 10)
            assert {h.id for h in hits} <= known
        assert store.count() == 590
