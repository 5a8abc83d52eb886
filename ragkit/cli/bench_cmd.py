"""`ragkit bench`: compare vector stores on the same vectors, honestly."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ragkit.cli.options import echo_json, json_option


@click.command()
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="Bench matrix: named backends and profiles [default: configs/bench.yaml when it exists in "
    "the current directory, else the copy shipped with ragkit].",
)
@click.option(
    "--profile",
    default="default",
    show_default=True,
    help="Profile in the config: default (100k x 384, servers), quick (2k x 32, < 1 min) "
    "or msmarco (real all-MiniLM-L6-v2 embeddings of msmarco-5k, cached after the first run).",
)
@click.option(
    "--backends", default=None, help="Comma-separated backend names from the config (default: the profile's)."
)
@click.option(
    "--n", "n", type=click.IntRange(min=1), default=None, help="Override the number of data vectors."
)
@click.option(
    "--dim", "dim", type=click.IntRange(min=1), default=None, help="Override the dimension (synthetic)."
)
@click.option("--queries", type=click.IntRange(min=1), default=None, help="Override the number of queries.")
@click.option(
    "--output", type=click.Path(dir_okay=False), default=None, help="Also write the run record as JSON here."
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write a PNG: recall@10 vs QPS per backend, and build times.",
)
@click.option(
    "--results",
    "results_path",
    type=click.Path(dir_okay=False),
    default=".ragkit/bench/results.duckdb",
    show_default=True,
    help="DuckDB file every run is appended to (with versions and machine info).",
)
@click.option("--compare", is_flag=True, help="Show the latest stored runs side by side instead of running.")
@json_option
def bench(
    config: str | None,
    profile: str,
    backends: str | None,
    n: int | None,
    dim: int | None,
    queries: int | None,
    output: str | None,
    plot_path: str | None,
    results_path: str,
    compare: bool,
    as_json: bool,
) -> None:
    """Benchmark vector stores: recall, latency, QPS, build time, disk and memory.

    Every backend gets the same seeded vectors and held-apart queries; recall is measured
    against exact brute-force neighbours; each backend runs in its own process (peak memory is
    its own); Chroma-over-HTTP and pgvector run against real servers started on loopback.
    Every result list is sanity-checked (no duplicate ids, at most k hits, ids exist, filters
    respected); a failing result is shown as INVALID, never dropped.

    \b
    Examples:
      ragkit bench --profile quick                         # < 1 minute, no servers
      ragkit bench --plot docs/bench-recall-qps.png        # 100k x 384, all backends
      ragkit bench --backends faiss-hnsw,pgvector --n 20000 --queries 200
      ragkit bench --profile quick --json --output run.json
      ragkit bench --profile msmarco                       # real embeddings (embedded once)
      ragkit bench --compare                               # latest stored runs side by side
    """
    from ragkit.bench import report, results

    if compare:
        _compare(results_path, as_json)
        return
    from ragkit.bench.config import load_profile
    from ragkit.bench.runner import run_profile

    names = [b.strip() for b in backends.split(",") if b.strip()] if backends else None
    prof = load_profile(
        config, profile, backends=names, dataset_overrides={"n": n, "dimension": dim, "queries": queries}
    )
    record = run_profile(prof, progress=sys.stderr.isatty() and not as_json)
    stored = results.append(record, results_path)
    if output:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(_dumps(record))
    if plot_path:
        report.plot(record, plot_path)
    if as_json:
        echo_json(record)
        return
    click.echo(report.markdown(report.rows(record)))
    click.echo("")
    click.echo(report.caption(record))
    click.echo(
        f"{stored} result rows appended to {results_path}" + (f"; plot: {plot_path}" if plot_path else "")
    )
    failed = [b["backend"] for b in record["backends"] if "error" in b]
    if failed:
        click.secho(f"failed backends: {', '.join(failed)} (see the status column)", fg="red", err=True)


def _compare(results_path: str, as_json: bool) -> None:
    from ragkit.bench import report, results

    table = results.latest(results_path)
    if as_json:
        echo_json(table)
        return
    cols: list[tuple[str, str, str]] = [
        ("dataset", "dataset", "s"),
        ("backend", "backend", "s"),
        ("params", "params", "s"),
        ("run_id", "run", "s"),
        ("recall_10", "recall@10", ".3f"),
        ("p50_ms", "p50 ms", ".2f"),
        ("p99_ms", "p99 ms", ".2f"),
        ("best_qps", "best QPS", ",.0f"),
        ("build_s", "build s", ".1f"),
        ("disk_mb", "disk MB", ".1f"),
        ("status", "status", "s"),
    ]
    click.echo(report.markdown(table, cols))


def _dumps(data: Any) -> str:
    import json

    return json.dumps(data, indent=2, default=str)
