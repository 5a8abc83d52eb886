"""A question that names a doer ("the lighthouse's builder") is said by a passage that gives the
doer's verb ("was built by"): the passage holds the question, though not its noun."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.text import doer_verbs, stem
from ragkit.rag.passages import Passage

_HISTORY = [
    Passage(1, "## A bit of history\n\nTern was created by Ada Quill, who studied under Ben Marsh, who drew the first "
               "harbour charts. Ms. Quill also keeps the tide tables.", {"source": "history.md", "heading": "History"}),
    Passage(2, "## Installing\n\nTern runs on any machine with a tide gauge attached.", {"source": "install.md"}),
]


def test_a_doer_is_said_by_its_verb() -> None:
    """Before: refused, "teacher" and "creator" counted as words the passage lacks (half the question)."""
    answer = extractive_answer("Who was the teacher under whom Tern's creator studied?", _HISTORY)
    assert "Ben Marsh" in answer, answer


def test_a_doer_the_passages_never_do_is_still_missing() -> None:
    assert extractive_answer("Who was the translator of Tern's charts into French?", _HISTORY) == REFUSAL


def test_the_verbs_of_a_doer() -> None:
    assert doer_verbs(stem("creator")) & {stem("created"), stem("creates")}
    assert stem("teaches") in doer_verbs(stem("teacher"))
    assert doer_verbs(stem("user")) == doer_verbs(stem("order")) == frozenset()  # too short to be read so
