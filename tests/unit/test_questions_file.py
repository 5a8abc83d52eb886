"""The question-set file: what a hand-written YAML answer key may hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import ConfigError
from ragkit.rag.questions import load_questions


def test_a_bare_date_answer_reads_as_the_text_written(tmp_path: Path) -> None:
    path = tmp_path / "questions.yaml"
    path.write_text(
        "questions:\n"
        "  - question: When was the first commit made?\n"
        "    answer: 2010-12-26\n"
        "    source: v0.1.rst\n"
        "  - question: Which two dates close the year?\n"
        "    answer: [2024-12-30, 2024-12-31]\n"
        "    source: dates.md\n"
        "  - question: When did the window open?\n"
        "    answer: 2024-12-30 10:00:00\n"
        "    source: dates.md\n",
        encoding="utf-8",
    )
    items = load_questions(path)
    assert items[0]["answer"] == "2010-12-26"
    assert items[1]["answer"] == ["2024-12-30", "2024-12-31"]
    assert items[2]["answer"] == "2024-12-30 10:00:00"


def test_an_answer_of_another_shape_is_refused_naming_the_item(tmp_path: Path) -> None:
    path = tmp_path / "questions.yaml"
    path.write_text("questions:\n  - question: What?\n    answer: {a: 1}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"questions\[0\]\.answer"):
        load_questions(path)
