"""Several datasets in one comparison: one table with a row per (dataset, retriever), a mean row
per retriever (the unweighted mean over datasets, each dataset counting once whatever its number
of queries), and each retriever's p50 latency minus dense's on the same dataset."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.evaluation.runner import EvalReport

#: between a pipeline's name and a retriever's when several pipelines are compared
LABEL_SEP = " / "
#: the retriever whose latency the others are compared with, when it is in the run
BASELINE = "dense"


@dataclass(frozen=True)
class DatasetReport:
    name: str
    documents: int
    split: str
    report: EvalReport

    def dense_gap_ms(self, retriever: str) -> float | None:
        """p50 latency of ``retriever`` minus dense's p50 on this dataset (None without dense)."""
        results = self.report.results
        label, sep, _ = retriever.rpartition(LABEL_SEP)
        baseline = f"{label}{sep}{BASELINE}"  # the same pipeline's dense retriever
        if baseline not in results or retriever == baseline:
            return None
        return results[retriever].latency_p50_ms - results[baseline].latency_p50_ms


def _retrievers(datasets: Sequence[DatasetReport]) -> list[str]:
    names: list[str] = []
    for ds in datasets:
        names.extend(n for n in ds.report.results if n not in names)
    return names


def mean_rows(datasets: Sequence[DatasetReport]) -> dict[str, dict[str, Any]]:
    """Per retriever: metrics and p50/p95 averaged over the datasets it ran on."""
    out: dict[str, dict[str, Any]] = {}
    for name in _retrievers(datasets):
        results = [ds.report.results[name] for ds in datasets if name in ds.report.results]
        metrics = results[0].mean.keys()
        gaps = [g for ds in datasets if (g := ds.dense_gap_ms(name)) is not None]
        out[name] = {
            "retriever": name,
            "datasets": len(results),
            "metrics": {m: statistics.fmean(r.mean[m] for r in results) for m in metrics},
            "latency_ms": {
                "p50": statistics.fmean(r.latency_p50_ms for r in results),
                "p95": statistics.fmean(r.latency_p95_ms for r in results),
            },
            "p50_minus_dense_ms": max(gaps) if gaps else None,
        }
    return out


def to_dict(datasets: Sequence[DatasetReport], *, per_query: bool = False) -> dict[str, Any]:
    """``datasets``: each dataset's full report (as ``EvalReport.to_dict``); ``mean``: one row
    per retriever; ``p50_minus_dense_ms`` in a mean row is the largest gap over the datasets."""
    out_sets = []
    for ds in datasets:
        d = ds.report.to_dict(per_query=per_query)
        for row in d["results"]:
            row["p50_minus_dense_ms"] = ds.dense_gap_ms(row["retriever"])
        out_sets.append({"dataset": ds.name, "documents": ds.documents, "split": ds.split, **d})
    return {"datasets": out_sets, "mean": list(mean_rows(datasets).values())}


def _gap(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f}"


def to_markdown(datasets: Sequence[DatasetReport]) -> str:
    metrics = list(datasets[0].report.metrics)
    head = ["dataset", "retriever", *metrics, "p50 ms", "p95 ms", "p50 − dense ms"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds in datasets:
        for r in ds.report.results.values():
            cells = [ds.name, r.name, *(f"{r.mean[m]:.4f}" for m in metrics),
                     f"{r.latency_p50_ms:.1f}", f"{r.latency_p95_ms:.1f}", _gap(ds.dense_gap_ms(r.name))]
            lines.append("| " + " | ".join(cells) + " |")
    if len(datasets) > 1:
        for row in mean_rows(datasets).values():
            cells = [f"mean of {row['datasets']}", row["retriever"],
                     *(f"{row['metrics'][m]:.4f}" for m in metrics),
                     f"{row['latency_ms']['p50']:.1f}", f"{row['latency_ms']['p95']:.1f}",
                     _gap(row["p50_minus_dense_ms"])]
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for ds in datasets:
        r = ds.report
        lines.append(f"{ds.name}: {ds.documents} documents, {r.num_queries} judged queries "
                     f"(split {ds.split}), top {r.k} retrieved.")
    lines.append(
        "Metrics as trec_eval defines them (nDCG gain = graded relevance, ideal DCG from all judged "
        "documents); ndcg_exp uses the gain 2^rel - 1. Mean rows: unweighted mean over datasets; "
        "their p50 − dense is the largest gap on any dataset. Retrievers take turns query by query, "
        "so latencies are comparable within a dataset."
    )
    return "\n".join(lines)
