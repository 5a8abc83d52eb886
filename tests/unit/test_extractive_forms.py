"""Answers from forms, tables and release notes: a value labelled with the noun the question asks
for, a table's columns, a row's cells without their column labels, a version number read whole.
Each document is written for the test, in the shape of one where the answerer refused a question
it could answer, or answered one it could not."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.answer_type import asks_columns
from ragkit.rag.extractive.query import dotted_numbers, read_question
from ragkit.rag.extractive.text import parse_blocks
from ragkit.rag.passages import Passage


def _passages(*texts: tuple[str, dict[str, str]]) -> list[Passage]:
    return [Passage(n, text, meta) for n, (text, meta) in enumerate(texts, 1)]


TILL_SLIP = _passages(
    ("LOYALTY MEMBER\nOwen Marsh\nPoints Earned: 42\nTotal Points: 1,310\n\nRETURN POLICY\nReturns within 14 days\n"
     "Slip required", {"source": "slip-0042.pdf", "page": "1", "start": "900"}),
    ("BRAMBLE BOOKS\n12 Quay Street\nPenwith, PZ1 4AB\n\nTill 3\nCashier: Tom Ash\n\nAtlas of the Tides\n1 @ $30.00\n"
     "Harbour Charts\n1 @ $10.00", {"source": "slip-0042.pdf", "page": "1", "start": "0"}),
    ("SUBTOTAL $40.00\nSales Tax (5%) $2.00\n==========\nTOTAL $42.00\n==========\nPAYMENT METHOD\nCard ending in 1234",
     {"source": "slip-0042.pdf", "page": "1", "start": "500"}),
)


def test_the_total_is_the_value_the_slip_labels_total() -> None:
    """"What was the total paid?" asks for a total: "TOTAL $42.00" labels it, though the line says
    neither "paid" nor the shop, whose name is on another part of the same slip. Before: refused
    ("total" names the answer, so it was no word to match)."""
    got = extractive_answer("What was the total paid on the Bramble Books receipt?", TILL_SLIP)
    assert "$42.00" in got and "[3]" in got
    assert "1,310" not in got  # "Total Points" is another quantity
    # the label is a candidate only in a document the question names
    other = _passages(("SUBTOTAL $40.00\nTOTAL $42.00\nPAYMENT METHOD\nCard", {"source": "a.pdf", "start": "0"}),
                      ("GULL GROCERS\nCashier: Ann Lee", {"source": "b.pdf", "start": "0"}))
    assert extractive_answer("What was the total paid on the Bramble Books receipt?", other) == REFUSAL


RELEASES = _passages(
    ("Tern v3.14.1 Release Notes\n\nThis release merges the fixes that appear in v3.12.4 and v3.13.2.",
     {"source": "3.14.1.txt", "start": "0"}),
    ("Tern v3.13 Release Notes\n\nUpdates since v3.12\n\n45 people contributed to this release.",
     {"source": "3.13.0.txt", "start": "0"}),
)


def test_a_version_the_question_names_is_read_whole() -> None:
    """"Tern 3.12" is not "v3.12.4" (another release), though both have the words "3" and "12":
    a question about a release no passage names is refused. Before: the 3.14.1 notes answered."""
    assert extractive_answer("How many people contributed to Tern 3.12.4?", RELEASES[1:]) == REFUSAL
    assert extractive_answer("How many people contributed to Tern 3.11?", RELEASES) == REFUSAL
    assert "45 people" in extractive_answer("How many people contributed to Tern 3.13?", RELEASES)
    assert read_question("How many people contributed to Tern 3.12?").versions == {"3.12"}
    assert dotted_numbers("v3.12.4, and 3.12.") == {"3.12.4", "3.12"}


# a PDF's table extractor read a page of a paper as a table whose column label is the title's
# words ("… Dataset Tidal Ledgers for Small: harbours PNR"); the byline is a page-one paragraph
PAPER = [
    *(Passage(i + 1, f"table: Tidal Ledgers for Small Harbours, page 12\nA Supplemental Material to accompany Dataset "
              f"Tidal Ledgers for Small: {cell}\nBefore calibration: {before}\nAfter calibration: {after}",
              {"source": "ledgers.pdf", "page": "12", "start": str(i)})
      for i, (cell, before, after) in enumerate([("harbours PNR", "12.5", "3.1"), ("4. Quays", "15.2", "5.0"),
                                                 ("moles QY", "9.3", "2.2")])),
    Passage(9, "Tidal ledgers for small harbours\nMarta J. Quell†, Tobias Venn†, Ilse Marrow∗,\n"
               "{mquell,tvenn}@northgate.ac.uk\n†Northgate University\n\nAbstract\n\nWe keep tidal ledgers for small "
               "harbours.", {"source": "ledgers.pdf", "page": "1", "start": "0"}),
]


def test_a_rows_column_label_is_no_person() -> None:
    """A row's column label ("A Supplemental Material to accompany …") names what the cells below
    it are; read as a person's name it put the row before the paper's byline. Before: the row
    answered first."""
    got = extractive_answer("Who wrote Tidal Ledgers for Small Harbours?", PAPER)
    assert got.startswith("Tidal ledgers for small harbours Marta J. Quell") and "calibration" not in got


SHEET = _passages(*[
    (f"table: stock / Sheet1\nShelf: {shelf}\nBin: {b}\nCount: {count}", {"source": "stock.xlsx", "start": str(i)})
    for i, (shelf, b, count) in enumerate([("A", "3", "12"), ("B", "", "7"), ("C", "1", "")])
])


def test_a_tables_columns_are_its_cells_labels() -> None:
    """"What are the column headers?": the labels of the table's cells, in order, from its rows
    together (a row leaves its empty cells out). Before: refused (no cell says "column")."""
    assert extractive_answer("What are the column headers of the first spreadsheet?", SHEET) == (
        "The columns: Shelf, Bin, Count [1]")
    assert asks_columns("Which columns does the stock table have?")
    assert not asks_columns("What are the steps to add a column?")


NOTES = _passages(
    ("Tern v3.6 Release Notes\n\nUpdates since v3.5\n\n\"tern shell\" learned to keep its history.",
     {"source": "3.6.0.txt", "start": "0", "document_title": "3.6.0"}),
    ("\"tern rebalance\", a new command to spread ledgers evenly over the disks, has been added.\n\n"
     "\"tern shell\" learned a \"--quiet\" option.", {"source": "3.7.0.txt", "start": "2400", "document_title": "3.7.0"}),
)


def test_a_release_in_a_file_of_its_own_is_named_by_its_title() -> None:
    """Release notes kept one file per release (``3.7.0.txt``): a passage from the middle of the
    file shows no version heading, so the document's title supplies the version asked for.
    Before: the change was quoted without its release, or another release's heading answered."""
    got = extractive_answer("Which release introduced tern rebalance?", NOTES)
    assert got.startswith("3.7.0: \"tern rebalance\", a new command")


