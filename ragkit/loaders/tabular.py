"""Record files, one document per row: JSON Lines (``jsonl``), CSV (``csv``) and TSV (``tsv``).

Options: ``text_field`` names the column that holds the document text; ``id_field`` (optional)
is copied to metadata ``record_id`` (as a string); ``metadata_fields`` (list) are copied to
metadata under their own names. Metadata ``row`` is the 0-based index of the record.

- JSON Lines: ``text_field`` defaults to ``"text"``; a record without it is skipped with a
  warning, a file where no record has it is an error.
- Tables (CSV, TSV, and spreadsheets in ``ragkit.loaders.xlsx``): ``text_field`` defaults to
  ``null``, which takes the ``text`` column when the header has one and otherwise makes each row a
  document of its own, ``column: value`` lines under the table's name (``table: president
  heights``; empty cells left out), so "how tall was Lincoln?" finds the row. A ``text_field`` set
  in the pipeline must exist. Tables are streamed: rows are read and yielded one at a time, so a
  100k-row file never sits in memory as a whole. A header without rows is an empty table.
"""

from __future__ import annotations

import csv
import itertools
import json
import logging
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders.base import Loader, read_text, strip_encoded_data
from ragkit.loaders.encoding import SNIFF_BYTES, binary_error, sniff_encoding
from ragkit.loaders.table_rows import NUMBER, column_names, row_record, row_text
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

#: the column a table's text is taken from when ``text_field`` is not set and the header has it
DEFAULT_TEXT_COLUMN = "text"
#: the delimiters a CSV's is sniffed among (when the ``delimiter`` option is not set), the first preferred
DELIMITERS = ",;\t|"
#: the characters and lines of a CSV's start that its delimiter is sniffed from
SAMPLE_CHARS = 65536
SAMPLE_LINES = 50


