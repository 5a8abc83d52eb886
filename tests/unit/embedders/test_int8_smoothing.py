"""The ``s8-rr-sq`` int8 recipe: SmoothQuant-style smoothing of the QKV projections' inputs
and fp32 outlier channels of the FFN MatMuls, on a small fused encoder layer that ONNX Runtime runs.

- both transforms leave the fp32 graph's outputs as they were (exactly, up to summation order);
- the smoothing scales are powers of two (exact in floating point, hence the same int8 weights on
  every processor) and shrink the outlier channel;
- the outlier channel is the one split off, its MatMul stays fp32, and int8 gets closer to fp32;
- the recipe's id, and that the recipes from before keep their ids and cache keys.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from ragkit.embedders.onnx_export import (  # noqa: E402
    PORTABLE_RECIPES,
    ExportSettings,
    cache_key,
    int8_settings,
    quantize_int8,
)
from ragkit.embedders.onnx_smooth import (  # noqa: E402
    calibration_texts,
    outlier_matmuls,
    power_of_two_scales,
    smooth_model,
    smooth_targets,
    split_outliers,
)

HIDDEN, FFN, OUTLIER = 16, 32, 5


def encoder_layer(path: Path) -> Path:
    """One fused BERT layer (Attention, attention output MatMul, LayerNorm, FFN MatMul, BiasGelu,
    FFN MatMul), with outlier channels in the inputs of the Attention (``feeds``), the first FFN
    MatMul (the LayerNorm's gamma) and the second (an FFN unit with large weights)."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)

    def w(*shape: int, scale: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    fi = w(HIDDEN, FFN)
    fi[OUTLIER, :] *= 0.03  # the outlier LayerNorm channel (below) does not swamp every FFN unit
    fi[:, OUTLIER] *= 15  # FFN unit OUTLIER: a large GELU output
    gamma = np.ones(HIDDEN, np.float32)
    gamma[OUTLIER] = 12  # and a LayerNorm output channel that is one
    inits = {"qkv_w": w(HIDDEN, 3 * HIDDEN), "qkv_b": w(3 * HIDDEN), "ao_w": w(HIDDEN, HIDDEN),
             "gamma": gamma, "beta": np.zeros(HIDDEN, np.float32),
             "ao_b": w(HIDDEN), "fi_w": fi, "fi_b": w(FFN), "fo_w": w(FFN, HIDDEN)}
    ms = "com.microsoft"
    nodes = [
        helper.make_node("Attention", ["x", "qkv_w", "qkv_b"], ["att"], name="Attention_0", domain=ms, num_heads=2),
        helper.make_node("MatMul", ["att", "ao_w"], ["ao"], name="attn_out"),
        helper.make_node("SkipLayerNormalization", ["ao", "x", "gamma", "beta", "ao_b"], ["ln"], name="ln", domain=ms),
        helper.make_node("MatMul", ["ln", "fi_w"], ["fi"], name="ffn_in"),
        helper.make_node("BiasGelu", ["fi", "fi_b"], ["gelu"], name="gelu", domain=ms),
        helper.make_node("MatMul", ["gelu", "fo_w"], ["fo"], name="ffn_out"),
        helper.make_node("Add", ["fo", "ln"], ["y"], name="residual"),
    ]
    graph = helper.make_graph(
        nodes, "layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "s", HIDDEN])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "s", HIDDEN])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ms, 1)], ir_version=8)
    onnx.save(model, str(path))
    return path


def feeds(n: int, seed: int) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        x = rng.standard_normal((1, int(rng.integers(3, 12)), HIDDEN)).astype(np.float32)
        x[..., OUTLIER] *= 20  # an outlier input channel
        out.append({"x": x})
    return out


def run(path: Path, runs: list[dict[str, np.ndarray]]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return [session.run(["y"], f)[0] for f in runs]


def test_the_parts_are_found_in_the_fused_graph(tmp_path: Path) -> None:
    graph = onnx.load(str(encoder_layer(tmp_path / "m.onnx"))).graph
    found = [(part, node.name) for part, node in smooth_targets(graph, ["qkv", "ffn-in", "ffn-out"])]
    assert found == [("qkv", "Attention_0"), ("ffn-in", "ffn_in"), ("ffn-out", "ffn_out")]  # not attn_out


def test_smoothing_keeps_the_fp32_outputs_and_its_scales_are_powers_of_two(tmp_path: Path) -> None:
    src = encoder_layer(tmp_path / "m.onnx")
    out = tmp_path / "smoothed.onnx"
    scales = smooth_model(src, out, feeds=feeds(8, 1), alpha=0.5, parts=["qkv", "ffn-in", "ffn-out"])
    assert sorted(scales) == ["Attention_0", "ffn_in", "ffn_out"]
    for s in scales.values():
        assert np.array_equal(np.exp2(np.round(np.log2(s))), s)
    assert scales["Attention_0"][OUTLIER] == scales["Attention_0"].max() > 1  # the outlier channel shrinks most
    held_out = feeds(5, 2)
    for before, after in zip(run(src, held_out), run(out, held_out), strict=True):
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-5)


def test_power_of_two_scales_follow_the_smoothquant_formula() -> None:
    s = power_of_two_scales(np.array([16.0, 1.0, 0.0, 3.0]), np.array([0.25, 1.0, 1.0, 0.0]), 0.5)
    assert s.tolist() == [8.0, 1.0, 1.0, 1.0]  # sqrt(16 / 0.25) = 8; a zero maximum keeps the channel
    assert power_of_two_scales(np.array([5.0]), np.array([0.5]), 0.5).tolist() == [4.0]  # 3.16 -> 4


def test_outlier_channels_stay_fp32_and_int8_gets_closer(tmp_path: Path) -> None:
    src = encoder_layer(tmp_path / "m.onnx")
    split = tmp_path / "split.onnx"
    chosen = split_outliers(src, split, feeds=feeds(8, 1), factor=6.0, parts=["ffn-in", "ffn-out"])
    assert chosen == {"ffn_in": [OUTLIER], "ffn_out": [OUTLIER]}
    assert outlier_matmuls(split) == ["Outlier_0_matmul", "Outlier_1_matmul"]
    held_out = feeds(5, 2)
    reference = run(src, held_out)
    for before, after in zip(reference, run(split, held_out), strict=True):
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-5)
    settings = ExportSettings(quantize="int8", reduce_range=True, split="ffn-in+ffn-out")
    plain, treated = tmp_path / "plain-int8.onnx", tmp_path / "split-int8.onnx"
    quantize_int8(src, plain, settings=ExportSettings(quantize="int8", reduce_range=True))
    quantize_int8(split, treated, settings=settings)
    ops = {n.name: n.op_type for n in onnx.load(str(treated)).graph.node}
    assert ops["Outlier_0_matmul"] == "MatMul" and "MatMulInteger" in ops.values()  # the rest is int8

    def error(path: Path) -> float:
        return float(np.mean([np.abs(a - b).mean() for a, b in zip(run(path, held_out), reference, strict=True)]))

    assert error(treated) < 0.7 * error(plain)


def test_the_recipe_is_portable_and_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragkit.embedders.sentence_transformers import SentenceTransformerEmbedder

    for isa in ("vnni", "avx2"):
        monkeypatch.setenv("RAGKIT_INT8_ISA", isa)
        s = int8_settings("s8-rr-sq")
        assert (s.recipe, s.variant, s.isa, s.reduce_range, s.weights) == ("s8-rr-sq", "int8-s8-rr-sq", "", True, "s8")
        assert (s.smooth, s.alpha, s.split, s.factor) == ("qkv", 0.5, "ffn-in+ffn-out", 6.0)
    assert "s8-rr-sq" in PORTABLE_RECIPES
    emb = SentenceTransformerEmbedder(backend="onnx-int8", recipe="s8-rr-sq")
    assert emb.model_id == "all-MiniLM-L6-v2+onnx-int8-s8-rr-sq"
    assert SentenceTransformerEmbedder(backend="onnx-int8", recipe="s8-rr").model_id == "all-MiniLM-L6-v2+onnx-int8-s8-rr"
    tried = ExportSettings(quantize="int8", reduce_range=True, smooth="qkv+ffn-in+ffn-out", alpha=0.75)
    assert tried.variant == "int8-s8-rr-sq75-qkv-ffn-in-ffn-out"


def test_old_recipes_keep_their_cache_keys_and_the_calibration_text_is_in_the_new_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keys computed on main before this recipe existed: cached exports of the old recipes are found again."""
    assert cache_key("f", ExportSettings()) == "f23fddcbb08447af"
    assert cache_key("f", int8_settings("s8-rr")) == "f50e01e04f227a90"
    assert cache_key("f", int8_settings("u8u8")) == "ee6b80333fc99f68"
    assert cache_key("f", int8_settings("s8", isa="vnni")) == "46629d1f51a23576"
    sq = cache_key("f", int8_settings("s8-rr-sq"))
    assert sq not in ("f50e01e04f227a90",)
    monkeypatch.setattr("ragkit.embedders.onnx_smooth.calibration_texts", lambda: ("another text",))
    assert cache_key("f", int8_settings("s8-rr-sq")) != sq


def test_the_calibration_text_ships_with_ragkit_and_is_varied() -> None:
    texts = calibration_texts()
    assert len(texts) >= 80 and len(set(texts)) == len(texts)
