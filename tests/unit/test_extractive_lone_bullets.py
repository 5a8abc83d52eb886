"""A bullet a PDF's text layer gives on a line of its own ("●", then the item's text on the next
line) still marks a list's item, so a list question is answered with the items."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.text import parse_blocks
from ragkit.rag.passages import Passage

SCOPE = (
    "Scope\n"
    "The audit is limited to the berth booking service of the harbour office. The audit has been\n"
    "conducted on the following repositories.\n"
    "●\n"
    "berth-api -\n"
    "9c1e04b7d2\n"
    "●\n"
    "berth-ledger -\n"
    "41aa0c93fe\n"
    "●\n"
    "tide-feed -\n"
    "7be20d11c4\n"
)


def test_a_bullet_alone_on_its_line_marks_the_item_on_the_next() -> None:
    items = [b.text for b in parse_blocks(SCOPE) if b.kind == "item"]
    assert items == ["berth-api - 9c1e04b7d2", "berth-ledger - 41aa0c93fe", "tide-feed - 7be20d11c4"]


def test_the_list_answers_which_repositories_were_covered() -> None:
    passages = [Passage(1, SCOPE, {"source": "berth-audit.pdf", "page": "3", "start": "0"})]
    answer = extractive_answer("Which code repositories were covered by the audit of the berth booking service?",
                               passages)
    assert all(name in answer for name in ("berth-api", "berth-ledger", "tide-feed"))


def test_bullets_given_apart_from_their_items_mark_no_line_after_them() -> None:
    page = "The berth-api service:\nkeeps the bookings\nsends the invoices\n•\n•\nHarbour Audit − Scope − 4\n"
    blocks = parse_blocks(page)
    assert not any(b.kind == "item" and "Harbour Audit" in b.text for b in blocks)
