"""Embedding throughput and fidelity of ragkit's local backends, side by side in one run.

    python benchmarks/embed_backends.py [--limit N] [--rounds R] [--json out.json]
    python benchmarks/embed_backends.py --cpu-view both --limit 1000 --rounds 3   # VNNI and AVX2 side by side

On ``../shared/datasets/msmarco-5k/corpus.jsonl`` (relative to the repo root) it times

- sentence-transformers fp32 (PyTorch): one ``encode`` call over all texts, batch_size 64
  (sentence-transformers sorts the whole input by length);
- ragkit's ONNX Runtime embedder, fp32 and int8 (one ``embed_batch`` call, batch_size 64,
  length-sorted);

after a warm-up of each (which also exports and caches the ONNX models). With ``--rounds`` > 1
the rounds repeat and the medians are reported; ratios are computed within a round. On a busy
machine use ``--window N``: the backends take turns on windows of N texts (each window is one
call, length-sorted inside), so load that comes and goes affects all backends alike. Cosines compare each backend's vectors with
the PyTorch fp32 vectors of the same texts. Prints a Markdown table, versions, the CPU model,
its flags (avx2, avx512f, avx512_vnni, avx_vnni, amx) and the ISA class that chose the int8 recipe.

``--cpu-view avx2`` measures as on an AVX2-only processor: the measuring process runs under
``tools/avx2_only/run``, which hides AVX-512 and VNNI from cpuid, so ONNX Runtime, PyTorch and
NumPy take their AVX2 kernels and run them natively (the default int8 recipe, ``s8-rr-sqxl``, is the same on both).
``--cpu-view both`` alternates the two views round by round, each in its own process, and prints
one table per view: a whole comparison in one run.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _common import machine_facts, versions  # the benchmarks folder is not a package

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "datasets" / "msmarco-5k" / "corpus.jsonl"
BATCH_SIZE = 64
log = logging.getLogger("embed_backends")
Encode = Callable[[list[str]], np.ndarray]


@dataclass
class Result:
    name: str
    rates: list[float] = field(default_factory=list)  # passages per second, one per round
    ratios: list[float] = field(default_factory=list)  # rate / PyTorch rate of the same round
    cos_mean: float = float("nan")
    cos_min: float = float("nan")


def load_texts(path: Path, limit: int | None) -> list[str]:
    texts: list[str] = []
    with path.open(encoding="utf-8", newline="\n") as fh:  # split on \n only (the corpus has U+0085)
        for line in fh:
            if line.strip():
                row = json.loads(line)
                texts.append(f"{row['title']} {row['text']}".strip() if row.get("title") else row["text"])
            if limit is not None and len(texts) >= limit:
                break
    return texts


def backends(model_dir: str, other_isas: list[str]) -> dict[str, Encode]:
    """Name -> encode function; models load here (not timed)."""
    from sentence_transformers import SentenceTransformer

    from ragkit.embedders.onnx import OnnxEmbedder

    st = SentenceTransformer(model_dir, device="cpu")

    def torch_encode(texts: list[str]) -> np.ndarray:
        return st.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False)

    onnx_fp32 = OnnxEmbedder(model=model_dir, quantize="none", batch_size=BATCH_SIZE)
    onnx_int8 = OnnxEmbedder(model=model_dir, quantize="int8", batch_size=BATCH_SIZE)
    found = {
        "sentence-transformers fp32 (PyTorch)": torch_encode,
        "ragkit onnx fp32": onnx_fp32.embed_batch,
        f"ragkit onnx int8 ({onnx_int8.settings.variant})": onnx_int8.embed_batch,
    }
    for isa in other_isas:  # `recipe: auto` as chosen for a class (e.g. the AVX2 choice on a VNNI CPU)
        other = OnnxEmbedder(model=model_dir, quantize="int8", recipe="auto", batch_size=BATCH_SIZE, isa=isa)
        found[f"ragkit onnx int8 ({other.settings.variant})"] = other.embed_batch
    return found


def measure(encoders: dict[str, Encode], texts: list[str], rounds: int, window: int) -> list[Result]:
    """Time each backend; with ``window`` > 0 the backends take turns on windows of that many texts."""
    for name, encode in encoders.items():  # warm-up (and one-time ONNX export)
        started = time.perf_counter()
        encode(texts[: 2 * BATCH_SIZE])
        log.info("warm-up %-38s %.1f s", name, time.perf_counter() - started)
    results = {name: Result(name) for name in encoders}
    step = window if window > 0 else len(texts)
    windows = [texts[i : i + step] for i in range(0, len(texts), step)]
    for r in range(rounds):
        seconds = dict.fromkeys(encoders, 0.0)
        parts: dict[str, list[np.ndarray]] = {name: [] for name in encoders}
        for chunk in windows:
            for name, encode in encoders.items():
                started = time.perf_counter()
                parts[name].append(np.asarray(encode(chunk), dtype=np.float32))
                seconds[name] += time.perf_counter() - started
        reference = np.vstack(next(iter(parts.values())))
        base = next(iter(seconds.values()))
        for name, res in results.items():
            res.rates.append(len(texts) / seconds[name])
            res.ratios.append(base / seconds[name])
            if r == 0:
                cos = np.einsum("ij,ij->i", np.vstack(parts[name]), reference)
                res.cos_mean, res.cos_min = float(cos.mean()), float(cos.min())
            log.info("round %d %-38s %7.1f passages/s", r + 1, name, res.rates[-1])
    return list(results.values())


def environment() -> dict[str, str]:
    env = versions(packages=("torch", "transformers", "sentence-transformers", "onnxruntime", "onnx", "tokenizers",
                             "numpy"))
    env.update(machine_facts())
    if hasattr(os, "getloadavg"):
        env["load average (1 min) at end"] = f"{os.getloadavg()[0]:.2f}"
    return env


def report(results: list[Result], n_texts: int, rounds: int, window: int, env: dict[str, str]) -> str:
    calls = f"windows of {window} texts, backends taking turns" if window else "one call per backend"
    lines = [
        f"Embedding {n_texts} msmarco passages with all-MiniLM-L6-v2, batch size {BATCH_SIZE}, {calls}, "
        f"{rounds} round(s) (medians):",
        "",
        "| backend | passages/s | ratio to PyTorch fp32 | mean cosine to PyTorch | min cosine |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        ratio = statistics.median(r.ratios)
        ratios = "" if len(r.ratios) < 2 else " (" + ", ".join(f"{x:.2f}" for x in r.ratios) + ")"
        lines.append(
            f"| {r.name} | {statistics.median(r.rates):.1f} | {ratio:.2f}×{ratios} | "
            f"{r.cos_mean:.5f} | {r.cos_min:.5f} |"
        )
    lines += ["", "| environment | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in env.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, default=None, help="embed only the first N passages")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved timed rounds (medians)")
    parser.add_argument(
        "--window", type=int, default=0,
        help="backends take turns on windows of N texts (robust ratios on a busy machine); 0 = one call each",
    )
    parser.add_argument(
        "--int8-isa", action="append", default=[], choices=("vnni", "avx2", "base"),
        help="also time `recipe: auto` as chosen for this ISA class, on this processor (repeatable)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the results as JSON here")
    parser.add_argument(
        "--cpu-view", choices=("native", "avx2", "both"), default="native",
        help="avx2: measure as on an AVX2-only CPU (tools/avx2_only/run); both: native and avx2 alternating",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.cpu_view != "native":
        return run_views(argv if argv is not None else sys.argv[1:], args)
    for noisy in ("onnx_model", "fusion_base", "onnx_model_bert", "root", "sentence_transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger().setLevel(logging.WARNING)  # ORT's quantizer logs per tensor on the root logger
    log.setLevel(logging.INFO)
    logging.getLogger("ragkit").setLevel(logging.INFO)
    if not args.corpus.is_file():
        log.warning("corpus not found at %s; nothing to benchmark (pass --corpus PATH)", args.corpus)
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from ragkit.embedders.models import resolve_model_dir

    texts = load_texts(args.corpus, args.limit)
    model_dir = str(resolve_model_dir("all-MiniLM-L6-v2"))
    results = measure(backends(model_dir, args.int8_isa), texts, max(1, args.rounds), max(0, args.window))
    env = environment()
    sys.stdout.write(report(results, len(texts), max(1, args.rounds), max(0, args.window), env))
    if args.json:
        payload = {"texts": len(texts), "batch_size": BATCH_SIZE, "window": args.window, "rounds": args.rounds, "environment": env,
                   "results": [r.__dict__ for r in results]}
        args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


def run_views(argv: list[str], args: argparse.Namespace) -> int:
    """Run the measurement in child processes, one per view and round, the views taking turns."""
    views = ("native", "avx2") if args.cpu_view == "both" else (args.cpu_view,)
    passthrough = argv
    for option in ("--cpu-view", "--json", "--rounds"):
        passthrough = strip_option(passthrough, option)
    merged: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(max(1, args.rounds)):
            for view in views:
                out = Path(tmp) / f"{view}-{r}.json"
                prefix = [str(REPO / "tools" / "avx2_only" / "run")] if view == "avx2" else []
                cmd = [*prefix, sys.executable, __file__, *passthrough, "--rounds", "1", "--json", str(out)]
                log.info("round %d, %s view: %s", r + 1, view, " ".join(cmd))
                done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
                if done.returncode != 0:
                    log.error("the %s view failed (exit %d)", view, done.returncode)
                    return done.returncode
                part = json.loads(out.read_text(encoding="utf-8"))
                into = merged.setdefault(view, {**part, "results": {}})
                into["environment"] = part["environment"]
                for res in part["results"]:
                    have = into["results"].setdefault(res["name"], Result(res["name"], cos_mean=res["cos_mean"],
                                                                          cos_min=res["cos_min"]))
                    have.rates += res["rates"]
                    have.ratios += res["ratios"]
    for view in views:
        part = merged[view]
        sys.stdout.write(f"\n## CPU view: {view}\n\n")
        sys.stdout.write(report(list(part["results"].values()), part["texts"], max(1, args.rounds), part["window"],
                                part["environment"]))
    if args.json:
        payload = {view: {**part, "results": [r.__dict__ for r in part["results"].values()]} for view, part in merged.items()}
        args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


def strip_option(argv: list[str], name: str) -> list[str]:
    """``argv`` without ``name VALUE`` / ``name=VALUE``."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == name:
            skip = True
        elif not a.startswith(name + "="):
            out.append(a)
    return out


if __name__ == "__main__":
    sys.exit(main())
