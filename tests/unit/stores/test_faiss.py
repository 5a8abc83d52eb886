"""The faiss store: the contract for every index kind, plus FAISS-specific behaviour."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

faiss = pytest.importorskip("faiss")

from ragkit.errors import ConfigError, MissingDependencyError, StoreError  # noqa: E402
from ragkit.registry import stores  # noqa: E402
from ragkit.stores import _faiss_single as faiss_store  # noqa: E402
from ragkit.stores import _persist  # noqa: E402
from ragkit.stores.base import VectorStore  # noqa: E402
from ragkit.stores.faiss import FaissStore  # noqa: E402
from ragkit.stores.memory import MemoryStore  # noqa: E402
from ragkit.testing.contract import VectorStoreContract, brute_force, make_queries, make_rows  # noqa: E402


@pytest.fixture(autouse=True)
def one_openmp_thread():
    """FAISS's OpenMP k-means spin-waits; on a busy 2-core box two threads train ~20x slower."""
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    yield
    faiss.omp_set_num_threads(before)


class TestFaissFlat(VectorStoreContract):
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="flat")


class TestFaissAuto(VectorStoreContract):
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="auto")


class TestFaissAutoApproximate(VectorStoreContract):
    """Small thresholds, so the contract runs on merged segments with IVF indexes."""

    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="auto", build={"ann_min": 300, "merge_factor": 2},
                          search={"exact_max": 500})


class TestFaissHNSW(VectorStoreContract):
    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="hnsw")


class TestFaissIVFFlat(VectorStoreContract):
    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="ivf_flat")


class TestFaissIVFPQ(VectorStoreContract):
    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="ivf_pq")


# -- FAISS-specific behaviour -------------------------------------------------------------

DIM = 16


def assert_exact(store: FaissStore, rows, queries, k: int = 10, flt=None) -> None:
    for q in queries:
        expected = brute_force(rows, q, k, flt)
        hits = store.search(q, k=k, filter=flt)
        assert [h.id for h in hits] == [e[0] for e in expected]
        assert np.allclose([h.score for h in hits], [e[1] for e in expected], atol=1e-5)


def test_registered_under_faiss() -> None:
    assert stores.get("faiss") is FaissStore


