"""Reading a file another document includes (mdBook's ``{{#include}}``, reStructuredText's
``.. include::``): text only, bounded in size, never raising."""

from __future__ import annotations

from pathlib import Path


def read_included(target: Path, limit: int) -> str | None:
    """The text of ``target``, or None when it is no file, larger than ``limit`` bytes, binary
    (a NUL byte) or unreadable; bytes that are not UTF-8 read as replacement characters."""
    try:
        if not target.is_file() or target.stat().st_size > limit:
            return None
        data = target.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    return data.decode("utf-8", "replace")


__all__ = ["read_included"]
