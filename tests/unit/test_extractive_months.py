"""A month named in full finds and answers from the row or line that writes it abbreviated (a
table's "Month: Jan", a log's "Sep 2019"), and a capital the question also writes in lower case
marks no name; documents written for the test."""

from __future__ import annotations

import pytest

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.retrieval.bm25 import BM25Index

ROWS = [
    "table: Harbour\nrownames: 1\nMonth: Dec\nYear: 1854\nFerries: 38\nStorms: 4",
    "table: Harbour\nrownames: 2\nMonth: Jan\nYear: 1855\nFerries: 41\nStorms: 7",
    "table: Harbour\nrownames: 3\nMonth: Feb\nYear: 1855\nFerries: 29\nStorms: 9",
]


def test_a_month_named_in_full_finds_the_row_that_abbreviates_it() -> None:
    pytest.importorskip("bm25s")
    index = BM25Index(stemmer="english")
    index.add(["feb", "dec", "jan"], [ROWS[2], ROWS[0], ROWS[1]])  # the row asked for last: no tie goes its way
    assert index.search("Harbour ferries in January 1855", k=1)[0].id == "jan"
    assert index.best("Harbour ferries in January 1855").id == "jan"


def test_a_month_named_in_full_is_answered_from_the_abbreviated_row() -> None:
    passages = [Passage(n, text, {"source": "Harbour.csv"}) for n, text in enumerate(ROWS, 1)]
    answer = extractive_answer("How many ferries ran in January 1855?", passages)
    assert "Ferries: 41" in answer and "Ferries: 29" not in answer


def test_a_word_written_both_capitalised_and_not_is_no_name() -> None:
    passage = Passage(1, "# Matching\n\nThe `exact()` matcher is case sensitive: it compares the letters as written. "
                         "Use `loose()` to match without regard to case.", {"source": "matching.md"})
    answer = extractive_answer("Why does exact() treat 'Harbour' and 'harbour' as different, and what should "
                               "I use to match without regard to case?", [passage])
    assert "loose()" in answer
