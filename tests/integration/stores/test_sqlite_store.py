"""The sqlite (sqlite-vec) store: the full contract plus its own checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.errors import ConfigError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import VectorStore
from ragkit.stores.sqlite import SQLiteStore
from ragkit.testing.contract import VectorStoreContract, make_queries, make_rows


class TestSQLiteContract(VectorStoreContract):
    approximate = False

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return SQLiteStore(dimension=dimension, path=path)


def test_registered_under_its_name() -> None:
    assert stores.get("sqlite") is SQLiteStore


def test_unknown_option_names_key_and_allowed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'table'.*busy_timeout"):
        SQLiteStore(dimension=4, path=tmp_path, table="x")
    with pytest.raises(ConfigError, match="busy_timeout"):
        SQLiteStore(dimension=4, path=tmp_path, busy_timeout=-1)


def test_file_is_its_own(tmp_path: Path) -> None:
    s = SQLiteStore(dimension=4, path=tmp_path / "s")
    s.add(["a"], np.ones((1, 4), dtype=np.float32), [{}])
    s.persist()
    s.close()
    assert (tmp_path / "s" / "vectors.sqlite").is_file()


def test_rare_filter_still_returns_k_hits(tmp_path: Path) -> None:
    """The k hits are ranked among matching rows, even when those rows are far from the query."""
    s = SQLiteStore(dimension=16, path=tmp_path)
    ids, x, meta = make_rows(2000, 16, seed=5)
    for i in range(0, 2000, 100):  # 20 rare rows
        meta[i] = {**meta[i], "rare": "yes"}
    s.add(ids, x, meta)
    q = make_queries(1, 16, seed=5)[0]
    hits = s.search(q, k=15, filter={"rare": "yes"})
    assert len(hits) == 15
    rare = [i for i in range(0, 2000, 100)]
    expected = sorted(rare, key=lambda i: -float(x[i] @ q))[:15]
    assert [h.id for h in hits] == [ids[i] for i in expected]
    s.close()


def test_in_memory_is_shared_across_threads() -> None:
    import threading

    s = SQLiteStore(dimension=4)
    s.add(["a"], np.ones((1, 4), dtype=np.float32), [{"tags": ["x"]}])
    seen: list[int] = []
    t = threading.Thread(target=lambda: seen.append(s.count()))
    t.start()
    t.join()
    assert seen == [1]
    s.close()


def test_filter_values_are_parameters_not_sql(tmp_path: Path) -> None:
    s = SQLiteStore(dimension=8, path=tmp_path)
    ids, x, meta = make_rows(50, 8, seed=3)
    s.add(ids, x, meta)
    assert s.search(x[0], k=5, filter={"source": "x' OR '1'='1"}) == []
    with pytest.raises(StoreError, match="invalid filter field"):
        s.search(x[0], k=5, filter={"a') OR 1=1 --": "a"})
    assert s.count() == 50
    s.close()


def test_list_and_bool_equality_filters(tmp_path: Path) -> None:
    s = SQLiteStore(dimension=4, path=tmp_path)
    s.add(["a", "b", "c", "d"], np.eye(4, dtype=np.float32),
          [{"tags": ["x", "y"], "flag": True}, {"tags": ["y"], "flag": False}, {"tags": "x", "flag": 1}, {}])
    q = np.ones(4, dtype=np.float32)
    assert {h.id for h in s.search(q, k=4, filter={"tags": ["x", "y"]})} == {"a"}
    assert {h.id for h in s.search(q, k=4, filter={"flag": True})} == {"a"}
    assert {h.id for h in s.search(q, k=4, filter={"tags": {"$in": ["x", ["y"]]}})} == {"b", "c"}
    s.close()
