"""`ragkit eval`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ragkit.cli.options import echo_json, json_option


@click.command(name="eval")
@click.option("--dataset", "-d", "datasets", required=True, multiple=True,
              type=click.Path(exists=True, file_okay=False),
              help="BEIR-layout directory: corpus.jsonl, queries.jsonl, qrels/<split>.tsv "
                   "(repeat to evaluate on several; the table gets a mean row per retriever).")
@click.option("--pipeline", "-p", "pipelines", multiple=True, type=click.Path(dir_okay=False),
              help="Pipeline YAML to evaluate (repeat to compare several). Default: built-in defaults.")
@click.option("--retriever", "-r", "retrievers", multiple=True, default=None,
              help="dense, bm25 or hybrid, optionally with options: hybrid:fusion=rrf,weight=0.7 "
                   "(repeat to compare). Default: dense.")
@click.option("--split", default="test", show_default=True, help="qrels file to use (qrels/<split>.tsv).")
@click.option("-k", "k", type=click.IntRange(min=10), default=100, show_default=True, help="Depth of each ranking.")
@click.option("--index-root", default=".ragkit/eval", show_default=True, type=click.Path(file_okay=False),
              help="Where the corpus indexes are kept (reused: a second eval embeds nothing).")
@click.option("--per-query", "per_query", type=click.Path(dir_okay=False), default=None,
              help="Write per-query metrics and rankings to this JSON file.")
@click.option("--results", type=click.Path(dir_okay=False), default=None,
              help="Append the results to this DuckDB file (table eval_results).")
@json_option
def eval_(datasets: tuple[str, ...], pipelines: tuple[str, ...], retrievers: tuple[str, ...], split: str,
          k: int, index_root: str, per_query: str | None, results: str | None, as_json: bool) -> None:
    """Measure retrieval quality on BEIR-layout datasets.

    Metrics follow trec_eval (ideal DCG from all judged documents): nDCG@10, Recall@10,
    Recall@100, MRR@10, MAP@100; ndcg_exp@10 uses the exponential gain (2^rel - 1) that BEIR's
    published tables use. Several retrievers and pipelines are compared side by side in one run,
    taking turns query by query; each row shows its p50 latency minus dense's on the same dataset.
    With several datasets, one table holds them all plus a mean row per retriever; --json keeps
    each dataset's full results.

    \b
    Examples:
      ragkit eval --dataset ../shared/datasets/msmarco-5k -r dense -r bm25 -r hybrid
      ragkit eval -d ../shared/datasets/msmarco-5k -d ../shared/datasets/dbpedia-5k-dev \\
                  -r dense -r hybrid:fusion=dbsf -r hybrid:fusion=rrf,weight=0.7
      ragkit eval -d DIR -p pipelines/default.yaml -p pipelines/torch.yaml --results evals.duckdb
    """
    from ragkit.evaluation import multi
    from ragkit.evaluation.pipeline_eval import evaluate_pipelines

    done: list[multi.DatasetReport] = []
    for dataset in datasets:
        report, ds = evaluate_pipelines(
            dataset, pipelines=list(pipelines) or [None], retrievers=list(retrievers) or ["dense"],
            split=split, k=k, index_root=index_root, progress=not as_json and sys.stderr.isatty(),
        )
        done.append(multi.DatasetReport(name=ds.name, documents=len(ds.corpus), split=split, report=report))
        if results:
            report.append_to_duckdb(results, dataset=ds.name,
                                    params={"pipelines": list(pipelines), "k": k, "split": split})
    if per_query:
        text = json.dumps(multi.to_dict(done, per_query=True), indent=2)
        Path(per_query).write_text(text + "\n", encoding="utf-8")
    if as_json:
        echo_json(multi.to_dict(done, per_query=False))
    else:
        click.echo(multi.to_markdown(done))
