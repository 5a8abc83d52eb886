"""The faiss store's approximate methods side by side, store level, on the same segments.

The rows (``--vectors``: the hashing embedder's msmarco-5k rows, as ``index_scale.py --engines``
makes them) are added to one store per method in flushes of ``--segment-rows`` rows (default
``MAX_MERGED_ROWS``), so each becomes a full-size segment that a background merge indexes alone:
the segments a store of that size settles into (smaller ones, with the merge cap lowered to
their size: as many segments as a larger store). Then every query (msmarco-5k and dbpedia-5k-dev) is asked of every variant in
turn, interleaved, ``--repeat`` times: warm p50/p95 ms, recall@10 against exact search per query
set, the index build time per segment and the disk of the ANN files. A variant is a method with
its search settings: ``pq`` as built (each segment's shortlist re-ranked on its own: ``pool`` off)
or with the shortlists pooled across segments, ``ivfpq`` likewise, and fixed ``nprobe``/``rerank``
overrides.

    python benchmarks/ann_methods.py --vectors /var/tmp/vec-1m.npy --rows 1000000 \
        --workdir /var/tmp/ann --result ann-methods-1m
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.stores._vector_segments import SHORTLIST_FACTOR as FACTOR  # read before a variant changes it

sys.path.insert(0, str(Path(__file__).resolve().parent))

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
QUERY_SETS = {"msmarco": DATASETS / "msmarco-5k" / "queries.jsonl", "dbpedia": DATASETS / "dbpedia-5k-dev" / "queries.jsonl"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vectors", type=Path, required=True, help="a .npy of the rows' vectors (index_scale.py makes it)")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--methods", default="pq,ivfpq")
    ap.add_argument("--variants", default="pq,pq+pool,ivfpq+pool,ivfpq",
                    help="METHOD[+pool][:nprobe=N][:rerank=N][:factor=N] (factor: SHORTLIST_FACTOR), comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--segment-rows", type=int, default=262_144, help="rows per segment (the merge cap by default)")
    ap.add_argument("--workdir", type=Path, required=True, help="the stores are kept here between runs")
    ap.add_argument("--result", default="", help="write benchmarks/results/NAME.json")
    return ap.parse_args(argv)


def queries() -> tuple[np.ndarray, np.ndarray]:
    from ragkit.testing.hashing import HashingEmbedder

    texts, group = [], []
    for name, path in QUERY_SETS.items():
        with open(path, encoding="utf-8") as fh:
            qs = [json.loads(line)["text"] for line in fh if line.strip()]
        texts += qs
        group += [name] * len(qs)
    return HashingEmbedder(dimension=384).embed_documents(texts).astype(np.float32), np.asarray(group)


def build(method: str, x: np.ndarray, folder: Path, segment_rows: int) -> tuple[Any, dict[str, Any]]:
    """The store of ``method`` (``pq``, ``ivfpq``; ``@M``: ``pq_m`` M) over ``x`` in segments of
    ``segment_rows`` (built once, reopened after), its build facts."""
    from ragkit.stores.faiss import FaissStore

    facts_file = folder / "build.json"
    ann, _, m = method.partition("@")
    store = FaissStore(dimension=x.shape[1], path=folder, build={"ann": ann, "pq_m": int(m) if m else None})
    store._log.max_merged_rows = min(store._log.max_merged_rows, segment_rows)  # segments stay this size
    if not facts_file.is_file():
        per_segment = []
        for a in range(0, x.shape[0], segment_rows):
            ids = [str(i) for i in range(a, min(x.shape[0], a + segment_rows))]
            store.add(ids, np.asarray(x[a : a + len(ids)]), [{} for _ in ids])
            store.persist()
            t = time.perf_counter()
            store.wait_merges()
            per_segment.append(round(time.perf_counter() - t, 1))
        ann = [p for p in folder.rglob("*") if p.name.startswith(("pq.", "ivf."))]
        facts = {"index_build_s_per_segment": per_segment, "ann_disk_mb": round(sum(p.stat().st_size for p in ann) / 2**20, 1),
                 "load_after_build": load_avg()}
        facts_file.write_text(json.dumps(facts), encoding="utf-8")
    facts = json.loads(facts_file.read_text(encoding="utf-8"))
    info = store.describe()
    facts |= {k: info.get(k) for k in ("segments", "pq_segments", "pq_m", "rerank", "nlist", "nprobe", "recall_at_10")}
    return store, facts


def variant(spec: str) -> dict[str, Any]:
    head, *opts = spec.split(":")
    method, _, pool = head.partition("+")
    out: dict[str, Any] = {"name": spec, "method": method, "pool": bool(pool)}
    for o in opts:
        key, _, value = o.partition("=")
        out[key] = int(value)
    return out


def search(store: Any, v: np.ndarray, var: dict[str, Any]) -> list[int]:
    from ragkit.stores import _vector_segments as vs

    segs = store._log.live_segments()
    for s in segs:
        s.payload._nprobe, s.payload._rerank = var.get("nprobe"), var.get("rerank")
    vs.SHORTLIST_FACTOR = var.get("factor", FACTOR) if var["pool"] else 10**9
    return [int(h.id) for h in store.search(v, k=10)]


def _cell(values: list[Any] | None) -> str | None:
    return "/".join(str(v) for v in values) if values else None


def _spread(values: list[float]) -> str:
    """Median (min–max) of the indexed segments' figures (a segment below ``ann_min`` gets none)."""
    v = sorted(x for x in values if x > 0)
    return f"{v[len(v) // 2]:.1f} ({v[0]:.1f}–{v[-1]:.1f})" if v else ""


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    from ragkit.stores._pq_rerank import exact_topk

    args = parse_args(argv)
    x = np.load(args.vectors, mmap_mode="r")[: args.rows]
    q, group = queries()
    truth = [set(t) for t in exact_topk(x, q, 10, 65536)]
    kth = np.asarray([min(float(np.asarray(x[r]) @ v) for r in t) for v, t in zip(q, truth, strict=True)])
    stores, facts = {}, {}
    for method in args.methods.split(","):
        folder = args.workdir / f"{method}-{args.rows}-{args.segment_rows}"
        stores[method], facts[method] = build(method, x, folder, args.segment_rows)
        print(json.dumps({method: facts[method]}), flush=True)
    variants = [variant(s) for s in args.variants.split(",")]
    load_start = load_avg()
    times: dict[str, list[float]] = {v["name"]: [] for v in variants}
    recall: dict[str, list[float]] = {v["name"]: [] for v in variants}
    for rep in range(args.repeat + 1):  # the first round warms the caches and is not timed
        for qi, v in enumerate(q):
            for var in variants if qi % 2 == 0 else variants[::-1]:
                t = time.perf_counter()
                got = search(stores[var["method"]], v, var)
                if rep:
                    times[var["name"]].append(time.perf_counter() - t)
                if rep == 1:
                    hit = sum(1 for g in got if g in truth[qi] or float(np.asarray(x[g]) @ v) >= kth[qi] - 1e-6)
                    recall[var["name"]].append(min(10, hit) / 10)
    load_end = load_avg()
    rows = []
    for var in variants:
        r, t = np.asarray(recall[var["name"]]), np.asarray(times[var["name"]])
        f = facts[var["method"]]
        rows.append([var["name"], f"{1000 * np.percentile(t, 50):.1f} / {1000 * np.percentile(t, 95):.1f}",
                     round(float(r.mean()), 4), *[round(float(r[group == g].mean()), 4) for g in QUERY_SETS],
                     _spread(f["index_build_s_per_segment"]), f["ann_disk_mb"], _cell(f.get("nprobe")), _cell(f.get("rerank"))])
        print(json.dumps(rows[-1]), flush=True)
    print(json.dumps({"load_start": load_start, "load_end": load_end}))
    if args.result:
        from render_tables import write_result

        write_result(args.result, title=f"The faiss store's approximate methods at {args.rows:,} rows in segments of {args.segment_rows:,} (store level, "
                     f"{len(q)} queries x {args.repeat}, warm, interleaved)", command="python " + " ".join(sys.argv),
                     columns=["variant", "p50 / p95 ms", "recall@10", *[f"recall@10 {g}" for g in QUERY_SETS],
                              "merge + index build s per segment", "ANN files MB", "nprobe (calibrated)", "rerank (calibrated)"],
                     rows=rows, conditions={"load_average": f"start {load_start}, end {load_end}",
                                            "facts": facts})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
