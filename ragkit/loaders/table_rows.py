"""Tables as rows: the one way every loader writes a table's row as text.

A row reads ``table: NAME`` then one ``column: value`` line per filled cell (``row_text``), so
"how many titles have the Maple Leafs?" finds the row whatever format the table came from: CSV,
TSV and spreadsheets (``ragkit.loaders.tabular``), and the tables inside PDF, Word, PowerPoint and
HTML documents (:func:`grid_rows`), which become documents of their own, one per row, with the
table's caption as its name.

A grid (a table read out of a document: rows of cell strings) has its header found here
(:func:`split_header`): the leading rows none of whose cells is a number (at most
:data:`MAX_HEADER_ROWS`, joined column by column: "Unit Rate" over "p/kWh" reads "Unit Rate
p/kWh"); a grid whose first row holds a number has no header and its columns are named
``column 1``, ``column 2``, ...
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.loaders.base import strip_encoded_data

#: a cell that is a number, an amount or a percentage ("1,234", "$51.24", "-0.5 %", "(12)")
NUMBER = re.compile(r"[-+(]?[\d.,\s%$€£]*\d[\d.,\s%$€£]*\)?")
#: leading rows of a grid that can be its header
MAX_HEADER_ROWS = 3
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Grid:
    """A table read out of a document: ``rows`` of cell strings (a header first, when it has one)
    and its caption (None when the document gives none)."""

    rows: tuple[tuple[str, ...], ...]
    caption: str | None = None


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
    """Whether ``cell`` is a number, an amount or a percentage."""
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
            header_rows += 1
    head = rows[:header_rows]
    joined = [" ".join(r[i].strip() for r in head if i < len(r) and r[i] and r[i].strip()) for i in range(width)]
    return column_names(joined), list(rows[header_rows:])


def grid_rows(grid: Grid, name: str, *, header_rows: int | None = None) -> list[tuple[int, str]]:
    """(row number, text) of each body row of ``grid`` that has a filled cell, named after its
    caption, else ``name``. Row numbers count the body rows from 0."""
    names, body = split_header(grid.rows, header_rows=header_rows)
    table = grid.caption or name
    out: list[tuple[int, str]] = []
    for i, cells in enumerate(body):
        text = row_text(table, row_record(names, cells))
        if text:
            out.append((i, text))
    return out


def clean_grid(rows: Sequence[Sequence[Any]]) -> tuple[tuple[str, ...], ...]:
    """Cells as single-spaced strings (None as ""), the rows and columns that are empty everywhere
    left out."""
    cells = [[_SPACES.sub(" ", str(c)).strip() if c is not None else "" for c in row] for row in rows]
    cells = [row for row in cells if any(row)]
    width = max((len(r) for r in cells), default=0)
    keep = [i for i in range(width) if any(i < len(r) and r[i] for r in cells)]
    return tuple(tuple(r[i] if i < len(r) else "" for i in keep) for r in cells)


__all__ = ["Grid", "MAX_HEADER_ROWS", "NUMBER", "clean_grid", "column_names", "grid_rows", "is_number", "row_record",
           "row_text", "split_header"]
