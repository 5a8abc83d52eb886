"""Compare int8 quantization recipes for the ONNX embedder on the processor this process sees.

    # natively: export fp32 once, quantize every recipe, write the fp32 reference vectors
    python benchmarks/int8_recipes.py prepare --workdir /tmp/int8-recipes
    # then measure, natively and as on an AVX2-only CPU (ONNX Runtime picks its kernels from
    # cpuid; tools/avx2_only/run hides AVX-512 and VNNI from it, and the kernels run natively):
    python benchmarks/int8_recipes.py measure --workdir /tmp/int8-recipes
    tools/avx2_only/run .venv/bin/python benchmarks/int8_recipes.py measure --workdir /tmp/int8-recipes
    # where CPUID faulting is missing, an emulator does the same, about 1000x slower:
    qemu-x86_64 -cpu Haswell .venv/bin/python benchmarks/int8_recipes.py measure --workdir /tmp/int8-recipes

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("prepare", "measure"))
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/int8-recipes"))
    parser.add_argument("--texts", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--every", type=int, default=1, help="measure every k-th prepared text (faster under qemu)")
    parser.add_argument("--recipes", nargs="*", default=[], help=f"fp32 and/or {', '.join(RECIPES)} (default: all)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.step == "prepare":
        prepare(args.workdir, args.texts)
    else:
        measure(args.workdir, args.repeats, args.recipes, args.every)
    return 0


if __name__ == "__main__":
    sys.exit(main())
