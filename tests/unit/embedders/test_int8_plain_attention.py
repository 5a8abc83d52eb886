"""The ``s8-rr-sqx`` recipe's attention in plain operators, on a small quantized layer.

- the rewrite replaces every ``QAttention`` with ops whose CPU kernels do not depend on the
  instruction set (no ``Softmax``), and computes what the fused node computes, padding included;
- a graph it cannot rewrite gets a clear error;
- the recipe's id and cache key (the recipes from before keep theirs: pinned in
  ``test_int8_smoothing.py``).

That the rewritten model gives the same bits natively and under ``tools/avx2_only/run`` is checked
on the real model by ``tests/integration/test_cross_isa_index.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from ragkit.embedders.onnx_attention import decompose_qattention  # noqa: E402
from ragkit.embedders.onnx_export import (  # noqa: E402
    PORTABLE_RECIPES,
    ExportSettings,
    cache_key,
    int8_settings,
    quantize_int8,
)
from ragkit.errors import EmbeddingError  # noqa: E402

HIDDEN, HEADS = 16, 2


def attention_layer(path: Path, *, mask_name: str = "attention_mask") -> Path:
    """``Attention`` (2 heads, a 0/1 padding mask from the graph input) and its output."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.5).astype(np.float32), n)
             for n, s in (("qkv_w", (HIDDEN, 3 * HIDDEN)), ("qkv_b", (3 * HIDDEN,)))]
    nodes = [
        helper.make_node("Cast", [mask_name], ["mask32"], to=TensorProto.INT32),
        helper.make_node("Attention", ["x", "qkv_w", "qkv_b", "mask32"], ["att"], name="Attention_0",
                         domain="com.microsoft", num_heads=HEADS),
    ]
    graph = helper.make_graph(
        nodes, "layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", HIDDEN]),
         helper.make_tensor_value_info(mask_name, TensorProto.INT64, ["b", "s"])],
        [helper.make_tensor_value_info("att", TensorProto.FLOAT, ["b", "s", HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              ir_version=8)
    onnx.save(model, str(path))
    return path


def quantized(tmp_path: Path, **kwargs: str) -> Path:
    out = tmp_path / "int8.onnx"
    quantize_int8(attention_layer(tmp_path / "fp32.onnx", **kwargs), out,
                  settings=ExportSettings(quantize="int8", reduce_range=True))
    assert "QAttention" in {n.op_type for n in onnx.load(str(out)).graph.node}
    return out


def run(path: Path, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(["att"], {"x": x, "attention_mask": mask})[0]


def test_the_rewrite_computes_what_the_fused_node_computes_padding_included(tmp_path: Path) -> None:
    fused = quantized(tmp_path)
    plain = tmp_path / "plain.onnx"
    assert decompose_qattention(fused, plain) == 1
    ops = {n.op_type for n in onnx.load(str(plain)).graph.node}
    assert not ops & {"QAttention", "Attention", "Softmax", "DynamicQuantizeLinear"}
    assert {"DynamicQuantizeMatMul", "Exp", "ReduceMax", "ReduceSum"} <= ops
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 7, HIDDEN)).astype(np.float32)
    mask = np.ones((3, 7), np.int64)
    mask[1, 4:] = 0  # a padded row
    mask[2, 1:] = 0  # one token and padding
    want, got = run(fused, x, mask), run(plain, x, mask)
    valid = mask.astype(bool)
    np.testing.assert_allclose(got[valid], want[valid], rtol=0, atol=2e-5)
    # the padded keys take no part: row 1's padding in another order (the same values, so the
    # dynamic quantization's range stays) leaves its four tokens' outputs as they were
    other = x.copy()
    other[1, 4:] = x[1, 4:][::-1]
    np.testing.assert_allclose(run(plain, other, mask)[1, :4], got[1, :4], rtol=0, atol=1e-6)


def test_a_graph_without_the_mask_input_gets_a_clear_error(tmp_path: Path) -> None:
    fused = quantized(tmp_path, mask_name="input_mask")
    with pytest.raises(EmbeddingError, match="no graph input 'attention_mask'"):
        decompose_qattention(fused, tmp_path / "plain.onnx")


def test_the_recipe_is_portable_and_keyed_apart_from_s8_rr_sq() -> None:
    sqx, sq = int8_settings("s8-rr-sqx"), int8_settings("s8-rr-sq")
    assert (sqx.recipe, sqx.variant, sqx.isa, sqx.attention) == ("s8-rr-sqx", "int8-s8-rr-sqx", "", "plain")
    assert sq.attention == "" and "s8-rr-sqx" in PORTABLE_RECIPES
    assert {k: v for k, v in vars(sqx).items() if k != "attention"} == {k: v for k, v in vars(sq).items() if k != "attention"}
    assert cache_key("f", sqx) != cache_key("f", sq)
