"""Layer norms in plain operators (recipe ``s8-rr-sqxl``).

The fused fp32 export carries ONNX Runtime's ``SkipLayerNormalization`` after every attention
block and every FFN (12 nodes in MiniLM-L6): ``LayerNorm(input + skip + bias)``. In ONNX Runtime
1.31 its CPU kernel took 160 µs on one 80-token text (``[1, 80, 384]``, one thread), where
``Add`` and the standard ``LayerNormalization`` operator take 33 µs together, on AVX2 and
AVX-512 alike: 12-16 % of an int8 default run's model time (``docs/benchmarks/runs.md``).

:func:`plain_layernorms` rewrites each such node as the residual sum (``Sum``) and a
``LayerNormalization``, the bias first added to the input (an ``Add`` that ONNX Runtime's
optimizer folds into the quantized MatMul before it, where there is one). The sum is a
``Sum`` node rather than ``Add`` because ONNX Runtime's own graph optimizer fuses
``Add`` + ``LayerNormalization`` back into ``SkipLayerNormalization`` (``SkipLayerNormFusion``)
and does not match ``Sum``: every session over the file, ragkit's or anyone's, runs the fast
kernels without an option to remember. ``LayerNormalization`` computes the same bits on AVX2 and
AVX-512 processors (``benchmarks/isa_diff.py``), so the recipe keeps ``s8-rr-sqx``'s property that
an index moves between processor classes with no drift; its vectors differ from ``s8-rr-sqx``'s
by float rounding (another summation order: mean cosine 0.9997), so it is a recipe of its own with
a model id of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.errors import EmbeddingError


def plain_layernorms(src: Path, out: Path) -> int:
    """Write ``src`` to ``out`` with every ``SkipLayerNormalization`` as ``Sum`` + ``LayerNormalization``;
    returns how many were rewritten."""
    import onnx
    from onnx import helper

    model = onnx.load(str(src))
    graph = model.graph
    nodes: list[Any] = []
    count = 0
    for node in graph.node:
        if node.op_type != "SkipLayerNormalization":
            nodes.append(node)
            continue
        if len([o for o in node.output if o]) != 1:
            raise EmbeddingError(f"{src}: {node.name} has more than one output; only the normalized one is rewritten")
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        x, skip, gamma, beta = node.input[:4]
        bias = node.input[4] if len(node.input) > 4 else ""
        name = node.name or f"SkipLayerNorm_{count}"
        if bias:  # ONNX Runtime fuses this Add into the quantized MatMul before it, when there is one
            nodes.append(helper.make_node("Add", [x, bias], [f"{name}_biased"], name=f"{name}_bias"))
            x = f"{name}_biased"
        nodes += [
            helper.make_node("Sum", [x, skip], [f"{name}_residual"], name=f"{name}_residual"),
            helper.make_node("LayerNormalization", [f"{name}_residual", gamma, beta], [node.output[0]],
                             name=f"{name}_norm", axis=-1, epsilon=float(attrs.get("epsilon", 1e-12))),
        ]
        count += 1
    del graph.node[:]
    graph.node.extend(nodes)
    if count and not any(o.domain in ("", "ai.onnx") and o.version >= 17 for o in model.opset_import):
        raise EmbeddingError(f"{src}: LayerNormalization needs opset 17 or later")
    onnx.save(model, str(out))
    return count
