"""Where the time of a default ``ragkit index`` run goes: the model vs everything else.

Runs ``IndexingPipeline`` with ``pipelines/default.yaml`` in this process on the first N msmarco-5k
passages written as ``.txt`` files (a fresh index; the ONNX export is built, untimed, by a 16-file
warm-up first), under ``cProfile`` in every thread (the writer's and the loader's), and prints:

- wall and CPU time of the run, and the load average;
- per thread, as a share of the run's wall time: the embedding thread's time in embed calls (the
  model's share of the run), and within them each per-core session thread's time in the model
  (ONNX Runtime's ``InferenceSession.run``), in tokenizing and in Python (inputs, pooling); the
  loader thread (read, hash, split, count tokens: overlapped with embedding); the writer thread's
  catalog and embedding cache (DuckDB), stores (FAISS, BM25), waiting, and the rest;
- the Python per session run, and the writer's top functions by their own time.

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


def _own(prof: cProfile.Profile) -> dict[str, float]:
    """Own time per phase of one thread's profile."""
    own: dict[str, float] = {}
    for key, (_, _, tottime, _, _) in pstats.Stats(prof).stats.items():  # type: ignore[attr-defined]
        phase = phase_of(key)
        if phase:
            own[phase] = own.get(phase, 0.0) + tottime
    return own


def _cum(prof: cProfile.Profile, function: str) -> float:
    return sum(ct for key, (_, _, _, ct, _) in pstats.Stats(prof).stats.items()  # type: ignore[attr-defined]
               if key[2] == function)


def report(wall: float, cpu: float, profiles: list[tuple[str, cProfile.Profile]], n: int) -> str:
    """Three kinds of thread: the writer (this one), the loader (``ragkit-prepare``: read, hash,
    split, count tokens) and the embedding thread (``ragkit-embed``), whose long calls run on one
    session per core (``onnx-core-N``: tokenizing the text each takes, the model, pooling)."""
    writer = profiles[0][1]
    own = _own(writer)
    waiting = sum(tt for key, (_, _, tt, _, _) in pstats.Stats(writer).stats.items()  # type: ignore[attr-defined]
                  if key[2] == "<method 'acquire' of '_thread.lock' objects>")
    loader = sum(pstats.Stats(p).total_tt for name, p in profiles[1:] if name == "ragkit-prepare")  # type: ignore[attr-defined]
    embedding = sum(_cum(p, "embed_documents") for name, p in profiles[1:] if name == "ragkit-embed")
    cores = [p for name, p in profiles[1:] if name.startswith("onnx-core")]
    model = tokenizing = python = 0.0
    runs = 0
    for prof in cores:
        stats = pstats.Stats(prof)
        for key, (_, ncalls, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
            phase = phase_of(key)
            if phase == "model (ONNX Runtime run)":
                model, runs = model + tottime, runs + ncalls
            elif "encode" in key[2] and "Tokenizer" in key[2]:
                tokenizing += tottime
            elif "acquire" not in key[2]:
                python += tottime
    per = max(len({name for name, _ in profiles[1:] if name.startswith("onnx-core")}), 1)  # a thread per core and call
    writer_rows = [(name, t) for name, t in own.items() if name != "model (ONNX Runtime run)"]
    rest = wall - sum(t for _, t in writer_rows) - waiting
    lines = [
        f"default pipeline, {n:,} passages as .txt files: wall {wall:.1f} s, CPU {cpu:.1f} s (user+sys, all threads), "
        f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end",
        "",
        "| thread | what | seconds | share of wall |",
        "|---|---|---:|---:|",
        f"| embedding | busy in embed calls (the model's share of the run) | {embedding:.2f} | {embedding / wall:.1%} |",
        f"| per core ({per}), mean | model (ONNX Runtime run) | {model / per:.2f} | {model / per / wall:.1%} |",
        f"| per core, mean | tokenizing the text it takes | {tokenizing / per:.2f} | {tokenizing / per / wall:.1%} |",
        f"| per core, mean | Python around the model (inputs, pooling) | {python / per:.2f} | {python / per / wall:.1%} |",
        f"| loader | read, hash, split, count tokens (overlapped) | {loader:.2f} | {loader / wall:.1%} |",
        *[f"| writer | {name} | {t:.2f} | {t / wall:.1%} |" for name, t in writer_rows],
        f"| writer | waiting (for the loader, or for the embedding thread) | {waiting:.2f} | {waiting / wall:.1%} |",
        f"| writer | the rest (pipeline Python, cache and store glue) | {max(rest, 0.0):.2f} | {max(rest, 0.0) / wall:.1%} |",
        "",
        f"session runs: {runs:,}; Python per run (inputs, pooling, tokenizing): "
        f"{1e3 * (python + tokenizing) / max(runs, 1):.2f} ms",
        "",
        "top functions of the writer thread by own time, waiting excluded:",
    ]
    out = io.StringIO()
    stats = pstats.Stats(writer, stream=out)
    for key in list(stats.stats):  # type: ignore[attr-defined]
        if "acquire" in key[2]:
            del stats.stats[key]  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(12)
    lines += [ln for ln in out.getvalue().splitlines() if ln.strip()][-13:]
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
