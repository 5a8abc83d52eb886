"""Run several retrievers over the same judged queries and compare them.

``run_retrieval_eval`` retrieves the top ``k`` for every judged query with each retriever
(after one untimed warm-up query, so lazy model loading is not timed; the retrievers take turns
query by query, so load changes on a shared machine hit them alike), scores the runs with
``ragkit.evaluation.metrics`` and returns an ``EvalReport``: mean and per-query metrics, the
retrieved ids, and latency figures (``time.perf_counter``; median and p95 per query).
"""

from __future__ import annotations

import json
import logging
import platform
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError
from ragkit.evaluation.metrics import DEFAULT_METRICS, Qrels, evaluate
from ragkit.retrieval.base import Retriever, check_k

log = logging.getLogger(__name__)
_VERSIONED = ("ragkit", "numpy", "bm25s", "sentence-transformers", "torch", "duckdb")
# the five metrics, plus nDCG with exponential gain (how the msmarco-5k README's figures are computed)
EVAL_METRICS: tuple[str, ...] = (*DEFAULT_METRICS, "ndcg_exp@10")
_STANDARD_COLUMNS = {
    "ndcg@10": "ndcg_10",
    "recall@10": "recall_10",
    "recall@100": "recall_100",
    "mrr@10": "mrr_10",
    "map@100": "map_100",
}


@dataclass(frozen=True)
class RetrieverResult:
    name: str
    mean: dict[str, float]
    per_query: dict[str, dict[str, float]]
    ranked_ids: dict[str, list[str]]
    latencies_ms: list[float]
    total_seconds: float

    @property
    def latency_p50_ms(self) -> float:
        return statistics.median(self.latencies_ms) if self.latencies_ms else 0.0

    @property
    def latency_p95_ms(self) -> float:
        if len(self.latencies_ms) < 2:
            return self.latency_p50_ms
        return statistics.quantiles(self.latencies_ms, n=20, method="inclusive")[18]

    def to_dict(self, *, per_query: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "retriever": self.name,
            "metrics": self.mean,
            "latency_ms": {"p50": self.latency_p50_ms, "p95": self.latency_p95_ms},
            "total_seconds": self.total_seconds,
            "num_queries": len(self.per_query),
        }
        if per_query:
            out["per_query"] = {
                qid: {"metrics": m, "ranked_ids": self.ranked_ids.get(qid, [])[:10]}
                for qid, m in self.per_query.items()
            }
        return out


