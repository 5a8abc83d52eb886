"""Side-by-side indexing benchmark: ragkit vs LangChain vs LlamaIndex (issue 6).

One run, one corpus (msmarco-5k written as 5,000 ``.txt`` files), one model (all-MiniLM-L6-v2,
fp32 unless a ragkit backend says otherwise), chunking as close as the tools allow:

- ragkit: ``pipelines/default.yaml`` (recursive splitter, 200 tokens / 30 overlap, measured in
  the embedder's tokens), ``faiss`` HNSW store, once per embedding backend that works here
  (``torch``, ``onnx``, ``onnx-int8``);
- LangChain: ``RecursiveCharacterTextSplitter(900, 135)`` characters (4.5 characters per
  MiniLM token on this corpus, so about 200/30 tokens) + ``HuggingFaceEmbeddings`` + FAISS, both
  ``FAISS.from_documents`` and the indexing API with a ``SQLRecordManager``;
- LlamaIndex: ``SentenceSplitter(chunk_size=200, chunk_overlap=30)`` counting MiniLM tokens +
  ``HuggingFaceEmbedding`` + ``VectorStoreIndex`` (persisted), and an ``IngestionPipeline``
  with a docstore;
- the baseline: raw ``SentenceTransformer.encode`` of the passages in one call (batch 64).

Every path is a separate process (wall time includes imports and model load); incremental tools
run a second time on the unchanged folder. The peers run in their own virtualenv
(``--peers-python``, default ``/tmp/venv-peers/bin/python``) so they cannot disturb ragkit's.

    .venv/bin/python benchmarks/compare_peers.py                       # everything, one round
    .venv/bin/python benchmarks/compare_peers.py --backends torch,onnx-int8 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import asdict, dataclass
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
    write_txt_files,
)

SPEED_TARGET = 0.6
RERUN_TARGET = 0.03
RSS_TARGET_MB = 1.5 * 1024
RAGKIT_PACKAGES = ("ragkit", "torch", "sentence-transformers", "transformers", "faiss-cpu", "onnxruntime")
PEER_PACKAGES = ("torch", "sentence-transformers", "transformers", "faiss-cpu", "langchain-core",
                 "langchain-community", "langchain-text-splitters", "langchain-huggingface", "langchain-classic",
                 "llama-index-core", "llama-index-embeddings-huggingface")


@dataclass(frozen=True)
class Contender:
    """One measured path: a command, and whether a second (unchanged) run is meaningful."""

    key: str
    tool: str
    label: str
    cmd: tuple[str, ...]
    rerun: bool
    out: Path | None = None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, default=None, help="only the first N passages")
    ap.add_argument("--backends", default="torch,onnx,onnx-int8", help="ragkit embedding backends to time")
    ap.add_argument("--peers-python", default=os.environ.get("RAGKIT_PEERS_PYTHON", "/tmp/venv-peers/bin/python"))
    ap.add_argument("--skip", default="", help="comma-separated path keys to skip, e.g. llamaindex,langchain-api")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--lc-chunk-size", type=int, default=900, help="LangChain splitter size, characters")
    ap.add_argument("--lc-chunk-overlap", type=int, default=135, help="LangChain splitter overlap, characters")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json-out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1 (got {args.rounds})")
    return args


# --------------------------------------------------------------------------- the paths


def ragkit_pipeline(backend: str, dest: Path) -> Path:
    import yaml

    data: dict[str, Any] = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text(encoding="utf-8"))
    if backend != "torch":
        data["embedder"] = {**data["embedder"], "backend": backend}
    dest.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return dest


def ragkit_bin() -> list[str]:
    script = Path(sys.executable).parent / "ragkit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragkit.cli.main"]


def build_paths(args: argparse.Namespace, corpus_dir: Path, work: Path, tag: str) -> list[Contender]:
    """Every measured path, in run order; ``tag`` keeps each round's outputs apart."""
    peers, d = args.peers_python, str(corpus_dir)
    paths = [Contender("raw", "sentence-transformers", "raw `encode` (1 call, batch 64)",
                   (sys.executable, str(PEERS_DIR / "raw_encode.py"), "--dir", d), rerun=False)]
    for backend in args.backends_ok:
        pipe = ragkit_pipeline(backend, work / f"pipeline-{backend}.yaml")
        out = work / f"ragkit-{backend}-{tag}"
        cmd = (*ragkit_bin(), "index", d, "--pipeline", str(pipe), "--index", str(out), "--json")
        paths.append(Contender(f"ragkit-{backend}", "ragkit", f"`ragkit index`, backend {backend}", cmd, True, out))
    if args.peers_ok:
        lc = (peers, str(PEERS_DIR / "langchain_index.py"), "--dir", d, "--chunk-size", str(args.lc_chunk_size),
              "--chunk-overlap", str(args.lc_chunk_overlap))
        li = (peers, str(PEERS_DIR / "llamaindex_index.py"), "--dir", d)
        paths += [
            Contender("langchain", "LangChain", "FAISS.from_documents", (*lc, "--mode", "plain", "--out",
                  str(work / f"lc-plain-{tag}")), False),
            Contender("langchain-api", "LangChain", "indexing API + SQLRecordManager", (*lc, "--mode", "indexing-api",
                  "--out", str(work / f"lc-api-{tag}")), True),
            Contender("llamaindex", "LlamaIndex", "VectorStoreIndex (persisted)", (*li, "--mode", "plain", "--out",
                  str(work / f"li-plain-{tag}")), False),
            Contender("llamaindex-pipeline", "LlamaIndex", "IngestionPipeline + docstore", (*li, "--mode", "pipeline",
                  "--out", str(work / f"li-pipe-{tag}")), True),
        ]
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    return [p for p in paths if p.key not in skip]