def test_importing_the_module_does_not_import_faiss() -> None:
    code = "import sys, ragkit.stores.faiss; assert 'faiss' not in sys.modules, 'faiss imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_faiss_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faiss", None)  # makes `import faiss` raise ImportError
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragkit\[faiss\]'"):
        FaissStore(dimension=DIM)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"index": "hsnw"}, "did you mean 'hnsw'"),
        ({"index": "hnsw", "build": {"m": 16}}, "'m'.*allowed: M, ef_construction"),
        ({"index": "hnsw", "search": {"nprobe": 4}}, "'nprobe'.*allowed: ef_search"),
        ({"index": "flat", "search": {"ef_search": 4}}, "'ef_search'.*allowed: none"),
        ({"index": "ivf_flat", "search": {"nprobe": 0}}, "nprobe must be a positive integer"),
        ({"index": "hnsw", "build": {"M": "32"}}, "M must be a positive integer"),
        ({"index": "hnsw", "build": {"M": True}}, "M must be a positive integer"),
        ({"index": "ivf_pq", "build": {"pq_m": 5}}, "pq_m must divide the dimension 16"),
        ({"index": "ivf_pq", "build": {"pq_nbits": 17}}, "pq_nbits"),
        ({"index": "ivf_pq", "build": {"train_min": 100}}, "train_min must be at least"),
        ({"index": "hnsw", "build": [1, 2]}, "'build' must be a mapping"),
        ({"index": "hnsw", "ef_search": 10}, "unknown option.*ef_search.*allowed: index, build, search"),
    ],
)
def test_option_validation(kwargs: dict, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        FaissStore(dimension=DIM, **kwargs)


def test_auto_values_are_accepted() -> None:
    s = FaissStore(dimension=DIM, index="ivf_pq", build={"nlist": "auto", "pq_m": None})
    assert s.options.build["pq_m"] == 2  # largest divisor of 16 that is <= 16/8
    assert s.capabilities.approximate and not FaissStore(dimension=DIM, index="flat").capabilities.approximate


def test_tombstones_are_excluded_then_compacted() -> None:
    rows = make_rows(400, DIM, seed=1)
    ids, x, meta = rows
    s = FaissStore(dimension=DIM, index="hnsw")
    s.add(*rows)
    s.delete(ids[:60])  # 15% tombstones: kept, excluded by the selector
    assert s.describe()["tombstones"] == 60
    kept = (ids[60:], x[60:], meta[60:])
    assert_exact(s, kept, x[:20], k=10)  # queries at deleted points must not return them
    assert len(s.search(x[0], k=400)) == 340
    s.delete(ids[60:120])  # 120 of 400 > 25%: rebuilt from the live rows
    assert s.describe()["tombstones"] == 0 and s.count() == 280
    kept = (ids[120:], x[120:], meta[120:])
    assert_exact(s, kept, make_queries(10, DIM, seed=1))


def test_upsert_tombstones_old_rows_and_full_re_add_does_not_double() -> None:
    rows = make_rows(300, DIM, seed=2)
    s = FaissStore(dimension=DIM, index="hnsw")
    s.add(*rows)
    s.add(rows[0][:30], rows[1][:30], rows[2][:30])
    assert s.describe()["tombstones"] == 30 and s.count() == 300
    s.add(*rows)  # everything replaced: compacted before the new rows are inserted
    assert s.describe()["tombstones"] == 0
    assert s._index.ntotal == 300 and s.count() == 300


def test_duplicate_ids_in_one_batch_last_wins() -> None:
    _, x, _ = make_rows(3, DIM, seed=3)
    s = FaissStore(dimension=DIM, index="flat")
    s.add(["a", "b", "a"], x, [{"v": 1}, {"v": 2}, {"v": 3}])
    assert s.count() == 2
    hit = s.search(x[2], k=1)[0]
    assert hit.id == "a" and hit.metadata == {"v": 3}


@pytest.mark.parametrize("kind", ["ivf_flat", "ivf_pq"])
def test_ivf_with_too_little_data_is_exact_until_trained(kind: str) -> None:
    rows = make_rows(1200, DIM, seed=4)
    ids, x, meta = rows
    s = FaissStore(dimension=DIM, index=kind, build={"train_min": 500})
    s.add(ids[:40], x[:40], meta[:40])
    assert not s.describe()["trained"]
    small = (ids[:40], x[:40], meta[:40])
    assert_exact(s, small, make_queries(5, DIM, seed=4), k=10)
    assert_exact(s, small, make_queries(5, DIM, seed=4), k=100)  # k > count
    s.add(ids[40:], x[40:], meta[40:])
    info = s.describe()
    assert info["trained"] and info["nlist"] == min(int(4 * 1200**0.5), 1200 // 39)
    hits = s.search(x[7], k=5)
    assert hits[0].id == ids[7] and len(hits) == 5


def test_ivf_explicit_nlist_waits_for_39_points_per_list() -> None:
    rows = make_rows(400, DIM, seed=5)
    s = FaissStore(dimension=DIM, index="ivf_flat", build={"nlist": 8, "train_min": 256})
    s.add(rows[0][:300], rows[1][:300], rows[2][:300])
    assert not s.describe()["trained"]  # 300 < 39 * 8 = 312
    s.add(rows[0][300:], rows[1][300:], rows[2][300:])
    assert s.describe()["trained"] and s.describe()["nlist"] == 8


def test_ivf_auto_nlist_retrains_when_data_grows() -> None:
    rows = make_rows(1400, DIM, seed=6)
    ids, x, meta = rows
    s = FaissStore(dimension=DIM, index="ivf_flat", build={"train_min": 300})
    s.add(ids[:300], x[:300], meta[:300])
    first = s.describe()["nlist"]
    s.add(ids[300:], x[300:], meta[300:])
    assert s.describe()["nlist"] > first
    assert s.count() == 1400


def test_hnsw_selective_filter_returns_k_exact_hits(monkeypatch: pytest.MonkeyPatch) -> None:
    ids, x, _ = make_rows(3000, DIM, seed=8)
    meta = [{"source": "rare.md" if i % 150 == 0 else f"doc{i % 3}.md", "page": i} for i in range(3000)]
    rows = (ids, x, meta)
    s = FaissStore(dimension=DIM, index="hnsw", build={"M": 8}, search={"ef_search": 16})
    s.add(*rows)
    queries = make_queries(10, DIM, seed=8)
    assert_exact(s, rows, queries, k=10, flt={"source": "rare.md"})  # 20 rows: exact path
    # force the selector path: HNSW may come back short under a selective filter; still k hits
    monkeypatch.setattr(faiss_store, "EXACT_FILTER_ROWS", 0)
    assert_exact(s, rows, queries, k=10, flt={"source": "rare.md"})
    for q in queries:  # 1000 rows match: the selector path
        hits = s.search(q, k=10, filter={"source": "doc1.md"})
        assert len(hits) == 10 and all(h.metadata["source"] == "doc1.md" for h in hits)


def test_reopen_as_another_index_kind_or_store_is_refused(tmp_path: Path) -> None:
    rows = make_rows(20, DIM, seed=9)
    s = FaissStore(dimension=DIM, path=tmp_path / "f", index="hnsw")
    s.add(*rows)
    s.persist()
    s.close()
    with pytest.raises(StoreError, match="built as index 'hnsw' but 'flat'"):
        FaissStore(dimension=DIM, path=tmp_path / "f", index="flat")
    with pytest.raises(StoreError, match="holds a 'faiss' store, not a 'memory' store"):
        MemoryStore(dimension=DIM, path=tmp_path / "f")


def test_untrained_ivf_round_trips(tmp_path: Path) -> None:
    rows = make_rows(50, DIM, seed=10)
    s = FaissStore(dimension=DIM, path=tmp_path / "ivf", index="ivf_pq")
    s.add(*rows)
    s.persist()
    s.close()
    s2 = FaissStore(dimension=DIM, path=tmp_path / "ivf", index="ivf_pq")
    assert_exact(s2, rows, make_queries(3, DIM, seed=10))


def test_crash_during_persist_keeps_previous_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids, x, meta = make_rows(100, DIM, seed=11)
    path = tmp_path / "f"
    s = FaissStore(dimension=DIM, path=path, index="hnsw")
    s.add(ids[:60], x[:60], meta[:60])
    s.persist()
    s.add(ids[60:], x[60:], meta[60:])

    def crash(index: object, fname: str) -> None:
        Path(fname).write_bytes(b"half an index")
        raise OSError("killed mid-write")

    monkeypatch.setattr(faiss, "write_index", crash)
    with pytest.raises(OSError):
        s.persist()
    monkeypatch.undo()
    reopened = FaissStore(dimension=DIM, path=path, index="hnsw")
    assert reopened.count() == 60
    s.persist()  # a later good save replaces the state and removes the orphans
    assert FaissStore(dimension=DIM, path=path, index="hnsw").count() == 100
    manifest = _persist.read_manifest(path, store="faiss", dimension=DIM)
    assert manifest is not None
    assert sorted(p.name for p in path.iterdir()) == sorted([*manifest["files"].values(), "manifest.json"])
