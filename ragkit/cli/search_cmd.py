"""`ragkit search`."""

from __future__ import annotations

import textwrap
from typing import Any

import click

from ragkit.cli.options import echo_json, index_option, json_option, pipeline_option


@click.command()
@click.argument("query")
@click.option("-k", "--top-k", "k", type=click.IntRange(min=1), default=None, help="Number of results (default: the pipeline's retriever.top_k, 5).")
@click.option("--source", "source_glob", default=None, help="Only search sources matching this glob, e.g. 'docs/*.md'.")
@click.option("--retriever", default=None,
              help="Override the pipeline's retriever: dense, bm25, hybrid, or rerank / mmr (which wrap the pipeline's retriever).")
@click.option("--rerank-model", default=None, metavar="DIR",
              help="The local cross-encoder directory for --retriever rerank (default: the pipeline's retriever.model).")
@click.option("--min-score", type=float, default=None, metavar="SCORE",
              help="Drop results scoring below SCORE, in the retriever's units (dense: cosine similarity; "
                   "bm25: the raw BM25 score; hybrid: the fused score). Default: the pipeline's retriever.min_score.")
@pipeline_option
@index_option
@json_option
def search(query: str, k: int | None, source_glob: str | None, retriever: str | None, rerank_model: str | None,
           min_score: float | None, pipeline: str | None, index_dir: str | None, as_json: bool) -> None:
    """Semantic search over the index; prints score, source, page and the matching text.

    \b
    Examples:
      ragkit search "who founded the observatory"
      ragkit search "opening hours" -k 3 --source '*.md' --json
      ragkit search "tide gauge" --retriever dense --min-score 0.35
      ragkit search "tide gauge" --retriever rerank --rerank-model models/ms-marco-MiniLM-L-6-v2
    """
    from ragkit.errors import ConfigError
    from ragkit.index.reader import KnowledgeBase
    from ragkit.types import Citation

    flt = {"source": {"$glob": source_glob}} if source_glob else None
    with KnowledgeBase.open(pipeline=pipeline, index=index_dir) as kb:
        kind: Any = retriever
        if rerank_model is not None:
            if retriever not in (None, "rerank"):
                raise ConfigError("--rerank-model goes with --retriever rerank")
            kind = {**kb.components.retriever_conf("rerank"), "model": rerank_model}
        hits = kb.search(query, k=k, filter=flt, kind=kind, min_score=min_score)
    if as_json:
        echo_json([{"rank": i, "id": h.id, "score": h.score, **h.metadata} for i, h in enumerate(hits, 1)])
        return
    if not hits:
        click.echo("no results")
    for i, h in enumerate(hits, 1):
        m = h.metadata
        location = Citation.from_hit(i, h).location(short=True)  # "p. 3"; a notebook's "cell 3"
        where = m.get("source", "?") + (f"  {location}" if location else "")
        if m.get("heading"):
            where += f"  § {m['heading']}"
        click.echo(click.style(f"{i}. {h.score:.3f}  ", bold=True) + click.style(where, fg="cyan"))
        text = " ".join(str(m.get("text", "")).split())
        click.echo(textwrap.indent(textwrap.fill(textwrap.shorten(text, 600, placeholder=" …"), 96), "   "))