# --------------------------------------------------------------------------- availability and warm-up


def check_backends(args: argparse.Namespace, tiny: Path, work: Path) -> None:
    """Index a 16-file folder once per backend (untimed): loads caches, exports ONNX models once,
    and drops the backends that do not work here, saying why."""
    args.backends_ok = []
    for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
        pipe = ragkit_pipeline(backend, work / f"pipeline-{backend}.yaml")
        m = run_measured(f"warm-up ragkit {backend}", [*ragkit_bin(), "index", str(tiny), "--pipeline", str(pipe),
                                                       "--index", str(work / f"warmup-{backend}"), "--json"], cwd=REPO)
        if m.ok:
            args.backends_ok.append(backend)
            print(f"warm-up ragkit backend {backend}: ok ({m.wall:.1f} s)", flush=True)
        else:
            print(f"ragkit backend {backend} skipped: it failed on a 16-file warm-up:\n{m.stderr_tail}", flush=True)


def check_peers(args: argparse.Namespace, tiny: Path, work: Path) -> None:
    args.peers_ok = False
    if not Path(args.peers_python).exists():
        print(f"peers skipped: no interpreter at {args.peers_python}; create it as benchmarks/README.md says "
              "or pass --peers-python", flush=True)
        return
    runs = [
        ("langchain", [args.peers_python, str(PEERS_DIR / "langchain_index.py"), "--dir", str(tiny),
                       "--mode", "indexing-api", "--out", str(work / "warmup-lc")]),
        ("llamaindex", [args.peers_python, str(PEERS_DIR / "llamaindex_index.py"), "--dir", str(tiny),
                        "--mode", "pipeline", "--out", str(work / "warmup-li")]),
    ]
    ok = True
    for name, cmd in runs:
        m = run_measured(f"warm-up {name}", cmd, cwd=REPO)
        print(f"warm-up {name}: {'ok' if m.ok else 'FAILED'} ({m.wall:.1f} s)", flush=True)
        if not m.ok:
            print(m.stderr_tail, flush=True)
            ok = False
    args.peers_ok = ok


# --------------------------------------------------------------------------- running and reporting


def run_round(paths: list[Contender], r: int) -> dict[str, dict[str, Measured]]:
    out: dict[str, dict[str, Measured]] = {}
    for p in paths:
        runs = {"first": check_ok(run_measured(p.key, p.cmd, cwd=REPO))}
        if p.rerun:
            runs["rerun"] = check_ok(run_measured(f"{p.key} (re-run)", p.cmd, cwd=REPO))
        out[p.key] = runs
        for kind, m in runs.items():
            print(f"  round {r + 1} {p.key:20s} {kind:5s}: {m.wall:8.2f} s wall, {m.peak_rss_mb:7.0f} MiB peak"
                  f"{'' if m.ok else '  FAILED'}", flush=True)
    return out


