"""How to schedule the ONNX fp32 embedder on the cores it has: variants side by side, interleaved.
(``--recipe s8-rr-sqxl``: the same for an int8 export.)

    python benchmarks/embed_schedule.py --limit 2000 --block 250 --rounds 3
    tools/avx2_only/run .venv/bin/python benchmarks/embed_schedule.py --limit 2000 --block 250 --rounds 3

On msmarco-5k passages (``../shared/datasets/msmarco-5k/corpus.jsonl``), each variant embeds the
same blocks of ``--block`` passages in turn (A, B, C, A, B, C, ...; the order rotates each round,
so load that comes and goes hits every variant alike) with the cached fused fp32 export of
all-MiniLM-L6-v2. Timed: tokenizing, the session runs, pooling. Variants (``--variants``):

- ``default``: what ``OnnxEmbedder`` does: one session on all cores (``os.sched_getaffinity``),
  idle workers sleep (``allow_spinning 0``), one text per run, in ascending length order;
- ``spin``: the same with ONNX Runtime's default spinning workers;
- ``sessions``: one single-threaded session per core, each fed from a shared length-sorted queue
  by its own Python thread (ONNX Runtime releases the GIL in ``run``);
- ``no-arena`` / ``no-pattern``: the default without the CPU memory arena / memory patterns;
- ``parallel``: ``execution_mode ORT_PARALLEL`` (inter-op threads = cores);
- ``basic-opt``: ``graph_optimization_level ORT_ENABLE_BASIC`` instead of ``ALL``;
- ``b2048`` / ``b64``: length-sorted batches with padding, at most 2,048 tokens / 64 texts per run;
- ``sessions-b2048``: one session per core on such batches.

Prints passages/s per variant (total over all rounds), the ratio to ``default`` per round and
overall, the maximum deviation of each variant's vectors from ``default``'s, the ISA class the
process sees and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _common import DEFAULT_CORPUS, machine_facts, read_corpus  # the benchmarks folder is not a package

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

Embed = Callable[[list[str]], np.ndarray]
VARIANTS = ("default", "spin", "sessions", "no-arena", "no-pattern", "parallel", "basic-opt", "b2048",
            "b64", "sessions-b2048")


def make_variants(names: list[str], recipe: str = "fp32") -> dict[str, Embed]:
    import onnxruntime as ort

    from ragkit.embedders.onnx import (
        OnnxEmbedder,
        _available_cores,
        _mean_pool_normalize,
        _run_per_core,
        length_batches,
    )
    from ragkit.embedders.onnx_session import session_feeds

    base = OnnxEmbedder() if recipe == "fp32" else OnnxEmbedder(quantize="int8", recipe=recipe)
    base.load()
    cores = _available_cores()
    tok = base._tokenizer
    exported = next(p for p in base.cache_dir.glob(f"*-{base.settings.variant}-*/model.onnx")
                    if (p.parent / "export.json").read_text().count('"format": 3'))
    path = exported.parent / f"optimized-ort{ort.__version__}" / "model.onnx"
    if not path.is_file():
        path = exported

    def session(threads: int, *, spin: bool = False, arena: bool = True, pattern: bool = True,
                parallel: bool = False, level: str = "ORT_ENABLE_ALL") -> object:
        o = ort.SessionOptions()
        o.intra_op_num_threads = threads
        o.inter_op_num_threads = cores if parallel else 1
        o.execution_mode = ort.ExecutionMode.ORT_PARALLEL if parallel else ort.ExecutionMode.ORT_SEQUENTIAL
        o.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        o.enable_cpu_mem_arena = arena
        o.enable_mem_pattern = pattern
        o.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
        return ort.InferenceSession(str(path), o, providers=["CPUExecutionProvider"])

    def run_batch(sess: object, encs: list, idx: np.ndarray, lengths: np.ndarray, out: np.ndarray) -> None:
        feeds, mask = session_feeds([encs[i] for i in idx], int(lengths[idx[-1]]), base._input_names)
        hidden = sess.run(["last_hidden_state"], feeds)[0]  # type: ignore[attr-defined]
        out[idx] = _mean_pool_normalize(hidden, mask)

    def single(sess: object, batch_tokens: int = 0, batch_size: int = 64) -> Embed:
        def embed(texts: list[str]) -> np.ndarray:
            encs = tok.encode_batch(texts)
            lengths = np.fromiter((len(e.ids) for e in encs), dtype=np.int64, count=len(encs))
            out = np.zeros((len(texts), base.dimension), dtype=np.float32)
            for idx in length_batches(lengths, batch_tokens, batch_size):
                run_batch(sess, encs, idx, lengths, out)
            return out
        return embed

    def per_core(batch_tokens: int = 0) -> Embed:
        sessions = [session(1) for _ in range(cores)]

        def embed(texts: list[str]) -> np.ndarray:
            encs = tok.encode_batch(texts)
            lengths = np.fromiter((len(e.ids) for e in encs), dtype=np.int64, count=len(encs))
            out = np.zeros((len(texts), base.dimension), dtype=np.float32)
            # ragkit's own per-core runner (OnnxEmbedder's schedule for long calls)
            _run_per_core(sessions, length_batches(lengths, batch_tokens, 64),
                          lambda sess, idx: run_batch(sess, encs, idx, lengths, out))
            return out
        return embed

    makers: dict[str, Callable[[], Embed]] = {
        "default": lambda: single(session(cores)),
        "spin": lambda: single(session(cores, spin=True)),
        "sessions": lambda: per_core(),
        "no-arena": lambda: single(session(cores, arena=False)),
        "no-pattern": lambda: single(session(cores, pattern=False)),
        "parallel": lambda: single(session(cores, parallel=True)),
        "basic-opt": lambda: single(session(cores, level="ORT_ENABLE_BASIC")),
        "b2048": lambda: single(session(cores), batch_tokens=2048),
        "b64": lambda: single(session(cores), batch_tokens=1 << 30),
        "sessions-b2048": lambda: per_core(2048),
    }
    return {n: makers[n]() for n in names}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, default=2000)
    parser.add_argument("--block", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--recipe", default="fp32", help="fp32 (the default) or an int8 recipe, e.g. s8-rr-sqxl")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    names = [v for v in args.variants.split(",") if v]
    unknown = set(names) - set(VARIANTS)
    if unknown or "default" not in names:
        parser.error(f"--variants: need 'default' and only {', '.join(VARIANTS)} (got {sorted(unknown)})")
    if not args.corpus.is_file():
        print(f"no corpus at {args.corpus}; nothing measured")
        return 0
    texts = [p.text for p in read_corpus(args.corpus, args.limit)]
    blocks = [texts[i:i + args.block] for i in range(0, len(texts), args.block)]
    load_before = os.getloadavg()
    variants = make_variants(names, args.recipe)
    for embed in variants.values():  # warm-up
        embed(blocks[0][:32])
    seconds = {n: [0.0] * args.rounds for n in names}
    vectors = {n: [] for n in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for block in blocks:
            for n in order:
                started = time.perf_counter()
                vecs = variants[n](block)
                seconds[n][r] += time.perf_counter() - started
                if r == 0:
                    vectors[n].append(vecs)
    load_after = os.getloadavg()
    facts = machine_facts()
    print(f"# embed_schedule: {len(texts)} msmarco passages, blocks of {args.block}, {args.rounds} rounds, "
          f"{len(os.sched_getaffinity(0))} cores")
    for k in ("cpu", "cpuid features", "int8 ISA class (cpuid)"):
        if k in facts:
            print(f"# {k}: {facts[k]}")
    print(f"# load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} "
          f"{load_after[1]:.2f}")
    ref = np.vstack(vectors["default"])
    print("| variant | passages/s | vs default | per round | max abs diff to default |")
    print("|---|---:|---:|---|---:|")
    total = len(texts) * args.rounds
    for n in names:
        rate = total / sum(seconds[n])
        per_round = [seconds["default"][r] / seconds[n][r] for r in range(args.rounds)]
        diff = float(np.abs(np.vstack(vectors[n]) - ref).max())
        print(f"| {n} | {rate:.1f} | {sum(seconds['default']) / sum(seconds[n]):.3f}x | "
              f"{' / '.join(f'{x:.2f}' for x in per_round)} (median {statistics.median(per_round):.2f}) | "
              f"{diff:.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
