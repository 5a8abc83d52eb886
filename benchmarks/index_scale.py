"""Index builds at scale: per-flush cost against index size, from 100k to ten million chunks.

One index grows in stages (default 100k, 300k, 1M one-chunk rows: msmarco-5k passages, each
made unique by a row number, written as JSON Lines files of ``--rows-per-file`` rows; the
``hashing`` embedder, so the figures are everything but the model). Every stage is its own
``ragkit`` process: wall time, peak RSS (``os.wait4``), and its flushes (time of each against
the index size, from the pipeline's progress events). After each stage: disk size and warm
dense-search p50/p95 with recall@10 against exact search (msmarco-5k queries). At the largest
size: an unchanged re-run and adding one file. Per stage also the non-model CPU per chunk and the
disk per chunk; ``--result NAME`` writes the stages as the documentation's table
(``benchmarks/results/NAME.json``, with the machine, the load at start and end, and the commit),
and the disk per chunk by component at each stage (``NAME-disk.json``, from ``index_disk.py``:
the store's vectors, rows and PQ codes, the BM25 postings and rows, the catalog's tables).
``--increments N`` instead adds N folders of
``--increment-rows`` rows one process each (the acceptance ratio: the 4th vs the 1st);
``--model-sample N`` indexes N rows with the real model (sentence-transformers) for its rate;
``--engines`` compares, at the store level, ragkit's segments with LanceDB (``lancedb`` importable).

    python benchmarks/index_scale.py --sizes 100000,300000,1000000           # to a million
    python benchmarks/index_scale.py --sizes 1000000,3000000,10000000 --workdir /var/tmp \
        --result index-scale-10m --json-out /var/tmp/index-scale-10m.json        # to ten million (hours)
    python benchmarks/index_scale.py --sizes 100000 --result index-scale-100k  # the short proof
    python benchmarks/index_scale.py --increments 4 --increment-rows 25000 --flush-chunks 256
    python benchmarks/index_scale.py --sizes 20000 --engines ragkit,lancedb  # store level, side by side
    python benchmarks/index_scale.py --sizes 1000000 --engines ragkit --vectors /tmp/vec-1m.npy  # search at 1M
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402 - the benchmarks folder is not a package
    DEFAULT_CORPUS,
    check_ok,
    machine_facts,
    markdown_table,
    print_facts,
    run_measured,
)
from index_disk import disk_breakdown, per_chunk_kb  # noqa: E402

QUERIES = DEFAULT_CORPUS.parent / "queries.jsonl"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,300000,1000000", help="index sizes (rows) of the stages")
    ap.add_argument("--rows-per-file", type=int, default=1000)
    ap.add_argument("--flush-chunks", type=int, default=4096)
    ap.add_argument("--increments", type=int, default=0, help="instead: N increments of --increment-rows rows")
    ap.add_argument("--increment-rows", type=int, default=25_000)
    ap.add_argument("--model-sample", type=int, default=0, help="also index N rows with the real model")
    ap.add_argument("--engines", default="", help="store-level comparison: ragkit,lancedb")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--vectors", type=Path, default=None, help="--engines: a .npy cache of the rows' vectors")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json-out", type=Path, default=None, help="every figure, raw")
    ap.add_argument("--result", default="", help="write the stages as benchmarks/results/NAME.json")
    ap.add_argument("--child", choices=["index", "search"], help=argparse.SUPPRESS)
    ap.add_argument("--pipeline", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--paths", nargs="*", default=[], help=argparse.SUPPRESS)
    return ap.parse_args(argv)


# --------------------------------------------------------------------------- data


def passages() -> list[str]:
    with open(DEFAULT_CORPUS, encoding="utf-8") as fh:
        return [json.loads(line)["text"] for line in fh if line.strip()]


def row_text(i: int, texts: list[str]) -> str:
    """Row ``i``: a random window of most of one passage plus the start of another, so rows are
    distinct (not one passage repeated with a number, whose near-duplicates would tie)."""
    rng = random.Random(i)
    a, b = texts[i % len(texts)].split(), texts[rng.randrange(len(texts))].split()
    width = max(1, int(len(a) * 0.7))
    start = rng.randrange(len(a) - width + 1)
    return " ".join(a[start : start + width] + b[:12]) + f" row{i}"


def write_rows(folder: Path, start: int, n: int, per_file: int, texts: list[str]) -> None:
    """Rows ``start .. start+n`` as JSONL files of ``per_file`` rows (one chunk each)."""
    folder.mkdir(parents=True, exist_ok=True)
    for a in range(start, start + n, per_file):
        with open(folder / f"rows-{a:08d}.jsonl", "w", encoding="utf-8") as fh:
            for i in range(a, min(a + per_file, start + n)):
                fh.write(json.dumps({"_id": str(i), "text": row_text(i, texts)}) + "\n")


#: the text one stage may load (millions of characters): 10 M rows are about 3,300
RUN_TEXT_MB = 100_000


def write_pipeline(dest: Path, index: Path, flush: int, embedder: dict[str, Any]) -> Path:
    import yaml

    dest.write_text(yaml.safe_dump({
        "index": str(index),
        "loaders": {".jsonl": {"type": "jsonl", "text_field": "text", "id_field": "_id"}},
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 4000, "chunk_overlap": 0},
        "embedder": embedder,
        "indexing": {"flush_chunks": flush},
        # a stage loads gigabytes of text in one run: past the default per-run budget the rest
        # of its files would be skipped (and loaded by the next run), so a stage would not be its size
        "sources": {"limits": {"max_text_per_run_mb": RUN_TEXT_MB}},
    }, sort_keys=False), encoding="utf-8")
    return dest


# --------------------------------------------------------------------------- children


def child_index(args: argparse.Namespace) -> None:
    """One `ragkit index` run in this process, reporting each flush (time, chunks before it)."""
    import logging

    from ragkit.config import load_pipeline
    from ragkit.index.writer import IndexingPipeline

    logging.basicConfig(level=logging.WARNING)
    spec = load_pipeline(args.pipeline)
    flushes: list[tuple[float, int]] = []
    last = [time.perf_counter()]
    held = [0]

    def progress(event: str, n: int) -> None:
        if event == "chunks":
            now = time.perf_counter()
            flushes.append((now - last[0], held[0]))
            last[0] = now
            held[0] += n

    pipe = IndexingPipeline(spec, progress=progress)
    emb = pipe.components.embedder
    embed_cpu = [0.0]
    inner = emb.embed_batch

    def timed(texts: Any) -> Any:  # the model's share of the CPU time (this thread's)
        t = time.thread_time()
        try:
            return inner(texts)
        finally:
            embed_cpu[0] += time.thread_time() - t

    emb.embed_batch = timed  # type: ignore[method-assign]
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    report = pipe.index_paths(args.paths)
    cpu = time.process_time() - cpu0
    held[0] = report.chunks_before
    print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_s": cpu, "embed_cpu_s": embed_cpu[0],
                      "non_model_chunks_per_cpu_s": report.chunks_added / max(cpu - embed_cpu[0], 1e-9),
                      "non_model_ms_per_chunk": 1000 * (cpu - embed_cpu[0]) / max(report.chunks_added, 1),
                      "chunks_total": report.chunks_total,
                      "chunks_added": report.chunks_added, "unchanged": report.unchanged,
                      "skipped": [list(s) for s in report.skipped[:5]], "skipped_n": len(report.skipped),
                      "flushes": [[round(s, 4), n + report.chunks_before] for s, n in flushes]}))


def child_search(args: argparse.Namespace) -> None:
    """Warm dense search p50/p95 and recall@10 against exact search over every stored vector."""
    from ragkit.index.reader import KnowledgeBase

    kb = KnowledgeBase.open(pipeline=args.pipeline)
    with open(QUERIES, encoding="utf-8") as fh:
        queries = [json.loads(line)["text"] for line in fh if line.strip()][: args.queries]
    vecs = kb.embedder.embed_documents(queries)
    store = kb.store
    for v in vecs[:10]:  # warm-up
        store.search(v, k=10)
    times, got = [], []
    for v in vecs:
        t = time.perf_counter()
        hits = store.search(v, k=10)
        times.append(time.perf_counter() - t)
        got.append([h.id for h in hits])
    segs = store._log.live_segments()  # exact reference: every live vector
    truth: list[list[tuple[float, str]]] = [[] for _ in vecs]
    for seg in segs:
        x = np.asarray(seg.payload.vectors)
        s = vecs @ x.T
        if seg.dead is not None:
            s[:, seg.dead] = -np.inf
        top = np.argsort(-s, axis=1)[:, :10]
        for qi in range(len(vecs)):
            truth[qi].extend((float(s[qi, r]), seg.rows.get(int(r))[0]) for r in top[qi] if np.isfinite(s[qi, r]))
    recall = np.mean([len({i for _, i in sorted(t, reverse=True)[:10]} & set(g)) / 10 for t, g in zip(truth, got, strict=True)])
    print(json.dumps({"p50_ms": 1000 * float(np.percentile(times, 50)), "p95_ms": 1000 * float(np.percentile(times, 95)),
                      "recall_at_10": float(recall), "profile": search_profile(segs, vecs[:50]),
                      "describe": store.describe()}))


def search_profile(segs: list[Any], vecs: np.ndarray) -> dict[str, Any]:
    """Where a warm search's time goes, per query (medians): the PQ fast scans of the indexed
    segments, the exact re-rank of their pooled shortlists, and the segments searched exactly."""
    from ragkit.stores._vector_segments import SHORTLIST_FACTOR, _pool

    indexed = [s.payload for s in segs if s.payload.pq is not None]
    pool = SHORTLIST_FACTOR * max((p.rerank for p in indexed), default=0)
    scan, rerank, exact = [], [], []
    for v in vecs:
        t = time.perf_counter()
        found = [p.candidates(v, 10, None, ann=True) for p in indexed]
        t_scan = time.perf_counter() - t
        t = time.perf_counter()
        if len(found) > 1:
            _pool(found, list(range(len(found))), pool)
        for p, f in zip(indexed, found, strict=True):
            p.exact(f.rows, v)
        t_rerank = time.perf_counter() - t
        t = time.perf_counter()
        for seg in segs:
            if seg.payload.pq is None:
                np.asarray(seg.payload.vectors) @ v
        scan.append(t_scan), rerank.append(t_rerank), exact.append(time.perf_counter() - t)
    return {"segments": len(segs), "pq_segments": len(indexed),
            "pq_rows": int(sum(len(p) for p in indexed)),
            "exact_rows": int(sum(len(s.payload) for s in segs if s.payload.pq is None)),
            "shortlist_rows_per_query": min(pool, int(sum(p.rerank for p in indexed))) if len(indexed) > 1
            else int(sum(p.rerank for p in indexed)),
            "pq_scan_ms": 1000 * float(np.median(scan)), "rerank_ms": 1000 * float(np.median(rerank)),
            "exact_ms": 1000 * float(np.median(exact))}


# --------------------------------------------------------------------------- parent


def me(*extra: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *extra]


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_index(name: str, pipe: Path, paths: list[Path]) -> dict[str, Any]:
    m = check_ok(run_measured(name, me("--child", "index", "--pipeline", str(pipe), "--paths", *map(str, paths))))
    if m.report.get("skipped_n"):  # a stage that skipped files is not the size it says
        raise SystemExit(f"{name}: {m.report['skipped_n']} file(s) skipped, e.g. {m.report['skipped'][0]}; "
                         "the stage's figures would not be its size")
    return {"name": name, "wall": m.wall, "peak_rss_mb": m.peak_rss_mb, "load": load_avg(), **m.report}


def run_search(pipe: Path, n: int) -> dict[str, Any]:
    m = check_ok(run_measured("search", me("--child", "search", "--pipeline", str(pipe), "--queries", str(n))))
    return {"peak_rss_mb": m.peak_rss_mb, **m.report}


def flush_summary(flushes: list[list[float]]) -> dict[str, float]:
    if not flushes:
        return {}
    s = [f[0] for f in flushes]
    k = max(1, len(s) // 10)
    return {"n": len(s), "first_10pct_median_s": float(np.median(s[:k])), "last_10pct_median_s": float(np.median(s[-k:])),
            "last_over_first": float(np.median(s[-k:]) / max(np.median(s[:k]), 1e-9))}


def stages(args: argparse.Namespace, work: Path, texts: list[str],
           on_stage: Callable[[list[dict[str, Any]]], None] | None = None) -> list[dict[str, Any]]:
    sizes = [int(x) for x in args.sizes.split(",") if x]
    index = work / "index"
    pipe = write_pipeline(work / "pipe.yaml", index, args.flush_chunks, {"type": "hashing", "dimension": 384})
    # every stage's rows go into one root: a second root beside the first would move the index's
    # base, rename every source and so re-key every chunk already stored (a restore, not growth)
    root = work / "rows"
    out, done = [], 0
    for size in sizes:
        write_rows(root / f"upto-{size}", done, size - done, args.rows_per_file, texts)
        res = run_index(f"build to {size:,}", pipe, [root])
        parts = disk_breakdown(index)
        disk = sum(parts.values()) / 2**20
        res.update(size=size, disk_mb=disk, disk_kb_per_chunk=disk * 1024 / max(res.get("chunks_total", 0), 1),
                   disk_kb_per_chunk_by_component=per_chunk_kb(parts, res.get("chunks_total", 0)),
                   flush=flush_summary(res.get("flushes", [])), search=run_search(pipe, args.queries))
        print(json.dumps({k: v for k, v in res.items() if k != "flushes"}), flush=True)
        out.append(res)
        done = size
        if on_stage is not None:  # a long run's finished stages survive a later stage's failure
            on_stage(out)
    rerun = run_index("unchanged re-run", pipe, [root])
    write_rows(root / "one-more", done, args.rows_per_file, args.rows_per_file, texts)
    one = run_index("add one file", pipe, [root])
    out += [rerun, one]
    return out


def increments(args: argparse.Namespace, work: Path, texts: list[str]) -> list[dict[str, Any]]:
    index = work / "index-inc"
    pipe = write_pipeline(work / "pipe-inc.yaml", index, args.flush_chunks, {"type": "hashing", "dimension": 384})
    folder = work / "inc"
    out = []
    for n in range(args.increments):
        write_rows(folder, n * args.increment_rows, args.increment_rows, args.rows_per_file, texts)
        res = run_index(f"increment {n + 1}", pipe, [folder])
        res["flush"] = flush_summary(res.get("flushes", []))
        print(json.dumps({k: v for k, v in res.items() if k != "flushes"}), flush=True)
        out.append(res)
    return out


def model_sample(args: argparse.Namespace, work: Path, texts: list[str]) -> dict[str, Any]:
    index = work / "index-model"
    pipe = write_pipeline(work / "pipe-model.yaml", index, args.flush_chunks,
                          {"type": "sentence-transformers", "model": "all-MiniLM-L6-v2"})
    folder = work / "model-rows"
    write_rows(folder, 0, args.model_sample, args.rows_per_file, texts)
    return run_index(f"real model, {args.model_sample:,} rows", pipe, [folder])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child == "index":
        child_index(args)
        return 0
    if args.child == "search":
        child_search(args)
        return 0
    if not DEFAULT_CORPUS.is_file():
        print(f"msmarco-5k not found at {DEFAULT_CORPUS}; nothing to measure")
        return 0
    facts = machine_facts()
    print_facts("index_scale", {**facts, "load average (start)": load_avg()})
    texts = passages()
    results: dict[str, Any] = {"facts": facts, "load_start": load_avg(), "commit": commit(),
                               "command": " ".join(["python benchmarks/index_scale.py", *(argv or sys.argv[1:])])}
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        work = Path(tmp)
        if args.engines:
            from store_engines import compare  # noqa: PLC0415 - optional, store level only

            results["engines"] = compare([e for e in args.engines.split(",") if e], args, texts)
        elif args.increments:
            results["increments"] = increments(args, work, texts)
        else:
            results["stages"] = stages(args, work, texts, lambda done: write_out(args, {**results, "stages": done}))
        if args.model_sample:
            results["model_sample"] = model_sample(args, work, texts)
    report(write_out(args, results))
    return 0


def write_out(args: argparse.Namespace, results: dict[str, Any]) -> dict[str, Any]:
    """The result files as they stand (after each stage, and at the end)."""
    results = {**results, "load_end": load_avg()}
    if args.result and "stages" in results:
        save(args.result, results)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


def report(results: dict[str, Any]) -> None:
    print(f"\nload average: start {results['load_start']}, end {results['load_end']}")
    if "stages" in results:
        rows = []
        for r in results["stages"]:
            s, f = r.get("search") or {}, r.get("flush") or {}
            rows.append([r["name"], f"{r.get('chunks_total', 0):,}", f"{r['wall']:.1f}", f"{r['peak_rss_mb']:.0f}",
                         f"{r.get('disk_mb', 0):.0f}", f.get("n", ""), _f(f.get("first_10pct_median_s")),
                         _f(f.get("last_10pct_median_s")), _f(s.get("p50_ms"), 1), _f(s.get("p95_ms"), 1),
                         _f(s.get("recall_at_10"), 3), r["load"]])
        print(markdown_table(["run", "chunks", "wall s", "peak RSS MB", "disk MB", "flushes", "first flushes s",
                              "last flushes s", "p50 ms", "p95 ms", "recall@10", "load"], rows))
        print(markdown_table(["run", "CPU s", "of which the embedder", "non-model chunks per CPU-second"], [
            [r["name"], _f(r.get("cpu_s"), 1), _f(r.get("embed_cpu_s"), 1), _f(r.get("non_model_chunks_per_cpu_s"), 0)]
            for r in results["stages"]]))
        columns, rows = disk_table(results["stages"])
        print("\ndisk, KB per chunk by component:")
        print(markdown_table(columns, [[r[0], *[_f(x) for x in r[1:]]] for r in rows]))
    if "increments" in results:
        inc = results["increments"]
        print(markdown_table(["run", "chunks", "wall s", "peak RSS MB", "vs 1st", "non-model chunks/CPU-s", "load"], [
            [r["name"], f"{r.get('chunks_total', 0):,}", f"{r['wall']:.1f}", f"{r['peak_rss_mb']:.0f}",
             f"{r['wall'] / inc[0]['wall']:.2f}x", _f(r.get("non_model_chunks_per_cpu_s"), 0), r["load"]] for r in inc]))
    if "model_sample" in results:
        m = results["model_sample"]
        print(f"\n{m['name']}: {m['wall']:.1f} s wall, {m.get('chunks_total', 0) / max(m.get('seconds', 1), 1e-9):.1f} "
              f"chunks/s in-process, peak RSS {m['peak_rss_mb']:.0f} MB (load {m['load']})")
    if "engines" in results:
        print(markdown_table(["engine", "rows", "first flushes s", "last flushes s", "index build s", "p50 ms", "p95 ms",
                              "recall@10", "disk MB"], results["engines"]))


def commit() -> str | None:
    """The commit measured (``+changes`` when the work tree differs from it)."""
    import subprocess

    from render_tables import _commit  # beside this script

    head = _commit()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                           cwd=Path(__file__).resolve().parent, check=False).stdout.strip()
    return f"{head}+changes" if head and dirty else head


STAGE_COLUMNS = ["run", "chunks", "wall s", "non-model ms per chunk", "peak RSS MB", "disk KB per chunk",
                 "flushes: first / last 10 % (s)", "search p50 / p95 (ms)", "recall@10 vs exact",
                 "search profile: PQ scan / re-rank / exact (ms), segments", "load"]


def stage_rows(stages: list[dict[str, Any]]) -> list[list[Any]]:
    rows = []
    for r in stages:
        s, f = r.get("search") or {}, r.get("flush") or {}
        rows.append([r["name"], r.get("chunks_total"), round(r["wall"], 1),
                     _round(r.get("non_model_ms_per_chunk"), 3) if "size" in r else None,
                     round(r["peak_rss_mb"]), _round(r.get("disk_kb_per_chunk"), 2),
                     f"{f['first_10pct_median_s']:.2f} / {f['last_10pct_median_s']:.2f}" if f else None,
                     f"{s['p50_ms']:.1f} / {s['p95_ms']:.1f}" if s else None, _round(s.get("recall_at_10"), 3),
                     profile_cell(s.get("profile")), r["load"]])
    return rows


def profile_cell(p: dict[str, Any] | None) -> str | None:
    if not p:
        return None
    return f"{p['pq_scan_ms']:.1f} / {p['rerank_ms']:.1f} / {p['exact_ms']:.1f}, {p['segments']}"


def disk_table(stages: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """The disk per chunk by component (rows) at each stage (columns), largest at the last first."""
    built = [r for r in stages if "disk_kb_per_chunk_by_component" in r]
    if not built:
        return [], []
    parts = sorted({k for r in built for k in r["disk_kb_per_chunk_by_component"]},
                   key=lambda k: -built[-1]["disk_kb_per_chunk_by_component"].get(k, 0.0))
    rows = [[k, *[_round(r["disk_kb_per_chunk_by_component"].get(k, 0.0), 3) for r in built]] for k in parts
            if any(r["disk_kb_per_chunk_by_component"].get(k, 0.0) >= 0.0005 for r in built)]
    rows.append(["total", *[_round(r["disk_kb_per_chunk"], 3) for r in built]])
    return ["component", *[f"{r['chunks_total']:,} chunks" for r in built]], rows


def save(name: str, results: dict[str, Any]) -> None:
    """The stages as the documentation's tables (``render_tables``' result files): NAME, and
    NAME-disk with the disk per chunk by component."""
    from render_tables import write_result  # beside this script

    columns, rows = disk_table(results["stages"])
    if rows:
        write_result(f"{name}-disk", title="Disk per chunk by component (KB), after each stage", command=results["command"],
                     columns=columns, rows=rows, decimals=[None, *[3] * (len(columns) - 1)],
                     align=["left", *["right"] * (len(columns) - 1)],
                     conditions={"load_average": f"start {results['load_start']}, end {results['load_end']}",
                                 "commit": results["commit"]})

    path = write_result(
        name, title="One index grown in stages (hashing embedder: everything but the model), each stage its own "
        "process; then an unchanged re-run and adding one file", command=results["command"],
        columns=STAGE_COLUMNS, rows=stage_rows(results["stages"]), decimals=[None, None, 1, 3, None, 2, None, None, 3, None, None],
        align=["left", "right", "right", "right", "right", "right", "left", "left", "right", "left", "left"],
        conditions={"load_average": f"start {results['load_start']}, end {results['load_end']}",
                    "commit": results["commit"]})
    data = json.loads(path.read_text(encoding="utf-8"))
    data["hidden_columns"] = ["load"]  # a condition of each stage, kept in the file
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _round(x: Any, digits: int) -> Any:
    return None if x is None else round(float(x), digits)


def _f(x: Any, digits: int = 3) -> str:
    return "" if x is None else f"{x:.{digits}f}"


if __name__ == "__main__":
    raise SystemExit(main())
