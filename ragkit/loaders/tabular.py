"""Record files, one document per row: JSON Lines (``jsonl``) and CSV (``csv``).

Options: ``text_field`` (default ``"text"``) holds the document text; ``id_field`` (optional)
is copied to metadata ``record_id`` (as a string); ``metadata_fields`` (list) are copied to
metadata under their own names. Metadata ``row`` is the 0-based index of the record. A record
without text is skipped with a warning; a file where no record has the text field is an error.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders.base import Loader, read_text
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)


class _RecordLoader(Loader):
    option_defaults = {"text_field": "text", "id_field": None, "metadata_fields": ()}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        text_field, id_field = self.options["text_field"], self.options["id_field"]
        if not isinstance(text_field, str) or not text_field:
            raise ConfigError(
                f"loader '{self.name}': text_field must be a non-empty string (got {text_field!r})"
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
        self.text_field: str = text_field
        self.id_field: str | None = id_field
        self.metadata_fields: tuple[str, ...] = tuple(fields)

    def _documents(
        self, path: Path, source: str, records: Iterable[tuple[int, Mapping[str, Any]]]
    ) -> Iterator[Document]:
        docs: list[Document] = []
        seen_fields: set[str] = set()
        for row, record in records:
            seen_fields.update(record)
            text = record.get(self.text_field)
            if text is None or not str(text).strip():
                log.warning(
                    "%s: record %d has no %r field (or it is empty); skipped",
                    path, row, self.text_field,
                )  # fmt: skip
                continue
            docs.append(Document(text=str(text), metadata=self._row_metadata(source, row, record)))
        if not docs:
            present = ", ".join(sorted(seen_fields)) or "none"
            raise LoaderError(
                f"{path}: no record has text in the field {self.text_field!r} (fields present: "
                f"{present}); set text_field for the '{self.name}' loader in the pipeline YAML",
                path=str(path),
                reason=f"missing text field {self.text_field!r}",
            )
        return iter(docs)

    def _row_metadata(self, source: str, row: int, record: Mapping[str, Any]) -> dict[str, Any]:
        extra: dict[str, Any] = {"row": row}
        if self.id_field is not None and record.get(self.id_field) is not None:
            extra["record_id"] = str(record[self.id_field])
        for name in self.metadata_fields:
            if record.get(name) is not None:
                extra[name] = record[name]
        return self._metadata(source, **extra)


@loaders.register("jsonl")
class JsonlLoader(_RecordLoader):
    """JSON Lines: one JSON object per line; blank lines are ignored."""

    name = "jsonl"
    mime = "application/jsonl"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        return self._documents(path, source, _json_records(path, read_text(path)))


@loaders.register("csv")
class CsvLoader(_RecordLoader):
    """CSV with a header row; ``delimiter`` option (default ``","``)."""

    name = "csv"
    mime = "text/csv"
    option_defaults = {**_RecordLoader.option_defaults, "delimiter": ","}

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        reader = csv.DictReader(io.StringIO(read_text(path)), delimiter=self.options["delimiter"])
        header = reader.fieldnames or []
        if self.text_field not in header:
            raise LoaderError(
                f"{path}: the CSV header has no column {self.text_field!r} (columns: "
                f"{', '.join(header) or 'none'}); set text_field for the 'csv' loader in the pipeline YAML",
                path=str(path),
                reason=f"missing text field {self.text_field!r}",
            )
        try:
            records = [(row, dict(record)) for row, record in enumerate(reader)]
        except csv.Error as exc:
            raise LoaderError(
                f"{path}: malformed CSV at line {reader.line_num} ({exc})",
                path=str(path),
                reason=f"malformed CSV at line {reader.line_num}",
            ) from exc
        return self._documents(path, source, records)


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
