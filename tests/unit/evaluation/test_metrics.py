"""Metric functions against hand-computed values (trec_eval definitions)."""

from __future__ import annotations

import math
import random

import pytest

from ragkit.errors import ConfigError
from ragkit.evaluation.metrics import (
    evaluate,
    map_at_k,
    mrr_at_k,
    ndcg_at_k,
    parse_metric,
    rank,
    recall_at_k,
)

# graded: d is judged non-relevant, e is relevant but never retrieved, x is unjudged
GRADED = {"a": 3, "b": 2, "c": 1, "d": 0, "e": 2}
RANKING = ["b", "x", "a", "d", "c"]


def test_ndcg_graded_uses_all_judged_documents_for_the_ideal() -> None:
    dcg = 2 / math.log2(2) + 0 + 3 / math.log2(4)  # b, x, a
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 2 / math.log2(4)  # a, b, e (e is not retrieved)
    assert ndcg_at_k(RANKING, GRADED, k=3) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(RANKING, GRADED, k=3) == pytest.approx(0.665165, abs=1e-6)


def test_recall_counts_relevance_of_at_least_one() -> None:
    assert recall_at_k(RANKING, GRADED, k=3) == pytest.approx(2 / 4)  # b, a of a, b, c, e
    assert recall_at_k(RANKING, GRADED, k=5) == pytest.approx(3 / 4)


def test_map_divides_by_all_relevant_documents() -> None:
    assert map_at_k(RANKING, GRADED, k=5) == pytest.approx((1 / 1 + 2 / 3 + 3 / 5) / 4)
    assert map_at_k(RANKING, GRADED, k=2) == pytest.approx(1 / 4)


def test_mrr_is_cut_at_k() -> None:
    assert mrr_at_k(["x", "y", "a"], GRADED, k=10) == pytest.approx(1 / 3)
    assert mrr_at_k(["x", "y", "a"], GRADED, k=2) == 0.0
    assert mrr_at_k(["d", "c"], GRADED, k=2) == pytest.approx(1 / 2)  # d is judged 0: not relevant


def test_binary_relevance() -> None:
    qrels = {"a": 1, "b": 1}
    ranking = ["x", "a", "y", "b"]
    ideal = 1 + 1 / math.log2(3)
    assert ndcg_at_k(ranking, qrels, k=4) == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert mrr_at_k(ranking, qrels, k=10) == pytest.approx(0.5)
    assert map_at_k(ranking, qrels, k=10) == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert recall_at_k(ranking, qrels, k=2) == pytest.approx(0.5)


def test_fewer_results_than_k() -> None:
    qrels = {"a": 1, "b": 1}
    assert recall_at_k(["a"], qrels, k=10) == pytest.approx(0.5)
    assert ndcg_at_k(["a"], qrels, k=10) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k([], qrels, k=10) == 0.0


def test_ties_are_broken_by_doc_id_descending_like_trec_eval() -> None:
    assert rank({"d1": 1.0, "d2": 1.0, "d3": 0.5, "d0": 2.0}) == ["d0", "d2", "d1", "d3"]
    result = evaluate({"q": {"d1": 1.0, "d2": 1.0}}, {"q": {"d1": 1}}, metrics=["mrr@10"])
    assert result.mean["mrr@10"] == pytest.approx(0.5)


def test_queries_without_judgments_are_excluded() -> None:
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0}, "q3": {"a": 1.0}}
    qrels = {"q1": {"b": 1}, "q3": {}, "q4": {"a": 1}}
    result = evaluate(run, qrels, metrics=["mrr@10", "recall@10"])
    assert set(result.per_query) == {"q1", "q4"}  # q4 judged but not run: counts as an empty ranking
    assert result.excluded_queries == ("q2", "q3")
    assert result.per_query["q1"]["mrr@10"] == pytest.approx(0.5)
    assert result.per_query["q4"]["recall@10"] == 0.0
    assert result.mean["mrr@10"] == pytest.approx(0.25)


def test_a_query_with_only_non_relevant_judgments_scores_zero() -> None:
    result = evaluate({"q": {"a": 1.0}}, {"q": {"a": 0}})
    assert result.num_queries == 1
    assert all(v == 0.0 for v in result.mean.values())


@pytest.mark.parametrize("spec", ["ndcg", "ndcg@0", "precision@10", "ndcg@x"])
def test_bad_metric_names_are_rejected(spec: str) -> None:
    with pytest.raises(ConfigError, match="metric|k must"):
        parse_metric(spec)


def test_metric_names_parse() -> None:
    assert parse_metric("NDCG@10") == ("ndcg", 10)
    assert parse_metric("map@100") == ("map", 100)


def test_matches_pytrec_eval_on_seeded_random_runs() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rnd = random.Random(7)
    qrels = {
        f"q{i}": {f"d{j}": rnd.choice([0, 1, 2, 3]) for j in rnd.sample(range(80), 25)} for i in range(40)
    }
    # integer scores in a small range make many ties, exercising trec_eval's tie-breaking
    run = {q: {f"d{j}": float(rnd.randint(0, 6)) for j in rnd.sample(range(80), 50)} for q in qrels}
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut.10", "recall.10", "recall.100", "recip_rank", "map_cut.100", "map_cut.10"}
    ).evaluate(run)
    ours = evaluate(
        run, qrels, metrics=["ndcg@10", "recall@10", "recall@100", "mrr@1000", "map@100", "map@10"]
    )
    pairs = [
        ("ndcg_cut_10", "ndcg@10"),
        ("recall_10", "recall@10"),
        ("recall_100", "recall@100"),
        ("recip_rank", "mrr@1000"),
        ("map_cut_100", "map@100"),
        ("map_cut_10", "map@10"),
    ]
    for qid in qrels:
        for their_name, our_name in pairs:
            assert ours.per_query[qid][our_name] == pytest.approx(theirs[qid][their_name], abs=1e-9), (
                qid,
                our_name,
            )


def test_exponential_gain_ndcg() -> None:
    dcg = (2**2 - 1) / math.log2(2) + 0 + (2**3 - 1) / math.log2(4)  # b, x, a
    ideal = 7 / math.log2(2) + 3 / math.log2(3) + 3 / math.log2(4)  # a, b, e
    result = evaluate(
        {"q": {d: 5.0 - i for i, d in enumerate(RANKING)}}, {"q": GRADED}, metrics=["ndcg_exp@3"]
    )
    assert result.mean["ndcg_exp@3"] == pytest.approx(dcg / ideal)
    binary = {"a": 1, "b": 1}
    assert ndcg_at_k(["x", "a"], binary, k=5, gain="exponential") == pytest.approx(
        ndcg_at_k(["x", "a"], binary, k=5)
    )
    with pytest.raises(ConfigError, match="unknown nDCG gain 'cubic'"):
        ndcg_at_k(["a"], binary, k=1, gain="cubic")
