"""Smoke test of benchmarks/answer_quality.py: the real script on one question set, with the
hashing embedder instead of the model (the figures themselves come from the default pipeline)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def test_answer_quality_prints_grades_per_set(tmp_path: Path) -> None:
    spec = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text(encoding="utf-8"))
    spec["embedder"] = {"type": "hashing", "dimension": 64, "model": "hashing"}
    spec["index"] = str(tmp_path / "unused")
    pipeline = tmp_path / "hashing.yaml"
    pipeline.write_text(yaml.safe_dump(spec), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "answer_quality.py"), "--set", "holdout",
         "--pipeline", str(pipeline), "--index-dir", str(tmp_path / "idx"), "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    [result] = json.loads(out.stdout)
    assert result["set"] == "holdout" and result["total"] == 16
    assert result["correct"] + result["partial"] + result["wrong"] == 16
    assert 0 <= result["cited_source"] <= result["answerable"] == 14
