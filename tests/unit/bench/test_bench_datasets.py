"""Benchmark datasets: seeded, normalized, held-apart queries, exact ground truth."""

from __future__ import annotations

import numpy as np
import pytest

from ragkit.bench.datasets import FILTERS, Dataset, ground_truth, synthetic
from ragkit.errors import ConfigError


def test_ground_truth_matches_a_hand_computed_ranking() -> None:
    vectors = np.array([[1, 0], [0, 1], [0.6, 0.8], [-1, 0]], dtype=np.float32)
    queries = np.array([[1, 0], [0, 1]], dtype=np.float32)
    gt = ground_truth(vectors, queries, k=3)
    assert gt.tolist() == [[0, 2, 1], [1, 2, 0]]


def test_ground_truth_pads_with_minus_one_and_breaks_ties_by_row() -> None:
    vectors = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    gt = ground_truth(vectors, np.array([[1, 0]], dtype=np.float32), k=5)
    assert gt.tolist() == [[0, 1, 2, -1, -1]]


def test_filtered_ground_truth_only_returns_matching_rows() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((200, 8)).astype(np.float32)
    queries = rng.standard_normal((5, 8)).astype(np.float32)
    mask = np.arange(200) % 7 == 0
    gt = ground_truth(vectors, queries, k=10, mask=mask)
    brute = [sorted(np.flatnonzero(mask), key=lambda r: -float(vectors[r] @ q))[:10] for q in queries]
    assert gt.tolist() == [list(map(int, b)) for b in brute]
    assert mask[gt].all()


def test_synthetic_is_seeded_normalized_and_queries_are_not_in_the_data() -> None:
    a = synthetic(n=500, dimension=16, queries=20, clusters=5, seed=3)
    b = synthetic(n=500, dimension=16, queries=20, clusters=5, seed=3)
    assert np.array_equal(a.vectors, b.vectors) and np.array_equal(a.queries, b.queries)
    assert a.vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(a.vectors, axis=1), 1.0, atol=1e-5)
    assert (a.queries @ a.vectors.T).max() < 0.99999  # no query is a copy of a data row
    assert set(np.unique(a.category)) <= set(range(10))
    assert a.gt.shape == (20, 100) and set(a.filtered_gt) == set(FILTERS)
    for name, fgt in a.filtered_gt.items():
        assert a.filter_mask(name)[fgt[fgt >= 0]].all()


def test_dataset_round_trips_through_npy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ds = synthetic(n=300, dimension=8, queries=10, clusters=3, seed=1)
    ds.save(tmp_path)
    back = Dataset.load(tmp_path)
    assert np.array_equal(back.gt, ds.gt) and np.array_equal(back.vectors, ds.vectors)
    assert back.metadata(range(2)) == ds.metadata(range(2))


def test_bad_sizes_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="at least 1"):
        synthetic(n=0, dimension=8, queries=1)


def test_corpus_is_embedded_once_cached_and_held_out_rows_become_queries(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from ragkit.bench.datasets import embed_corpus
    from ragkit.bench.runner import make_dataset

    monkeypatch.setenv("RAGKIT_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "ds" / "corpus.jsonl"
    corpus.parent.mkdir()
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]
    corpus.write_text(
        "".join(
            f'{{"_id": "{i}", "title": "t{i}", "text": "{words[i % 6]} {words[(i * 7) % 6]} {i}"}}\n'
            for i in range(80)
        )
    )
    spec = {
        "kind": "corpus",
        "path": str(corpus.parent),
        "queries": 10,
        "embedder": "hashing",
        "embedder_options": {"dimension": 32},
    }
    ds = make_dataset(spec)
    cached = embed_corpus(corpus.parent, embedder="hashing", options={"dimension": 32})
    assert cached.parent == tmp_path / "cache" / "bench" and cached.exists()
    assert ds.n == 70 and ds.queries.shape == (10, 32) and ds.gt.shape == (10, 100)
    assert (ds.gt[:, 70:] == -1).all()  # only 70 data rows exist
