"""The duckdb store: the full contract plus its own options and SQL-filter checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.errors import ConfigError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import VectorStore
from ragkit.stores.duckdb import DuckDBStore
from ragkit.testing.contract import VectorStoreContract, make_rows


class TestDuckDBContract(VectorStoreContract):
    approximate = False

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return DuckDBStore(dimension=dimension, path=path)


def test_registered_under_its_name() -> None:
    assert stores.get("duckdb") is DuckDBStore


def test_unknown_option_names_key_and_allowed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'colour'"):
        DuckDBStore(dimension=4, path=tmp_path, colour="red")


def test_file_is_its_own(tmp_path: Path) -> None:
    s = DuckDBStore(dimension=4, path=tmp_path / "s")
    s.add(["a"], np.ones((1, 4), dtype=np.float32), [{}])
    s.close()
    assert (tmp_path / "s" / "vectors.duckdb").is_file()


def test_in_memory_without_path() -> None:
    s = DuckDBStore(dimension=4)
    assert not s.capabilities.persistent
    s.add(["a"], np.ones((1, 4), dtype=np.float32), [{"tags": ["x", "y"]}])
    assert s.search(np.ones(4, dtype=np.float32), k=1)[0].metadata == {"tags": ["x", "y"]}
    s.close()


def test_filter_values_are_parameters_not_sql(tmp_path: Path) -> None:
    s = DuckDBStore(dimension=8, path=tmp_path)
    ids, x, meta = make_rows(50, 8, seed=3)
    s.add(ids, x, meta)
    hostile = "x' OR '1'='1"
    assert s.search(x[0], k=5, filter={"source": hostile}) == []
    with pytest.raises(StoreError, match="invalid filter field"):
        s.search(x[0], k=5, filter={"source') OR 1=1 --": "a"})
    assert s.count() == 50
    s.close()


def test_list_and_bool_equality_filters(tmp_path: Path) -> None:
    s = DuckDBStore(dimension=4, path=tmp_path)
    x = np.eye(4, dtype=np.float32)
    s.add(["a", "b", "c", "d"], x, [{"tags": ["x", "y"], "flag": True}, {"tags": ["y"], "flag": False},
                                    {"tags": "x", "flag": 1}, {}])
    q = np.ones(4, dtype=np.float32)
    assert {h.id for h in s.search(q, k=4, filter={"tags": ["x", "y"]})} == {"a"}
    assert {h.id for h in s.search(q, k=4, filter={"flag": True})} == {"a"}
    assert {h.id for h in s.search(q, k=4, filter={"tags": {"$in": ["x", ["y"]]}})} == {"b", "c"}
    s.close()
