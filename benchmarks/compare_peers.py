"""Side-by-side indexing benchmark: ragkit's default pipeline vs the tools users would pick instead.

One run, one corpus (msmarco-5k passages written as ``.txt`` files), one model (all-MiniLM-L6-v2),
each path a separate process (wall time includes imports and model load), paths taking turns in
interleaved rounds (the order rotates each round, so none always runs first or last):

- ``raw``: ``SentenceTransformer.encode`` of every passage in one call (batch 64, PyTorch fp32);
- ``ragkit``: ``ragkit index`` with ``pipelines/default.yaml`` (ONNX Runtime int8, recipe ``s8-rr-sqxl``;
  Markdown/recursive splitter at 200 tokens, flat FAISS, BM25 for the hybrid retriever),
  ``ragkit-fp32``, the same with ``backend: onnx`` (ONNX Runtime fp32, the default before), and
  ``ragkit-int8``, the same with the int8 recipe ``--int8-recipe`` (default ``s8-rr``);
- ``langchain``: ``DirectoryLoader`` -> ``RecursiveCharacterTextSplitter(900, 135)`` characters
  (about 200/30 MiniLM tokens on this corpus) -> ``HuggingFaceEmbeddings`` -> ``FAISS.from_documents``;
- ``llamaindex``: ``SimpleDirectoryReader`` -> ``SentenceSplitter(200, 30)`` in MiniLM tokens ->
  ``HuggingFaceEmbedding`` -> ``VectorStoreIndex`` (persisted);
- ``fastembed``: Qdrant's ONNX Runtime library (fp32 ONNX model, loaded from a local directory
  with ``specific_model_path``; ``benchmarks/peers/fastembed_index.py`` says how it is built) ->
  FAISS ``IndexFlatIP``.

Optional paths (``--paths``): ``ragkit-torch`` (the default pipeline with PyTorch), ``langchain-api`` (LangChain's indexing API with a ``SQLRecordManager``) and
``llamaindex-pipeline`` (an ``IngestionPipeline`` with a docstore); ``--reruns`` also times the
unchanged re-run of the incremental ones.

For each path: wall time, CPU time (user + system, from ``os.wait4``), peak RSS, chunks, and the
**vector check**: the vectors each tool stored for the passages that stayed one chunk, against raw
``encode`` (mean and min cosine). ``--cpu-view both`` runs every round natively and then as on an
AVX2-only CPU (``tools/avx2_only/run``, which hides AVX-512 and VNNI from every process: the peers'
PyTorch and ONNX Runtime included) and prints one table per view. The CPU model, flags, ISA class
and the load average (at the start and per run) are printed with the figures. The peers run in
their own virtualenv (``--peers-python``, default ``/tmp/venv-peers/bin/python``; see
``docs/benchmarks/index.md``, "Running them").

    .venv/bin/python benchmarks/compare_peers.py --limit 2000 --rounds 3 --cpu-view both
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

import numpy as np

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

DEFAULT_PATHS = "raw,ragkit,ragkit-fp32,langchain,llamaindex,fastembed"
#: the issue's targets: ragkit's wall time against LangChain's per view, and against fastembed's
LANGCHAIN_TARGET = {"native": 0.33, "avx2": 0.4}
VIEW_RUN = REPO / "tools" / "avx2_only" / "run"
DIMENSION = 384  # all-MiniLM-L6-v2
RAGKIT_PACKAGES = ("ragkit", "onnxruntime", "torch", "sentence-transformers", "transformers", "faiss-cpu", "numpy")
PEER_PACKAGES = ("torch", "sentence-transformers", "transformers", "faiss-cpu", "onnxruntime", "fastembed",
                 "langchain-core", "langchain-community", "langchain-text-splitters", "langchain-huggingface",
                 "langchain-classic", "llama-index-core", "llama-index-embeddings-huggingface")


@dataclass(frozen=True)
class Contender:
    """One measured path: a command, whether an unchanged re-run is meaningful, where its vectors go."""

    key: str
    tool: str
    label: str
    cmd: tuple[str, ...]
    rerun: bool
    vectors: Path
    index: Path | None = None  # ragkit: the index whose catalog holds the vectors


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, default=2000, help="the first N passages (0: all 5,000)")
    ap.add_argument("--paths", default=DEFAULT_PATHS,
                    help=f"comma-separated paths to run (default {DEFAULT_PATHS}; also ragkit-int8, ragkit-torch, "
                         "langchain-api, llamaindex-pipeline)")
    ap.add_argument("--peers-python", default=os.environ.get("RAGKIT_PEERS_PYTHON", "/tmp/venv-peers/bin/python"))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--int8-recipe", default="s8-rr", help="the int8 recipe of the ragkit-int8 path")
    ap.add_argument("--reruns", action="store_true", help="also time the unchanged re-run of incremental paths")
    ap.add_argument("--cpu-view", choices=("native", "avx2", "both"), default="native",
                    help="avx2: every process as on an AVX2-only CPU (tools/avx2_only/run); both: each round twice")
    ap.add_argument("--lc-chunk-size", type=int, default=900, help="LangChain splitter size, characters")
    ap.add_argument("--lc-chunk-overlap", type=int, default=135, help="LangChain splitter overlap, characters")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json-out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1 (got {args.rounds})")
    args.path_keys = [p.strip() for p in args.paths.split(",") if p.strip()]
    args.views = ["native", "avx2"] if args.cpu_view == "both" else [args.cpu_view]
    return args


# --------------------------------------------------------------------------- the paths


def ragkit_pipeline(backend: str | None, dest: Path, recipe: str | None = None) -> Path:
    import yaml

    data: dict[str, Any] = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text(encoding="utf-8"))
    if backend is not None:
        data["embedder"] = {**data["embedder"], "backend": backend}
    if recipe is not None:
        data["embedder"] = {**data["embedder"], "recipe": recipe}
    dest.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return dest


def ragkit_bin() -> list[str]:
    script = Path(sys.executable).parent / "ragkit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragkit.cli.main"]


def build_paths(args: argparse.Namespace, corpus: Path, work: Path, tag: str) -> list[Contender]:
    """Every path of ``--paths``, in the order given; ``tag`` keeps each round's and view's outputs apart."""
    import yaml

    peers, d = args.peers_python, str(corpus)
    out: dict[str, Contender] = {}

    def vec(key: str) -> Path:
        return work / f"vectors-{key}-{tag}.npz"

    out["raw"] = Contender("raw", "sentence-transformers", "raw `encode` (1 call, batch 64)",
                           (sys.executable, str(PEERS_DIR / "raw_encode.py"), "--dir", d, "--vectors", str(vec("raw"))),
                           False, vec("raw"))
    default = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text(encoding="utf-8"))["embedder"]
    for key, backend in (("ragkit", None), ("ragkit-fp32", "onnx"), ("ragkit-int8", "onnx-int8"), ("ragkit-torch", "torch")):
        recipe = args.int8_recipe if backend == "onnx-int8" else None
        pipe = ragkit_pipeline(backend, work / f"pipeline-{key}.yaml", recipe)
        index = work / f"{key}-{tag}"
        label = f"`ragkit index`, default pipeline ({default['backend']} {default.get('recipe', '')})" if backend is None else \
            f"`ragkit index`, backend {backend}" + (f" ({recipe})" if recipe else "")
        out[key] = Contender(key, "ragkit", label, (*ragkit_bin(), "index", d, "-p", str(pipe), "-i", str(index),
                                                    "--json"), True, vec(key), index)
    lc = (peers, str(PEERS_DIR / "langchain_index.py"), "--dir", d, "--chunk-size", str(args.lc_chunk_size),
          "--chunk-overlap", str(args.lc_chunk_overlap))
    li = (peers, str(PEERS_DIR / "llamaindex_index.py"), "--dir", d)
    peer_paths = [  # key, tool, label, runner, mode, output dir, writes vectors
        ("langchain", "LangChain", "`FAISS.from_documents`", lc, "plain", "lc", True),
        ("langchain-api", "LangChain", "indexing API + SQLRecordManager", lc, "indexing-api", "lc-api", False),
        ("llamaindex", "LlamaIndex", "`VectorStoreIndex` (persisted)", li, "plain", "li", True),
        ("llamaindex-pipeline", "LlamaIndex", "IngestionPipeline + docstore", li, "pipeline", "li-pipe", False),
    ]
    for key, tool, label, runner, mode, name, writes in peer_paths:
        cmd = (*runner, "--mode", mode, "--out", str(work / f"{name}-{tag}"))
        out[key] = Contender(key, tool, label, (*cmd, "--vectors", str(vec(key))) if writes else cmd,
                             mode != "plain", vec(key))
    out["fastembed"] = Contender("fastembed", "fastembed", "`TextEmbedding.embed` (fp32 ONNX) + FAISS",
                                 (peers, str(PEERS_DIR / "fastembed_index.py"), "--model", str(work / "fastembed-model"),
                                  "--dir", d, "--out", str(work / f"fe-{tag}"), "--vectors", str(vec("fastembed"))),
                                 False, vec("fastembed"))
    unknown = [k for k in args.path_keys if k not in out]
    if unknown:
        raise SystemExit(f"unknown path(s) {', '.join(unknown)}: use {', '.join(out)}")
    return [out[k] for k in args.path_keys]


def in_view(view: str, cmd: tuple[str, ...]) -> tuple[str, ...]:
    return (str(VIEW_RUN), *cmd) if view == "avx2" else cmd


def view_env(args: argparse.Namespace) -> dict[str, str]:
    """What every process gets: offline hubs, and for the AVX2 view the Pythons whose ONNX Runtime
    and NumPy are patched where the machine has no CPUID faulting."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    pythons = [sys.executable] + ([args.peers_python] if Path(args.peers_python).exists() else [])
    env["AVX2_ONLY_PYTHONS"] = " ".join(pythons)
    return env


