"""HybridRetriever: each fusion method, candidate counts, and filters passed to both sides."""

from __future__ import annotations

import pytest

from ragkit.errors import ConfigError
from ragkit.registry import retrievers
from ragkit.retrieval.base import Retriever
from ragkit.retrieval.fusion import boost_matches, convex_combination, reciprocal_rank_fusion
from ragkit.retrieval.hybrid import HybridRetriever
from ragkit.types import SearchHit

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


def test_default_fusion_is_dense_first() -> None:
    hybrid = HybridRetriever(dense=dense_retriever(), lexical=bm25_retriever())
    assert hybrid.params["fusion"] == "dense-first"


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


def test_weighted_rrf() -> None:
    hybrid, dense, lexical = make("rrf", weight=0.7)
    want = reciprocal_rank_fusion([dense.hits, lexical.hits], k=60, weights=[1.4, 0.6])
    assert [h.id for h in hybrid.retrieve("q", k=4)] == [h.id for h in want]


def test_adaptive_weights_follow_the_bm25_score_gap() -> None:
    # lexical scores 1.0, 0.9, 0.8: confidence 1 - 0.9/1.0 = 0.1, lexical share 0.5 * 0.1
    hybrid, dense, lexical = make("adaptive")
    want = convex_combination([dense.hits, lexical.hits], weights=[0.95, 0.05], normalization="dbsf")
    got = hybrid.retrieve("q", k=4)
    assert [(h.id, h.score) for h in got] == [(h.id, pytest.approx(h.score)) for h in want]
    # a tied BM25 top means no confidence: the dense order
    tied = RecordingRetriever([SearchHit(id=h.id, score=2.0, metadata=h.metadata) for h in lexical.hits])
    flat = HybridRetriever(dense=dense, lexical=tied, fusion="adaptive")  # type: ignore[arg-type]
    assert [h.id for h in flat.retrieve("q", k=3)] == ["a1", "b1", "c1"]


def test_dense_first_boosts_rare_term_matches_only() -> None:
    lexical = bm25_retriever()
    dense = RecordingRetriever(corpus_hits("b1", "a1", "b2", "c1"))
    hybrid = HybridRetriever(dense=dense, lexical=lexical, fusion="dense-first", rare_df=0.2, boost=0.5)
    # "python" is in 2 of 5 documents (not rare at 0.2), "snake" in 1: b2 is boosted
    rare = lexical.rare_term_hits("python snake", max_df=0.2, k=100)
    assert [(h.id, h.score) for h in rare] == [("b2", 1.0)]
    got = hybrid.retrieve("python snake", k=4)
    assert [h.id for h in got] == [h.id for h in boost_matches(dense.hits, rare, boost=0.5)]
    assert got[0].id == "b2"
    # no rare term in the query: exactly the dense order
    assert [h.id for h in hybrid.retrieve("python", k=4)] == ["b1", "a1", "b2", "c1"]
    without = HybridRetriever(dense=dense, lexical=RecordingRetriever([]), fusion="dense-first")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="rare_term_hits"):
        without.retrieve("python snake")


@pytest.mark.parametrize("fusion", ["rrf", "minmax", "zscore", "dbsf", "adaptive", "dense-first"])
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
        ({"rare_df": 0}, "rare_df"),
        ({"boost": -0.1}, "boost must be non-negative"),
    ],
)
def test_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        HybridRetriever(dense=RecordingRetriever([]), lexical=RecordingRetriever([]), **kwargs)  # type: ignore[arg-type]


def test_rare_term_hits_count_rare_terms_and_respect_filters() -> None:
    lexical = bm25_retriever()
    # "fox" (stemmed) is in a1 and a2, "python" in b1 and b2, "bread" in c1 only
    both = lexical.rare_term_hits("fox bread python", max_df=0.4, k=10)
    assert {h.id: h.score for h in both} == {"a1": pytest.approx(1 / 3), "a2": pytest.approx(1 / 3),
                                             "b1": pytest.approx(1 / 3), "b2": pytest.approx(1 / 3),
                                             "c1": pytest.approx(1 / 3)}
    assert [h.id for h in lexical.rare_term_hits("fox bread python", max_df=0.2, k=10)] == ["c1"]
    flt = {"source": {"$glob": "animals/*"}}
    assert {h.id for h in lexical.rare_term_hits("fox bread python", max_df=0.4, k=10, filter=flt)} == {
        "a1", "a2", "b2"}
    assert lexical.rare_term_hits("the and", max_df=1.0, k=10) == []  # stopwords only
