"""Reading a file another document includes (mdBook's ``{{#include}}``, reStructuredText's
``.. include::``): text only, bounded in size, never raising."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ragkit.errors import LoaderError


def read_included(target: Path, limit: int, read: list[Path] | None = None) -> str | None:
    """The text of ``target``, or None when it is no file, larger than ``limit`` bytes, binary
    (a NUL byte) or unreadable; bytes that are not UTF-8 read as replacement characters. A file
    read is appended to ``read`` (what a page's text depends on)."""
    try:
        if not target.is_file() or target.stat().st_size > limit:
            return None
        data = target.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    if read is not None:
        read.append(target)
    return data.decode("utf-8", "replace")


def files_read(resolve: Callable[..., str], path: Path, budget: int) -> list[Path]:
    """The files an include resolver (``mdbook.resolve_includes``, ``rst_include.resolve_includes``)
    reads for the text of ``path`` within ``budget`` bytes; none when ``path`` cannot be read."""
    from ragkit.loaders.base import read_text

    read: list[Path] = []
    try:
        resolve(read_text(path), path, budget=budget, read=read)
    except LoaderError:
        return []
    return read


__all__ = ["files_read", "read_included"]