# --------------------------------------------------------------------------- the vector check


def load_vectors(p: Contender) -> tuple[list[str], np.ndarray]:
    """(passage ids, vectors) a path stored for the passages that stayed one chunk."""
    if p.index is not None:
        return ragkit_vectors(p.index)
    if not p.vectors.is_file():
        return [], np.zeros((0, 0), dtype=np.float32)
    data = np.load(p.vectors)
    return [str(i) for i in data["ids"]], data["vectors"]


def ragkit_vectors(index: Path) -> tuple[list[str], np.ndarray]:
    """The vectors ragkit stored, read back through its catalog (chunk -> text hash -> the embedding
    cache entry the store was filled from)."""
    from ragkit.index.catalog import Catalog
    from ragkit.index.layout import IndexLayout

    cat = Catalog(IndexLayout(index).catalog, read_only=True)
    try:
        records = cat.chunk_records()
        model = cat.get_meta("embedder") or ""
        by_source: dict[str, list[str]] = {}
        for r in records:
            by_source.setdefault(Path(r.source).stem, []).append(r.text_hash)
        single = {stem: hashes[0] for stem, hashes in by_source.items() if len(hashes) == 1}
        cached = cat.cached_embeddings(model, sorted(set(single.values())), DIMENSION)
    finally:
        cat.close()
    ids = sorted(s for s, h in single.items() if h in cached)
    return ids, np.array([cached[single[s]] for s in ids], dtype=np.float32).reshape(len(ids), -1)


