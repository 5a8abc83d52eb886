"""`ragkit bench --profile quick` end to end: table, JSON, PNG, DuckDB row, --compare."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from ragkit.cli.bench_cmd import bench

BACKENDS = "memory,faiss-flat,faiss-hnsw,faiss-ivf-flat,duckdb,sqlite"


@pytest.mark.slow
def test_quick_profile_through_the_cli(tmp_path: Path, repo_root: Path) -> None:
    config = str(repo_root / "configs" / "bench.yaml")
    results, plot, output = tmp_path / "r.duckdb", tmp_path / "plot.png", tmp_path / "run.json"
    args = ["--config", config, "--profile", "quick", "--backends", BACKENDS, "--results", str(results)]
    res = CliRunner().invoke(
        bench, [*args, "--plot", str(plot), "--output", str(output)], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    assert "| backend | params | recall@10 |" in res.output
    for name in BACKENDS.split(","):
        assert f"| {name} |" in res.output
    assert "ERROR" not in res.output and "INVALID" not in res.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    record = json.loads(output.read_text())
    assert record["versions"]["numpy"] and record["machine"]["cores"]
    exact = {b["backend"]: b for b in record["backends"]}["memory"]["settings"][0]
    assert exact["recall@10"] == 1.0 and exact["sanity"]["valid"]
    with duckdb.connect(str(results)) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
        n_rows = con.execute("SELECT count(*) FROM results WHERE valid").fetchone()
    assert n_rows is not None and n_rows[0] >= len(BACKENDS.split(","))

    res = CliRunner().invoke(
        bench,
        [
            *args[:2],
            "--backends",
            "memory",
            "--profile",
            "quick",
            "--n",
            "300",
            "--queries",
            "20",
            "--results",
            str(results),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["dataset"]["n"] == 300

    res = CliRunner().invoke(bench, ["--compare", "--results", str(results)])
    assert res.exit_code == 0, res.output
    assert "synthetic-2000x32" in res.output and "synthetic-300x32" in res.output


def test_compare_without_results_names_the_fix(tmp_path: Path) -> None:
    res = CliRunner().invoke(bench, ["--compare", "--results", str(tmp_path / "none.duckdb")])
    assert res.exit_code != 0
    assert "run `ragkit bench` first" in str(res.exception)


def test_unknown_backend_is_a_config_error_with_a_suggestion(repo_root: Path) -> None:
    from ragkit.errors import ConfigError

    res = CliRunner().invoke(
        bench, ["--config", str(repo_root / "configs/bench.yaml"), "--backends", "fiass-flat"]
    )
    assert isinstance(res.exception, ConfigError)
    assert "did you mean 'faiss-flat'" in str(res.exception)
