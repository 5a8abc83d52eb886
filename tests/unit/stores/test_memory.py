"""The memory store: the contract with and without a path, plus its own edge cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.errors import ConfigError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import VectorStore
from ragkit.stores.memory import MemoryStore, top_k
from ragkit.testing.contract import VectorStoreContract, make_rows


class TestMemoryStorePersistent(VectorStoreContract):
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return MemoryStore(dimension=dimension, path=path)


class TestMemoryStoreInProcess(VectorStoreContract):
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return MemoryStore(dimension=dimension)


# -- memory-specific behaviour and the suite's own teeth -----------------------------------
def test_registered_under_memory() -> None:
    assert stores.get("memory") is MemoryStore


def test_capabilities_follow_the_path(tmp_path: Path) -> None:
    assert not MemoryStore(dimension=4).capabilities.persistent
    assert MemoryStore(dimension=4, path=tmp_path).capabilities.persistent
    assert not MemoryStore(dimension=4).capabilities.approximate


def test_unknown_option_and_bad_dimension() -> None:
    with pytest.raises(ConfigError, match="unknown option.*index"):
        MemoryStore(dimension=4, index="hnsw")
    with pytest.raises(ConfigError, match="dimension must be a positive integer"):
        MemoryStore(dimension=0)


def test_closed_store_refuses_work() -> None:
    s = MemoryStore(dimension=4)
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.count()


def test_persist_without_path_is_a_noop(tmp_path: Path) -> None:
    s = MemoryStore(dimension=4)
    s.add(["a"], np.ones((1, 4), dtype=np.float32), [{}])
    s.persist()
    assert list(tmp_path.iterdir()) == []


def test_unserializable_metadata_fails_persist_with_a_fix(tmp_path: Path) -> None:
    s = MemoryStore(dimension=4, path=tmp_path / "m")
    s.add(["a"], np.ones((1, 4), dtype=np.float32), [{"when": object()}])
    with pytest.raises(StoreError, match="JSON-serializable"):
        s.persist()
    assert not (tmp_path / "m" / "manifest.json").exists()


def test_delete_moves_rows_and_keeps_lookups_right() -> None:
    ids, x, meta = make_rows(50, 8, seed=1)
    s = MemoryStore(dimension=8)
    s.add(ids, x, meta)
    s.delete([ids[0], ids[49], ids[10], ids[11]])
    for i in (1, 12, 48):
        hit = s.search(x[i], k=1)[0]
        assert hit.id == ids[i] and hit.metadata == meta[i]
    s.add([ids[12]], x[0:1], [{"moved": True}])  # upsert a row that was moved into a hole
    assert s.search(x[0], k=1)[0].metadata == {"moved": True}
    assert s.count() == 46


@pytest.mark.parametrize("k", [1, 3, 10, 20])
def test_top_k_matches_a_full_sort(k: int) -> None:
    scores = np.random.default_rng(k).standard_normal(20).astype(np.float32)
    assert top_k(scores, k).tolist() == np.argsort(-scores, kind="stable")[:k].tolist()


class _IgnoresFilters(MemoryStore):
    def search(self, vector, k=10, filter=None):  # type: ignore[no-untyped-def]
        return super().search(vector, k)


class _DropsLastHit(MemoryStore):
    def search(self, vector, k=10, filter=None):  # type: ignore[no-untyped-def]
        return super().search(vector, k, filter)[:-1]


class _NoPersist(MemoryStore):
    def persist(self) -> None:
        return None


def _suite(store_cls: type) -> VectorStoreContract:
    class Suite(VectorStoreContract):
        def make_store(self, path: Path, dimension: int) -> VectorStore:
            return store_cls(dimension=dimension, path=path)

    return Suite()


def test_the_contract_catches_broken_stores(tmp_path: Path) -> None:
    suite = _suite(_IgnoresFilters)
    with pytest.raises(AssertionError):
        suite.test_filter_matches_brute_force(_IgnoresFilters(dimension=32), "eq")
    suite = _suite(_DropsLastHit)
    with pytest.raises(AssertionError):
        suite.test_search_matches_brute_force(_DropsLastHit(dimension=32))
    suite = _suite(_NoPersist)
    with pytest.raises(AssertionError):
        suite.test_persist_and_reopen(tmp_path / "np")
