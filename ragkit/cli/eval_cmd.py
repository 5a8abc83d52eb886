"""`ragkit eval`."""

from __future__ import annotations

import sys

import click

from ragkit.cli.options import echo_json, json_option


@click.command(name="eval")
@click.option("--dataset", "-d", required=True, type=click.Path(exists=True, file_okay=False),
              help="BEIR-layout directory: corpus.jsonl, queries.jsonl, qrels/<split>.tsv.")
@click.option("--pipeline", "-p", "pipelines", multiple=True, type=click.Path(dir_okay=False),
              help="Pipeline YAML to evaluate (repeat to compare several). Default: built-in defaults.")
@click.option("--retriever", "-r", "retrievers", multiple=True, default=None,
              help="dense, bm25 or hybrid (repeat to compare). Default: dense.")
@click.option("--split", default="test", show_default=True, help="qrels file to use (qrels/<split>.tsv).")
@click.option("-k", "k", type=click.IntRange(min=10), default=100, show_default=True, help="Depth of each ranking.")
@click.option("--index-root", default=".ragkit/eval", show_default=True, type=click.Path(file_okay=False),
              help="Where the corpus indexes are kept (reused: a second eval embeds nothing).")
@click.option("--per-query", "per_query", type=click.Path(dir_okay=False), default=None,
              help="Write per-query metrics and rankings to this JSON file.")
@click.option("--results", type=click.Path(dir_okay=False), default=None,
              help="Append the results to this DuckDB file (table eval_results).")
@json_option
def eval_(dataset: str, pipelines: tuple[str, ...], retrievers: tuple[str, ...], split: str, k: int,
          index_root: str, per_query: str | None, results: str | None, as_json: bool) -> None:
    """Measure retrieval quality on a BEIR-layout dataset.

    Metrics follow trec_eval (ideal DCG from all judged documents): nDCG@10, Recall@10,
    Recall@100, MRR@10, MAP@100; ndcg_exp@10 uses the exponential gain (2^rel - 1) that BEIR's
    published tables use. Several retrievers and pipelines are compared side by side in one run.

    \b
    Examples:
      ragkit eval --dataset ../shared/datasets/msmarco-5k -r dense -r bm25 -r hybrid
      ragkit eval -d DIR -p pipelines/default.yaml -p pipelines/fast.yaml --results evals.duckdb
    """
    from ragkit.evaluation.pipeline_eval import evaluate_pipelines

    report, ds = evaluate_pipelines(
        dataset, pipelines=list(pipelines) or [None], retrievers=list(retrievers) or ["dense"],
        split=split, k=k, index_root=index_root, progress=not as_json and sys.stderr.isatty(),
    )
    if per_query:
        report.to_json(per_query, per_query=True)
    if results:
        report.append_to_duckdb(results, dataset=ds.name, params={"pipelines": list(pipelines), "k": k, "split": split})
    if as_json:
        echo_json(report.to_dict(per_query=False))
    else:
        click.echo(f"dataset: {ds.name} ({len(ds.corpus)} documents, {report.num_queries} judged queries, split {split})")
        click.echo(report.to_markdown())