def check_vectors(p: Contender, reference: tuple[list[str], np.ndarray]) -> dict[str, float]:
    ids, vecs = load_vectors(p)
    ref = dict(zip(reference[0], reference[1], strict=True))
    common = [(i, v) for i, v in zip(ids, vecs, strict=True) if i in ref]
    if not common:
        return {"checked": 0, "mean": float("nan"), "min": float("nan")}
    a = np.array([v for _, v in common])
    b = np.array([ref[i] for i, _ in common])
    cos = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"checked": len(common), "mean": float(cos.mean()), "min": float(cos.min())}


# --------------------------------------------------------------------------- warm-up


def warm_up(args: argparse.Namespace, tiny: Path, work: Path, env: dict[str, str]) -> None:
    """Untimed: a 16-file run of every path in every view (libraries and models loaded once, the
    OS file cache filled, ONNX exports built); the fastembed model directory is built once."""
    if "fastembed" in args.path_keys and not (work / "fastembed-model" / "model.onnx").is_file():
        m = run_measured("prepare fastembed", [args.peers_python, str(PEERS_DIR / "fastembed_index.py"), "--prepare",
                                               str(work / "fastembed-model")], cwd=REPO, env=env)
        if not m.ok:
            raise SystemExit(f"could not build the fastembed model directory:\n{m.stderr_tail}")
    for view in args.views:
        for p in build_paths(args, tiny, work, f"warmup-{view}"):
            m = run_measured(f"warm-up {p.key} ({view})", in_view(view, p.cmd), cwd=REPO, env=env)
            print(f"warm-up {p.key:20s} {view:6s}: {'ok' if m.ok else 'FAILED'} ({m.wall:.1f} s)", flush=True)
            if not m.ok:
                raise SystemExit(f"{p.key} failed on the 16-file warm-up ({view}):\n{m.stderr_tail}")


