"""Which integer instructions the processor gives ONNX Runtime, read once per process.

ONNX Runtime's MLAS kernels choose their code path from ``cpuid``. For int8 the distinction that
matters is whether the CPU has VNNI (AVX-512 VNNI, or AVX-VNNI on newer client CPUs): without it
the u8×s8 kernels multiply-add pairs into 16-bit sums that can saturate, which changes the vectors
of an int8 model. The ISA class is read from ``cpuid`` as NumPy reports it (what the process really
sees, also under an emulator), with ``/proc/cpuinfo`` consulted only for AVX-VNNI, which NumPy
does not report, and only when it agrees with ``cpuid`` on AVX2 and AVX-512.
"""

from __future__ import annotations

import functools
import platform
from pathlib import Path

#: flags printed by the benchmarks next to their figures
FLAGS_OF_INTEREST = (
    "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_tile", "amx_int8",
)
#: the same, as NumPy names what cpuid reports (NumPy has no name for AVX-VNNI)
CPUID_FEATURES_OF_INTEREST = ("AVX2", "FMA3", "AVX512F", "AVX512BW", "AVX512VNNI", "AVX512_SPR")


@functools.cache
def cpu_isa() -> str:
    """``"vnni"`` (AVX-512 VNNI or AVX-VNNI), ``"avx2"`` or ``"base"`` (anything older or not x86)."""
    return classify(_cpuid_features(), _proc_flags())


def classify(features: dict[str, bool], flags: frozenset[str]) -> str:
    """The ISA class from NumPy's cpuid ``features`` and the ``flags`` line of /proc/cpuinfo."""
    if features.get("AVX512VNNI") and features.get("AVX512BW"):
        return "vnni"
    if not features.get("AVX2"):
        return "base"
    # AVX-VNNI is only in /proc/cpuinfo, which shows the host's flags under an emulator: trust it
    # only when it agrees with cpuid on AVX-512
    consistent = "avx2" in flags and ("avx512f" in flags) == bool(features.get("AVX512F"))
    return "vnni" if consistent and "avx_vnni" in flags else "avx2"


def cpu_description() -> dict[str, str]:
    """CPU model, the flags of interest from /proc/cpuinfo and from cpuid, and the ISA class.

    The two flag lists differ under an emulator or ``tools/avx2_only/run``, where the libraries see
    cpuid's view; the ISA class (and ONNX Runtime's kernels) follow cpuid.
    """
    model = platform.processor() or "unknown"
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("model name")), model)
    except OSError:
        pass
    flags = _proc_flags()
    features = _cpuid_features()
    return {
        "cpu": model,
        "cpu flags": " ".join(f for f in FLAGS_OF_INTEREST if f in flags) or "none of interest",
        "cpuid features": " ".join(f for f in CPUID_FEATURES_OF_INTEREST if features.get(f)) or "none of interest",
        "int8 ISA class (cpuid)": cpu_isa(),
    }


def _cpuid_features() -> dict[str, bool]:
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # pragma: no cover - NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__  # type: ignore[no-redef]
    return dict(__cpu_features__)


@functools.cache
def _proc_flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return frozenset(line.split(":", 1)[-1].split())
