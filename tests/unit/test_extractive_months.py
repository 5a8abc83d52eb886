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


def test_a_question_naming_a_table_is_answered_from_its_row_whatever_else_describes_it() -> None:
    # the rows never say what they count ("the Northern Line's boats"): the file's name is the table's
    passages = [Passage(n, text, {"source": "Harbour.csv"}) for n, text in enumerate(ROWS, 1)]
    answer = extractive_answer("How many ferries did the Northern Line's boats make in January 1855, according "
                               "to the Harbour figures?", passages)
    assert "Ferries: 41" in answer and "Ferries: 29" not in answer
    # a month and year no row holds together is not answered from a row holding one of them
    refused = extractive_answer("How many ferries did the Northern Line's boats make in February 1854, according "
                                "to the Harbour figures?", passages)
    assert "knowledge base does not contain" in refused


def test_names_that_describe_a_named_table_are_not_looked_for_elsewhere() -> None:
    from ragkit.rag.extractive.engine import unsaid_names

    question = "How many ferries did the Northern Line's boats make in January 1855, according to the Harbour figures?"
    named = [Passage(n, text, {"source": "Harbour.csv"}) for n, text in enumerate(ROWS, 1)]
    assert unsaid_names(question, named) == []
    unnamed = [Passage(n, text, {"source": "counts.csv"}) for n, text in enumerate(ROWS, 1)]
    assert unsaid_names(question.replace(", according to the Harbour figures", ""), unnamed) == ["Northern", "Line's"]


def test_a_named_tables_row_holds_the_asked_number_whole_and_its_date_as_written() -> None:
    pumps = [Passage(1, "table: Pumps\npump: 10\nlabel: Mill Lane\nx: 4.1\ny: 9.25", {"source": "Pumps.csv"}),
             Passage(2, "table: Pumps\npump: 9\nlabel: Quay St\nx: 2.7\ny: 3.5", {"source": "Pumps.csv"})]
    answer = extractive_answer("In the harbour's Pumps data, what is the label of the Soho pump number 9?", pumps)
    assert "Quay St" in answer and "Mill Lane" not in answer  # "y: 9.25" holds no 9
    tides = [Passage(1, "table: Tides\nDate: 1855-02-01\nHigh: 5.1", {"source": "Tides.csv"}),
             Passage(2, "table: Tides\nDate: 1855-01-01\nHigh: 4.2", {"source": "Tides.csv"})]
    answer = extractive_answer("How high did the Thames tide reach in January 1855 in the Tides records?", tides)
    assert "4.2" in answer and "5.1" not in answer  # an ISO date gives its year and month
