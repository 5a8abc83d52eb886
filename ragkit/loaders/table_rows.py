"""Tables as rows: the one way every loader writes a table's row as text.

A row reads ``table: NAME`` then one ``column: value`` line per filled cell (``row_text``), so
"how many titles have the Maple Leafs?" finds the row whatever format the table came from: CSV,
TSV and spreadsheets (``ragkit.loaders.tabular``), and the tables inside PDF, Word, PowerPoint and
HTML documents (:func:`grid_rows`), which become documents of their own, one per row, with the
table's caption as its name.

A grid (a table read out of a document: rows of cell strings) has its header found here
(:func:`split_header`): the leading rows none of whose cells is a number (at most
:data:`MAX_HEADER_ROWS`, joined column by column: "Unit Rate" over "p/kWh" reads "Unit Rate
p/kWh"; a row after the first with only its first cell filled is a section label, not
header); a grid with no number below those rows (a table of names and roles) has its first row
as header; a grid whose first row holds a number has no header and its columns are named
``column 1``, ``column 2``, ...
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.loaders.base import strip_encoded_data

_ONE_NUMBER = r"[-+−(]?[\d.,\s%$€£]*\d[\d.,\s%$€£]*\)?"
#: a cell that is a number, an amount, a percentage or a range of them ("1,234", "$51.24",
#: "-0.5 %", "−0.01" with a typeset minus sign, "(12)", "1.35 - 1.42")
NUMBER = re.compile(_ONE_NUMBER + r"(?:\s*[-–]\s*" + _ONE_NUMBER + ")?")
#: a cell that only marks a value as nil ("-" in a statement's column of amounts): a row holding
#: one is a row, not a section label
NIL = frozenset({"-", "–", "—"})
#: leading rows of a grid that can be its header
MAX_HEADER_ROWS = 3
#: words a section label (a row naming the rows under it) has at most
MAX_SECTION_WORDS = 10
_SPACES = re.compile(r"\s+")
_TRAILING_CELLS = re.compile(r"(?:\s*\|\s*)+$")
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class Grid:
    """A table read out of a document: ``rows`` of cell strings (a header first, when it has one)
    and its caption (None when the document gives none)."""

    rows: tuple[tuple[str, ...], ...]
    caption: str | None = None


def cell_lines(text: str) -> str:
    """Text whose table rows are lines of cells joined by `` | `` (as the RTF and Word 97-2003
    readers write them): each line's spaces collapsed, the empty cells at its end dropped, runs of
    blank lines cut to one."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    cleaned = [_TRAILING_CELLS.sub("", line) for line in lines]
    return _BLANK_LINES.sub("\n\n", "\n".join(cleaned)).strip()


def row_text(table: str, record: Mapping[str, Any]) -> str:
    """``table: NAME`` then a ``column: value`` line per non-empty cell; "" for a blank row."""
    lines = [f"{name}: {value}" for name, value in record.items() if value is not None and str(value).strip()]
    if not lines:
        return ""
    return strip_encoded_data(f"table: {table}\n" + "\n".join(lines))


def column_names(header: Sequence[Any]) -> list[str]:
    """The header's cells as column names; an empty one is ``column N`` (1-based), a repeated one
    gets `` (2)``, so no cell of a row is lost under a name already taken."""
    names: list[str] = []
    for i, h in enumerate(header):
        name = _SPACES.sub(" ", str(h)).strip() if h is not None else ""
        name = name or f"column {i + 1}"
        if name in names:
            name = f"{name} ({i + 1})"
        names.append(name)
    return names


def row_record(names: Sequence[str], cells: Sequence[Any]) -> dict[str, Any]:
    """``{column name: cell}``; cells beyond the header are ``column N``."""
    out = {name: _cell(value) for name, value in zip(names, cells, strict=False)}
    for i in range(len(names), len(cells)):  # more cells than the header names
        out[f"column {i + 1}"] = _cell(cells[i])
    return out


