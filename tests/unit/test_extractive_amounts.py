"""What counts as an amount: a "How much …?" or "How many …?" question is answered by a count or a
quantity, and a release's number ("0.7.x", "2.4.1") or a date ("Mar 2019") that a sentence gives is
neither. Each document is written for the test, in the shape of release notes where the answerer
went wrong."""

from __future__ import annotations

import pytest

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.answer_type import has_answer_type
from ragkit.rag.passages import Passage

NOTES = [Passage(1, (
    "2.4.1\n=====\n\n"
    "Quillmark Version 2.4.1 (Mar 2019) is a minor, incremental update that adds a few small features "
    "and fixes several bugs. Some of the highlights include:\n\n"
    "* QuillJS reduced in size by about forty percent\n"
    "* New ribbon layout for the sidebar\n"
    "* Many small bugfixes\n"), {"source": "2.4.1.rst"})]


def test_how_much_is_answered_by_the_amount_not_by_the_release_date() -> None:
    """The intro's only number beside the question's release is its date, so it held no amount;
    before, it was typed a number and, naming the release, outscored the item that says how much."""
    answer = extractive_answer("By roughly how much did QuillJS shrink in version 2.4.1?", NOTES)
    assert "forty percent" in answer
    assert not answer.startswith("Quillmark Version")


@pytest.mark.parametrize(("sentence", "amount"), [
    ("Sandbar 0.8 adds significant new functionality since the 0.7.x series of releases.", False),
    ("Sandbar v3 was released on 2021-03-03, replacing 2.1.4.", False),
    ("Released March 3, 2021 with 40 fixes.", True),
    ("The sync took 3.5 hours.", True),
    ("807 commits went into it.", True),
])
def test_a_release_or_a_date_is_no_amount(sentence: str, amount: bool) -> None:
    assert has_answer_type("number", sentence, frozenset({"sandbar", "0", "8"})) is amount
