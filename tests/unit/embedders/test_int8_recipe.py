"""int8 recipes: the default (s8-rr-sqxl) is portable and names no ISA class; ``s8`` and ``auto`` follow the
processor's ISA class, which is read from cpuid."""

from __future__ import annotations

import pytest

from ragkit.embedders.isa import FLAGS_OF_INTEREST, classify, cpu_description, cpu_isa
from ragkit.embedders.onnx_export import ExportSettings, int8_settings
from ragkit.errors import ConfigError

SAPPHIRE_RAPIDS = {"AVX2": True, "AVX512F": True, "AVX512BW": True, "AVX512VNNI": True}
HASWELL = {"AVX2": True, "AVX512F": False}
HOST_FLAGS = frozenset({"avx2", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni"})


@pytest.mark.parametrize(
    ("features", "flags", "expected"),
    [
        (SAPPHIRE_RAPIDS, HOST_FLAGS, "vnni"),
        (HASWELL, frozenset({"avx2", "fma"}), "avx2"),
        (HASWELL, frozenset({"avx2", "avx_vnni"}), "vnni"),  # Alder Lake: AVX-VNNI without AVX-512
        # an emulated Haswell on a VNNI host: /proc/cpuinfo shows the host, cpuid does not
        (HASWELL, HOST_FLAGS, "avx2"),
        ({"AVX2": True, "AVX512F": True, "AVX512BW": True}, frozenset({"avx2", "avx512f"}), "avx2"),  # Skylake-SP
        ({"SSE42": True}, frozenset(), "base"),
        ({}, frozenset(), "base"),  # not x86
    ],
)
def test_isa_class_comes_from_cpuid(features: dict[str, bool], flags: frozenset[str], expected: str) -> None:
    assert classify(features, flags) == expected


def test_this_processor_has_a_class_and_the_benchmarks_print_it() -> None:
    assert cpu_isa() in ("vnni", "avx2", "base")
    info = cpu_description()
    assert info["int8 ISA class (cpuid)"] == cpu_isa()
    assert info["cpu"] and set(info["cpu flags"].split()) <= {*FLAGS_OF_INTEREST, "none", "of", "interest"}


@pytest.mark.parametrize("isa", ["avx2", "base"])
def test_without_vnni_auto_cannot_saturate_16_bit_sums(isa: str) -> None:
    """u8 activations x full-range s8 weights: two products reach 2 * 255 * 127 > 32767, which the
    16-bit pairwise multiply-add of the AVX2 kernels saturates. 7-bit weights (255 * 63 * 2 = 32130)
    or u8 weights (widened to 16 bits before a 32-bit multiply-add) are exact."""
    s = int8_settings("auto", isa=isa)
    assert s.quantize == "int8" and s.isa == isa
    assert s.reduce_range or s.weights == "u8"


@pytest.mark.parametrize("isa", ["vnni", "avx2", "base"])
def test_the_default_recipe_is_portable_and_cannot_saturate(isa: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """s8-rr-sqxl on every class: 7-bit weights that cannot saturate, and no ISA-dependent kernel, so
    its variant names no class and an index built on one class is extended and searched on another
    with the same recipe (the same bits: tests/integration/test_cross_isa_index.py)."""
    monkeypatch.setenv("RAGKIT_INT8_ISA", isa)
    s = int8_settings()
    assert (s.recipe, s.isa, s.variant, s.reduce_range) == ("s8-rr-sqxl", "", "int8-s8-rr-sqxl", True)
    assert int8_settings("s8-rr").variant == "int8-s8-rr"
    assert int8_settings("u8u8").variant == "int8-u8u8"


def test_processor_dependent_recipes_name_the_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGKIT_INT8_ISA", raising=False)
    assert int8_settings("s8").variant == f"int8-s8-{cpu_isa()}"
    # auto keeps the ids of the first int8 default, so the indexes built with it keep their vectors
    assert int8_settings("auto", isa="vnni").variant == "int8-s8-vnni"
    assert int8_settings("auto", isa="avx2").variant == "int8-s8-rr-avx2"
    assert int8_settings("s8", isa="avx2").variant == "int8-s8-avx2"
    with pytest.raises(ConfigError, match="unknown int8 recipe 's9': use one of s8-rr, s8, u8u8, s8-rr-sq, s8-rr-sqx, s8-rr-sqxl, auto"):
        int8_settings("s9")


def test_the_recipe_and_isa_name_the_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGKIT_INT8_ISA", raising=False)
    assert ExportSettings().variant == "fp32"
    assert ExportSettings(quantize="int8", weights="u8", isa="avx2").variant == "int8-u8u8-avx2"
    assert ExportSettings(quantize="int8", reduce_range=True, isa="avx2").variant == "int8-s8-rr-avx2"
    assert ExportSettings(quantize="int8", isa="vnni").variant == "int8-s8-vnni"
    assert int8_settings("auto").isa == cpu_isa()


def test_the_isa_class_can_be_chosen_for_a_mixed_fleet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGKIT_INT8_ISA", "avx2")
    assert int8_settings("auto").variant == int8_settings("auto", isa="avx2").variant
    monkeypatch.setenv("RAGKIT_INT8_ISA", "avx3")
    with pytest.raises(ConfigError, match="unknown int8 ISA class 'avx3' \\(RAGKIT_INT8_ISA\\): use one of vnni"):
        int8_settings("auto")