def _cell(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def is_number(cell: Any) -> bool:
    """Whether ``cell`` is a number, an amount, a percentage or a range of them."""
    return isinstance(cell, (int, float)) or (isinstance(cell, str) and bool(NUMBER.fullmatch(cell.strip())))


def split_header(rows: Sequence[Sequence[str]], *, header_rows: int | None = None) -> tuple[list[str], list[Sequence[str]]]:
    """(column names, body rows) of a grid (module docstring). ``header_rows`` given (an HTML
    ``<thead>``, a Word table's repeated header row) is taken as it is."""
    width = max((len(r) for r in rows), default=0)
    if header_rows is None:
        header_rows = 0
        for row in rows[:MAX_HEADER_ROWS]:
            filled = [c for c in row if c and c.strip()]
            if not filled or any(is_number(c) for c in filled) or len(rows) - header_rows <= 1:
                break
            if header_rows and len(filled) == 1 and row[0] and row[0].strip():
                break  # a label over the rows below (a section), not a column's name
            header_rows += 1
        if header_rows > 1 and not any(is_number(c) for r in rows[header_rows:] for c in r if c and c.strip()):
            header_rows = 1  # a table of words: a header over many rows tells itself by the numbers below it
    head = rows[:header_rows]
    joined = [" ".join(r[i].strip() for r in head if i < len(r) and r[i] and r[i].strip()) for i in range(width)]
    return column_names(joined), list(rows[header_rows:])


def grid_rows(grid: Grid, name: str, *, header_rows: int | None = None) -> list[tuple[int, str]]:
    """(row number, text) of each body row of ``grid`` that has a filled cell, named after its
    caption, else ``name``. Row numbers count the body rows from 0. A row that only labels the
    rows under it (a section: its first cell filled, the columns most rows fill empty:
    :func:`_section`) is not a row of its own: the rows under it, to the next section, are named
    ``NAME: SECTION``."""
    names, body = split_header(grid.rows, header_rows=header_rows)
    table = grid.caption or name
    filled = _filled_columns(body)
    section: str | None = None
    out: list[tuple[int, str]] = []
    for i, cells in enumerate(body):
        if _section(cells, body[i + 1] if i + 1 < len(body) else None, filled):
            section = cells[0].strip()
            continue
        text = row_text(f"{table}: {section}" if section else table, row_record(names, cells))
        if text:
            out.append((i, text))
    return out


def _filled_columns(body: Sequence[Sequence[Any]]) -> list[int]:
    """The columns after the first that half the rows or more fill."""
    width = max((len(r) for r in body), default=0)
    return [k for k in range(1, width) if sum(1 for r in body if k < len(r) and str(r[k] or "").strip()) * 2 >= len(body)]


def _section(cells: Sequence[Any], after: Sequence[Any] | None, filled: Sequence[int]) -> bool:
    """Whether a body row is a section label ("Biodiesel ($/gal)" over its rows): its first cell a
    short label (not a sentence), the first half of the columns most rows fill empty (a note or
    a link may stand further right), no number unless the row after it has two more (a total
    row is a row), and the row after it not the rest of a wrapped label (starting in lower case)."""
    first = str(cells[0] or "").strip() if cells else ""
    if not filled or not first or not after or not _label(first) or any(str(c or "").strip() in NIL for c in cells[1:]):
        return False
    if any(k < len(cells) and str(cells[k] or "").strip() for k in filled[:(len(filled) + 1) // 2]):
        return False
    numbers = sum(1 for c in cells if is_number(c))
    nxt = str(after[0] or "").strip()
    return (numbers == 0 or numbers + 2 <= sum(1 for c in after if is_number(c))) and bool(nxt) \
        and not nxt[0].islower()


def _label(text: str) -> bool:
    """A few words (at most :data:`MAX_SECTION_WORDS`, no sentence, no number among them)."""
    words = text.split()
    return len(words) <= MAX_SECTION_WORDS and not text.endswith(".") and any(ch.isalpha() for ch in text) \
        and not any(is_number(w) for w in words)


def clean_grid(rows: Sequence[Sequence[Any]]) -> tuple[tuple[str, ...], ...]:
    """Cells as single-spaced strings (None as ""), the rows and columns that are empty everywhere
    left out."""
    cells = [[_SPACES.sub(" ", str(c)).strip() if c is not None else "" for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    width = max((len(r) for r in cells), default=0)
    keep = [i for i in range(width) if any(i < len(r) and r[i] for r in cells)]
    return tuple(tuple(r[i] if i < len(r) else "" for i in keep) for r in cells)


__all__ = ["Grid", "MAX_HEADER_ROWS", "NIL", "NUMBER", "clean_grid", "column_names", "grid_rows", "is_number", "row_record",
           "row_text", "split_header"]
