"""run_retrieval_eval with fake retrievers: metrics, report formats, DuckDB results."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from ragkit.errors import ConfigError
from ragkit.evaluation.runner import run_retrieval_eval
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

QUERIES = {"q1": "cats", "q2": "dogs", "q3": "unjudged"}
QRELS = {"q1": {"c1": 2, "c2": 1}, "q2": {"d1": 1}}


class ListRetriever:
    """Returns a fixed ranking per query text (a fake, not a mock)."""

    def __init__(self, rankings: dict[str, list[str]]) -> None:
        self.rankings = rankings
        self.calls: list[tuple[str, int]] = []

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        self.calls.append((query, k))
        ids = self.rankings.get(query, [])[:k]
        return [SearchHit(id=d, score=1.0) for d in ids]  # equal scores: the list order must win


PERFECT = ListRetriever({"cats": ["c1", "c2"], "dogs": ["d1"]})
WORSE = ListRetriever({"cats": ["x", "c2", "c1"], "dogs": ["x"]})


def test_metrics_per_retriever_and_query() -> None:
    report = run_retrieval_eval({"perfect": PERFECT, "worse": WORSE}, QUERIES, QRELS, k=10)
    assert report.num_queries == 2 and report.skipped_queries == 1
    assert report.results["perfect"].mean["ndcg@10"] == pytest.approx(1.0)
    assert report.results["perfect"].mean["mrr@10"] == pytest.approx(1.0)
    worse = report.results["worse"]
    assert worse.per_query["q1"]["mrr@10"] == pytest.approx(0.5)
    assert worse.per_query["q2"]["recall@10"] == 0.0
    assert worse.mean["mrr@10"] == pytest.approx(0.25)
    assert worse.ranked_ids["q1"] == ["x", "c2", "c1"]
    assert len(worse.latencies_ms) == 2


def test_unjudged_queries_are_not_run() -> None:
    fake = ListRetriever({})
    run_retrieval_eval({"fake": fake}, QUERIES, QRELS, k=7)
    asked = [q for q, _ in fake.calls]
    assert "unjudged" not in asked
    assert all(k == 7 for _, k in fake.calls)


def test_markdown_json_and_duckdb(tmp_path: Path) -> None:
    report = run_retrieval_eval({"perfect": PERFECT, "worse": WORSE}, QUERIES, QRELS, k=10)
    md = report.to_markdown()
    assert md.splitlines()[0].startswith("| retriever | ndcg@10 | recall@10 |")
    assert "| perfect | 1.0000 |" in md
    data = json.loads(report.to_json(tmp_path / "r.json"))
    assert json.loads((tmp_path / "r.json").read_text()) == data
    assert data["results"][1]["per_query"]["q1"]["ranked_ids"] == ["x", "c2", "c1"]
    db = tmp_path / "results.duckdb"
    assert report.append_to_duckdb(db, dataset="tiny", params={"worse": {"fusion": "rrf"}}) == 2
    report.append_to_duckdb(db, dataset="tiny")
    con = duckdb.connect(str(db))
    rows = con.execute(
        "SELECT retriever, ndcg_10, params, versions FROM eval_results ORDER BY retriever"
    ).fetchall()
    con.close()
    assert len(rows) == 4
    assert rows[0][0] == "perfect" and rows[0][1] == pytest.approx(1.0)
    assert {json.loads(r[2]).get("fusion") for r in rows if r[0] == "worse"} == {"rrf", None}
    assert "python" in json.loads(rows[0][3])


def test_duplicate_ids_from_a_retriever_are_reported() -> None:
    broken = ListRetriever({"cats": ["c1", "c1"], "dogs": ["d1"]})
    with pytest.raises(ConfigError, match="duplicate ids"):
        run_retrieval_eval({"broken": broken}, QUERIES, QRELS)


def test_no_judged_queries_is_an_error() -> None:
    with pytest.raises(ConfigError, match="has relevance judgments"):
        run_retrieval_eval({"p": PERFECT}, {"q9": "x"}, QRELS)


class LoggingRetriever(ListRetriever):
    """Also writes (name, query) to a log shared by several retrievers."""

    def __init__(self, name: str, log: list[tuple[str, str]]) -> None:
        super().__init__({"cats": ["c1"], "dogs": ["d1"]})
        self.name, self.log = name, log

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        self.log.append((self.name, query))
        return super().retrieve(query, k, filter)


def test_retrievers_take_turns_query_by_query() -> None:
    log: list[tuple[str, str]] = []
    retrievers = {n: LoggingRetriever(n, log) for n in ("a", "b", "c")}
    run_retrieval_eval(retrievers, {"q1": "cats", "q2": "dogs"}, QRELS, k=10)
    # one warm-up each, then each query by every retriever, the starting one rotating
    assert log == [("a", "cats"), ("b", "cats"), ("c", "cats"),
                   ("a", "cats"), ("b", "cats"), ("c", "cats"),
                   ("b", "dogs"), ("c", "dogs"), ("a", "dogs")]