def chunks_of(m: Measured) -> Any:
    rep = m.report
    for key in ("chunks_total", "vectors", "chunks"):
        if key in rep:
            return rep[key]
    return ""


def summarize(paths: list[Contender], rounds: list[dict[str, dict[str, Measured]]], n: int) -> str:
    def med(key: str, kind: str, attr: str = "wall") -> float:
        return median(getattr(rd[key][kind], attr) for rd in rounds if kind in rd.get(key, {}))

    raw = med("raw", "first") if any("raw" in rd for rd in rounds) else float("nan")
    rows = []
    for p in paths:
        for kind in ("first", "rerun") if p.rerun else ("first",):
            wall = med(p.key, kind)
            inproc = median(rd[p.key][kind].report.get("seconds", float("nan")) for rd in rounds)
            rows.append([p.tool, p.label, "unchanged re-run" if kind == "rerun" else "first run", wall,
                         f"{ratio(wall, raw):.2f}×", f"{ratio(wall, med(p.key, 'first')):.1%}" if kind == "rerun" else "",
                         med(p.key, kind, "peak_rss_mb"), chunks_of(rounds[-1][p.key][kind]), inproc])
    table = markdown_table(["tool", "path", "run", "wall s", "× raw encode", "re-run / first", "peak RSS MiB",
                            "chunks", "in-process s"], rows)
    return f"### {n:,} passages as {n:,} .txt files, {len(rounds)} round(s), medians\n\n{table}\n\n" + verdicts(
        paths, med)


def verdicts(paths: list[Contender], med: Any) -> str:
    peers = [p for p in paths if p.tool in ("LangChain", "LlamaIndex")]
    lines = []
    fastest_peer = min(((med(p.key, "first"), p.key) for p in peers), default=(float("nan"), "none"))
    for p in (p for p in paths if p.tool == "ragkit"):
        first, rerun, rss = med(p.key, "first"), med(p.key, "rerun"), med(p.key, "first", "peak_rss_mb")
        speed = ratio(first, fastest_peer[0])
        lines.append(
            f"- {p.label}: {speed:.2f}× the fastest peer ({fastest_peer[1]}, {fastest_peer[0]:.1f} s) — target ≤ "
            f"{SPEED_TARGET}: {'PASS' if speed <= SPEED_TARGET else 'MISS'}; re-run {ratio(rerun, first):.1%} of "
            f"first — target ≤ {RERUN_TARGET:.0%}: {'PASS' if ratio(rerun, first) <= RERUN_TARGET else 'MISS'}; "
            f"peak RSS {rss:.0f} MiB — target < {RSS_TARGET_MB:.0f}: {'PASS' if rss < RSS_TARGET_MB else 'MISS'}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.corpus.is_file():
        print(missing_corpus_message(args.corpus))
        return 0
    with tempfile.TemporaryDirectory(prefix="ragkit-peers-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        passages = read_corpus(args.corpus, args.limit)
        corpus_dir = write_txt_files(passages, work / "passages")
        tiny = write_txt_files(passages[:16], work / "warmup-passages")
        print_facts("machine", machine_facts())
        print_facts("ragkit venv", versions(packages=RAGKIT_PACKAGES))
        if Path(args.peers_python).exists():
            print_facts("peers venv", versions(args.peers_python, PEER_PACKAGES))
        print(f"corpus: {args.corpus} -> {len(passages):,} .txt files", flush=True)
        run_measured("warm-up raw", [sys.executable, str(PEERS_DIR / "raw_encode.py"), "--dir", str(tiny)], cwd=REPO)
        check_backends(args, tiny, work)
        check_peers(args, tiny, work)
        rounds, paths = [], []
        for r in range(args.rounds):
            paths = build_paths(args, corpus_dir, work, tag=str(r))
            rounds.append(run_round(paths, r))
        print()
        print(summarize(paths, rounds, len(passages)))
        if args.json_out:
            dump = [{k: {kind: asdict(m) for kind, m in v.items()} for k, v in rd.items()} for rd in rounds]
            args.json_out.write_text(json.dumps(dump, indent=2), encoding="utf-8")
    failed = [m.name for rd in rounds for v in rd.values() for m in v.values() if not m.ok]
    if failed:
        print(f"failed runs: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
