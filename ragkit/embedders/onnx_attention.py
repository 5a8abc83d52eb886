"""Attention that gives the same bits on every x86 processor class (recipes ``s8-rr-sqx``
and ``s8-rr-sqxl``, the default).

An int8 export whose integer sums cannot saturate (``s8-rr``) still gave vectors that differ
between an AVX2-only and an AVX-512 VNNI machine (cosine about 0.9996): dumping every tensor of
the graph on both showed that each node's output is bit-identical except the fused
``QAttention``'s, by 2e-7, and that one operator inside it is the cause: ONNX Runtime's softmax
(``MlasComputeSoftmax``) has one exp kernel per instruction set. Everything else in the graph
(``DynamicQuantizeMatMul``, ``SkipLayerNormalization``, ``BiasGelu``, fp32 ``MatMul``, and the
plain ``Exp``, ``ReduceMax``, ``ReduceSum`` and ``Div`` operators) computes the same bits on both
(``benchmarks/isa_diff.py`` lists such nodes; ``tests/integration/test_cross_isa_index.py`` checks
the whole model). A 2e-7 difference is small, but the next dynamic quantization rounds a few
values the other way, and those steps grow through the layers.

:func:`decompose_qattention` rewrites each ``QAttention`` node as the same computation in plain
operators: the QKV projection as three ``DynamicQuantizeMatMul`` nodes (Q, K and V: the same
u8 x s8 products), the per-head scores as fp32 ``MatMul``\\ s, and the softmax as
``exp(x - max) / sum`` (the division applied to the context, which is smaller than the
scores). The vectors stay within float rounding of the fused node's (checked by a unit test),
and are the same bits on both processor classes, so an index built on one is extended on the
other with no drift at all. The price: about 15 % of the fused recipe's speed (more, smaller
kernels; docs/benchmarks/runs.md).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import EmbeddingError

#: the additive mask of a padded key (ONNX Runtime's attention uses the same value)
MASK_FILTER = -10000.0


def decompose_qattention(src: Path, out: Path, *, mask_input: str = "attention_mask") -> int:
    """Write ``src`` to ``out`` with every ``QAttention`` node in plain operators; returns how many.

    The padding mask is taken from the graph input ``mask_input`` (1 = token, 0 = padding).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    if mask_input not in {i.name for i in graph.input}:
        raise EmbeddingError(f"{src}: no graph input {mask_input!r} to build the attention mask from")
    producers = {o: n for n in graph.node for o in n.output}
    consumers: dict[str, int] = {}
    for n in graph.node:
        for name in n.input:
            consumers[name] = consumers.get(name, 0) + 1
    inits: list[Any] = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    # the additive mask [B, 1, 1, S], shared by every layer
    mask = [
        helper.make_node("Cast", [mask_input], ["attn_mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Sub", [const("attn_one", np.array(1.0, np.float32)), "attn_mask_f"], ["attn_mask_off"]),
        helper.make_node("Mul", ["attn_mask_off", const("attn_filter", np.array(MASK_FILTER, np.float32))],
                         ["attn_mask_add2"]),
        helper.make_node("Unsqueeze", ["attn_mask_add2", const("attn_axes_12", np.array([1, 2], np.int64))],
                         ["attn_mask_add"]),
    ]
    const("attn_axis_last", np.array([-1], np.int64))
    nodes: list[Any] = []
    count = 0
    dropped: set[str] = set()  # the first output of each QAttention's own DynamicQuantizeLinear
    for node in graph.node:
        if node.op_type != "QAttention":
            nodes.append(node)
            continue
        quantizer = producers.get(node.input[0])
        if quantizer is None or quantizer.op_type != "DynamicQuantizeLinear" or any(
            consumers.get(o, 0) != 1 for o in quantizer.output
        ):
            raise EmbeddingError(f"{src}: QAttention {node.name} is not fed by a DynamicQuantizeLinear of its own")
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if set(attrs) - {"num_heads", "unidirectional"} or attrs.get("unidirectional", 0):
            raise EmbeddingError(f"{src}: QAttention {node.name} has attributes this rewrite does not handle: {attrs}")
        if len(node.input) > 8 and node.input[8]:
            raise EmbeddingError(f"{src}: QAttention {node.name} has a past state; only encoders are rewritten")
        # QAttention's weight, its per-column scales and zero points and the bias, each cut below
        # into its Q, K and V columns: one DynamicQuantizeMatMul per part (no Split copy afterwards)
        fused = {name: numpy_helper.to_array(t) for t in graph.initializer
                 for name in (node.input[1], node.input[4], node.input[7], node.input[2]) if t.name == name}
        hidden = fused[node.input[1]].shape[1] // 3
        heads = int(attrs["num_heads"])
        size = hidden // heads
        dropped.add(quantizer.output[0])
        p = f"attn{count}_"
        heads4 = const(p + "heads", np.array([0, 0, heads, size], np.int64))
        for i, part in enumerate("qkv"):
            cols = slice(i * hidden, (i + 1) * hidden)
            weights = [const(f"{p}{part}_{role}", np.ascontiguousarray(fused[name][..., cols] if fused[name].ndim
                                                                       else fused[name]))  # a per-tensor scale stays
                       for role, name in (("w", node.input[1]), ("scale", node.input[4]),
                                          ("zero", node.input[7]), ("bias", node.input[2]))]
            nodes += [
                helper.make_node("DynamicQuantizeMatMul", [quantizer.input[0], *weights], [p + part],
                                 domain="com.microsoft"),
                helper.make_node("Reshape", [p + part, heads4], [p + part + "4"]),
                helper.make_node("Transpose", [p + part + "4"], [p + part + "t"],
                                 perm=[0, 2, 3, 1] if part == "k" else [0, 2, 1, 3]),
            ]
        nodes += [
            helper.make_node("Mul", [p + "qt", const(p + "scale", np.array(1.0 / math.sqrt(size), np.float32))],
                             [p + "qs"]),
            helper.make_node("MatMul", [p + "qs", p + "kt"], [p + "scores"]),
            helper.make_node("Add", [p + "scores", "attn_mask_add"], [p + "masked"]),
            # softmax over the keys as exp(x - max) / sum, in plain operators (the same bits on every
            # ISA); the division by the sum is applied to the context, which is smaller than the scores
            helper.make_node("ReduceMax", [p + "masked"], [p + "max"], axes=[-1], keepdims=1),
            helper.make_node("Sub", [p + "masked", p + "max"], [p + "shifted"]),
            helper.make_node("Exp", [p + "shifted"], [p + "exp"]),
            helper.make_node("ReduceSum", [p + "exp", "attn_axis_last"], [p + "sum"], keepdims=1),
            helper.make_node("MatMul", [p + "exp", p + "vt"], [p + "ctx_raw"]),
            helper.make_node("Div", [p + "ctx_raw", p + "sum"], [p + "ctx"]),
            helper.make_node("Transpose", [p + "ctx"], [p + "ctx_t"], perm=[0, 2, 1, 3]),
            helper.make_node("Reshape", [p + "ctx_t", const(p + "merge", np.array([0, 0, hidden], np.int64))],
                             [node.output[0]]),
        ]
        count += 1
    kept = [n for n in nodes if n.output[0] not in dropped]
    if count:
        kept = mask + kept
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(inits if count else [])
    _drop_unused(graph)
    onnx.save(model, str(out))
    return count


def _drop_unused(graph: Any) -> None:
    """Remove initializers no node reads any more (the quantizer's outputs went with it)."""
    used = {name for n in graph.node for name in n.input}
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
