"""The Ray indexing engine against the local one, on msmarco-5k.

In one run: ``ragkit`` indexes the corpus written as one ``.txt`` file per passage (5,000
sources) with the local engine, then with ``indexing.engine: ray`` and 1 and 2 embed actors, each
into a fresh index. Every path is its own process (``--child``): the Ray ones start a local
cluster with ``ray.init(num_cpus=<cores>)`` first (timed apart as "cluster start"), then run the
same ``IndexingPipeline``. While a child runs, this process samples the RSS of its whole process
tree with psutil every 0.2 s: the driver itself, and the Ray processes under it (``ray::`` workers
and actors; the GCS, raylet and other cluster services are reported apart).

Reported per path: process wall time (spawn to exit: imports, cluster start, model loads), the
index run's own time (``IndexReport.seconds``: cluster already up), passages/s over the run, peak
RSS of the driver, of the Ray workers (the largest sum seen at one instant) and of the cluster
services. Also the CPU model and flags and the load average before and after (the machine is
shared; compare within one run only).

Target: Ray with 2 embed actors <= 1.3 x the local engine's wall time.

    .venv/bin/python benchmarks/ray_ingest.py                       # msmarco-5k, the real model
    .venv/bin/python benchmarks/ray_ingest.py --limit 200 --embedder hashing   # smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402 - the benchmarks folder is not a package
    DEFAULT_CORPUS,
    REPO,
    bench_env,
    last_json,
    machine_facts,
    markdown_table,
    missing_corpus_message,
    print_facts,
    ratio,
    read_corpus,
    versions,
    write_txt_files,
)

TARGET = 1.3
PATHS = {"local": 0, "ray, 1 embed actor": 1, "ray, 2 embed actors": 2}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="BEIR corpus.jsonl (default: msmarco-5k)")
    ap.add_argument("--limit", type=int, default=None, help="index only the first N passages")
    ap.add_argument("--embedder", choices=["sentence-transformers", "hashing"], default="sentence-transformers")
    ap.add_argument("--pipeline", type=Path, default=REPO / "pipelines" / "default.yaml")
    ap.add_argument("--batch-size", type=int, default=64, help="indexing.ray.batch_size (sources per batch)")
    ap.add_argument("--workdir", type=Path, default=None, help="keep inputs and indexes here (default: a temp dir)")
    ap.add_argument("--reverse", action="store_true",
                    help="run the paths in reverse order (ray 2 actors first), to see how load drift moves the ratio")
    ap.add_argument("--json-out", type=Path, default=None, help="also write the measurements as JSON")
    ap.add_argument("--child", nargs=4, metavar=("PIPELINE", "SRC", "INDEX", "ACTORS"), help=argparse.SUPPRESS)
    return ap.parse_args(argv)


# --------------------------------------------------------------------------- the measured child


def child(pipeline: str, src: str, index: str, actors: int) -> None:
    """One path: (start a local Ray cluster,) index SRC, print a JSON line with the timings."""
    from ragkit.config import load_pipeline
    from ragkit.index.writer import IndexingPipeline

    out: dict[str, Any] = {"cluster_start": 0.0}
    overrides = {}
    if actors:
        import ray

        t0 = time.perf_counter()
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
        out["cluster_start"] = time.perf_counter() - t0
        overrides = {"indexing": {"engine": "ray", "ray": {"embed_actors": actors, "batch_size": int(os.environ["BATCH"])}}}
    spec = load_pipeline(pipeline, overrides=overrides)
    report = IndexingPipeline(spec, index_dir=index).index_paths([src])
    out.update(seconds=report.seconds, added=len(report.added), chunks=report.chunks_added,
               embedded=report.texts_embedded, skipped=len(report.skipped), tokens=report.embedding_tokens)
    if actors:
        import ray

        ray.shutdown()
    print(json.dumps(out))


# --------------------------------------------------------------------------- measuring a child


class TreeSampler(threading.Thread):
    """Peak RSS of a process and its descendants, split into driver / Ray workers / Ray services."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.peak = {"driver": 0.0, "workers": 0.0, "services": 0.0}
        self.done = threading.Event()

    def run(self) -> None:
        import psutil

        try:
            root = psutil.Process(self.pid)
        except psutil.NoSuchProcess:
            return
        while not self.done.is_set():
            now = {"driver": 0.0, "workers": 0.0, "services": 0.0}
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            for p in procs:
                try:
                    rss = p.memory_info().rss / 2**20
                    name = p.name()
                except psutil.Error:
                    continue
                kind = "driver" if p.pid == self.pid else "workers" if name.startswith("ray::") else "services"
                now[kind] += rss
            for k, v in now.items():
                self.peak[k] = max(self.peak[k], v)
            self.done.wait(self.every)


