"""Reading on where a passage stops: a list whose items run into the next passages of its file.

A passage is a chunk of its file, and a list with long items (each a paragraph, or followed by
one) is cut between chunks: "three basic stages:" and the first stage in one passage, the second
and the third in the next two. When a draft answer quotes a list (or a sentence ending with a
colon) from a passage whose text ends inside that list, the local provider asks the search tool
for the passages that follow it (``search_knowledge_base``'s ``after``) and answers from the
passage joined to them (``stitched``), so the list keeps all its items.

The joint is rebuilt from the passages' offsets in their file: a chunk is its file's text between
``start`` and ``end`` with the whitespace at its ends trimmed, so the gap between two chunks is
whitespace (a blank line and the indentation of an item's own paragraph), and two overlapping
chunks share ``end - start`` characters of text, which must be the same. A file read as several
documents (a PDF's pages and sections) numbers each document's offsets from 0, so there a passage
is joined only to one whose overlap is the same text, never across a gap. A notebook is one
document whose cells are its pages: its offsets run through the whole file, so a list cut between
two chunks of one cell is joined across the gap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragkit.rag.extractive.text import ITEM_MARK, parse_blocks
from ragkit.types import Citation

#: the widest gap between two chunks that is still only whitespace between them (a blank line and
#: an indentation); a wider one means a chunk in between was not returned
MAX_GAP = 12
#: passages asked for after the one read on from
FOLLOWING = 3

_LIST_LINE = re.compile(r"^\s*" + ITEM_MARK + r"\S", re.MULTILINE)
_INDENTED_LAST = re.compile(r"\n\n[ \t]{2,}\S[^\n]*(?:\n[ \t]+\S[^\n]*)*\s*\Z")  # the last paragraph, indented


def ends_in_list(text: str) -> bool:
    """Whether a passage stops inside a list: its last block is a list item, an item's own
    paragraph (indented under it: "- **`uvloop`** …" then "    When `uvloop` is installed, …"),
    or a line that introduces one ("… three basic stages:")."""
    blocks = parse_blocks(text)
    if not blocks:
        return False
    last = blocks[-1]
    item_paragraph = (last.kind == "prose" and len(blocks) > 1 and blocks[-2].kind == "item"
                      and bool(_INDENTED_LAST.search(text)))
    return last.kind == "item" or item_paragraph or (last.kind == "prose" and last.text.rstrip().endswith(":"))


def quotes_list(answer: str, number: int) -> bool:
    """Whether a draft answer quotes a list from passage [number], or a sentence of it that ends
    with a colon."""
    return bool(_LIST_LINE.search(answer)) or f": [{number}]" in answer


def wants_reading_on(answer: str, cited: Citation) -> bool:
    """Read on after ``cited`` (the passage the draft answer cites first) when the answer quotes
    a list from it and the passage stops inside that list."""
    return cited.start is not None and quotes_list(answer, cited.number) and ends_in_list(cited.text)


def stitched(anchor: Citation, following: Sequence[Citation]) -> str:
    """``anchor``'s text joined to the passages that continue it in its file (``following``, in
    any order): each must start inside the text read so far or within ``MAX_GAP`` characters
    after it; the first that does not ends the joint."""
    if anchor.start is None or anchor.end is None:
        return anchor.text
    text, end = anchor.text, anchor.end
    for c in sorted((c for c in following if c.source == anchor.source and c.start is not None and c.end is not None),
                    key=lambda c: c.start or 0):
        assert c.start is not None and c.end is not None
        if c.end <= end:
            continue  # inside what is read already
        shared = end - c.start
        if shared > 0:  # overlapping chunks: the shared text once, and only when it is the same text
            if len(c.text) != c.end - c.start or not text.endswith(c.text[:shared]):
                break
            text, end = text + c.text[shared:], c.end
        elif -shared <= MAX_GAP and (anchor.page is None or anchor.page_unit == "cell"):
            text, end = text + "\n\n" + " " * max(0, -shared - 2) + c.text, c.end
        else:
            break
    return text


__all__ = ["FOLLOWING", "ends_in_list", "quotes_list", "stitched", "wants_reading_on"]
