"""A PDF's running headers and footers: lines that repeat at the top or the bottom of many pages
("Project Report, June 8, 2020, Runtime Verification, Inc.", "© 2020 Trail of Bits Optimism
OVM Assessment | 4", "12/1/21, 8:07 PM Optimism Audit Report:", a page number). They are the
page's frame, not its text: left in, they sit inside the sentence a page break cuts ("… likely
to be able to provably slash …" after the authors' names) and are quoted as answers.

A line is running when, with its digits read as one mark, it is among the first or the last
``ZONE`` lines of at least ``SHARE`` of the pages, and of at least ``MIN_PAGES`` of them (a header
printed on every other page counts), and its numbers are the same on every page or one of them
follows the page's number ("4/15" on page 4, "Page | 7" on page 8): a heading numbered on its own
("Artikel 5" atop one page, "Artikel 9" atop the next) is text. A line of marks alone (a bullet,
a brace) is never running. A footer that names each page's section after the document's title
("OpenZeppelin Contracts v5.5 Diff Audit − System Overview − 5") differs from page to page and
stays: it is the one line of the page that says which report the page is of, and search finds
the page by it.

Running lines are left out of those places only, so the same words inside a page's text stay,
and each is kept where it first appears, as a paragraph of its own: what it says (a date
printed on every page, a report's name) is still said once, and no sentence runs through it.
"""

from __future__ import annotations

import math
import re
from collections import Counter

ZONE = 3  # how many lines at a page's top and at its bottom can be its frame
SHARE = 0.4  # of the pages a line must frame (even or odd pages alone: a book's alternating headers)
MIN_PAGES = 3  # and never fewer: two pages that start alike are a coincidence

_DIGITS = re.compile(r"\d{1,9}")
_MARKED = re.compile(r"[^\W\d_]|#")  # a letter or a number: a line of marks alone ("•", "}") frames nothing
_NUMBERS = 8  # the numbers of a line compared with its page's
_FOLLOWS = 0.6  # of the pages on which a number must follow the page's number
_SPACE = re.compile(r"\s+")
_RUN_OF_DIGITS = re.compile(r"\d+")


def _key(line: str) -> str:
    """The line as compared across pages: in lower case, each run of digits one mark."""
    return _SPACE.sub(" ", _RUN_OF_DIGITS.sub("#", line.lower())).strip()


def _numbered_by_page(lines: dict[int, str]) -> bool:
    """Whether the lines (by page number) say the same numbers on every page, or one of their
    numbers follows the page's number on most of them."""
    numbers = {page: [int(n) for n in _DIGITS.findall(line)[:_NUMBERS]] for page, line in lines.items()}
    if len({tuple(n) for n in numbers.values()}) == 1:
        return True
    for place in range(min(len(n) for n in numbers.values())):
        offsets = Counter(n[place] - page for page, n in numbers.items())
        if offsets.most_common(1)[0][1] >= _FOLLOWS * len(numbers):
            return True
    return False


def _zone(lines: list[str]) -> list[int]:
    """The indexes of the first and last ``ZONE`` lines that hold text."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:ZONE] + filled[-ZONE:]))


def without_running_lines(pages: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``pages`` ((number, text), in order) without their running headers and footers; a page that
    is nothing else keeps its text."""
    if len(pages) < MIN_PAGES:
        return pages
    split = [text.splitlines() for _, text in pages]
    seen: dict[str, dict[int, str]] = {}  # key -> {page number: the line}
    for (number, _), lines in zip(pages, split, strict=True):
        for i in _zone(lines):
            seen.setdefault(_key(lines[i]), {}).setdefault(number, lines[i])
    needed = max(MIN_PAGES, math.ceil(SHARE * len(pages)))
    running = {key for key, lines in seen.items()
               if len(lines) >= needed and _MARKED.search(key) and _numbered_by_page(lines)}
    if not running:
        return pages
    out: list[tuple[int, str]] = []
    shown: set[str] = set()  # the frames already kept once
    for (number, text), lines in zip(pages, split, strict=True):
        frame: set[int] = set()
        apart: set[int] = set()  # kept, as a paragraph of its own: no sentence runs through it
        for i in _zone(lines):
            key = _key(lines[i])
            if key in running:
                (frame if key in shown else apart).add(i)
                shown.add(key)
        kept_lines: list[str] = []
        for i, line in enumerate(lines):
            if i in frame:
                continue
            if i in apart and kept_lines and kept_lines[-1].strip():
                kept_lines.append("")
            elif kept_lines and i - 1 in apart and line.strip():
                kept_lines.append("")
            kept_lines.append(line)
        kept = "\n".join(kept_lines).strip()
        out.append((number, kept or text))
    return out
