"""int8 recipes that keep parts of the fused graph in fp32: which nodes they keep, how they are named,
and that the cache entries of the recipes from before them keep their keys."""

from __future__ import annotations

from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx")

from ragkit.embedders.onnx_export import (  # noqa: E402
    PORTABLE_RECIPES,
    ExportSettings,
    cache_key,
    fp32_nodes,
    int8_settings,
)
from ragkit.errors import ConfigError, EmbeddingError  # noqa: E402


def fused_encoder(path: Path, layers: int = 3) -> Path:
    """The weight-bearing skeleton of a fused BERT graph: per layer Attention, the attention output
    MatMul, the first feed-forward MatMul, BiasGelu, the second feed-forward MatMul (a MatMul of two
    activations, like the unfused attention's, is not a weight and is never listed)."""
    from onnx import TensorProto, helper

    nodes, inits, x = [], [], "x"
    for i in range(layers):
        for w in (f"qkv{i}", f"ao{i}", f"fi{i}", f"fo{i}", f"b{i}"):
            inits.append(helper.make_tensor(w, TensorProto.FLOAT, [1], [0.0]))
        nodes += [
            helper.make_node("Attention", [x, f"qkv{i}"], [f"att{i}"], name=f"Attention_{i}", domain="com.microsoft"),
            helper.make_node("MatMul", [f"att{i}", f"ao{i}"], [f"ao_out{i}"], name=f"attn_out_{i}"),
            helper.make_node("MatMul", [f"ao_out{i}", f"ao_out{i}"], [f"self{i}"], name=f"activations_{i}"),
            helper.make_node("MatMul", [f"self{i}", f"fi{i}"], [f"fi_out{i}"], name=f"ffn_in_{i}"),
            helper.make_node("BiasGelu", [f"fi_out{i}", f"b{i}"], [f"gelu{i}"], name=f"gelu_{i}", domain="com.microsoft"),
            helper.make_node("MatMul", [f"gelu{i}", f"fo{i}"], [f"y{i}"], name=f"ffn_out_{i}"),
        ]
        x = f"y{i}"
    graph = helper.make_graph(nodes, "enc", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(graph), str(path))
    return path


def test_ffn_out_keeps_the_matmul_fed_by_the_gelu_in_every_layer(tmp_path: Path) -> None:
    model = fused_encoder(tmp_path / "m.onnx")
    assert fp32_nodes(model, "ffn-out") == ["ffn_out_0", "ffn_out_1", "ffn_out_2"]


def test_qkv_keeps_the_attention_nodes(tmp_path: Path) -> None:
    model = fused_encoder(tmp_path / "m.onnx")
    assert fp32_nodes(model, "qkv+ffn-out") == sorted(
        ["Attention_0", "Attention_1", "Attention_2", "ffn_out_0", "ffn_out_1", "ffn_out_2"])


def test_ends_keep_every_weight_of_the_first_and_last_layer(tmp_path: Path) -> None:
    model = fused_encoder(tmp_path / "m.onnx")
    assert fp32_nodes(model, "ends") == sorted(
        [f"{n}_{i}" for i in (0, 2) for n in ("Attention", "attn_out", "ffn_in", "ffn_out")])


def test_unknown_parts_and_unfused_graphs_are_refused(tmp_path: Path) -> None:
    model = fused_encoder(tmp_path / "m.onnx")
    with pytest.raises(ConfigError, match="unknown fp32 parts 'ffn-in'"):
        fp32_nodes(model, "ffn-in")
    plain = fused_encoder(tmp_path / "plain.onnx", layers=0)
    with pytest.raises(EmbeddingError, match="no fused Attention nodes"):
        fp32_nodes(plain, "ffn-out")


def test_the_variant_names_what_stays_fp32() -> None:
    """A mixed export never shares a cache entry or a model id with the all-int8 one."""
    s = ExportSettings(quantize="int8", reduce_range=True, fp32="qkv+ffn-out")
    assert s.variant == "int8-s8-rr-qkv-ffn32" != int8_settings("s8-rr").variant
    assert ExportSettings(quantize="int8", reduce_range=True, fp32="ends").variant == "int8-s8-rr-ends32"
    assert ExportSettings(quantize="int8", weights="u8", fp32="ffn-out").variant == "int8-u8u8-ffn32"
    assert all(int8_settings(r).fp32 == "" for r in PORTABLE_RECIPES)  # no recipe of ragkit's mixes


def test_recipes_from_before_keep_their_cache_keys() -> None:
    """The ``fp32`` field (and the outlier treatment's, the attention's and the layer norms' fields) are left out of the key when empty, so
    existing exports are found again."""
    import hashlib
    import json
    from dataclasses import asdict

    from ragkit.embedders.onnx_export import EXPORT_FORMAT_VERSION

    for settings in (ExportSettings(), int8_settings("s8-rr")):
        old = {k: v for k, v in asdict(settings).items() if k not in ("fp32", "smooth", "alpha", "split", "factor", "attention", "layernorm")}
        payload = json.dumps({"model": "f", "settings": old, "format": EXPORT_FORMAT_VERSION}, sort_keys=True)
        assert cache_key("f", settings) == hashlib.sha256(payload.encode()).hexdigest()[:16]
    mixed = ExportSettings(quantize="int8", reduce_range=True, fp32="qkv+ffn-out")
    assert cache_key("f", mixed) != cache_key("f", int8_settings("s8-rr"))
