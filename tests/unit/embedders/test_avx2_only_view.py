"""``tools/avx2_only/run`` shows programs an AVX2-only processor and leaves their signal handling intact.

The int8 tests run a second time under it in ``make test`` (``make test-avx2``), so these checks
make sure that second run really sees AVX2 without AVX-512 / VNNI, in the test process and in the
processes it starts.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ragkit.embedders.isa import cpu_isa

RUN = Path(__file__).resolve().parents[3] / "tools" / "avx2_only" / "run"

pytestmark = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or not (shutil.which("cc") or shutil.which("gcc")),
    reason="the AVX2-only view needs x86-64 and a C compiler",
)

PROBE = textwrap.dedent(
    """
    import json, subprocess, sys
    from ragkit.embedders.isa import cpu_isa, cpu_description
    from ragkit.embedders.onnx_export import int8_settings
    from numpy._core._multiarray_umath import __cpu_features__ as f
    child = subprocess.run([sys.executable, "-c", "from ragkit.embedders.isa import cpu_isa; print(cpu_isa())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    print(json.dumps({"isa": cpu_isa(), "child_isa": child, "variant": int8_settings("auto").variant,
                      "features": {k: bool(f.get(k)) for k in ("AVX2", "FMA3", "AVX512F", "AVX512BW", "AVX512VNNI")},
                      "description": cpu_description()}))
    """
)


def run_viewed(code: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    res = subprocess.run([str(RUN), sys.executable, "-c", code], capture_output=True, text=True, timeout=120, **kwargs)
    if res.returncode == 3 and "no CPUID faulting" in res.stderr:
        pytest.skip("no CPUID faulting (nor objdump to patch cpuid) on this machine")
    return res


def test_the_view_hides_avx512_and_vnni_in_the_process_and_its_children(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGKIT_INT8_ISA", raising=False)
    res = run_viewed(PROBE)
    assert res.returncode == 0, res.stderr
    seen = json.loads(res.stdout)
    assert seen["features"]["AVX512F"] is False and seen["features"]["AVX512VNNI"] is False
    assert seen["features"]["AVX2"] is (cpu_isa() != "base")
    expected = "avx2" if cpu_isa() != "base" else "base"
    assert seen["isa"] == seen["child_isa"] == expected
    assert seen["variant"] == f"int8-s8-rr-{expected}" or expected == "base"
    assert "AVX512" not in seen["description"]["cpuid features"]


def test_a_real_fault_still_reaches_the_programs_own_handler() -> None:
    """Python's faulthandler installs a SIGSEGV handler after the view's: a real crash must still
    print its traceback and end the process with SIGSEGV, not be taken for a cpuid."""
    res = run_viewed("import ctypes, faulthandler; faulthandler.enable(); ctypes.string_at(0)")
    assert res.returncode == -11, (res.returncode, res.stderr)
    assert "Segmentation fault" in res.stderr and "line 1" in res.stderr


def test_the_program_sees_the_sigsegv_handler_it_installed() -> None:
    code = (
        "import signal, faulthandler; before = signal.getsignal(signal.SIGSEGV); "
        "signal.signal(signal.SIGSEGV, lambda *a: None); "
        "print(before == signal.SIG_DFL, signal.getsignal(signal.SIGSEGV).__name__)"
    )
    res = run_viewed(code)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "<lambda>"]
