"""Compare int8 quantization recipes for the ONNX embedder on the processor this process sees.

    # natively: export fp32 once, quantize every recipe, write the fp32 reference vectors
    python benchmarks/int8_recipes.py prepare --workdir /tmp/int8-recipes
    # then measure, natively and as on an AVX2-only CPU (ONNX Runtime picks its kernels from
    # cpuid; tools/avx2_only/run hides AVX-512 and VNNI from it, and the kernels run natively):
    python benchmarks/int8_recipes.py measure --workdir /tmp/int8-recipes
    tools/avx2_only/run .venv/bin/python benchmarks/int8_recipes.py measure --workdir /tmp/int8-recipes
    # where CPUID faulting is missing, an emulator does the same, about 1000x slower:
    qemu-x86_64 -cpu Haswell .venv/bin/python benchmarks/int8_recipes.py measure --workdir /tmp/int8-recipes

    # ragkit's own embedder, fp32 and int8 recipes side by side on msmarco-5k passages (blocks in
    # turn, order rotating per round): passages/s vs fp32 and mean/min cosine to fp32 (= PyTorch)
    python benchmarks/int8_recipes.py compare --limit 1000 --block 250 --rounds 2 \
        --recipes s8-rr s8-rr-ffn32 s8-rr-ends32 s8-rr-ffn-ends32
    tools/avx2_only/run .venv/bin/python benchmarks/int8_recipes.py compare --limit 1000 ...

``measure`` imports only onnxruntime, tokenizers and NumPy (no torch). It prints, per recipe, the
mean and minimum cosine of the int8 vectors to the fp32 ONNX vectors (which equal PyTorch's
within 1e-5), seconds per pass, and the ISA the process sees (from cpuid, via NumPy, not
/proc/cpuinfo: under either view the two differ). Each run saves its vectors, and a later run on
the other ISA class also prints the cosine of each recipe's vectors across the two classes.
Timings under the emulator mean nothing; under ``tools/avx2_only/run`` they are native.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

#: name -> (weight type, per_channel, reduce_range)
RECIPES = {
    "s8": ("QInt8", True, False),
    "s8-rr": ("QInt8", True, True),
    "u8u8": ("QUInt8", True, False),
}
log = logging.getLogger("int8_recipes")


def texts(n: int) -> list[str]:
    """``n`` of the unit test's texts, spread over its short, long and truncated ones."""
    from tests.unit.test_onnx_embedder import varied_texts

    every = varied_texts()
    return every[:: max(1, len(every) // n)][:n]


def prepare(workdir: Path, n: int) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from ragkit.embedders.models import resolve_model_dir
    from ragkit.embedders.onnx import OnnxEmbedder
    from ragkit.embedders.onnx_export import optimize_bert

    workdir.mkdir(parents=True, exist_ok=True)
    model_dir = resolve_model_dir("all-MiniLM-L6-v2")
    fp32 = OnnxEmbedder(model=str(model_dir), cache_dir=workdir / "cache")
    sample = texts(n)
    np.save(workdir / "reference.npy", fp32.embed_batch(sample))
    exported = next((workdir / "cache").glob("*-fp32-*/model.onnx"))
    optimized = workdir / "optimized.onnx"
    optimize_bert(exported, optimized, model_dir=model_dir)
    for name, (weight, per_channel, reduce_range) in RECIPES.items():
        quantize_dynamic(str(optimized), str(workdir / f"{name}.onnx"), weight_type=getattr(QuantType, weight),
                         per_channel=per_channel, reduce_range=reduce_range,
                         extra_options={"DefaultTensorType": 1})
    meta = {"model_dir": str(model_dir), "inputs": list(json.loads(
        (exported.parent / "export.json").read_text())["inputs"]), "texts": n}
    (workdir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    log.info("prepared %s", workdir)


def measure(workdir: Path, repeats: int, recipes: list[str], every: int = 1) -> None:
    import onnxruntime as ort

    from ragkit.embedders.isa import cpu_isa
    from ragkit.embedders.models import load_tokenizer
    meta = json.loads((workdir / "meta.json").read_text(encoding="utf-8"))
    reference = np.load(workdir / "reference.npy")[::every]
    sample = texts(meta["texts"])[::every]
    tok = load_tokenizer(Path(meta["model_dir"]))
    tok.enable_truncation(max_length=256)
    print(f"ISA seen by this process: {cpu_isa()}; onnxruntime {ort.__version__}; {len(sample)} texts")
    isa = cpu_isa()
    for name in recipes or ("fp32", *RECIPES):
        path = next((workdir / "cache").glob("*-fp32-*/model.onnx")) if name == "fp32" else workdir / f"{name}.onnx"
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        started = time.perf_counter()
        for _ in range(repeats):
            vecs = np.vstack([_embed(session, tok, t, meta["inputs"]) for t in sample])
        seconds = (time.perf_counter() - started) / repeats
        cos = np.einsum("ij,ij->i", vecs, reference)
        line = f"{name:6s} mean cosine to fp32 {cos.mean():.5f}  min {cos.min():.5f}  {seconds:.2f} s per pass"
        np.save(workdir / f"{name}@{isa}@every{every}.npy", vecs)
        for other in sorted(workdir.glob(f"{name}@*@every{every}.npy")):  # the same recipe, other ISA class
            if other.stem != f"{name}@{isa}@every{every}":
                same = np.einsum("ij,ij->i", vecs, np.load(other))
                line += f"; min cosine to {other.stem} {same.min():.6f}"
        print(line)


def _embed(session, tok, text: str, inputs: list[str]) -> np.ndarray:  # noqa: ANN001
    from ragkit.embedders.onnx import _mean_pool_normalize

    ids = np.array([tok.encode(text).ids], dtype=np.int64)
    mask = np.ones_like(ids)
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in inputs:
        feeds["token_type_ids"] = np.zeros_like(ids)
    return _mean_pool_normalize(session.run(["last_hidden_state"], feeds)[0], mask)


#: recipes measured here that ragkit does not offer (they lost on quality or speed; docs/benchmarks/indexing.md):
#: name -> ExportSettings fields (int8, per-channel)
TRIED_RECIPES = {
    "s8-rr-qkv-ffn32": {"weights": "s8", "reduce_range": True, "fp32": "qkv+ffn-out"},
    "s8-rr-ffn32": {"weights": "s8", "reduce_range": True, "fp32": "ffn-out"},
    "s8-rr-ends32": {"weights": "s8", "reduce_range": True, "fp32": "ends"},
    "u8u8-ffn32": {"weights": "u8", "reduce_range": False, "fp32": "ffn-out"},
    # SmoothQuant-style smoothing alone: every part, alpha 0.5 and 0.75
    "s8-rr-sq50-all": {"weights": "s8", "reduce_range": True, "smooth": "qkv+ffn-in+ffn-out", "alpha": 0.5},
    "s8-rr-sq75-all": {"weights": "s8", "reduce_range": True, "smooth": "qkv+ffn-in+ffn-out", "alpha": 0.75},
    # only the FFN outlier channels split off in fp32 (s8-rr-sq without the QKV smoothing)
    "s8-rr-ol6": {"weights": "s8", "reduce_range": True, "split": "ffn-in+ffn-out", "factor": 6.0},
}


def _embedder(name: str):  # noqa: ANN202
    """ragkit's embedder for fp32, a ragkit int8 recipe, or one of :data:`TRIED_RECIPES`."""
    from ragkit.embedders.onnx import OnnxEmbedder
    from ragkit.embedders.onnx_export import ExportSettings

    if name == "fp32":
        return OnnxEmbedder()
    if name not in TRIED_RECIPES:
        return OnnxEmbedder(quantize="int8", recipe=name)
    emb = OnnxEmbedder(quantize="int8")
    emb.settings = ExportSettings(quantize="int8", **TRIED_RECIPES[name])  # before the first load
    return emb


def compare(limit: int, block: int, rounds: int, recipes: list[str], vectors_dir: Path | None = None) -> None:
    """ragkit's ``OnnxEmbedder``, fp32 and each int8 recipe, on the same blocks of passages in turn.
    With ``vectors_dir``, each recipe's vectors are saved there per ISA class, and a run on the other
    class prints the min cosine between the two classes' vectors of each recipe."""
    from _common import DEFAULT_CORPUS, read_corpus

    from ragkit.embedders.isa import cpu_isa

    passages = [p.text for p in read_corpus(DEFAULT_CORPUS, limit)]
    blocks = [passages[i:i + block] for i in range(0, len(passages), block)]
    names = ["fp32", *(recipes or ("s8-rr",))]
    embedders = {n: _embedder(n) for n in names}
    for e in embedders.values():
        e.embed_batch(blocks[0][:16])  # export/quantize once, open the session
    load = os.getloadavg()
    seconds = {n: [0.0] * rounds for n in names}
    vectors: dict[str, list[np.ndarray]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for chunk in blocks:
            for n in order:
                started = time.perf_counter()
                vecs = embedders[n].embed_batch(chunk)
                seconds[n][r] += time.perf_counter() - started
                if r == 0:
                    vectors[n].append(vecs)
    after = os.getloadavg()
    print(f"ISA seen by this process: {cpu_isa()}; {len(passages)} msmarco passages, blocks of {block}, "
          f"{rounds} rounds; load average {load[0]:.2f} -> {after[0]:.2f} (5 min {after[1]:.2f})")
    print("| recipe | passages/s | speed vs fp32 | per round | mean cosine to fp32 | min |")
    print("|---|---:|---:|---|---:|---:|")
    ref = np.vstack(vectors["fp32"])
    for n in names:
        vecs = np.vstack(vectors[n])
        cos = np.einsum("ij,ij->i", vecs, ref)
        per_round = " / ".join(f"{seconds['fp32'][r] / seconds[n][r]:.2f}" for r in range(rounds))
        print(f"| {n} | {len(passages) * rounds / sum(seconds[n]):.1f} | "
              f"{sum(seconds['fp32']) / sum(seconds[n]):.2f}x | {per_round} | {cos.mean():.5f} | {cos.min():.5f} |")
    if vectors_dir is not None:
        vectors_dir.mkdir(parents=True, exist_ok=True)
        isa = cpu_isa()
        for n in names:
            vecs = np.vstack(vectors[n])
            np.save(vectors_dir / f"{n}@{isa}@{len(passages)}.npy", vecs)
            for other in sorted(vectors_dir.glob(f"{n}@*@{len(passages)}.npy")):
                if other.stem != f"{n}@{isa}@{len(passages)}":
                    same = np.einsum("ij,ij->i", vecs, np.load(other))
                    print(f"{n}: min cosine to {other.stem} {same.min():.6f} (mean {same.mean():.6f}), "
                          f"max abs difference {np.abs(vecs - np.load(other)).max():.4f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("prepare", "measure", "compare"))
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/int8-recipes"))
    parser.add_argument("--texts", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--limit", type=int, default=1000, help="compare: msmarco-5k passages")
    parser.add_argument("--block", type=int, default=250, help="compare: passages per turn")
    parser.add_argument("--rounds", type=int, default=2, help="compare: rounds")
    parser.add_argument("--vectors-dir", type=Path, default=None,
                        help="compare: save each recipe's vectors here per ISA class; print the cosine across classes")
    parser.add_argument("--every", type=int, default=1, help="measure every k-th prepared text (faster under qemu)")
    parser.add_argument("--recipes", nargs="*", default=[], help=f"fp32 and/or {', '.join(RECIPES)} (default: all)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.step == "prepare":
        prepare(args.workdir, args.texts)
    elif args.step == "compare":
        compare(args.limit, args.block, args.rounds, args.recipes, args.vectors_dir)
    else:
        measure(args.workdir, args.repeats, args.recipes, args.every)
    return 0


if __name__ == "__main__":
    sys.exit(main())