# --------------------------------------------------------------------------- running and reporting


def run_round(args: argparse.Namespace, corpus: Path, work: Path, r: int, env: dict[str, str]) -> dict[str, Any]:
    """One round: every view, every path (order rotated by round); returns view -> key -> runs."""
    out: dict[str, Any] = {}
    for view in args.views:
        paths = build_paths(args, corpus, work, f"{view}-{r}")
        shift = r % len(paths)
        runs: dict[str, Any] = {}
        for p in paths[shift:] + paths[:shift]:
            first = check_ok(run_measured(p.key, in_view(view, p.cmd), cwd=REPO, env=env))
            entry: dict[str, Any] = {"first": first}
            if p.rerun and args.reruns:
                entry["rerun"] = check_ok(run_measured(f"{p.key} (re-run)", in_view(view, p.cmd), cwd=REPO, env=env))
            runs[p.key] = entry
            print(f"  round {r + 1} {view:6s} {p.key:20s}: {first.wall:7.1f} s wall, {first.cpu:7.1f} s CPU, "
                  f"{first.peak_rss_mb:6.0f} MiB, load {first.load:.1f}{'' if first.ok else '  FAILED'}", flush=True)
        reference = load_vectors(next(p for p in paths if p.key == "raw")) if "raw" in runs else ([], np.zeros(0))
        for p in paths:
            runs[p.key]["vectors"] = check_vectors(p, reference) if p.key != "raw" and reference[0] else {}
        out[view] = runs
    return out


