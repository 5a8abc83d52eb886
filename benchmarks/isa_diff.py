"""Which nodes of an ONNX export compute other bits on an AVX2-only CPU than on this one.

Runs every node of a cached export (``--recipe``: fp32 or an int8 recipe; ragkit's ``OnnxEmbedder``
builds it if needed) with all intermediate tensors as outputs, on the same token ids, natively and
under ``tools/avx2_only/run`` (each in its own process, with the graph optimizations off so the nodes
are the file's), and prints, in graph order, each node whose output differs while all of its
inputs were the same bits: the kernels that depend on the instruction set. Nodes that differ only
because an input did are counted, not listed.

    .venv/bin/python benchmarks/isa_diff.py --recipe s8-rr-sq     # the fused QAttention's softmax
    .venv/bin/python benchmarks/isa_diff.py --recipe s8-rr-sqxl   # none
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
VIEW = REPO / "tools" / "avx2_only" / "run"


def dump(model: Path, out: Path) -> None:
    """Every node output of ``model`` on fixed token ids (4 rows of 48, one padded) into ``out``.npz."""
    import onnx
    import onnxruntime as ort

    graph_model = onnx.load(str(model))
    graph = graph_model.graph
    given = {o.name for o in graph.output}
    for node in graph.node:
        for name in node.output:
            if name and name not in given:
                graph.output.append(onnx.ValueInfoProto(name=name))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(graph_model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 20000, size=(4, 48))
    ids[:, 0], ids[:, -1] = 101, 102
    mask = np.ones_like(ids)
    mask[2, 30:] = 0
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in {i.name for i in session.get_inputs()}:
        feeds["token_type_ids"] = np.zeros_like(ids)
    names = [o.name for o in session.get_outputs()]
    np.savez(out, **{f"t{i}": r for i, r in enumerate(session.run(None, feeds))})
    out.with_suffix(".json").write_text(json.dumps(names), encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recipe", default="s8-rr-sqxl", help="fp32, or an int8 recipe (default s8-rr-sqxl)")
    ap.add_argument("--dump", type=Path, default=None, help=argparse.SUPPRESS)  # the child's job
    args = ap.parse_args()
    from ragkit.embedders.models import resolve_model_dir
    from ragkit.embedders.onnx_export import ExportSettings, default_cache_dir, ensure_exported, int8_settings

    model_dir = resolve_model_dir("all-MiniLM-L6-v2")
    settings = ExportSettings() if args.recipe == "fp32" else int8_settings(args.recipe)
    model = ensure_exported(model_dir, cache_dir=default_cache_dir(), settings=settings,
                            name=model_dir.parent.name if model_dir.name == "model" else model_dir.name).path
    if args.dump is not None:
        dump(model, args.dump)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for view, prefix in (("native", []), ("avx2", [str(VIEW)])):
            files[view] = Path(tmp) / f"{view}.npz"
            cmd = [*prefix, sys.executable, __file__, "--recipe", args.recipe, "--dump", str(files[view])]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{view}: {done.stderr[-2000:]}", file=sys.stderr)
                return done.returncode
        import onnx

        names = json.loads(files["native"].with_suffix(".json").read_text(encoding="utf-8"))
        a, b = np.load(files["native"]), np.load(files["avx2"])
        differs = {n: not np.array_equal(a[f"t{i}"], b[f"t{i}"]) for i, n in enumerate(names)}
        nodes = onnx.load(str(model), load_external_data=False).graph.node
        origins, followers = [], 0
        for node in nodes:
            if not any(differs.get(o, False) for o in node.output):
                continue
            if any(differs.get(i, False) for i in node.input):
                followers += 1
                continue
            i = names.index(next(o for o in node.output if differs.get(o)))
            origins.append((node.op_type, node.name, float(np.abs(a[f"t{i}"].astype(float) - b[f"t{i}"]).max())))
    print(f"recipe {args.recipe} ({model}): {len(nodes)} nodes; natively and under tools/avx2_only/run")
    for op, name, diff in origins:
        print(f"- {op} {name}: other bits from the same inputs (max difference {diff:.3g})")
    print(f"{len(origins)} node(s) compute other bits from the same inputs; {followers} more differ because an input did")
    return 0


if __name__ == "__main__":
    sys.exit(main())
