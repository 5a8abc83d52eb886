"""MMR against hand-checked vectors, and the MMRRetriever wrapper with a real hashing embedder."""

from __future__ import annotations

import numpy as np
import pytest

from ragkit.errors import ConfigError
from ragkit.retrieval.mmr import MMRRetriever, mmr_rerank, mmr_select
from ragkit.testing.hashing import HashingEmbedder
from ragkit.types import SearchHit

from .helpers import RecordingRetriever

QUERY = np.array([1.0, 1.0])
# v0 and v1 are near-duplicates; v1 is slightly more relevant; v2 is as relevant as v0 but different
VECTORS = np.array([[1.0, 0.1], [1.0, 0.12], [0.1, 1.0]])


def test_lambda_one_is_the_relevance_order() -> None:
    assert mmr_select(QUERY, VECTORS, k=3, lambda_mult=1.0) == [1, 0, 2]  # v0/v2 tie -> earlier


def test_balanced_lambda_skips_the_near_duplicate() -> None:
    # after v1: v0 scores .5*.774 - .5*.9998 < 0, v2 scores .5*.774 - .5*.218 > 0
    assert mmr_select(QUERY, VECTORS, k=3, lambda_mult=0.5) == [1, 2, 0]
    assert mmr_select(QUERY, VECTORS, k=2, lambda_mult=0.5) == [1, 2]


def test_scale_of_vectors_does_not_matter() -> None:
    scaled = VECTORS * np.array([[3.0], [0.5], [10.0]])
    assert mmr_select(QUERY * 7, scaled, k=3, lambda_mult=0.5) == [1, 2, 0]


def test_edge_cases() -> None:
    assert mmr_select(QUERY, np.empty((0, 2)), k=3) == []
    assert mmr_select(QUERY, VECTORS, k=10) and len(mmr_select(QUERY, VECTORS, k=10)) == 3
    with pytest.raises(ConfigError, match="query vector has 3 dimensions but candidates have 2"):
        mmr_select(np.ones(3), VECTORS, k=2)
    with pytest.raises(ConfigError, match="lambda_mult must be between 0 and 1"):
        mmr_select(QUERY, VECTORS, k=2, lambda_mult=1.5)
    with pytest.raises(ConfigError, match="got 2 hits but 3 hit vectors"):
        mmr_rerank([SearchHit("a", 1.0), SearchHit("b", 0.5)], query_vector=QUERY, hit_vectors=VECTORS, k=2)


def test_mmr_rerank_keeps_hits_and_scores() -> None:
    hits = [SearchHit(id=f"h{i}", score=1.0 - i / 10) for i in range(3)]
    assert mmr_rerank(hits, query_vector=QUERY, hit_vectors=VECTORS, k=3) == [hits[1], hits[2], hits[0]]


def test_retriever_diversifies_duplicate_passages_and_passes_filter() -> None:
    texts = {
        "d1": "the fox jumps over the dog",
        "d2": "the fox jumps over the dog",
        "d3": "a python language",
    }
    base = RecordingRetriever(
        [SearchHit(id=i, score=1.0, metadata={"text": t, "lang": "en"}) for i, t in texts.items()]
    )
    mmr = MMRRetriever(base=base, embedder=HashingEmbedder(dimension=128), lambda_mult=0.5, candidates=10)
    hits = mmr.retrieve("fox jumps", k=2, filter={"lang": "en"})
    assert [h.id for h in hits] == ["d1", "d3"]
    assert base.calls == [("fox jumps", 10, {"lang": "en"})]
    plain = MMRRetriever(base=base, embedder=HashingEmbedder(dimension=128), lambda_mult=1.0)
    assert [h.id for h in plain.retrieve("fox jumps", k=2)] == ["d1", "d2"]
