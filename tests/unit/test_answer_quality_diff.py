"""``benchmarks/answer_quality_diff.py``: two answer-quality runs compared question by question,
from the result files ``answer_quality.py --out`` writes (their ``failures``: the answers that
are not correct)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("answer_quality_diff", REPO / "benchmarks" / "answer_quality_diff.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diff = _module()
REFUSAL = "The knowledge base does not contain an answer to this question."


def _write(folder: Path, name: str, half: str, failures: list[tuple[str, object, str]]) -> None:
    folder.mkdir(exist_ok=True)
    result = {"set": name, "split": half,
              "failures": [{"question": q, "expected": e, "answer": a, "grade": "wrong"} for q, e, a in failures]}
    (folder / f"answer_quality_{name}_{half}.json").write_text(json.dumps({"result": result}), encoding="utf-8")


def test_questions_gained_lost_and_changed_are_told_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    _write(before, "tides", "tune", [
        ("How high is the quay?", "4 metres", "The quay was rebuilt. [1]"),  # gained: correct after
        ("Who keeps the light?", "Mara Quill", "The light is kept. [1]"),  # changed, still wrong
        ("What does the ferry cost?", None, REFUSAL),  # an unanswerable question refused: states it
        ("When does it open?", ["May", "9:00"], "It opens in May at 9:00. [1]"),  # partial: the file not cited
    ])
    _write(after, "tides", "tune", [
        ("Who keeps the light?", "Mara Quill", "The keeper lives on the hill. [2]"),
        ("What does the ferry cost?", None, "The ferry sails daily. [1]"),  # lost: answered
        ("When does it open?", ["May", "9:00"], "It opens in May at 9:00. [2]"),
        ("Where is the gauge?", "on the pier", "On the pier. [1]"),  # listed after only, still states it
    ])
    _write(before, "kelp", "untouched", [])
    d = diff.compare(before, after)
    assert [r[2] for r in d["gained"]] == ["How high is the quay?"]
    assert [r[2] for r in d["lost"]] == ["What does the ferry cost?"]
    assert [r[2] for r in d["changed"]] == ["When does it open?", "Where is the gauge?", "Who keeps the light?"]
    assert d["compared"] == 1 and d["only"] == ["kelp untouched"]
    assert diff.main([str(before), str(after)]) == 0
    out = capsys.readouterr().out
    assert "+ [tides tune] How high is the quay?" in out and "- [tides tune] What does the ferry cost?" in out
    assert "1 sets and halves compared: +1 -1; 3 other answers changed" in out
    assert "in one directory only: kelp untouched" in out


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not a directory"):
        diff.main([str(tmp_path / "nowhere"), str(tmp_path)])
