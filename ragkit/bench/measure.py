"""Query-side measurements against one open store (one sweep setting).

In order: warm-up queries (untimed); a serial pass at ``k`` (latency percentiles, recall@k);
a serial pass at ``GT_K`` (recall@100); throughput with 1, 2, 4... threads sharing the query set
(queries per second of wall time, best reported); filtered passes (recall@k against the filtered
brute-force truth, latency). Every result list goes through :class:`ragkit.bench.metrics.Sanity`.
Latencies are ``time.perf_counter`` around ``store.search`` only.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragkit.bench.datasets import FILTERS, GT_K, Dataset
from ragkit.bench.metrics import Sanity, latency_summary, mean_recall


@dataclass(frozen=True)
class QueryPlan:
    k: int = 10
    warmup: int = 50
    concurrency: tuple[int, ...] = (1, 2, 4)
    max_queries: int | None = None
    filtered_queries: int = 200
    progress: bool = False


def _bar(total: int, desc: str, progress: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="q", file=sys.stderr, disable=not progress, leave=False)


def _serial(
    store: Any, queries: np.ndarray, k: int, flt: dict[str, Any] | None, bar: Any
) -> tuple[list[list[str]], list[float]]:
    ids: list[list[str]] = []
    times: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        hits = store.search(q, k=k, filter=flt)
        times.append(time.perf_counter() - t0)
        ids.append([h.id for h in hits])
        bar.update(1)
    return ids, times


def _qps(store: Any, queries: np.ndarray, k: int, threads: int) -> float:
    """Queries per second when ``threads`` threads split the query set between them."""
    chunks = [queries[i::threads] for i in range(threads)]

    def work(chunk: np.ndarray) -> int:
        for q in chunk:
            store.search(q, k=k)
        return len(chunk)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        t0 = time.perf_counter()
        done = sum(pool.map(work, chunks))
        wall = time.perf_counter() - t0
    return done / wall if wall > 0 else float("nan")


def measure_queries(store: Any, ds: Dataset, plan: QueryPlan, *, label: str) -> dict[str, Any]:
    n_q = ds.queries.shape[0] if plan.max_queries is None else min(plan.max_queries, ds.queries.shape[0])
    queries = np.ascontiguousarray(ds.queries[:n_q])
    sanity = Sanity()
    warm = queries[: min(plan.warmup, n_q)]
    total = len(warm) + 2 * n_q + n_q * len(plan.concurrency)
    bar = _bar(total, f"{label}: queries", plan.progress)
    _serial(store, warm, plan.k, None, bar)
    ids_k, times_k = _serial(store, queries, plan.k, None, bar)
    ids_100, times_100 = _serial(store, queries, GT_K, None, bar)
    rows_k = [sanity.check(r, k=plan.k, n=ds.n, where=f"query {i} k={plan.k}") for i, r in enumerate(ids_k)]
    rows_100 = [sanity.check(r, k=GT_K, n=ds.n, where=f"query {i} k={GT_K}") for i, r in enumerate(ids_100)]
    short = sum(len(r) < min(plan.k, ds.n) for r in ids_k)
    qps = {}
    for threads in plan.concurrency:
        qps[str(threads)] = _qps(store, queries, plan.k, threads)
        bar.update(n_q)
    bar.close()
    out: dict[str, Any] = {
        "queries": n_q,
        "k": plan.k,
        f"recall@{plan.k}": mean_recall(rows_k, ds.gt, plan.k),
        f"recall@{GT_K}": mean_recall(rows_100, ds.gt, GT_K),
        "latency": latency_summary(times_k),
        f"latency_k{GT_K}": latency_summary(times_100),
        "qps": qps,
        "best_qps": max(qps.values()) if qps else None,
        "short_results": short,
    }
    out["filtered"] = _filtered(store, ds, plan, sanity, label)
    out["sanity"] = sanity.to_dict()
    return out


def _filtered(store: Any, ds: Dataset, plan: QueryPlan, sanity: Sanity, label: str) -> dict[str, Any]:
    n_f = min(plan.filtered_queries, ds.queries.shape[0])
    if plan.max_queries is not None:
        n_f = min(n_f, plan.max_queries)
    out: dict[str, Any] = {}
    bar = _bar(n_f * len(FILTERS), f"{label}: filtered", plan.progress)
    for name, flt in FILTERS.items():
        mask = ds.filter_mask(name)
        try:
            ids, times = _serial(store, ds.queries[:n_f], plan.k, flt, bar)
        except Exception as exc:  # noqa: BLE001 - an unsupported filter is reported, not fatal
            out[name] = {"error": f"{type(exc).__name__}: {exc}", "filter": flt}
            continue
        rows = [
            sanity.check(r, k=plan.k, n=ds.n, where=f"{name} query {i}", allowed=mask)
            for i, r in enumerate(ids)
        ]
        out[name] = {
            "filter": flt,
            "selectivity": float(mask.mean()),
            "queries": n_f,
            f"recall@{plan.k}": mean_recall(rows, ds.filtered_gt[name], plan.k),
            "latency": latency_summary(times),
        }
    bar.close()
    recalls = [v[f"recall@{plan.k}"] for v in out.values() if "error" not in v]
    out["mean_recall"] = float(np.mean(recalls)) if recalls else None
    return out