def measure(name: str, args: argparse.Namespace, pipeline: Path, src: Path, index: Path, actors: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(pipeline), str(src), str(index), str(actors)]
    env = bench_env({"BATCH": str(args.batch_size), "PYTHONPATH": str(REPO), "RAY_AUTH_MODE": "disabled"})
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    sampler.done.set()
    sampler.join()
    report = last_json(stdout)
    if proc.returncode != 0 or not report:
        print(f"!! {name} failed (exit {proc.returncode}):\n" + "\n".join(stderr.strip().splitlines()[-20:]), file=sys.stderr)
    return {"name": name, "wall": wall, **report, **{f"peak_{k}_mb": v for k, v in sampler.peak.items()}}


# --------------------------------------------------------------------------- main


def cpu_flags() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                wanted = ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile"]
                return " ".join(f for f in wanted if f in flags) or "none of the SIMD flags of interest"
    except OSError:
        pass
    return "n/a"


def write_pipeline(args: argparse.Namespace, dest: Path) -> Path:
    import yaml

    data: dict[str, Any] = yaml.safe_load(args.pipeline.read_text(encoding="utf-8")) or {}
    if args.embedder == "hashing":
        data["embedder"] = {"type": "hashing"}
    dest.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return dest


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        pipeline, src, index, actors = args.child
        child(pipeline, src, index, int(actors))
        return 0
    if not args.corpus.is_file():
        print(missing_corpus_message(args.corpus))
        return 0
    facts = machine_facts()
    facts["cpu flags"] = cpu_flags()
    print_facts("machine", facts)
    print_facts("versions", versions(packages=("ragkit", "ray", "torch", "sentence-transformers", "faiss-cpu")))
    with tempfile.TemporaryDirectory(prefix="ragkit-ray-bench-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        passages = read_corpus(args.corpus, args.limit)
        src = write_txt_files(passages, work / "passages")
        pipeline = write_pipeline(args, work / "pipeline.yaml")
        warm = write_txt_files(passages[:16], work / "warmup")
        measure("warm-up", args, pipeline, warm, work / "index-warmup", 0)  # untimed: file cache, model
        results = []
        for name, actors in sorted(PATHS.items(), key=lambda kv: -kv[1]) if args.reverse else PATHS.items():
            r = measure(name, args, pipeline, src, work / f"index-{actors}", actors)
            print(f"  {name}: {r['wall']:.1f} s wall", flush=True)
            results.append(r)
        results.sort(key=lambda r: PATHS[r["name"]])
    n = len(passages)
    base = results[0]
    rows = []
    for r in results:
        run = r.get("seconds", float("nan"))
        rows.append([
            r["name"], r["wall"], r.get("cluster_start", float("nan")), run, n / run if run else float("nan"),
            ratio(r["wall"], base["wall"]), ratio(run, base.get("seconds", float("nan"))),
            r["peak_driver_mb"], r["peak_workers_mb"], r["peak_services_mb"], str(r.get("chunks", "n/a")),
        ])
    print()
    print(f"{n:,} passages as .txt files; embedder {args.embedder}; indexing.ray.batch_size {args.batch_size}")
    print(markdown_table(
        ["path", "wall s", "cluster start s", "index run s", "passages/s (run)", "wall vs local",
         "run vs local", "driver peak MB", "workers peak MB", "ray services peak MB", "chunks"],
        rows,
    ))
    two = results[-1]
    got = ratio(two["wall"], base["wall"])
    verdict = "met" if got <= TARGET else "NOT met"
    print(f"\ntarget: ray with 2 embed actors <= {TARGET} x local wall time: {got:.2f} x ({verdict}); "
          f"without cluster start: {ratio(two['wall'] - two.get('cluster_start', 0), base['wall']):.2f} x")
    print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"facts": facts, "results": results}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
