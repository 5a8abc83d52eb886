"""JSON files (``.json``): one document per file, its values written out as a reader would say them.

A record (a talk's, a dataset's, a package's metadata) is fields, not prose: read as text, its
answers came quoted with their braces and quotes (``"speakers": [ "Ada Quill", [1]``). Here each
field is a ``- name: value`` item, as the XML loader writes a definition (each its own sentence, as a
CSV row's ``column: value`` lines are each a cell, ``ragkit.loaders.table_rows``): a name's
underscores and hyphens read as spaces (``related urls``), a list of short values joined by commas
(``speakers: Ada Quill, Tom Reed``), a small object of short values on its line (``input: start:
09:00; mode: NOW``: a record's parts stay together), an empty value left out. A long or several-line
text (a description, an abstract) is a paragraph of its own that its name leads ("description: …"),
so its sentences are sentences and stay under the object they describe (a heading of its own put a
schema's ``description`` beside its property at the sixth level, not under it); a nested object or a
list of objects is a section under its name as a heading, one level down per level (at most
``######``), each object of a list a paragraph of lines. A file whose top level is a list
is its items in turn. An object's ``title`` or ``name`` (a short text) is its heading, over its
other fields, so they are about it; the top-level one is the document's ``title`` (else the file
stem). The document is marked ``markup: markdown``, so its chunks carry their heading path (the
record's title, a nested object's name), as an API description's do (``ragkit.loaders.api_description``).

Bounded: a file of more than ``MAX_PARSED_MB`` of text, one that is not valid JSON and one nested
deeper than ``MAX_DEPTH`` are read as the text loader reads them (the file as it is), with the
reason logged; never an error for what the text loader would read.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.loaders.base import Loader, read_text, strip_encoded_data
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

MAX_PARSED_MB = 8.0  # a larger file is read as text: parsed, JSON takes several times its size in memory
MAX_DEPTH = 32  # containers nested deeper are read as text (a parser's recursion is bounded too)
_LINE = 160  # a text longer than this, or with a line break, is a paragraph its name leads, not a field line
_TITLE = 200  # a top-level title or name longer than this is no title
_NAME_GAPS = re.compile(r"[_\-\s]+")


class _TooDeep(Exception):
    pass


@loaders.register("json")
class JsonLoader(Loader):
    """Reads a JSON file as its fields' ``- name: value`` items and its long texts' paragraphs; a file
    too large, malformed or too deeply nested as plain text."""

    name = "json"
    mime = "application/json"
    # 2: fields as "- name: value" items, each its own sentence, under the object's title; small
    # objects on one line; 3: a long text as a paragraph its name leads, not a section; 4: marked
    # Markdown, so its chunks carry their heading path
    version = 4

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        text = read_text(path)
        written = _written_out(text, path)
        if written is None:
            return iter([Document(text=text, metadata=self._metadata(source, title=path.stem))])
        body, title = written
        meta = self._metadata(source, title=title or path.stem, markup="markdown")
        return iter([Document(text=strip_encoded_data(body), metadata=meta)])


def _written_out(text: str, path: Path) -> tuple[str, str] | None:
    """The file's values written out and its title ("" for none), or None when it is read as text."""
    if len(text) > MAX_PARSED_MB * 1024 * 1024:
        log.info("%s: %.1f MB of JSON, over %.0f MB: read as text", path, len(text) / 1024 / 1024, MAX_PARSED_MB)
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else f"not valid JSON ({exc})"
        log.info("%s: %s: read as text", path, reason)
        return None
    return write_out(value, path)


def write_out(value: Any, path: Path) -> tuple[str, str] | None:
    """Parsed data (JSON's, or a YAML document's) written out as this module describes, with its
    title ("" for none); None when it is nested deeper than ``MAX_DEPTH``."""
    try:
        lines = _lines(value, level=1)
    except (RecursionError, _TooDeep):
        log.info("%s: nested too deeply: read as text", path)
        return None
    key = _title_key(value) if isinstance(value, dict) else None
    return "\n".join(lines).strip() + "\n", value[key].strip() if key else ""


def _lines(value: Any, *, level: int, depth: int = 0) -> list[str]:
    """``value``'s lines: an object's fields, a list's items, a scalar as itself. ``level``: the
    heading level of an object's title (its sections one level down); ``depth``: how many
    containers it is in."""
    if depth > MAX_DEPTH:
        raise _TooDeep
    if isinstance(value, dict):
        return _fields(value, level=level, depth=depth)
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            item_lines = _lines(item, level=level + 1, depth=depth + 1)
            if item_lines:
                out += [*item_lines, ""] if isinstance(item, (dict, list)) else [f"- {item_lines[0]}", *item_lines[1:]]
        return out
    shown = _scalar(value)
    return [shown] if shown else []


def _fields(record: dict[str, Any], *, level: int, depth: int) -> list[str]:
    """An object's title (its ``title`` or ``name``, a short text) as a heading, so its fields are
    about it ("- speakers: …" under the talk's title); its other short fields as ``- name: value``
    items, each long text as a paragraph its name leads ("description: …"), then each nested object
    and list of objects as a section under its name."""
    title_key = _title_key(record)
    lines = [f"{'#' * min(level, 6)} {record[title_key].strip()}", ""] if title_key else []
    texts: list[str] = []
    sections: list[str] = []
    for key, value in record.items():
        if key == title_key:
            continue
        name = _name(key)
        short = _short(value)
        if short is not None:
            if short:
                lines.append(f"- {name}: {short}")
            continue
        if isinstance(value, str):  # a long text stays with the fields it describes, its name leading it
            text = value.strip()
            texts += ["", f"{name}: {text}" if "\n\n" not in text else f"{name}:\n\n{text}"]
            continue
        inner = _lines(value, level=level + 1, depth=depth + 1)
        if inner:
            sections += ["", f"{'#' * min(level + 1, 6)} {name}", "", *inner]
    return [*lines, *texts, *sections]


def _title_key(record: dict[str, Any]) -> str | None:
    """The key of the object's title: ``title``, else ``name``, when it is a short text."""
    return next((k for k in ("title", "name") if isinstance(record.get(k), str)
                 and 0 < len(record[k].strip()) <= _TITLE and "\n" not in record[k]), None)


def _short(value: Any) -> str | None:
    """``value`` as one field line's value ("" for an empty one), or None when it needs a section:
    a long or several-line text, an object, a list of anything but short values."""
    if isinstance(value, dict):  # a small object of short values is one line: "input: start: 09:00; mode: NOW"
        if any(isinstance(v, (dict, list)) for v in value.values()):
            return None
        shown = [(_name(k), _scalar(v)) for k, v in value.items()]
        joined = "; ".join(f"{k}: {v}" for k, v in shown if v)
        return joined if len(joined) <= _LINE and "\n" not in joined else None
    if isinstance(value, list):
        shown = [_short(v) if not isinstance(v, (dict, list)) else None for v in value]
        if any(s is None for s in shown):
            return None
        joined = ", ".join(s for s in shown if s)
        return joined if len(joined) <= _LINE else None
    shown = _scalar(value)
    return shown if len(shown) <= _LINE and "\n" not in shown else None


def _name(key: object) -> str:
    """A field's name as words: underscores and hyphens read as spaces (``related_urls``)."""
    return _NAME_GAPS.sub(" ", str(key)).strip() or str(key)


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip()


__all__ = ["MAX_DEPTH", "MAX_PARSED_MB", "JsonLoader", "write_out"]
