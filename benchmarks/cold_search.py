"""Cold ``ragkit search``: whole-process time with the query embedded by PyTorch vs by ONNX fp32.

    python benchmarks/cold_search.py [--passages 200] [--rounds 5]

Indexes the first N msmarco-5k passages (one ``.txt`` file each) twice with the torch backend,
once with ``query_backend: torch`` and once with the default ``query_backend: auto`` (queries go
through the cached ONNX fp32 export of the same model), then times ``ragkit search`` as a fresh
process on each, alternating, ``--rounds`` times with a different query each round, and reports
medians. An untimed warm-up search of each path loads the libraries into the OS file cache and
builds the ONNX export once. Both paths return the same top hits (checked). Prints the CPU model
and flags. Issue 11, defect 13: target ≤ 2 s cold on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import (  # noqa: E402 - the benchmarks folder is not a package
    DEFAULT_CORPUS,
    bench_env,
    check_ok,
    machine_facts,
    markdown_table,
    median,
    missing_corpus_message,
    print_facts,
    read_corpus,
    run_measured,
    versions,
    write_txt_files,
)

from ragkit.embedders.isa import cpu_description  # noqa: E402

QUERIES = [
    "what is the highest mountain above sea level",
    "how does photosynthesis convert light energy",
    "what does a thermometer measure",
    "interest rate of a bank savings account",
    "capital of japan",
    "symptoms of the common cold",
    "how long to boil an egg",
]
PIPELINE = """version: 1
name: cold-search-{name}
embedder:
  type: sentence-transformers
  model: all-MiniLM-L6-v2
  backend: torch
  query_backend: {query_backend}
store:
  type: faiss
  index: flat
retriever:
  type: dense
  top_k: 5
"""
PATHS = {"torch": "PyTorch (query_backend: torch)", "auto": "ONNX fp32 (query_backend: auto, the default)"}


def ragkit(*args: str) -> list[str]:
    return [sys.executable, "-m", "ragkit.cli.main", *args]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the inputs and indexes here")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        print(missing_corpus_message(args.corpus))
        return 0
    facts = machine_facts()  # the load average before this benchmark adds its own
    work = args.workdir or Path(tempfile.mkdtemp(prefix="ragkit-cold-search-"))
    work.mkdir(parents=True, exist_ok=True)
    docs = write_txt_files(read_corpus(args.corpus, args.passages), work / "docs")
    # one ONNX export cache for every child; nothing else of the user's cache is touched
    env = bench_env({"RAGKIT_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(Path(__file__).parents[1])})
    indexes: dict[str, Path] = {}
    for key in PATHS:
        pipe = work / f"pipeline-{key}.yaml"
        pipe.write_text(PIPELINE.format(name=key, query_backend=key), encoding="utf-8")
        indexes[key] = work / f"index-{key}"
        check_ok(run_measured(f"index {key}", ragkit("index", str(docs), "-p", str(pipe), "-i", str(indexes[key])),
                              env=env))

    def search(key: str, query: str) -> tuple[float, list[str]]:
        started = time.perf_counter()
        done = subprocess.run(ragkit("search", query, "-i", str(indexes[key]), "--json"), env=env,
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if done.returncode:
            sys.exit(f"search on the {key} path failed:\n{done.stderr[-2000:]}")
        return wall, [hit["id"] for hit in json.loads(done.stdout)]

    for key in PATHS:  # warm-up, untimed: the OS file cache, and the one-time ONNX export
        search(key, "warm up")
    walls: dict[str, list[float]] = {key: [] for key in PATHS}
    same = 0
    for r in range(args.rounds):
        query = QUERIES[r % len(QUERIES)]
        tops = {}
        for key in PATHS:
            wall, tops[key] = search(key, query)
            walls[key].append(wall)
        same += tops["torch"] == tops["auto"]
    print_facts("machine", facts)
    print_facts("cpu", cpu_description())
    print_facts("versions", versions(packages=("torch", "onnxruntime", "sentence-transformers", "faiss-cpu")))
    print(f"\nCold `ragkit search` over {args.passages} passages, {args.rounds} rounds (median wall s, "
          f"spawn to exit):\n")
    base = median(walls["torch"])
    rows = [(PATHS[k], median(v), " ".join(f"{x:.2f}" for x in v), f"{base / median(v):.2f}×")
            for k, v in walls.items()]
    print(markdown_table(["query embedded by", "median s", "rounds", "speed-up"], rows))
    print(f"\nsame result ids on both paths in {same}/{args.rounds} rounds")
    print(json.dumps({"median_seconds": {k: median(v) for k, v in walls.items()}, "same_results": same}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
