"""Indexing throughput of ``ragkit index`` against raw ``SentenceTransformer.encode``.

Indexes msmarco-5k (``../shared/datasets/msmarco-5k/corpus.jsonl`` from the repository root)
with ragkit's default pipeline (``pipelines/default.yaml``, plus the ``jsonl`` loader for the
``.jsonl`` source), and in the same run times raw ``SentenceTransformer.encode`` of the same
texts (one call, batch 64, normalized). Every measured path runs as its own process: the wall
time covers imports and model load (like the design's reference figures), and each process also
reports its in-process phase times (ragkit's ``IndexReport.seconds``). Then ``ragkit index`` runs
again on the unchanged input.

Both paths embed the same text per passage: ``title`` + blank line + ``text`` when a title is
present (msmarco-5k's titles are all empty, so: ``text``). The script writes that text to a JSONL
slice (``--limit``) or, with ``--as-files``, to one ``.txt`` file per passage (the design's
reference setup; with one JSONL file ragkit sees a single source).

Targets: ragkit's rate ≥ 0.9 × the raw encode rate; unchanged re-run < 3% of the first run.

    .venv/bin/python benchmarks/index_throughput.py                 # JSONL, one round
    .venv/bin/python benchmarks/index_throughput.py --mode both --rounds 3
    .venv/bin/python benchmarks/index_throughput.py --limit 50 --embedder hashing   # smoke test
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402 - the benchmarks folder is not a package
    DEFAULT_CORPUS,
    PEERS_DIR,
    REPO,
    Measured,
    check_ok,
    machine_facts,
    markdown_table,
    median,
    missing_corpus_message,
    print_facts,
    ratio,
    read_corpus,
    run_measured,
    versions,
    write_jsonl,
    write_txt_files,
)

RATE_TARGET = 0.9
RERUN_TARGET = 0.03
PACKAGES = ("ragkit", "torch", "sentence-transformers", "transformers", "tokenizers", "faiss-cpu", "onnxruntime")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="BEIR corpus.jsonl (default: msmarco-5k)")
    ap.add_argument("--limit", type=int, default=None, help="index only the first N passages")
    ap.add_argument("--mode", choices=["jsonl", "files", "both"], default="jsonl",
                    help="one JSONL source, N .txt files, or both (default: jsonl)")
    ap.add_argument("--as-files", action="store_true", help="shorthand for --mode files")
    ap.add_argument("--rounds", type=int, default=1, help="repeat everything N times; medians are reported")
    ap.add_argument("--embedder", choices=["sentence-transformers", "hashing"], default="sentence-transformers",
                    help="hashing: ragkit's fake embedder, for a fast smoke test")
    ap.add_argument("--backend", choices=["torch", "onnx", "onnx-int8"], default="torch",
                    help="ragkit's sentence-transformers backend (the raw baseline is always torch)")
    ap.add_argument("--pipeline", type=Path, default=REPO / "pipelines" / "default.yaml")
    ap.add_argument("--workdir", type=Path, default=None, help="keep inputs and indexes here (default: a temp dir)")
    ap.add_argument("--json-out", type=Path, default=None, help="also write every measurement as JSON")
    args = ap.parse_args(argv)
    if args.as_files:
        args.mode = "files"
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1 (got {args.rounds})")
    return args


# --------------------------------------------------------------------------- set-up


def write_pipeline(args: argparse.Namespace, dest: Path) -> Path:
    """default.yaml, plus the jsonl loader (text_field text, id_field _id) and the chosen embedder."""
    import yaml

    data: dict[str, Any] = yaml.safe_load(args.pipeline.read_text(encoding="utf-8")) or {}
    data["loaders"] = {**(data.get("loaders") or {}), ".jsonl": {"type": "jsonl", "text_field": "text", "id_field": "_id"}}
    if args.embedder == "hashing":
        data["embedder"] = {"type": "hashing"}
    elif args.backend != "torch":
        data["embedder"] = {**(data.get("embedder") or {}), "backend": args.backend}
    dest.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return dest


def ragkit_cmd() -> list[str]:
    script = Path(sys.executable).parent / "ragkit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragkit.cli.main"]


def prepare_inputs(args: argparse.Namespace, work: Path) -> dict[str, Path]:
    passages = read_corpus(args.corpus, args.limit)
    modes = ["jsonl", "files"] if args.mode == "both" else [args.mode]
    inputs: dict[str, Path] = {}
    if "jsonl" in modes:
        inputs["jsonl"] = write_jsonl(passages, work / "corpus.jsonl")
    if "files" in modes:
        inputs["files"] = write_txt_files(passages, work / "passages")
    args.n_passages = len(passages)
    return inputs


# --------------------------------------------------------------------------- measured paths


def raw_encode(args: argparse.Namespace, mode: str, src: Path, name: str = "raw encode") -> Measured:
    flag = "--dir" if mode == "files" else "--jsonl"
    cmd = [sys.executable, str(PEERS_DIR / "raw_encode.py"), flag, str(src), "--embedder", args.embedder]
    return check_ok(run_measured(name, cmd, cwd=REPO))


def ragkit_index(pipeline: Path, src: Path, index: Path, name: str) -> Measured:
    cmd = [*ragkit_cmd(), "index", str(src), "--pipeline", str(pipeline), "--index", str(index), "--json"]
    return check_ok(run_measured(name, cmd, cwd=REPO))


def warm_up(args: argparse.Namespace, pipeline: Path, work: Path) -> None:
    """Untimed: load the libraries and the model once (OS file cache; ONNX export cache)."""
    tiny = write_jsonl(read_corpus(args.corpus, 16), work / "warmup.jsonl")
    raw_encode(args, "jsonl", tiny, "warm-up raw")
    ragkit_index(pipeline, tiny, work / "warmup-index", "warm-up ragkit")


def one_round(args: argparse.Namespace, pipeline: Path, mode: str, src: Path, work: Path, r: int) -> dict[str, Measured]:
    index = work / f"index-{mode}-{r}"
    runs = {
        "raw": lambda: raw_encode(args, mode, src),
        "first": lambda: ragkit_index(pipeline, src, index, "ragkit index"),
        "rerun": lambda: ragkit_index(pipeline, src, index, "ragkit index (unchanged re-run)"),
    }
    out: dict[str, Measured] = {}
    for key, run in runs.items():
        out[key] = m = run()
        print(f"  round {r + 1} {mode:5s} {key:5s}: {m.wall:8.2f} s wall, {m.peak_rss_mb:7.0f} MiB peak, "
              f"in-process {m.report.get('seconds', float('nan')):.2f} s", flush=True)
    return out


# --------------------------------------------------------------------------- report


def summarize(args: argparse.Namespace, mode: str, rounds: list[dict[str, Measured]]) -> str:
    n = args.n_passages

    def med(key: str, attr: str) -> float:
        if attr == "seconds":
            return median(m.report.get("seconds", float("nan")) for m in (r[key] for r in rounds))
        return median(getattr(r[key], attr) for r in rounds)

    rows = []
    labels = {"raw": "raw `SentenceTransformer.encode` (1 call, batch 64)", "first": "`ragkit index` (first run)",
              "rerun": "`ragkit index` (unchanged re-run)"}
    for key, label in labels.items():
        wall, inproc = med(key, "wall"), med(key, "seconds")
        chunks = rounds[-1][key].report.get("chunks_added", rounds[-1][key].report.get("chunks", ""))
        rate = "" if key == "rerun" else n / wall
        rate_in = "" if key == "rerun" else n / inproc
        rows.append([label, wall, rate, inproc, rate_in, med(key, "peak_rss_mb"), chunks])
    table = markdown_table(
        ["path", "wall s", "passages/s (wall)", "in-process s", "passages/s (in-process)", "peak RSS MiB", "chunks"],
        rows,
    )
    rate_wall = ratio(med("raw", "wall"), med("first", "wall"))
    rate_in = ratio(med("raw", "seconds"), med("first", "seconds"))
    rerun_wall = ratio(med("rerun", "wall"), med("first", "wall"))
    rerun_in = ratio(med("rerun", "seconds"), med("first", "seconds"))
    verdict = lambda ok: "PASS" if ok else "MISS"  # noqa: E731
    lines = [
        f"### {mode}: {n:,} passages as {'one JSONL file' if mode == 'jsonl' else f'{n:,} .txt files'}, "
        f"{len(rounds)} round(s), medians",
        "",
        table,
        "",
        f"- rate ratio ragkit / raw encode: {rate_wall:.2f} (whole process), {rate_in:.2f} (in-process) "
        f"— target ≥ {RATE_TARGET}: {verdict(rate_wall >= RATE_TARGET)}",
        f"- unchanged re-run / first run: {rerun_wall:.1%} (whole process), {rerun_in:.1%} (in-process) "
        f"— target < {RERUN_TARGET:.0%}: {verdict(rerun_wall < RERUN_TARGET)}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.corpus.is_file():
        print(missing_corpus_message(args.corpus))
        return 0
    with tempfile.TemporaryDirectory(prefix="ragkit-bench-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        inputs = prepare_inputs(args, work)
        pipeline = write_pipeline(args, work / "pipeline.yaml")
        print_facts("machine", machine_facts())
        print_facts("versions", versions(packages=PACKAGES))
        print(f"corpus: {args.corpus} ({args.n_passages:,} passages); embedder {args.embedder}, "
              f"ragkit backend {args.backend}; pipeline {args.pipeline.name} + jsonl loader", flush=True)
        warm_up(args, pipeline, work)
        results: dict[str, list[dict[str, Measured]]] = {mode: [] for mode in inputs}
        for r in range(args.rounds):
            for mode, src in inputs.items():
                results[mode].append(one_round(args, pipeline, mode, src, work, r))
        failed = [m.name for rounds in results.values() for rd in rounds for m in rd.values() if not m.ok]
        print()
        for mode, rounds in results.items():
            print(summarize(args, mode, rounds))
            print()
        if args.json_out:
            dump = {mode: [{k: asdict(m) for k, m in rd.items()} for rd in rounds] for mode, rounds in results.items()}
            args.json_out.write_text(json.dumps(dump, indent=2), encoding="utf-8")
    if failed:
        print(f"failed runs: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
