"""A line that holds only a date heads a dated entry (a revision history's, a change log's), as a
version heading does: "On what date was the guide revised for Lamp 3.1?" is answered by the
date over "- Updated for Lamp 3.1." although no sentence says the two together."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.text import parse_blocks
from ragkit.rag.passages import Passage

HISTORY = (
    "# Guide Revision History\n\n"
    "Review the recent changes to this guide.\n\n"
    "**2024-11-02**\n\n"
    "- Updated for Lamp 3.2.\n"
    "- Added the section on fog signals.\n\n"
    "**2024-04-17**\n\n"
    "- Updated for Lamp 3.1.\n"
    "- Added information about wick trimming.\n\n"
    "March 3, 2023\n\n"
    "- Updated for Lamp 3.0.\n"
)


def test_a_date_alone_on_its_line_dates_the_entry_under_it() -> None:
    passages = [Passage(1, HISTORY, {"source": "history.md", "heading": "Guide Revision History"})]
    answer = extractive_answer("On what date was the guide revised for Lamp 3.1?", passages)
    assert "2024-04-17" in answer and "2024-11-02" not in answer
    sections = {b.text: b.section for b in parse_blocks(HISTORY)}
    assert sections["Updated for Lamp 3.0."] == "March 3, 2023"
    assert sections["Review the recent changes to this guide."] == "Guide Revision History"
    under = parse_blocks("## What's new in Lamp 4.2.0\n\nMay 15, 2025\n\nThis release adds fog signals.\n")
    assert [b.kind for b in under] == ["heading", "prose", "prose"]  # the release heading's own date