GAPS = _passages(
    ("| WARNING: |\n| :--- |\n| This is only a sketch of a wedge for `close(..)`. Don't use this wedge in your code; "
     "always use a robust, official wedge. |", {"source": "ch1.md", "heading": "Chapter 1 > Filling Gaps", "start": "900"}),
    ("## Filling Gaps\n\nIf the missing piece is an API method that was only recently added, the most common solution "
     "is to provide a definition for that missing method that stands in for it. This pattern is called a wedge (aka "
     "\"spacer\").\n\nWedges are common in older code.", {"source": "ch1.md", "heading": "Chapter 1 > Filling Gaps", "start": "0"}),
    ("A wedge patch such as this one means you can use `Object.close(..)` safely.", {"source": "ch2.md", "start": "0"}),
)


def test_another_name_is_the_sentence_that_gives_one() -> None:
    """"What is another name for a wedge?" asks for an alias: "another" and "name" are how it asks,
    not what it is about, and the sentence that answers says "aka". Before: refused (two of the
    question's three words were in no passage)."""
    for question in ("What is another name for a wedge?", "What is a wedge also called?"):
        assert extractive_answer(question, GAPS) == "This pattern is called a wedge (aka \"spacer\"). [2]"


def test_a_passage_cut_from_the_middle_of_a_table_reads_its_first_row_as_data() -> None:
    """A long Markdown table split across passages: the later passage starts with a row of data,
    with no separator row under it. Before: that row labelled the cells of the next one
    ("2022-10: 2022-11; Spearbit: Trail of Bits")."""
    rows = [b.text for b in parse_blocks("| 2022-10 | Harbour Labs | Tide gauge |\n| 2022-11 | Quay Audit | Ledger |\n")]
    assert rows == ["2022-10; Harbour Labs; Tide gauge", "2022-11; Quay Audit; Ledger"]
    headed = [b.text for b in parse_blocks("| Date | Reviewer |\n| --- | --- |\n| 2022-11 | Quay Audit |\n")]
    assert headed == ["Date: 2022-11; Reviewer: Quay Audit"]
    plain = [b.text for b in parse_blocks("Date | Reviewer\n2022-11 | Quay Audit\n")]  # a table read from reST
    assert plain == ["Date: 2022-11; Reviewer: Quay Audit"]


AGENDA = _passages(
    ("TIDE Agenda HARB 12\n\nWhen: 9:00 - 11:00 (+01), Tuesday 6 November 2018\n\n"
     "Where: Quay Room 1/2, Harbour Hotel, Penzance\n\nChairs: Ada Quill, Ben Marsh\n\nWorking Group Documents\n\n"
     "Lightning Talks",
     {"source": "agenda.html", "start": "0"}),
    ("TIDE Agenda / HARB 12 Penzance\nTuesday 6 November 2018 — 9:00-11:00 UTC+1", {"source": "chairs.pdf", "page": "2"}),
    ("TIDE Minutes HARB 12\n\nMain Agenda Minutes\n\nWhen: 9:00 - 11:00 (+01), Tuesday 6 November 2018\n\n"
     "Where: Quay Room 1/2, Harbour Hotel, Penzance\n\nChairs: Ada Quill, Ben Marsh\n\nNotes:\n\nWelcome, Agenda",
     {"source": "minutes.html", "start": "0"}),
)


def test_an_agendas_where_line_says_the_room() -> None:
    """"Which meeting room …?" asks what an agenda's "Where:" labels ("where" is a function word, no
    term to match). Before: the line of two empty headings followed it, sharing "working group"."""
    got = extractive_answer("I'm going to the TIDE working group session at HARB 12 in Penzance. Which meeting room "
                            "is it in?", AGENDA)
    assert got.startswith("Where: Quay Room 1/2") and "Lightning Talks" not in got, got
