"""Fusion functions against hand-computed scores."""

from __future__ import annotations

import math

import pytest

from ragkit.errors import ConfigError
from ragkit.retrieval.fusion import convex_combination, normalize_scores, reciprocal_rank_fusion
from ragkit.types import SearchHit


def hits(*pairs: tuple[str, float], tag: str = "") -> list[SearchHit]:
    return [SearchHit(id=d, score=s, metadata={"from": tag}) for d, s in pairs]


DENSE = hits(("a", 0.9), ("b", 0.8), ("c", 0.5), tag="dense")
LEXICAL = hits(("c", 12.0), ("d", 6.0), ("a", 3.0), tag="lexical")


def test_rrf_scores_and_order() -> None:
    fused = reciprocal_rank_fusion([DENSE, LEXICAL], k=60)
    scores = {h.id: h.score for h in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62)
    assert scores["d"] == pytest.approx(1 / 62)
    # a and c tie (best rank 1 each) -> by id; b and d tie (best rank 2) -> by id
    assert [h.id for h in fused] == ["a", "c", "b", "d"]


def test_rrf_keeps_metadata_of_the_first_list_that_had_the_id() -> None:
    fused = {h.id: h for h in reciprocal_rank_fusion([DENSE, LEXICAL])}
    assert fused["c"].metadata == {"from": "dense"}
    assert fused["d"].metadata == {"from": "lexical"}


def test_weighted_rrf_and_k() -> None:
    fused = reciprocal_rank_fusion([DENSE, LEXICAL], k=1, weights=[1.0, 3.0])
    scores = {h.id: h.score for h in fused}
    assert scores["c"] == pytest.approx(1 / 4 + 3 / 2)
    assert scores["a"] == pytest.approx(1 / 2 + 3 / 4)
    assert [h.id for h in fused] == ["c", "a", "d", "b"]  # 1.75, 1.25, 1.0, 0.333


def test_rrf_counts_a_duplicate_id_once_per_list() -> None:
    fused = reciprocal_rank_fusion([hits(("a", 1), ("a", 0.5), ("b", 0.1))], k=0)
    assert {h.id: h.score for h in fused} == {"a": pytest.approx(1.0), "b": pytest.approx(1 / 3)}


def test_minmax_convex_combination() -> None:
    fused = convex_combination([DENSE, LEXICAL], weights=[0.5, 0.5], normalization="minmax")
    scores = {h.id: h.score for h in fused}
    # dense minmax: a 1, b 0.75, c 0; lexical minmax: c 1, d 1/3, a 0; missing -> 0
    assert scores["a"] == pytest.approx(0.5 * 1 + 0.5 * 0)
    assert scores["b"] == pytest.approx(0.5 * 0.75)
    assert scores["c"] == pytest.approx(0.5 * 0 + 0.5 * 1)
    assert scores["d"] == pytest.approx(0.5 / 3)
    assert [h.id for h in fused] == ["a", "c", "b", "d"]


def test_zscore_convex_combination_missing_ids_get_the_list_minimum() -> None:
    fused = convex_combination([DENSE, LEXICAL], weights=[0.8, 0.2], normalization="zscore")
    dz = normalize_scores([0.9, 0.8, 0.5], "zscore")
    lz = normalize_scores([12.0, 6.0, 3.0], "zscore")
    scores = {h.id: h.score for h in fused}
    assert scores["a"] == pytest.approx(0.8 * dz[0] + 0.2 * lz[2])
    assert scores["b"] == pytest.approx(0.8 * dz[1] + 0.2 * min(lz))
    assert scores["d"] == pytest.approx(0.8 * min(dz) + 0.2 * lz[1])


def test_normalizations() -> None:
    assert normalize_scores([2.0, 4.0, 3.0], "minmax") == [0.0, 1.0, 0.5]
    assert normalize_scores([5.0, 5.0], "minmax") == [1.0, 1.0]
    z = normalize_scores([1.0, 2.0, 3.0], "zscore")
    assert z == pytest.approx([-math.sqrt(1.5), 0.0, math.sqrt(1.5)])
    assert normalize_scores([], "zscore") == []


def test_weight_one_keeps_the_first_lists_order() -> None:
    fused = convex_combination([DENSE, LEXICAL], weights=[1.0, 0.0])
    assert [h.id for h in fused][:3] == ["a", "b", "c"]


def test_empty_lists() -> None:
    assert reciprocal_rank_fusion([[], []]) == []
    assert [h.id for h in convex_combination([[], LEXICAL], weights=[0.5, 0.5])] == ["c", "d", "a"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: reciprocal_rank_fusion([DENSE], weights=[1, 2]), "one weight per result list"),
        (lambda: reciprocal_rank_fusion([DENSE], k=-1), "must be non-negative"),
        (lambda: convex_combination([DENSE], weights=[-1]), "non-negative"),
        (
            lambda: convex_combination([DENSE], weights=[1], normalization="l2"),
            "unknown score normalization 'l2'",
        ),
    ],
)
def test_invalid_arguments(call: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        call()  # type: ignore[operator]
