"""The benchmark helpers behind the scanned-pages figures: answer quality group by group
(``benchmarks/answer_quality.py``: ``scans.yaml`` has ``scanned`` and ``born-digital`` questions)
and the OCR cost script's timing of OCR's programs (``benchmarks/ocr_cost.py``)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from ragkit.rag.questions import QuestionOutcome, load_questions

REPO = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


aq = _script("answer_quality")


def test_the_scans_set_has_both_groups_and_names_each_answers_file() -> None:
    items = load_questions(REPO / "benchmarks" / "folders" / "scans.yaml")
    groups = [q["group"] for q in items]
    assert groups.count("scanned") >= 10 and groups.count("born-digital") >= 10 and set(groups) == {"scanned", "born-digital"}
    assert all(q["answer"] is not None and isinstance(q["source"], str) for q in items)
    meta = yaml.safe_load((REPO / "benchmarks" / "folders" / "scans.yaml").read_text(encoding="utf-8"))
    assert len(meta["fetch"]) == len(meta["commit"]) == 3


def test_each_group_is_scored_on_its_own_questions(tmp_path: Path) -> None:
    items = [{"question": "q1", "answer": "a", "source": "scan.pdf", "group": "scanned"},
             {"question": "q2", "answer": "b", "source": "scan.pdf", "group": "scanned"},
             {"question": "q3", "answer": "c", "source": "born.pdf", "group": "born-digital"}]
    outcomes = [QuestionOutcome("q1", "a", "scan.pdf", "it is a [1]", ["scan.pdf"], "correct"),
                QuestionOutcome("q2", "b", "scan.pdf", "no answer here", [], "wrong"),
                QuestionOutcome("q3", "c", "born.pdf", "c it is [1]", ["other.pdf"], "partial")]
    ranking = {"q1": ["scan.pdf"], "q2": ["x.pdf", "y.pdf", "z.pdf", "scan.pdf"], "q3": ["other.pdf", "born.pdf"]}
    groups = aq.by_group(items, outcomes, lambda q: ranking[q])
    assert sorted(groups) == ["born-digital", "scanned"]
    scanned, born = groups["scanned"], groups["born-digital"]
    assert (scanned["total"], scanned["correct"], scanned["wrong"], scanned["stated"]) == (2, 1, 1, 1)
    assert scanned["file_rank"]["top3"] == 0.5 and born["file_rank"]["top3"] == 1.0
    assert (born["partial"], born["stated"], born["cited_source"]) == (1, 1, 0)
    table = json.loads(aq.write_group_table(tmp_path, {"set": "scans", "groups": groups}).read_text(encoding="utf-8"))
    assert table["rows"][1][:3] == ["scanned", 2, "1/2 (50 %)"] and table["columns"][2] == "answer states the fact"


@pytest.mark.skipif(shutil.which("tesseract") is None or not Path("/usr/bin/time").exists(),
                    reason="needs tesseract (make ocr) and /usr/bin/time")
def test_the_ocr_cost_stand_ins_run_the_real_program_and_log_its_cpu(tmp_path: Path) -> None:
    cost = _script("ocr_cost")
    log_file = tmp_path / "cpu.log"
    shims = cost.shim_dir(tmp_path, log_file)
    env = {**os.environ, "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, env=env, check=True)
    assert "tesseract" in (done.stdout + done.stderr).lower()
    subprocess.run(["pdftoppm", "-v"], capture_output=True, env=env, check=False)
    lines = [ln for ln in log_file.read_text(encoding="utf-8").splitlines() if len(ln.split()) == 2]
    assert len(lines) == 2 and cost.logged_cpu(log_file) >= 0.0  # one "user system" line per program run
    assert cost.spread([(Path("a"), 1), (Path("a"), 2), (Path("b"), None)], 2) == [(Path("a"), 1), (Path("b"), None)]
