"""The ``s8-rr-sqxl`` recipe's layer norms in plain operators, on a small layer.

- the rewrite replaces every ``SkipLayerNormalization`` with Add (bias) + Sum (residual) +
  ``LayerNormalization`` and computes what the fused node computes;
- ONNX Runtime's own optimizer does not fuse the result back into ``SkipLayerNormalization`` (the
  slow kernel), which it does to Add + LayerNormalization: the control below;
- a node it cannot rewrite gets a clear error; the recipe's id and cache key.

That the real model's vectors are the same bits natively and under ``tools/avx2_only/run`` is
checked by ``tests/integration/test_cross_isa_index.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from ragkit.embedders.onnx_export import PORTABLE_RECIPES, cache_key, int8_settings  # noqa: E402
from ragkit.embedders.onnx_layernorm import plain_layernorms  # noqa: E402
from ragkit.errors import EmbeddingError  # noqa: E402

HIDDEN = 16


def skip_layer(path: Path, *, outputs: int = 1) -> Path:
    """``SkipLayerNormalization(x @ W, x, gamma, beta, bias)``, as the fused export has it."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
             for n, s in (("w", (HIDDEN, HIDDEN)), ("gamma", (HIDDEN,)), ("beta", (HIDDEN,)), ("bias", (HIDDEN,)))]
    extra = ["mean", "inv_std", "sum"][: outputs - 1]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"]),
        helper.make_node("SkipLayerNormalization", ["mm", "x", "gamma", "beta", "bias"], ["y", *extra],
                         name="SkipLayerNorm_0", domain="com.microsoft", epsilon=1e-12),
    ]
    graph = helper.make_graph(
        nodes, "layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", HIDDEN])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "s", HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              ir_version=8)
    onnx.save(model, str(path))
    return path


def run(path: Path, x: np.ndarray, *, saved: Path | None = None) -> np.ndarray:
    options = ort.SessionOptions()
    if saved is not None:  # what ONNX Runtime's optimizer makes of the graph, written out
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = str(saved)
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(["y"], {"x": x})[0]  # type: ignore[no-any-return]


def op_types(path: Path) -> list[str]:
    return [n.op_type for n in onnx.load(str(path)).graph.node]


def test_the_rewrite_computes_what_the_fused_node_computes(tmp_path: Path) -> None:
    fused = skip_layer(tmp_path / "fused.onnx")
    assert plain_layernorms(fused, tmp_path / "plain.onnx") == 1
    assert op_types(tmp_path / "plain.onnx") == ["MatMul", "Add", "Sum", "LayerNormalization"]
    x = np.random.default_rng(0).standard_normal((2, 7, HIDDEN)).astype(np.float32)
    np.testing.assert_allclose(run(tmp_path / "plain.onnx", x), run(fused, x), atol=2e-5)


def test_onnx_runtime_does_not_fuse_it_back(tmp_path: Path) -> None:
    plain_layernorms(skip_layer(tmp_path / "fused.onnx"), tmp_path / "plain.onnx")
    x = np.ones((1, 3, HIDDEN), np.float32)
    run(tmp_path / "plain.onnx", x, saved=tmp_path / "optimized.onnx")
    assert "SkipLayerNormalization" not in op_types(tmp_path / "optimized.onnx")
    assert "LayerNormalization" in op_types(tmp_path / "optimized.onnx")
    # the control: with Add for the residual, ONNX Runtime's SkipLayerNormFusion restores the fused node
    model = onnx.load(str(tmp_path / "plain.onnx"))
    for node in model.graph.node:
        if node.op_type == "Sum":
            node.op_type = "Add"
    onnx.save(model, str(tmp_path / "added.onnx"))
    run(tmp_path / "added.onnx", x, saved=tmp_path / "added-optimized.onnx")
    assert "SkipLayerNormalization" in op_types(tmp_path / "added-optimized.onnx")


def test_a_node_with_more_outputs_gets_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="more than one output"):
        plain_layernorms(skip_layer(tmp_path / "fused.onnx", outputs=2), tmp_path / "plain.onnx")


def test_the_recipe_is_portable_and_keyed_apart_from_s8_rr_sqx() -> None:
    sqxl, sqx = int8_settings("s8-rr-sqxl"), int8_settings("s8-rr-sqx")
    assert (sqxl.recipe, sqxl.variant, sqxl.isa, sqxl.layernorm) == ("s8-rr-sqxl", "int8-s8-rr-sqxl", "", "plain")
    assert sqx.layernorm == "" and "s8-rr-sqxl" in PORTABLE_RECIPES
    assert {k: v for k, v in vars(sqxl).items() if k != "layernorm"} == {k: v for k, v in vars(sqx).items() if k != "layernorm"}
    assert cache_key("f", sqxl) != cache_key("f", sqx)
    assert cache_key("f", sqx) == "6ca72d84eca295bf"  # computed before this recipe: its exports are found again
    assert int8_settings().recipe == "s8-rr-sqxl"  # the default


def test_a_graph_without_the_fused_node_is_kept_as_it_is(tmp_path: Path) -> None:
    """A model ONNX Runtime's transformer optimizer could not fuse has no SkipLayerNormalization."""
    plain_layernorms(skip_layer(tmp_path / "fused.onnx"), tmp_path / "plain.onnx")
    assert plain_layernorms(tmp_path / "plain.onnx", tmp_path / "again.onnx") == 0
    assert op_types(tmp_path / "again.onnx") == op_types(tmp_path / "plain.onnx")
