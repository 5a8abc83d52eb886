"""Reading a file another document includes (mdBook's ``{{#include}}``, reStructuredText's
``.. include::``): text only, bounded in size, never raising."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ragkit.errors import LoaderError
from ragkit.loaders.base import Included, read_text, text_of


def read_included(target: Path, limit: int, read: list[Included] | None = None) -> str | None:
    """The text of ``target``, or None when it is no file, larger than ``limit`` bytes, binary
    (a NUL byte) or unreadable; bytes that are not UTF-8 read as replacement characters. A file
    read is appended to ``read`` with its bytes (what a page's text depends on)."""
    try:
        if not target.is_file() or target.stat().st_size > limit:
            return None
        data = target.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    if read is not None:
        read.append((target, data))
    return data.decode("utf-8", "replace")


def files_read(resolve: Callable[..., str], path: Path, budget: int, data: bytes | None = None) -> list[Included]:
    """The files an include resolver (``mdbook.resolve_includes``, ``rst_include.resolve_includes``)
    reads for the text of ``path`` (its bytes ``data`` when given, else the file read) within
    ``budget`` bytes, each with the bytes it read; none when ``path`` cannot be read."""
    read: list[Included] = []
    try:
        resolve(read_text(path) if data is None else text_of(data, str(path)), path, budget=budget, read=read)
    except LoaderError:
        return []
    return read


__all__ = ["Included", "files_read", "read_included"]
