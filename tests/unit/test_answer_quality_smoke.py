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


def test_a_source_that_names_no_file_of_the_folder_stops_the_run(tmp_path: Path) -> None:
    """An expected source written as a bare file name, when the file sits in a subfolder, would
    grade every citation of the right file a miss: the run stops before indexing, naming the set,
    the source and the path it likely means."""
    folder = tmp_path / "clones" / "kelpbook" / "book"
    (folder / "01-intro").mkdir(parents=True)
    (folder / "01-intro" / "history.adoc").write_text("= History\n\nKelp began in 2005.\n", encoding="utf-8")
    sets = tmp_path / "sets"
    sets.mkdir()
    (sets / "kelpbook.yaml").write_text(yaml.safe_dump({"folder": "book", "questions": [
        {"question": "When did Kelp begin?", "answer": "2005", "source": "history.adoc"},
        {"question": "Who wrote Kelp?", "answer": None, "source": None}]}), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "answer_quality.py"), "--folders", str(tmp_path / "clones"),
         "--sets-dir", str(sets), "--index-dir", str(tmp_path / "idx")],
        capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and not (tmp_path / "idx").exists()
    assert "kelpbook: source 'history.adoc' is no file of" in out.stderr
    assert "did you mean 01-intro/history.adoc?" in out.stderr


def test_only_takes_comma_separated_names_and_stops_on_a_name_it_cannot_score(tmp_path: Path) -> None:
    """``--only a,b`` names two sets; a name with no laid-out set stops the run before indexing,
    naming it, instead of scoring nothing and printing an empty table."""
    clones, sets = tmp_path / "clones", tmp_path / "sets"
    for name in ("kelpbook", "reefbook"):
        (clones / name).mkdir(parents=True)
        (clones / name / "intro.md").write_text("# Intro\n\nKelp began in 2005.\n", encoding="utf-8")
    sets.mkdir()
    for name in ("kelpbook", "reefbook"):
        (sets / f"{name}.yaml").write_text(yaml.safe_dump({"folder": ".", "questions": [
            {"question": "When did Kelp begin?", "answer": "2005", "source": "intro.md"}]}), encoding="utf-8")
    command = [sys.executable, str(REPO / "benchmarks" / "answer_quality.py"), "--folders", str(clones),
               "--sets-dir", str(sets), "--index-dir", str(tmp_path / "idx")]
    out = subprocess.run([*command, "--only", "kelpbook,reefboook"], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and not (tmp_path / "idx").exists()
    assert "--only: no laid-out set named reefboook" in out.stderr
