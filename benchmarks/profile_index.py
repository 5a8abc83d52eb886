"""Where the time of a default ``ragkit index`` run goes: the model vs everything else (issue 25).

Runs ``IndexingPipeline`` with ``pipelines/default.yaml`` in this process on the first N msmarco-5k
passages written as ``.txt`` files (a fresh index; the ONNX export is built, untimed, by a 16-file
warm-up first), under ``cProfile`` in every thread (the writer's and the loader's), and prints:

- wall and CPU time of the run, and the load average;
- the share of the run's wall time spent in the model (ONNX Runtime's ``InferenceSession.run``),
  in tokenizing, in the loader thread (read, hash, split, count tokens: overlapped with
  embedding), in the catalog and the embedding cache (DuckDB), in the stores (FAISS, BM25), and
  the rest (the pipeline's own Python);
- the Python the embedder spends per session run (building the inputs, pooling), and the top
  functions of the run by their own time, the model excluded.

cProfile adds its own cost to every Python call, so the non-model shares are upper bounds.

    .venv/bin/python benchmarks/profile_index.py --limit 2000
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DEFAULT_CORPUS, REPO, machine_facts, missing_corpus_message, print_facts, read_corpus, write_txt_files  # noqa: E402,I001

#: (phase, predicate on a pstats key (file, line, function)) — the first match wins
PHASES = (
    ("model (ONNX Runtime run)", lambda f, fn: "onnxruntime_pybind11_state.run" in fn),
    ("tokenizing (embedder)", lambda f, fn: "encode_batch" in fn),
    ("catalog and embedding cache (DuckDB)", lambda f, fn: "duckdb" in (f + fn).lower() or f.endswith("catalog.py")),
    ("stores (FAISS, BM25)", lambda f, fn: any(w in (f + fn).lower() for w in ("faiss", "bm25", "stemmer"))),
)


def profile_run(folder: Path, index: Path) -> tuple[float, float, list[tuple[str, cProfile.Profile]]]:
    from ragkit.config import load_pipeline
    from ragkit.index.writer import IndexingPipeline

    profiles: list[tuple[str, cProfile.Profile]] = []
    original = threading.Thread.run

    def run(self: threading.Thread) -> None:
        prof = cProfile.Profile()
        profiles.append((self.name, prof))
        prof.enable()
        try:
            original(self)
        finally:
            prof.disable()

    threading.Thread.run = run  # type: ignore[method-assign]
    spec = load_pipeline(REPO / "pipelines" / "default.yaml")
    main = cProfile.Profile()
    profiles.insert(0, ("main", main))
    wall0, cpu0 = time.perf_counter(), time.process_time()
    main.enable()
    try:
        IndexingPipeline(spec, index_dir=index).index_paths([folder])
    finally:
        main.disable()
        threading.Thread.run = original  # type: ignore[method-assign]
    return time.perf_counter() - wall0, time.process_time() - cpu0, profiles


def phase_of(key: tuple[str, int, str]) -> str | None:
    f, _, fn = key
    for name, pred in PHASES:
        if pred(f, fn):
            return name
    return None


def report(wall: float, cpu: float, profiles: list[tuple[str, cProfile.Profile]], n: int) -> str:
    main = pstats.Stats(profiles[0][1])
    own: dict[str, float] = {}
    runs = 0
    embedder_python = 0.0
    for key, (_, ncalls, tottime, _, _) in main.stats.items():  # type: ignore[attr-defined]
        phase = phase_of(key)
        if phase:
            own[phase] = own.get(phase, 0.0) + tottime
        if phase == "model (ONNX Runtime run)":
            runs += ncalls
        if key[0].endswith(os.path.join("embedders", "onnx.py")):
            embedder_python += tottime
    loader = sum(pstats.Stats(p).total_tt for name, p in profiles[1:] if name == "ragkit-prepare")  # type: ignore[attr-defined]
    waiting = sum(tt for key, (_, _, tt, _, _) in main.stats.items() if key[2] in (  # type: ignore[attr-defined]
        "<method 'acquire' of '_thread.lock' objects>",))
    # documents run on one session per core, on threads of their own: the writer waits for them
    # in _run_per_core, which is model time, not waiting for the loader
    per_core = sum(ct for key, (_, _, _, ct, _) in main.stats.items() if key[2] == "_run_per_core")  # type: ignore[attr-defined]
    if per_core:
        own["model (ONNX Runtime run)"] = own.get("model (ONNX Runtime run)", 0.0) + per_core
        waiting = max(waiting - per_core, 0.0)
        for name, prof in profiles[1:]:
            if name.startswith("onnx-core"):
                runs += sum(nc for key, (_, nc, _, _, _) in pstats.Stats(prof).stats.items()  # type: ignore[attr-defined]
                            if phase_of(key) == "model (ONNX Runtime run)")
    rows = [(name, own.get(name, 0.0)) for name, _ in PHASES]
    rest = wall - sum(t for _, t in rows) - waiting
    lines = [
        f"default pipeline, {n:,} passages as .txt files: wall {wall:.1f} s, CPU {cpu:.1f} s (user+sys, all threads), "
        f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end",
        "",
        "| writer thread | seconds | share of wall |",
        "|---|---:|---:|",
        *[f"| {name} | {t:.2f} | {t / wall:.1%} |" for name, t in rows],
        f"| waiting for the loader thread | {waiting:.2f} | {waiting / wall:.1%} |",
        f"| the rest (pipeline Python, pooling, cache and store glue) | {max(rest, 0.0):.2f} | {max(rest, 0.0) / wall:.1%} |",
        "",
        f"loader thread (read, hash, split, count tokens; overlapped with the model): {loader:.2f} s busy",
        f"embedder Python around the model: {embedder_python:.2f} s over {runs:,} session runs "
        f"({1e3 * embedder_python / max(runs, 1):.2f} ms per run)",
        "",
        "top functions by own time, the model excluded (writer thread):",
    ]
    s = io.StringIO()
    stats = pstats.Stats(profiles[0][1], stream=s)
    for key in list(stats.stats):  # type: ignore[attr-defined]
        if phase_of(key) == "model (ONNX Runtime run)" or "acquire" in key[2]:
            del stats.stats[key]  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(12)
    lines += [ln for ln in s.getvalue().splitlines() if ln.strip()][-13:]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, default=2000)
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(missing_corpus_message(args.corpus))
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    print_facts("machine", machine_facts())
    with tempfile.TemporaryDirectory(prefix="ragkit-profile-") as tmp:
        work = Path(tmp)
        passages = read_corpus(args.corpus, args.limit)
        folder = write_txt_files(passages, work / "passages")
        warm = write_txt_files(passages[:16], work / "warm")
        from ragkit.config import load_pipeline
        from ragkit.index.writer import IndexingPipeline

        IndexingPipeline(load_pipeline(REPO / "pipelines" / "default.yaml"), index_dir=work / "warm-index").index_paths([warm])
        shutil.rmtree(work / "warm-index")
        wall, cpu, profiles = profile_run(folder, work / "index")
        print(report(wall, cpu, profiles, len(passages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