def summarize(args: argparse.Namespace, rounds: list[dict[str, Any]], view: str, n: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:  # only the labels are needed: no files in the cwd
        paths = build_paths(args, Path("."), Path(tmp), "x")
    runs = [rd[view] for rd in rounds]

    def med(key: str, attr: str, kind: str = "first") -> float:
        return median(getattr(r[key][kind], attr) for r in runs if kind in r.get(key, {}))

    def per_round(key: str, other: str) -> list[float]:
        return [ratio(r[key]["first"].wall, r[other]["first"].wall) for r in runs if key in r and other in r]

    rows = []
    lc = "langchain" if "langchain" in args.path_keys else None
    for p in paths:
        kinds = ("first", "rerun") if p.rerun and args.reruns else ("first",)
        for kind in kinds:
            vec = runs[-1][p.key].get("vectors") or {}
            check = "reference" if p.key == "raw" else (
                f"{vec['checked']:,}: {vec['mean']:.5f} ({vec['min']:.5f})" if vec.get("checked") else "n/a")
            vs_lc = median(per_round(p.key, lc)) if lc and kind == "first" else float("nan")
            loads = [r[p.key][kind].load for r in runs if kind in r.get(p.key, {})]
            rows.append([p.tool, p.label + (" — unchanged re-run" if kind == "rerun" else ""), med(p.key, "wall", kind),
                         med(p.key, "cpu", kind), f"{vs_lc:.2f}×" if vs_lc == vs_lc else "", med(p.key, "peak_rss_mb", kind),
                         str(runs[-1][p.key][kind].report.get("chunks_total", runs[-1][p.key][kind].report.get(
                             "chunks", runs[-1][p.key][kind].report.get("vectors", "")))),
                         check, f"{min(loads):.1f}–{max(loads):.1f}"])
    table = markdown_table(["tool", "path", "wall s", "CPU s (user+sys)", "wall ÷ LangChain (per round)",
                            "peak RSS MiB", "chunks", "vectors checked: mean (min) cosine to raw encode",
                            "load avg"], rows)
    lines = [f"### CPU view: {view} — {n:,} passages as {n:,} .txt files, {len(runs)} interleaved round(s), "
             "medians", "", table, ""]
    for key in (k for k in ("ragkit", "ragkit-fp32", "ragkit-int8") if k in args.path_keys):
        name = {"ragkit": "ragkit default", "ragkit-fp32": "ragkit fp32", "ragkit-int8": "ragkit int8"}[key]
        if lc:
            rr = per_round(key, lc)
            target = LANGCHAIN_TARGET[view]
            lines.append(f"- {name} ÷ LangChain wall: {median(rr):.2f}× (rounds: "
                         f"{', '.join(f'{x:.2f}' for x in rr)}) — target ≤ {target}: "
                         f"{'PASS' if median(rr) <= target else 'MISS'}")
        if "fastembed" in args.path_keys:
            rf = per_round(key, "fastembed")
            lines.append(f"- {name} ÷ fastembed wall: {median(rf):.2f}× (rounds: "
                         f"{', '.join(f'{x:.2f}' for x in rf)}) — target ≤ 1: {'PASS' if median(rf) <= 1 else 'MISS'}")
        if lc:
            rc = [ratio(r[key]["first"].cpu, r[lc]["first"].cpu) for r in runs]
            lines.append(f"- {name} ÷ LangChain CPU time: {median(rc):.2f}×")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.corpus.is_file():
        print(missing_corpus_message(args.corpus))
        return 0
    peers_needed = any(k not in ("raw",) and not k.startswith("ragkit") for k in args.path_keys)
    if peers_needed and not Path(args.peers_python).exists():
        print(f"no peer interpreter at {args.peers_python}: create it as docs/benchmarks/index.md says, or pass "
              "--peers-python, or --paths raw,ragkit", file=sys.stderr)
        return 2
    env = view_env(args)
    if "avx2" in args.views:
        check = run_measured("avx2 view check", [str(VIEW_RUN), "true"], env=env)
        if check.returncode == 3:
            print("the AVX2-only view is not available here (no CPUID faulting and no objdump)", file=sys.stderr)
            return 3
    with tempfile.TemporaryDirectory(prefix="ragkit-peers-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        passages = read_corpus(args.corpus, args.limit or None)
        corpus = write_txt_files(passages, work / "passages")
        tiny = write_txt_files(passages[:16], work / "warmup-passages")
        print_facts("machine", machine_facts())
        for view in args.views:
            if view == "avx2":
                out = run_measured("view facts", [str(VIEW_RUN), sys.executable, "-c",
                                                  "import json; from ragkit.embedders.isa import cpu_description as d; "
                                                  "print(json.dumps(d()))"], env=env)
                print_facts("AVX2-only view (tools/avx2_only/run)", out.report)
        print_facts("ragkit venv", versions(packages=RAGKIT_PACKAGES))
        if Path(args.peers_python).exists():
            print_facts("peers venv", versions(args.peers_python, PEER_PACKAGES))
        print(f"corpus: {args.corpus} -> {len(passages):,} .txt files; paths: {', '.join(args.path_keys)}", flush=True)
        warm_up(args, tiny, work, env)
        rounds = [run_round(args, corpus, work, r, env) for r in range(args.rounds)]
        try:
            end_load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        except OSError:
            end_load = "n/a"
        print(f"\nload average at the end: {end_load}\n")
        for view in args.views:
            print(summarize(args, rounds, view, len(passages)) + "\n")
        if args.json_out:
            dump = [{view: {k: {kind: (asdict(m) if isinstance(m, Measured) else m) for kind, m in v.items()}
                            for k, v in rd[view].items()} for view in rd} for rd in rounds]
            args.json_out.write_text(json.dumps(dump, indent=2, default=str), encoding="utf-8")
    failed = [m.name for rd in rounds for v in rd.values() for e in v.values() for m in e.values()
              if isinstance(m, Measured) and not m.ok]
    if failed:
        print(f"failed runs: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
