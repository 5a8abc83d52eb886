"""Cold ``ragkit ask`` vs cold ``ragkit search``: whole processes, interleaved rounds.

    python benchmarks/cold_ask.py [--passages 200] [--rounds 5] [--baseline /path/to/other/checkout]

Indexes the first N msmarco-5k passages (one ``.txt`` file each) with ``pipelines/default.yaml``
(ONNX Runtime int8, recipe ``s8-rr-sqxl``) and with ``pipelines/torch.yaml`` (PyTorch; its queries
go through the cached ONNX fp32 export), then times fresh processes of ``ragkit search Q`` and ``ragkit ask Q`` (the offline
``local`` provider: the time to the first, complete answer) on each index, taking turns, with a
different question each round. ``--baseline DIR`` also times both commands with another
checkout's code (e.g. a ``main`` from before the int8 default, whose ``ask`` loaded PyTorch in its warm-up) in
the same rounds. Reports medians, ask ÷ search per round (target ≤ 1.5), whether PyTorch was
imported (each child reports ``sys.modules`` at exit), the CPU model and flags and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402 - the benchmarks folder is not a package
    COLD_QUERIES,
    DEFAULT_CORPUS,
    REPO,
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

TARGET = 1.5
#: the CLI in a fresh process, reporting at exit whether PyTorch was imported
CHILD = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps({"torch": "torch" in sys.modules})))
from ragkit.cli.main import main
sys.argv = ["ragkit", *sys.argv[1:]]
main()
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--passages", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout whose code is timed too")
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(missing_corpus_message(args.corpus))
        return 0
    print_facts("machine", machine_facts())
    print_facts("versions", versions(packages=("ragkit", "onnxruntime", "torch", "faiss-cpu")))
    codes = {"this code": REPO} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    with tempfile.TemporaryDirectory(prefix="ragkit-cold-ask-") as tmp:
        work = Path(tmp)
        docs = write_txt_files(read_corpus(args.corpus, args.passages), work / "docs")
        indexes = {}
        for name in ("default", "torch"):
            indexes[name] = work / f"index-{name}"
            check_ok(run_measured(f"index {name}", [sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "-p",
                                                    str(REPO / "pipelines" / f"{name}.yaml"), "-i", str(indexes[name])],
                                  env=bench_env({"PYTHONPATH": str(REPO)})))
        # (an index of the new default cannot be read by code from before it: the baseline gets the torch one)
        cases = [(code, idx, cmd) for code in codes for idx in indexes for cmd in ("search", "ask")
                 if code == "this code" or idx == "torch"]

        def run(case: tuple[str, str, str], question: str) -> tuple[float, bool, bool]:
            code, idx, cmd = case
            env = bench_env({"PYTHONPATH": str(codes[code])})
            m = run_measured(" ".join(case), [sys.executable, "-c", CHILD, cmd, question, "-i", str(indexes[idx])],
                             cwd=work, env=env)
            return m.wall, bool(m.report.get("torch")), m.ok

        for case in cases:  # untimed: libraries into the OS file cache, the ONNX exports built
            run(case, COLD_QUERIES[-1])
        times: dict[tuple[str, str, str], list[float]] = {c: [] for c in cases}
        torch_seen: dict[tuple[str, str, str], bool] = dict.fromkeys(cases, False)
        for r in range(args.rounds):
            order = cases[r % len(cases):] + cases[: r % len(cases)]
            for case in order:
                wall, torch, ok = run(case, COLD_QUERIES[r % len(COLD_QUERIES)])
                times[case].append(wall if ok else float("nan"))
                torch_seen[case] |= torch
            print(f"round {r + 1}: " + ", ".join(f"{' '.join(c)} {times[c][-1]:.2f} s" for c in cases)
                  + f"; load {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    for code in codes:
        for idx in indexes:
            if (code, idx, "ask") not in times:
                continue
            s, a = times[(code, idx, "search")], times[(code, idx, "ask")]
            per_round = [x / y for x, y in zip(a, s, strict=True)]
            rows.append([code, f"{idx} pipeline", median(s), median(a), f"{median(per_round):.2f}×",
                         ", ".join(f"{x:.2f}" for x in per_round),
                         "yes" if torch_seen[(code, idx, "ask")] or torch_seen[(code, idx, "search")] else "no"])
    print()
    print(markdown_table(["code", "index", "cold search s", "cold ask s (first answer)", "ask ÷ search",
                          "per round", "PyTorch imported"], rows))
    print(f"\nload average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    worst = max(median([x / y for x, y in zip(times[("this code", i, "ask")], times[("this code", i, "search")],
                                              strict=True)]) for i in indexes)
    print(f"ask ÷ search, this code, worst index: {worst:.2f}× — target ≤ {TARGET}: {'PASS' if worst <= TARGET else 'MISS'}")
    print(json.dumps({" ".join(c): v for c, v in times.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
