"""The Markdown pipe table's grammar, one reading for the splitter and the answerer: which line
is a table row, which row is the separator under a header, and where each table's body lies.

A table is a row (``| Provider | Default Model |``) over a separator row (``| --- | :---: |``),
then its body: the rows up to the first line that is no row. A chunk cut from a long table's
middle holds rows without the header that labels their cells; the splitter records that header
beside such a chunk (``table_bodies``), and the answerer labels the rows with it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: code written inline: "the `|>` operator", whose pipes are no cells
CODE_SPAN = re.compile(r"`[^`\n]+`")
_SEPARATOR_CELL = re.compile(r"^:?-{2,}:?$")
#: the chunk metadata key of the header row of the table a chunk starts in
TABLE_HEADER = "table_header"
#: a header row longer than this is not recorded beside its table's chunks (a row of prose)
HEADER_CHARS = 500


def table_cells(line: str) -> list[str] | None:
    """The cells of a table row (``a | b`` or ``| a | b |``), or None for any other line."""
    if "|" not in line or line.strip().startswith("`"):
        return None
    if not line.lstrip().startswith("|") and "|" not in CODE_SPAN.sub("", line):
        return None  # a sentence whose pipes are code ("the `|>` operator", "`string | number`")
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells if len(cells) >= 2 else None


def is_separator(cells: list[str]) -> bool:
    """Whether a row's cells are a separator row's (``---``, ``:--:``)."""
    return all(_SEPARATOR_CELL.match(c) for c in cells if c)


class TableBody(NamedTuple):
    """``[start, end)`` of a table's rows under its header, and the header row as written."""

    start: int
    end: int
    header: str


def table_bodies(text: str) -> list[TableBody]:
    """Every pipe table's body in ``text``, in order (one pass over the lines). Only a table whose
    header starts with a pipe counts: a line of prose that holds a pipe over a rule is no header."""
    bodies: list[TableBody] = []
    if "|" not in text:
        return bodies
    previous: str | None = None  # the line before, while it is a header-like row
    header: str | None = None  # the open table's header
    start = end = pos = 0
    for line in text.splitlines(keepends=True):
        at, pos = pos, pos + len(line)
        cells = table_cells(line)
        if header is not None:
            if cells is not None and not is_separator(cells):
                end = at + len(line.rstrip("\r\n"))
                continue
            if end > start:
                bodies.append(TableBody(start, end, header))
            header = None
        if cells is not None and is_separator(cells) and previous is not None:
            header, start, end = previous, pos, pos
            previous = None
            continue
        row = cells is not None and line.lstrip().startswith("|") and not is_separator(cells)
        previous = line.strip() if row and len(line.strip()) <= HEADER_CHARS else None
    if header is not None and end > start:
        bodies.append(TableBody(start, end, header))
    return bodies


__all__ = ["CODE_SPAN", "HEADER_CHARS", "TABLE_HEADER", "TableBody", "is_separator", "table_bodies", "table_cells"]
