"""Cold ``ragkit search``: whole-process time with the query embedded by PyTorch vs by ONNX fp32.

    python benchmarks/cold_search.py [--passages 200] [--rounds 5] [--baseline /path/to/other/checkout]

Indexes the first N msmarco-5k passages (one ``.txt`` file each) twice with the torch backend and
the default pipeline's retriever (hybrid, dense-first: a search also loads the BM25 index), once
with ``query_backend: torch`` and once with the default ``query_backend: auto`` (queries go
through the cached ONNX fp32 export of the same model), then times ``ragkit search`` as a fresh
process on each, alternating, ``--rounds`` times with a different query each round, and reports
medians. ``--baseline DIR`` also times the ``auto`` search with the ragkit code of another
checkout (e.g. ``main`` before a change) in the same rounds, so before/after is one run on one
load. Then, per code version, a fresh process times the phases of the same search (imports,
opening the index, FAISS, BM25, the query embedding, the rest), medians over the rounds. An
untimed warm-up search of each path loads the libraries into the OS file cache and builds the
ONNX export once. All paths return the same top hits (checked). Prints the CPU model and flags
and the load average. Target: ≤ 2 s cold on a quiet machine.
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
    COLD_QUERIES,
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
  type: hybrid
  fusion: dense-first
  top_k: 5
lexical:
  stemmer: english
"""
PATHS = {"torch": "PyTorch (query_backend: torch)", "auto": "ONNX fp32 (query_backend: auto, the default)"}
#: one search of the auto index in a fresh process, timed phase by phase (seconds, printed as JSON)
PHASES = """
import json, sys, time
t0 = time.perf_counter()
from ragkit.index.reader import KnowledgeBase
t1 = time.perf_counter()
kb = KnowledgeBase.open(index=sys.argv[1])
t2 = time.perf_counter()
kb.store
t3 = time.perf_counter()
kb.lexical
t4 = time.perf_counter()
kb.embedder.embed_query(sys.argv[2])
t5 = time.perf_counter()
hits = kb.search(sys.argv[2], k=5)
t6 = time.perf_counter()
kb.close()
print(json.dumps({"imports": t1 - t0, "open index": t2 - t1, "faiss store": t3 - t2, "bm25 index": t4 - t3,
                  "query embedding": t5 - t4, "retrieval": t6 - t5}))
"""


def ragkit(*args: str) -> list[str]:
    return [sys.executable, "-m", "ragkit.cli.main", *args]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the inputs and indexes here")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another ragkit checkout whose code also times the auto search (before/after)")
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

    code = {"this": str(Path(__file__).resolve().parents[1])}
    if args.baseline is not None:
        code["baseline"] = str(args.baseline.resolve())
    runs = [("torch", "this"), ("auto", "this")] + ([("auto", "baseline")] if args.baseline else [])

    def search(key: str, version: str, query: str) -> tuple[float, list[str]]:
        started = time.perf_counter()
        done = subprocess.run(ragkit("search", query, "-i", str(indexes[key]), "--json"),
                              env={**env, "PYTHONPATH": code[version]}, cwd=work, capture_output=True, text=True,
                              check=False)  # cwd: `python -m` puts it first on sys.path, before PYTHONPATH
        wall = time.perf_counter() - started
        if done.returncode:
            sys.exit(f"search on the {key} path ({version} code) failed:\n{done.stderr[-2000:]}")
        return wall, [hit["id"] for hit in json.loads(done.stdout)]

    def phases(version: str, query: str) -> dict[str, float]:
        done = subprocess.run([sys.executable, "-c", PHASES, str(indexes["auto"]), query],
                              env={**env, "PYTHONPATH": code[version]}, cwd=work, capture_output=True, text=True,
                              check=False)
        if done.returncode:
            sys.exit(f"the phase timing ({version} code) failed:\n{done.stderr[-2000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]

    for run in runs:  # warm-up, untimed: the OS file cache, the one-time ONNX export and optimized copy
        search(*run, "warm up")
    walls: dict[tuple[str, str], list[float]] = {run: [] for run in runs}
    phase_times: dict[str, list[dict[str, float]]] = {version: [] for version in code}
    same = 0
    for r in range(args.rounds):
        query = COLD_QUERIES[r % len(COLD_QUERIES)]
        tops = {}
        for run in runs:
            wall, tops[run] = search(*run, query)
            walls[run].append(wall)
        same += len({tuple(t) for t in tops.values()}) == 1
        for version in code:
            phase_times[version].append(phases(version, query))
    print_facts("machine", facts)
    print_facts("versions", versions(packages=("torch", "onnxruntime", "sentence-transformers", "faiss-cpu")))
    print(f"\nCold `ragkit search` over {args.passages} passages, hybrid dense-first, {args.rounds} rounds "
          f"(median wall s, spawn to exit):\n")
    base = median(walls[("torch", "this")])
    label = {("torch", "this"): PATHS["torch"], ("auto", "this"): PATHS["auto"],
             ("auto", "baseline"): f"{PATHS['auto']}, code of {code.get('baseline')}"}
    rows = [(label[run], f"{median(v):.2f}", " ".join(f"{x:.2f}" for x in v), f"{base / median(v):.2f}×")
            for run, v in walls.items()]
    print(markdown_table(["query embedded by", "median s", "rounds", "speed-up vs PyTorch"], rows))
    if args.baseline is not None:
        ratio = median(walls[("auto", "baseline")]) / median(walls[("auto", "this")])
        print(f"\nauto path, baseline code / this code (median wall): {ratio:.2f}×")
    print(f"\nsame result ids on every path in {same}/{args.rounds} rounds")
    names = list(phase_times["this"][0])
    print("\nPhases of one search in a fresh process (ONNX query path, median s; interpreter start and exit "
          "not included):\n")
    print(markdown_table(["phase", *code], [(n, *(f"{median([p[n] for p in phase_times[v]]):.3f}" for v in code))
                                            for n in names]))
    print(json.dumps({
        "median_seconds": {f"{key}" if version == "this" else f"{key}@{version}": median(v)
                           for (key, version), v in walls.items()},
        "phases": {v: {n: median([p[n] for p in phase_times[v]]) for n in names} for v in code},
        "same_results": same,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
