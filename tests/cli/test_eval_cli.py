"""`ragkit eval` end to end on a tiny hand-made BEIR dataset (hashing embedder, no model)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli

CORPUS = {
    "d1": ("Lighthouse", "The lighthouse lamp burns paraffin and turns twice a minute."),
    "d2": ("Ferry", "The ferry sails on Tuesdays and Fridays from the old harbour."),
    "d3": ("Rain", "The rain gauge is read every morning at nine o'clock."),
    "d4": ("Seals", "Grey seals haul out on the flat skerries in autumn."),
}
QUERIES = {"q1": "when does the ferry sail", "q2": "lighthouse lamp paraffin", "q3": "grey seals skerries",
           "q4": "unjudged query about nothing"}
QRELS = [("q1", "d2", 2), ("q2", "d1", 1), ("q3", "d4", 1), ("q3", "d3", 0)]


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    d = tmp_path / "tiny"
    (d / "qrels").mkdir(parents=True)
    (d / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n" for k, (t, x) in CORPUS.items()))
    (d / "queries.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n" for k, v in QUERIES.items()))
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{c}\t{s}\n" for q, c, s in QRELS))
    return d


@pytest.fixture()
def pipeline(tmp_path: Path) -> Path:
    p = tmp_path / "pipe.yaml"
    p.write_text(yaml.safe_dump({
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 500, "chunk_overlap": 0},
        "embedder": {"type": "hashing", "dimension": 128},
        "store": {"type": "memory"},
        "retriever": {"type": "hybrid", "fusion": "rrf"},
    }), encoding="utf-8")
    return p


def test_eval_compares_retrievers_and_writes_outputs(tmp_path: Path, dataset: Path, pipeline: Path) -> None:
    per_query = tmp_path / "per-query.json"
    results = tmp_path / "results.duckdb"
    args = ["eval", "--dataset", str(dataset), "-p", str(pipeline), "-r", "dense", "-r", "bm25", "-r", "hybrid",
            "--index-root", str(tmp_path / "eval-idx"), "--per-query", str(per_query), "--results", str(results), "--json"]
    res = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [d["dataset"] for d in out["datasets"]] == ["tiny"]
    report = out["datasets"][0]
    by_name = {r["retriever"]: r for r in report["results"]}
    assert set(by_name) == {"dense", "bm25", "hybrid"}
    assert report["num_queries"] == 3  # q4 has no judgments
    assert by_name["bm25"]["metrics"]["mrr@10"] == pytest.approx(1.0)  # every judged query's document ranks first
    assert json.loads(per_query.read_text())  # per-query file written
    with duckdb.connect(str(results), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM eval_results").fetchone()[0] == 3
    # a second eval reuses the index: nothing is embedded again, same figures
    res2 = CliRunner().invoke(cli, args[:-1], catch_exceptions=False)
    assert res2.exit_code == 0 and "| bm25 |" in res2.stdout


def test_eval_missing_qrels_is_a_clear_error(tmp_path: Path, dataset: Path) -> None:
    (dataset / "qrels" / "test.tsv").unlink()
    res = CliRunner().invoke(cli, ["eval", "--dataset", str(dataset), "--index-root", str(tmp_path / "x")])
    assert res.exit_code != 0 and "test.tsv" in res.stderr


def _second_dataset(tmp_path: Path) -> Path:
    d = tmp_path / "tiny2"
    (d / "qrels").mkdir(parents=True)
    corpus = {"e1": "Owls hunt mice at dusk.", "e2": "Kettles boil water for tea.", "e3": "Tides follow the moon."}
    (d / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n" for k, v in corpus.items()))
    (d / "queries.jsonl").write_text(json.dumps({"_id": "x1", "text": "owls hunting mice"}) + "\n"
                                     + json.dumps({"_id": "x2", "text": "moon and tides"}) + "\n")
    (d / "qrels" / "test.tsv").write_text("x1\te1\t1\nx2\te3\t2\n")  # no header line
    return d


def test_eval_over_two_datasets_prints_one_table_with_mean_rows(tmp_path: Path, dataset: Path, pipeline: Path) -> None:
    second = _second_dataset(tmp_path)
    base = ["eval", "-d", str(dataset), "-d", str(second), "-p", str(pipeline), "-r", "dense", "-r", "bm25",
            "-r", "hybrid:fusion=dbsf,weight=0.6", "--index-root", str(tmp_path / "idx")]
    res = CliRunner().invoke(cli, [*base, "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [d["dataset"] for d in out["datasets"]] == ["tiny", "tiny2"]
    assert [d["num_queries"] for d in out["datasets"]] == [3, 2]
    per = {(d["dataset"], r["retriever"]): r for d in out["datasets"] for r in d["results"]}
    assert set(per) == {(d, r) for d in ("tiny", "tiny2") for r in ("dense", "bm25", "hybrid:fusion=dbsf,weight=0.6")}
    assert per[("tiny", "dense")]["p50_minus_dense_ms"] is None
    gap = per[("tiny", "bm25")]["latency_ms"]["p50"] - per[("tiny", "dense")]["latency_ms"]["p50"]
    assert per[("tiny", "bm25")]["p50_minus_dense_ms"] == pytest.approx(gap)
    mean = {row["retriever"]: row for row in out["mean"]}
    for name, row in mean.items():  # the unweighted mean over the two datasets
        want = (per[("tiny", name)]["metrics"]["ndcg@10"] + per[("tiny2", name)]["metrics"]["ndcg@10"]) / 2
        assert row["metrics"]["ndcg@10"] == pytest.approx(want)
        assert row["datasets"] == 2
    assert per[("tiny2", "bm25")]["metrics"]["mrr@10"] == pytest.approx(1.0)

    text = CliRunner().invoke(cli, base, catch_exceptions=False).stdout
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| dataset | retriever | ndcg@10 |") and rows[0].rstrip().endswith("p50 − dense ms |")
    assert sum(r.startswith("| tiny |") for r in rows) == 3 and sum(r.startswith("| tiny2 |") for r in rows) == 3
    assert [r.split(" | ")[1] for r in rows if r.startswith("| mean of 2 |")] == [
        "dense", "bm25", "hybrid:fusion=dbsf,weight=0.6"]


def test_eval_retriever_options_are_checked(tmp_path: Path, dataset: Path, pipeline: Path) -> None:
    base = ["eval", "-d", str(dataset), "-p", str(pipeline), "--index-root", str(tmp_path / "idx")]
    res = CliRunner().invoke(cli, [*base, "-r", "hybrid:fusion=maxi"])
    assert res.exit_code != 0 and "unknown fusion 'maxi'" in res.stderr
    res = CliRunner().invoke(cli, [*base, "-r", "hybrid:weight"])
    assert res.exit_code != 0 and "key=value" in res.stderr
    res = CliRunner().invoke(cli, [*base, "-r", "hybird"])
    assert res.exit_code != 0 and "unknown retriever 'hybird'" in res.stderr
