"""HybridRetriever: each fusion method, candidate counts, and filters passed to both sides."""

from __future__ import annotations

import pytest

from ragkit.errors import ConfigError
from ragkit.registry import retrievers
from ragkit.retrieval.base import Retriever
from ragkit.retrieval.fusion import convex_combination, reciprocal_rank_fusion
from ragkit.retrieval.hybrid import HybridRetriever

from .helpers import RecordingRetriever, bm25_retriever, corpus_hits, dense_retriever


def make(
    fusion: str = "rrf", **kwargs: object
) -> tuple[HybridRetriever, RecordingRetriever, RecordingRetriever]:
    dense = RecordingRetriever(corpus_hits("a1", "b1", "c1"))
    lexical = RecordingRetriever(corpus_hits("c1", "a2", "a1"))
    return HybridRetriever(dense=dense, lexical=lexical, fusion=fusion, **kwargs), dense, lexical  # type: ignore[arg-type]


def test_registered_and_conforms() -> None:
    assert retrievers.get("hybrid") is HybridRetriever
    assert isinstance(make()[0], Retriever)


def test_rrf_default_is_plain_rrf() -> None:
    hybrid, dense, lexical = make()
    got = hybrid.retrieve("q", k=4)
    want = reciprocal_rank_fusion([dense.hits, lexical.hits], k=60)
    assert [(h.id, h.score) for h in got] == [(h.id, pytest.approx(h.score)) for h in want]
    assert [h.id for h in got] == ["a1", "c1", "a2", "b1"]


@pytest.mark.parametrize("fusion", ["minmax", "zscore"])
def test_convex_fusions_weight_the_dense_side(fusion: str) -> None:
    hybrid, dense, lexical = make(fusion, weight=0.7)
    got = hybrid.retrieve("q", k=10)
    want = convex_combination([dense.hits, lexical.hits], weights=[0.7, 0.3], normalization=fusion)
    assert [h.id for h in got] == [h.id for h in want]
    assert got[0].id == "a1"


def test_weight_extremes_select_one_side() -> None:
    assert [h.id for h in make("minmax", weight=1.0)[0].retrieve("q", k=3)] == ["a1", "b1", "c1"]
    assert [h.id for h in make("minmax", weight=0.0)[0].retrieve("q", k=3)] == ["c1", "a2", "a1"]


def test_candidates_and_filter_are_passed_to_both_retrievers() -> None:
    hybrid, dense, lexical = make(candidates=25)
    flt = {"source": {"$glob": "animals/*"}}
    got = hybrid.retrieve("fox", k=2, filter=flt)
    assert dense.calls == [("fox", 25, flt)] and lexical.calls == [("fox", 25, flt)]
    assert [h.id for h in got] == ["a1", "a2"]
    hybrid.retrieve("fox", k=40)
    assert dense.calls[-1][1] == 40  # never fewer candidates than k


@pytest.mark.parametrize("fusion", ["rrf", "minmax", "zscore"])
def test_real_dense_and_bm25_with_filters(fusion: str) -> None:
    hybrid = HybridRetriever(dense=dense_retriever(), lexical=bm25_retriever(), fusion=fusion)
    hits = hybrid.retrieve("python", k=5, filter={"source": {"$in": ["animals/snake.md", "food/bake.txt"]}})
    assert hits and {h.source for h in hits} <= {"animals/snake.md", "food/bake.txt"}
    assert hits[0].id == "b2"
    assert len({h.id for h in hybrid.retrieve("fox python", k=5)}) == len(hybrid.retrieve("fox python", k=5))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fusion": "max"}, "unknown fusion 'max'"),
        ({"weight": 1.5}, "between 0 and 1"),
        ({"rrf_k": -1}, "rrf_k must be non-negative"),
        ({"candidates": 0}, "candidates must be an integer of at least 1"),
    ],
)
def test_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        HybridRetriever(dense=RecordingRetriever([]), lexical=RecordingRetriever([]), **kwargs)  # type: ignore[arg-type]
