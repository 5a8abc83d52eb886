"""A list question whose best sentence leads a table ("Support for version 1 of the pigeon format
implies the following:" and a table of sizes) is answered with the table's rows, as it would be
with the list after it, not with another list of the passages that shares fewer of its words.
Written for the shape of a standards draft's recommendations table."""

from __future__ import annotations

from ragkit.markdown_tables import table_cells
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

_DRAFT = [
    Passage(1, "# Requirements\n\nThis memo should meet the following goals:\n\n"
               "- Give clear guidance on which table sizes a loft should carry.\n"
               "- Recommend well-supported sizes as MUST and future ones as SHOULD.",
            {"source": "pigeon-sizes.xml", "heading": "Pigeon Sizes > Requirements"}),
    Passage(2, "# Size Recommendations\n\nSupport for version 1 of the pigeon table format implies the following:\n\n"
               "| Table | Weight | Support |\n| --- | --- | --- |\n| Daily | 2 g | MUST |\n"
               "| Weekly | 9 g | SHOULD NOT |\n| Tidal | 4 g | MUST |\n\nTable: Size Recommendations\n\n"
               "These recommendations ought to be reviewed yearly.",
            {"source": "pigeon-sizes.xml", "heading": "Pigeon Sizes > Size Recommendations"}),
]


def test_a_list_question_is_answered_with_the_table_its_best_sentence_leads() -> None:
    answer = extractive_answer("List the table sizes every loft supporting version 1 of the pigeon table format "
                               "must carry.", _DRAFT)
    assert answer.startswith("Support for version 1 of the pigeon table format implies the following: [2]")
    assert "Daily" in answer and "Weekly" in answer and "Tidal" in answer
    assert "clear guidance" not in answer and "reviewed yearly" not in answer



def test_a_sentence_whose_pipes_are_code_is_a_sentence_not_a_table_row() -> None:
    """"the `|>` operator", "`ls | wc -l`": pipes in code spans make no table row, so the sentence
    is quoted (it was read as a row of cells and the passage answered nothing); a row written
    without its outer pipes ("Daily | 2 g") is still a row."""
    passages = [Passage(1, "# `LeakedLoom` Error\n\nOne common pitfall is to use the `runLoom` functions with the "
                           "`|>` operator. Avoid this by using brackets instead of `|>`.",
                        {"source": "errors/LeakedLoom.md", "heading": "LeakedLoom Error"})]
    answer = extractive_answer("Which operator leads to the LeakedLoom error when I call runLoom?", passages)
    assert "with the `|>` operator" in answer, answer
    assert table_cells("Count them with `ls | wc -l` first.") is None
    assert table_cells("Daily | 2 g | MUST") == ["Daily", "2 g", "MUST"]
    assert table_cells("| `a | b` | union |") is not None  # a row of a table keeps its cells
