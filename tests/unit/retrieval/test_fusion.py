"""Fusion functions against hand-computed scores."""

from __future__ import annotations

import math

import pytest

from ragkit.errors import ConfigError
from ragkit.retrieval.fusion import (
    boost_matches,
    convex_combination,
    normalize_scores,
    reciprocal_rank_fusion,
    score_gap_confidence,
)
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


def _dbsf(x: float, scores: list[float]) -> float:
    """DBSF by hand: mean - 3 sigma -> 0, mean + 3 sigma -> 1 (population sigma), clipped."""
    mean = sum(scores) / len(scores)
    sigma = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
    return min(1.0, max(0.0, (x - (mean - 3 * sigma)) / (6 * sigma)))


def test_dbsf_normalization() -> None:
    sigma = math.sqrt(2 / 3)  # of 1, 2, 3
    assert normalize_scores([1.0, 2.0, 3.0], "dbsf") == pytest.approx(
        [0.5 - 1 / (6 * sigma), 0.5, 0.5 + 1 / (6 * sigma)]
    )
    assert normalize_scores([4.0, 4.0], "dbsf") == [0.5, 0.5]
    # one outlier among eleven scores lies sqrt(10) > 3 sigma above the mean: clipped to 1, and
    # the others keep a spread (min-max would give them all 0)
    out = normalize_scores([0.0] * 10 + [1.0], "dbsf")
    assert out[-1] == 1.0
    assert out[0] == pytest.approx(0.5 - 1 / (6 * math.sqrt(10)))


def test_dbsf_convex_combination() -> None:
    fused = convex_combination([DENSE, LEXICAL], weights=[0.5, 0.5], normalization="dbsf")
    d, lx = [0.9, 0.8, 0.5], [12.0, 6.0, 3.0]
    scores = {h.id: h.score for h in fused}
    assert scores["a"] == pytest.approx(0.5 * _dbsf(0.9, d) + 0.5 * _dbsf(3.0, lx))
    assert scores["b"] == pytest.approx(0.5 * _dbsf(0.8, d) + 0.5 * _dbsf(3.0, lx))  # missing: list floor
    assert scores["c"] == pytest.approx(0.5 * _dbsf(0.5, d) + 0.5 * _dbsf(12.0, lx))
    assert scores["d"] == pytest.approx(0.5 * _dbsf(0.5, d) + 0.5 * _dbsf(6.0, lx))
    # by hand: c 0.497, a 0.493, b 0.444, d 0.363
    assert [h.id for h in fused] == ["c", "a", "b", "d"]


@pytest.mark.parametrize(
    ("scores", "want"),
    [([10.0, 6.0, 1.0], 0.4), ([5.0, 5.0, 1.0], 0.0), ([3.0], 1.0), ([], 0.0), ([0.0, 0.0], 0.0)],
)
def test_score_gap_confidence(scores: list[float], want: float) -> None:
    assert score_gap_confidence(hits(*((f"d{i}", s) for i, s in enumerate(scores)))) == pytest.approx(want)


def test_boost_matches_keeps_the_primary_order_without_matches() -> None:
    fused = boost_matches(DENSE, [], boost=0.5)
    assert [h.id for h in fused] == ["a", "b", "c"]
    assert [h.score for h in fused] == pytest.approx([_dbsf(s, [0.9, 0.8, 0.5]) for s in (0.9, 0.8, 0.5)])


def test_boost_matches_adds_the_boost_in_proportion_to_the_match() -> None:
    d = [0.9, 0.8, 0.5]
    matches = hits(("c", 1.0), ("e", 0.5), tag="rare")
    small = {h.id: h.score for h in boost_matches(DENSE, matches, boost=0.1)}
    assert small["c"] == pytest.approx(_dbsf(0.5, d) + 0.1)
    assert small["e"] == pytest.approx(_dbsf(0.5, d) + 0.05)  # not in dense: its floor, plus the boost
    assert small["a"] == pytest.approx(_dbsf(0.9, d))
    # by hand: a 0.663, b 0.565, c 0.371, e 0.321
    assert [h.id for h in boost_matches(DENSE, matches, boost=0.1)] == ["a", "b", "c", "e"]
    # a boost larger than the dense gap (0.663 - 0.271) lifts the full match to the top
    assert [h.id for h in boost_matches(DENSE, matches, boost=0.4)][0] == "c"
    with pytest.raises(ConfigError, match="boost"):
        boost_matches(DENSE, matches, boost=-1)
