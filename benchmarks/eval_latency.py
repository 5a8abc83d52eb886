"""Hybrid retrieval must cost what its parts cost: p50(hybrid) - p50(dense) <= 10 ms.

For each dataset (BEIR layout; the corpus is indexed once under --index-root, as `ragkit eval`
does, and reused), every judged query is run --rounds times by dense, bm25 and each hybrid
retriever, the retrievers taking turns query by query so that load changes on the shared machine
hit them alike. Each retriever is asked for its top 100 documents, as `ragkit eval` does. Printed
per dataset: p50 and p95 per retriever, and for each hybrid the check `p50 - dense p50 <= 10 ms`
(PASS/FAIL), with the machine's load average and the torch thread count. Exit status 1 when a
check fails.

What made hybrid latency uneven under load (500 ms against 96 ms on a loaded machine):
(1) `ragkit eval` ran all queries with one retriever, then the next, so each retriever met
different load; it now interleaves them. (2) The query embedding ran on torch's default two
intra-op threads: on an oversubscribed 2-core machine every operator waits at a barrier for its
slowest thread (load average 11: dense p50 426 ms, p95 1,524 ms; with one thread 38 / 55 ms).
The sentence-transformers embedder now encodes queries on one thread. BM25 itself costs ~1 ms.

  python benchmarks/eval_latency.py -d ../shared/datasets/msmarco-5k -d ../shared/datasets/dbpedia-5k-dev
  python benchmarks/eval_latency.py -d DIR -r hybrid -r hybrid:fusion=rrf
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BUDGET_MS = 10.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-d", "--dataset", action="append", required=True, help="BEIR dataset directory (repeat)")
    ap.add_argument("-p", "--pipeline", default=str(REPO / "pipelines" / "default.yaml"))
    ap.add_argument("-r", "--retriever", action="append", default=None,
                    help="hybrid retrievers to check, `ragkit eval -r` syntax (default: the pipeline's)")
    ap.add_argument("--index-root", default=str(REPO / ".ragkit" / "eval"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", dest="json_out", default=None, help="also write the figures to this file")
    return ap.parse_args(argv)


def measure(args: argparse.Namespace, dataset_dir: str) -> dict[str, object]:
    from ragkit.config import load_pipeline
    from ragkit.evaluation.beir import load_beir
    from ragkit.evaluation.pipeline_eval import (
        DocumentRetriever,
        build_eval_index,
        build_named_retriever,
        eval_spec,
        index_for,
    )
    from ragkit.index.reader import KnowledgeBase

    hybrids = args.retriever or ["hybrid"]
    names = ["dense", "bm25", *hybrids]
    dataset = load_beir(dataset_dir)
    spec = eval_spec(load_pipeline(args.pipeline), names)
    index_dir = index_for(spec, dataset, Path(args.index_root))
    build_eval_index(spec, dataset, index_dir)
    queries = list(dataset.judged_queries.values())
    with KnowledgeBase(spec, index_dir) as kb:
        retrievers = {n: DocumentRetriever(build_named_retriever(kb, n)) for n in names}
        for r in retrievers.values():
            r.retrieve(queries[0], k=100)  # warm-up: model load, BM25 matrices
        times: dict[str, list[float]] = {n: [] for n in names}
        turn = 0
        for _ in range(args.rounds):
            for q in queries:
                order = names[turn % len(names):] + names[: turn % len(names)]
                turn += 1
                for n in order:
                    t0 = time.perf_counter()
                    retrievers[n].retrieve(q, k=100)
                    times[n].append((time.perf_counter() - t0) * 1000.0)
    p50 = {n: statistics.median(v) for n, v in times.items()}
    p95 = {n: statistics.quantiles(v, n=20, method="inclusive")[18] for n, v in times.items()}
    return {"dataset": dataset.name, "queries": len(queries), "rounds": args.rounds, "p50_ms": p50,
            "p95_ms": p95, "gap_ms": {n: p50[n] - p50["dense"] for n in hybrids}}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    results = [measure(args, d) for d in args.dataset]
    ok = True
    torch = sys.modules.get("torch")  # loaded by a local embedder, not by this script
    threads = f"torch threads {torch.get_num_threads()} (queries encode on 1), " if torch else ""
    print(f"{threads}load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| dataset | retriever | p50 ms | p95 ms | p50 − dense p50 | ≤ 10 ms |")
    print("|---|---|---|---|---|---|")
    for res in results:
        for n, v in res["p50_ms"].items():  # type: ignore[attr-defined]
            gap = res["gap_ms"].get(n)  # type: ignore[attr-defined]
            verdict = "" if gap is None else ("PASS" if gap <= BUDGET_MS else "FAIL")
            ok &= verdict != "FAIL"
            print(f"| {res['dataset']} | {n} | {v:.1f} | {res['p95_ms'][n]:.1f} | "  # type: ignore[index]
                  f"{'' if gap is None else f'{gap:+.1f}'} | {verdict} |")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