class _RecordLoader(Loader):
    option_defaults: Mapping[str, Any] = {"text_field": "text", "id_field": None, "metadata_fields": ()}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        text_field, id_field = self.options["text_field"], self.options["id_field"]
        optional = self.option_defaults["text_field"] is None
        if not (text_field is None and optional) and (not isinstance(text_field, str) or not text_field):
            raise ConfigError(
                f"loader '{self.name}': text_field must be a non-empty string"
                + (" or null (every column)" if optional else "") + f" (got {text_field!r})"
            )
        if id_field is not None and (not isinstance(id_field, str) or not id_field):
            raise ConfigError(
                f"loader '{self.name}': id_field must be a field name or null (got {id_field!r})"
            )
        fields = self.options["metadata_fields"]
        if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
            raise ConfigError(
                f"loader '{self.name}': metadata_fields must be a list of field names (got {fields!r}); "
                "e.g. metadata_fields: [author, date]"
            )
        self.text_field: str | None = text_field
        self.id_field: str | None = id_field
        self.metadata_fields: tuple[str, ...] = tuple(fields)

    def _documents(
        self, path: Path, source: str, records: Iterable[tuple[int, Mapping[str, Any], Mapping[str, Any]]],
        text_field: str,
    ) -> Iterator[Document]:
        """One document per record (row index, fields, extra metadata) with text in ``text_field``;
        an error when none has any."""
        seen_fields: set[str] = set()
        found = False
        for row, record, extra in records:
            seen_fields.update(record)
            text = record.get(text_field)
            if text is None or not str(text).strip():
                log.warning("%s: record %d has no %r field (or it is empty); skipped", path, row, text_field)
                continue
            found = True
            meta = self._row_metadata(source, row, record, **extra)
            yield Document(text=strip_encoded_data(str(text)), metadata=meta)
        if not found:
            present = ", ".join(sorted(seen_fields)) or "none"
            raise LoaderError(
                f"{path}: no record has text in the field {text_field!r} (fields present: "
                f"{present}); set text_field for the '{self.name}' loader in the pipeline YAML",
                path=str(path),
                reason=f"missing text field {text_field!r}",
            )

    def _row_metadata(self, source: str, row: int, record: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
        extra["row"] = row
        if self.id_field is not None and record.get(self.id_field) is not None:
            extra["record_id"] = str(record[self.id_field])
        for name in self.metadata_fields:
            if record.get(name) is not None:
                extra[name] = record[name]
        return self._metadata(source, **extra)


class TableLoader(_RecordLoader):
    """Shared by CSV/TSV and spreadsheets: a header and rows of cells."""

    option_defaults: Mapping[str, Any] = {**_RecordLoader.option_defaults, "text_field": None}

    def table_documents(
        self, path: Path, source: str, table: str, header: Sequence[Any],
        rows: Iterable[tuple[Sequence[Any], Mapping[str, Any]]], *, first_row: int = 0,
    ) -> Iterator[Document]:
        """The documents of one table: ``rows`` (cells, extra metadata) under ``header`` (column
        names); ``row`` metadata counts from ``first_row``. A title row above the header (one
        filled cell, then a row of column names) names the table."""
        title_row, header, rows = _title_row(header, iter(rows))
        table = title_row or table
        names = column_names(header)
        text_field = self.text_field
        if text_field is not None and text_field not in names:
            raise LoaderError(
                f"{path}: the table {table!r} has no column {text_field!r} (columns: {', '.join(names) or 'none'}); "
                f"fix text_field for the '{self.name}' loader in the pipeline YAML, or remove it to index "
                "every row as 'column: value' lines",
                path=str(path), reason=f"missing text field {text_field!r}",
            )
        if text_field is None and DEFAULT_TEXT_COLUMN in names:
            text_field = DEFAULT_TEXT_COLUMN
        records = ((first_row + i, row_record(names, cells), extra) for i, (cells, extra) in enumerate(rows))
        if text_field is not None:
            yield from self._documents(path, source, records, text_field)
            return
        title = _table_title(table)
        for row, record, extra in records:
            text = row_text(title, record)
            if text:
                yield Document(text=text, metadata=self._row_metadata(source, row, record, title=table, **extra))


def _title_row(
    header: Sequence[Any], rows: Iterator[tuple[Sequence[Any], Mapping[str, Any]]]
) -> tuple[str | None, Sequence[Any], Iterator[tuple[Sequence[Any], Mapping[str, Any]]]]:
    """(the title, the real header, the rows) when ``header`` is a title row: a single filled
    cell followed by a row of two or more names (filled cells, none a number); else (None,
    ``header``, ``rows``) unchanged."""
    filled = [str(h).strip() for h in header if h is not None and str(h).strip()]
    if len(filled) != 1:
        return None, header, rows
    following = next(rows, None)
    if following is None:
        return None, header, iter(())
    names = [c for c in following[0] if c is not None and str(c).strip()]
    if len(names) >= 2 and all(isinstance(c, str) and not NUMBER.fullmatch(c.strip()) for c in names):
        return filled[0], following[0], rows
    return None, header, itertools.chain([following], rows)


def _table_title(name: str) -> str:
    """``president_heights``, ``state-areas`` -> ``president heights``, ``state areas`` (the words a
    question uses)."""
    return re.sub(r"[_\-\s]+", " ", name).strip()


@loaders.register("jsonl")
class JsonlLoader(_RecordLoader):
    """JSON Lines: one JSON object per line; blank lines are ignored."""

    name = "jsonl"
    mime = "application/jsonl"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        records = ((row, record, {}) for row, record in _json_records(path, read_text(path)))
        return iter(list(self._documents(path, source, records, self.text_field or "text")))


@loaders.register("csv")
class CsvLoader(TableLoader):
    """CSV with a header row; ``delimiter`` option (default ``null``: sniffed among ``,`` ``;``
    tab and ``|``). Streamed row by row."""

    name = "csv"
    mime = "text/csv"
    option_defaults = {**TableLoader.option_defaults, "delimiter": None}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        delimiter = self.options["delimiter"]
        if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
            raise ConfigError(f"loader '{self.name}': delimiter must be one character or null (sniffed) "
                              f"(got {delimiter!r})")

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        encoding = _sniff(path)  # binary or UTF-16/32: known before anything is yielded
        return self._stream(path, source, encoding, self.options["delimiter"])

    def _stream(self, path: Path, source: str, encoding: str, delimiter: str | None) -> Iterator[Document]:
        where = str(path)
        with open(path, encoding=encoding, newline="") as f:
            reader = csv.reader(f, delimiter=delimiter or DELIMITERS[0])
            try:
                if delimiter is None:
                    reader = csv.reader(f, delimiter=_sniff_delimiter(f.read(SAMPLE_CHARS)))
                    f.seek(0)
                header = next(reader, None)
                if header is None or not any(h.strip() for h in header):
                    raise LoaderError(f"{where}: empty table (no header row)", path=where, reason="empty file")
                rows = ((row, {}) for row in reader if any(cell.strip() for cell in row))
                produced = False
                for doc in self.table_documents(path, source, path.stem, header, rows):
                    produced = True
                    yield doc
            except csv.Error as exc:
                raise LoaderError(f"{where}: malformed CSV at line {reader.line_num} ({exc})", path=where,
                                  reason=f"malformed CSV at line {reader.line_num}") from exc
            except UnicodeDecodeError as exc:
                raise LoaderError(
                    f"{where}: not valid {encoding} text near line {reader.line_num + 1}; convert the file to "
                    "UTF-8 (e.g. iconv -f LATIN1 -t UTF-8)", path=where, reason="undecodable text",
                ) from exc
        if not produced:
            raise LoaderError(
                f"{where}: empty table (a header with the columns {', '.join(h for h in header if h.strip())}, "
                "but no rows)", path=where, reason="empty table (header only)",
            )


@loaders.register("tsv")
class TsvLoader(CsvLoader):
    """Tab-separated values: the CSV loader with ``delimiter`` a tab."""

    name = "tsv"
    mime = "text/tab-separated-values"
    option_defaults = {**CsvLoader.option_defaults, "delimiter": "\t"}


def _sniff(path: Path) -> str:
    """The encoding to read ``path`` with (``ragkit.loaders.encoding``); a :class:`LoaderError`
    for a binary file."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError as exc:
        raise LoaderError(f"{path}: cannot read file ({exc.strerror or exc})", path=str(path),
                          reason="read error") from None
    encoding = sniff_encoding(head)
    if encoding is None or (encoding == "utf-8-sig" and 0 in head):
        raise binary_error(str(path), "a CSV table")
    return encoding


def _sniff_delimiter(sample: str) -> str:
    """The delimiter of a table starting with ``sample``: among :data:`DELIMITERS`, the one that
    splits the most of its first lines into the same number (2 or more) of cells; ties go to the
    wider table, then to the order of :data:`DELIMITERS` (a comma when nothing splits)."""
    lines = sample.splitlines()
    if len(sample) >= SAMPLE_CHARS and len(lines) > 1:
        lines.pop()  # cut off mid-line
    best, score = DELIMITERS[0], (0, 0)
    for delimiter in DELIMITERS:
        try:
            widths = Counter(len(r) for r in csv.reader(lines[:SAMPLE_LINES], delimiter=delimiter) if any(r))
        except csv.Error:
            continue
        width, rows = widths.most_common(1)[0] if widths else (0, 0)
        if width > 1 and (rows, width) > score:
            best, score = delimiter, (rows, width)
    return best


def _json_records(path: Path, text: str) -> list[tuple[int, Mapping[str, Any]]]:
    records: list[tuple[int, Mapping[str, Any]]] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LoaderError(
                f"{path}: malformed JSON on line {lineno} ({exc.msg} at column {exc.colno}); "
                "each line must be one complete JSON object",
                path=str(path),
                reason=f"malformed JSON on line {lineno}",
            ) from exc
        if not isinstance(value, dict):
            raise LoaderError(
                f"{path}: line {lineno} is a JSON {type(value).__name__}, not an object; "
                'each line must be one JSON object like {"text": "..."}',
                path=str(path),
                reason=f"not a JSON object on line {lineno}",
            )
        records.append((len(records), value))
    return records


__all__ = ["CsvLoader", "JsonlLoader", "TableLoader", "TsvLoader"]