@dataclass(frozen=True)
class EvalReport:
    results: dict[str, RetrieverResult]
    metrics: tuple[str, ...]
    k: int
    num_queries: int
    skipped_queries: int = 0
    versions: dict[str, str] = field(default_factory=dict)
    created: str = ""

    def to_dict(self, *, per_query: bool = True) -> dict[str, Any]:
        return {
            "created": self.created,
            "k": self.k,
            "metrics": list(self.metrics),
            "num_queries": self.num_queries,
            "skipped_queries": self.skipped_queries,
            "versions": self.versions,
            "results": [r.to_dict(per_query=per_query) for r in self.results.values()],
        }

    def to_json(self, path: str | Path | None = None, *, per_query: bool = True) -> str:
        text = json.dumps(self.to_dict(per_query=per_query), indent=2, sort_keys=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def to_markdown(self) -> str:
        head = ["retriever", *self.metrics, "p50 ms", "p95 ms"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in self.results.values():
            cells = [
                r.name,
                *(f"{r.mean[m]:.4f}" for m in self.metrics),
                f"{r.latency_p50_ms:.1f}",
                f"{r.latency_p95_ms:.1f}",
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        lines.append(
            f"{self.num_queries} judged queries, top {self.k} retrieved; metrics as trec_eval "
            "defines them (nDCG gain = graded relevance, ideal DCG from all judged documents); "
            "ndcg_exp uses the gain 2^rel - 1."
        )
        return "\n".join(lines)

    def append_to_duckdb(
        self, path: str | Path, *, dataset: str, params: Mapping[str, Any] | None = None
    ) -> int:
        """Append one row per retriever to the ``eval_results`` table; returns the rows written.

        ``params`` maps a retriever name to its parameters (or holds shared parameters under
        any other key); it is stored as JSON with the row.
        """
        import duckdb

        params = dict(params or {})
        con = duckdb.connect(str(path))
        try:
            con.execute(_CREATE_TABLE)
            for r in self.results.values():
                row_params = params.get(r.name, params)
                std = [r.mean.get(m) for m in _STANDARD_COLUMNS]
                con.execute(
                    "INSERT INTO eval_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        self.created,
                        dataset,
                        r.name,
                        json.dumps(row_params, default=str),
                        json.dumps(r.mean),
                        *std,
                        len(r.per_query),
                        r.latency_p50_ms,
                        r.latency_p95_ms,
                        json.dumps(self.versions),
                    ],
                )
        finally:
            con.close()
        return len(self.results)


_CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS eval_results (
    created TIMESTAMP, dataset VARCHAR, retriever VARCHAR, params JSON, metrics JSON,
    ndcg_10 DOUBLE, recall_10 DOUBLE, recall_100 DOUBLE, mrr_10 DOUBLE, map_100 DOUBLE,
    num_queries INTEGER, latency_p50_ms DOUBLE, latency_p95_ms DOUBLE, versions JSON
)
"""


def package_versions(names: Sequence[str] = _VERSIONED) -> dict[str, str]:
    """Installed versions of the packages that influence results (without importing them)."""
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            continue
    return out


@dataclass
class _Run:
    run: dict[str, dict[str, float]] = field(default_factory=dict)
    ranked: dict[str, list[str]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0


def _run_interleaved(
    retrievers: Mapping[str, Retriever], queries: Mapping[str, str], k: int, progress: bool
) -> dict[str, _Run]:
    """Every query is run by every retriever in turn (the order rotating from query to query),
    so a change in machine load hits all retrievers alike instead of whichever ran through the
    queries at that time; latencies of different retrievers stay comparable on a shared machine."""
    from tqdm import tqdm

    first = next(iter(queries.values()))
    for retriever in retrievers.values():
        retriever.retrieve(first, k=k)  # warm-up: lazy model loading and index builds are not timed
    names = list(retrievers)
    runs = {name: _Run() for name in names}
    for n, (qid, text) in enumerate(tqdm(queries.items(), desc="eval", disable=not progress, leave=False)):
        for name in names[n % len(names):] + names[: n % len(names)]:
            t0 = time.perf_counter()
            hits = retrievers[name].retrieve(text, k=k)
            elapsed = time.perf_counter() - t0
            out = runs[name]
            out.latencies.append(elapsed * 1000.0)
            out.seconds += elapsed
            ids = [h.id for h in hits]
            if len(set(ids)) != len(ids) or len(ids) > k:
                raise ConfigError(
                    f"retriever {name!r} returned duplicate ids or more than k={k} hits "
                    f"for query {qid!r}; this is a bug in the retriever"
                )
            out.ranked[qid] = ids
            # Scores for trec_eval ordering: strictly decreasing by rank, so the retriever's order wins.
            out.run[qid] = {doc: float(len(ids) - i) for i, doc in enumerate(ids)}
    return runs


def run_retrieval_eval(
    retrievers: Mapping[str, Retriever],
    queries: Mapping[str, str],
    qrels: Qrels,
    *,
    k: int = 100,
    metrics: Sequence[str] = EVAL_METRICS,
    progress: bool = False,
) -> EvalReport:
    """Evaluate each retriever on the judged ``queries``; unjudged queries are skipped."""
    check_k(k)
    if not retrievers:
        raise ConfigError("run_retrieval_eval needs at least one retriever")
    judged = {qid: text for qid, text in queries.items() if qrels.get(qid)}
    if not judged:
        raise ConfigError(
            f"none of the {len(queries)} queries has relevance judgments; check the qrels split"
        )
    results: dict[str, RetrieverResult] = {}
    for name, out in _run_interleaved(retrievers, judged, k, progress).items():
        scored = evaluate(out.run, {qid: qrels[qid] for qid in judged}, metrics=metrics)
        results[name] = RetrieverResult(
            name=name,
            mean=scored.mean,
            per_query=scored.per_query,
            ranked_ids=out.ranked,
            latencies_ms=out.latencies,
            total_seconds=out.seconds,
        )
        log.info("eval %s: %s", name, {m: round(v, 4) for m, v in scored.mean.items()})
    return EvalReport(
        results=results,
        metrics=tuple(metrics),
        k=k,
        num_queries=len(judged),
        skipped_queries=len(queries) - len(judged),
        versions=package_versions(),
        created=datetime.now(timezone.utc).replace(tzinfo=None).isoformat(timespec="seconds"),
    )
