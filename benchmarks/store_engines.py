"""Store-level comparison for ``index_scale.py --engines``: ragkit's segmented faiss store against
LanceDB (``lancedb``: append-only fragments, versions, IVF-PQ), on the same vectors.

Each engine gets the same rows in commits of ``--flush-chunks`` (ragkit: ``add`` + ``persist``;
LanceDB: ``table.add``, one new fragment and version each), then builds what it searches with
(ragkit: its background merges and IVF segments; LanceDB: ``create_index`` IVF-PQ with a refine
factor, after ``optimize`` compacts the fragments), then answers the same queries: warm p50/p95
and recall@10 against exact search, overall and per query set (msmarco-5k and dbpedia-5k-dev
queries). Vectors: the ``hashing`` embedder over msmarco-5k passages made unique by a row number
(as the pipeline stages of ``index_scale.py``); ``--vectors FILE.npy`` keeps them between runs
(made on the first, memory-mapped after: embedding 1M rows takes ~4 minutes).

    python benchmarks/index_scale.py --engines ragkit --sizes 1000000 --vectors /tmp/vec-1m.npy
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def _vectors(n: int, texts: list[str], queries: list[str], cache: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    from index_scale import row_text  # noqa: PLC0415 - the benchmarks folder is not a package

    from ragkit.testing.hashing import HashingEmbedder

    emb = HashingEmbedder(dimension=384)
    q = emb.embed_documents(queries).astype(np.float32)
    if cache is not None and cache.is_file():
        rows = np.load(cache, mmap_mode="r")
        if rows.shape[0] >= n and rows.shape[1] == 384:
            return rows[:n], q
    rows = (np.lib.format.open_memmap(cache, mode="w+", dtype=np.float32, shape=(n, 384)) if cache is not None
            else np.empty((n, 384), dtype=np.float32))
    for a in range(0, n, 20000):
        rows[a : a + 20000] = emb.embed_documents([row_text(i, texts) for i in range(a, min(n, a + 20000))])
    return rows, q


def _exact(x: np.ndarray, q: np.ndarray, block: int = 65536) -> list[set[int]]:
    """The exact top 10 of each query (ties at the 10th score count as found: ``_found``)."""
    from ragkit.stores._pq_rerank import exact_topk

    return [set(t) for t in exact_topk(x, q, 10, block)]


def _found(x: np.ndarray, v: np.ndarray, truth: set[int], got: list[int]) -> float:
    """recall@10: the hits that are true top-10 rows, or score as high as the 10th (a tie)."""
    kth = float(min(np.asarray(x[sorted(truth)]) @ v))
    return min(10, sum(1 for g in got if g in truth or float(np.asarray(x[g]) @ v) >= kth - 1e-6)) / 10


def _ragkit(x: np.ndarray, q: np.ndarray, flush: int, work: Path) -> dict[str, Any]:
    from ragkit.stores.faiss import FaissStore

    store = FaissStore(dimension=x.shape[1], path=work / "ragkit")
    flushes = []
    for a in range(0, x.shape[0], flush):
        t = time.perf_counter()
        ids = [str(i) for i in range(a, min(x.shape[0], a + flush))]
        store.add(ids, x[a : a + flush], [{"row": int(i)} for i in ids])
        store.persist()
        flushes.append(time.perf_counter() - t)
    t = time.perf_counter()
    store.wait_merges()
    build = time.perf_counter() - t
    info = store.describe()
    print(json.dumps({k: info.get(k) for k in ("segments", "live", "search_mode", "pq_segments", "pq_rows", "pq_m",
                                               "rerank", "ivf_segments", "nprobe", "recall_at_10")}), flush=True)
    search = lambda v: [int(h.id) for h in store.search(v, k=10)]  # noqa: E731
    return {"flushes": flushes, "build": build, "search": search, "path": work / "ragkit"}


def _lancedb(x: np.ndarray, q: np.ndarray, flush: int, work: Path) -> dict[str, Any]:
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(str(work / "lancedb"))
    table = None
    flushes = []
    for a in range(0, x.shape[0], flush):
        t = time.perf_counter()
        part = x[a : a + flush]
        batch = pa.table({"id": pa.array(np.arange(a, a + part.shape[0])),
                          "vector": pa.FixedSizeListArray.from_arrays(pa.array(part.reshape(-1)), x.shape[1])})
        if table is None:
            table = db.create_table("chunks", batch)
        else:
            table.add(batch)
        flushes.append(time.perf_counter() - t)
    assert table is not None
    t = time.perf_counter()
    table.optimize()
    parts = max(1, int(np.sqrt(x.shape[0])))
    table.create_index(metric="dot", vector_column_name="vector", index_type="IVF_PQ",
                       num_partitions=parts, num_sub_vectors=48)
    build = time.perf_counter() - t

    def search(v: np.ndarray) -> list[int]:
        res = table.search(v).metric("dot").nprobes(32).refine_factor(10).limit(10).to_arrow()
        return [int(i) for i in res.column("id").to_pylist()]

    return {"flushes": flushes, "build": build, "search": search, "path": work / "lancedb"}


def compare(engines: list[str], args: argparse.Namespace, texts: list[str]) -> list[list[Any]]:
    from index_scale import QUERIES, load_avg  # noqa: PLC0415 - the benchmarks folder is not a package

    n = int(args.sizes.split(",")[-1])
    sets: dict[str, list[str]] = {}
    for name, path in (("msmarco", QUERIES), ("dbpedia", QUERIES.parent.parent / "dbpedia-5k-dev" / "queries.jsonl")):
        if path.is_file():
            with open(path, encoding="utf-8") as fh:
                sets[name] = [json.loads(line)["text"] for line in fh if line.strip()][: args.queries]
    queries = [t for qs in sets.values() for t in qs]
    group = np.asarray([name for name, qs in sets.items() for _ in qs])
    x, q = _vectors(n, texts, queries, getattr(args, "vectors", None))
    t = time.perf_counter()
    truth = _exact(x, q)
    print(json.dumps({"exact_s": round(time.perf_counter() - t, 1), "queries": {k: len(v) for k, v in sets.items()},
                      "load": load_avg()}), flush=True)
    rows = []
    for name in engines:
        work = Path(tempfile.mkdtemp(dir=args.workdir))
        try:
            res = {"ragkit": _ragkit, "lancedb": _lancedb}[name](x, q, args.flush_chunks, work)
            for v in q[:10]:
                res["search"](v)
            times, cpu, recall = [], [], []
            for v, t in zip(q, truth, strict=True):
                s, c = time.perf_counter(), time.thread_time()
                got = res["search"](v)
                times.append(time.perf_counter() - s)
                cpu.append(time.thread_time() - c)
                recall.append(_found(x, v, t, got))
            rec = np.asarray(recall)
            print(json.dumps({"engine": name, "load": load_avg(), "cpu_ms_p50": round(1000 * float(np.median(cpu)), 2),
                              "cpu_ms_p95": round(1000 * float(np.percentile(cpu, 95)), 2), "recall_by_set": {
                g: round(float(rec[group == g].mean()), 4) for g in sets}, "min_recall": float(rec.min())}), flush=True)
            fl = res["flushes"]
            k = max(1, len(fl) // 10)
            disk = sum(p.stat().st_size for p in res["path"].rglob("*") if p.is_file()) / 2**20
            rows.append([name, f"{n:,}", f"{np.median(fl[:k]):.3f}", f"{np.median(fl[-k:]):.3f}", f"{res['build']:.1f}",
                         f"{1000 * np.percentile(times, 50):.1f}", f"{1000 * np.percentile(times, 95):.1f}",
                         f"{np.mean(recall):.3f}", f"{disk:.0f}"])
            print(json.dumps(rows[-1]), flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return rows
