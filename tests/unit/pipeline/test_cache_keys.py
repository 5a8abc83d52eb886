"""The embedding cache's keys held by the writing catalog: every key added is held, before and
after the keys added during a run are folded into the sorted array; a lookup finds every cached
text and only those, also in a catalog opened again; a text put twice is still kept once."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ragkit.index.cache_keys import CacheKeys, key_of
from ragkit.index.catalog import Catalog

FOLD = 100


def _hash(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def test_keys_added_are_held_before_and_after_a_fold() -> None:
    keys = CacheKeys(np.asarray([key_of(_hash(i)) for i in range(10)], dtype=np.uint64), fold=FOLD)
    assert keys.may_hold([key_of(_hash(3)), key_of(_hash(10))]) == [True, False]
    keys.add(key_of(_hash(i)) for i in range(10, 10 + FOLD))  # one fold
    assert len(keys) == 10 + FOLD
    keys.add([key_of(_hash(-1))])
    probe = [_hash(5), _hash(10 + FOLD - 1), _hash(-1), _hash(10 + FOLD), "not hex"]
    assert keys.may_hold(key_of(h) for h in probe) == [True, True, True, False, False]


def test_the_catalog_finds_what_it_cached_and_nothing_else_also_reopened(tmp_path: Path) -> None:
    path = tmp_path / "catalog.duckdb"
    n = 3000
    cat = Catalog(path)
    try:
        assert cat.cached_embeddings("m", [_hash(0)], 2) == {}
        for a in range(0, n, 1000):
            cat.put_embeddings("m", {_hash(i): np.full(2, float(i)) for i in range(a, min(n, a + 1000))})
        probe = [_hash(0), _hash(1500), _hash(n - 1), _hash(n), _hash(n + 1)]
        got = cat.cached_embeddings("m", probe, 2)
        assert sorted(got) == sorted(probe[:3]) and got[_hash(n - 1)].tolist() == [n - 1, n - 1]
        cat.put_embeddings("m", {_hash(7): np.full(2, -1.0), _hash(n): np.full(2, 5.0)})  # 7 again: kept once
        assert cat.cached_embeddings("other", [_hash(7)], 2) == {}  # per model
    finally:
        cat.close()
    again = Catalog(path)
    try:
        got = again.cached_embeddings("m", [_hash(7), _hash(n), _hash(n + 1)], 2)
        assert got[_hash(7)].tolist() == [7.0, 7.0] and got[_hash(n)].tolist() == [5.0, 5.0] and _hash(n + 1) not in got
        row = again.con.execute("SELECT count(*), count(DISTINCT text_hash) FROM embeddings").fetchone()
        assert row == (n + 1, n + 1)
    finally:
        again.close()
