"""Citations are numbered in order of first appearance in the answer (`[4]`
before `[1]` becomes `[1]` before `[2]`), markers that no search returned are removed, and
brackets inside code are text."""

from __future__ import annotations

import pytest

from ragkit.rag.agent import CitationNumbering
from ragkit.rag.tool import CitationBook
from ragkit.types import SearchHit


def book_of(n: int) -> CitationBook:
    book = CitationBook()
    for i in range(1, n + 1):
        book.number(SearchHit(id=f"c{i}", score=1.0 / i, metadata={"source": f"s{i}.md", "text": f"passage {i}"}))
    return book


ANSWER = (
    "Vectors grow with `push` [4]. Indexing past the end panics [1], as in `&v[100]` [4] [9].\n\n"
    "```tern\nlet x = v[2];\n```\nSee also [2]."
)
EXPECTED = (
    "Vectors grow with `push` [1]. Indexing past the end panics [2], as in `&v[100]` [1].\n\n"
    "```tern\nlet x = v[2];\n```\nSee also [3]."
)


def test_markers_are_renumbered_in_order_of_first_appearance() -> None:
    numbering = CitationNumbering(book_of(4))
    assert numbering.text(ANSWER) == EXPECTED
    assert [(c.number, c.source) for c in numbering.used] == [(1, "s4.md"), (2, "s1.md"), (3, "s2.md")]


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_streamed_pieces_give_the_same_text(size: int) -> None:
    numbering = CitationNumbering(book_of(4))
    pieces = [ANSWER[i : i + size] for i in range(0, len(ANSWER), size)]
    assert "".join(numbering.feed(p) for p in pieces) + numbering.flush() == EXPECTED


def test_inline_sources_end_a_streamed_and_a_whole_answer_alike() -> None:
    from ragkit.rag.citations import InlineSources

    whole = InlineSources(CitationNumbering(book_of(4)))
    text = whole.flush() + whole.feed(ANSWER) + whole.flush()  # the turn owner flushes before a whole answer too
    assert text == EXPECTED + "\n\nSources:\n[1] s4.md\n[2] s1.md\n[3] s2.md"
    streamed = InlineSources(CitationNumbering(book_of(4)))
    pieces = [streamed.feed(ANSWER[i:i + 5]) for i in range(0, len(ANSWER), 5)]
    assert "".join(pieces) + streamed.flush() == text and streamed.flush() == ""
    nothing = InlineSources(CitationNumbering(book_of(2)))
    assert nothing.feed("No citation here.") + nothing.flush() == "No citation here."  # no empty block
