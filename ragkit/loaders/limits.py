"""The limits every load runs under, whatever the file claims (the pipeline's ``sources.limits``).

:class:`LoadLimits` holds the one set of defaults (``ragkit.config.LimitsSpec`` reads them from
here). A file over a limit is a :class:`~ragkit.errors.LoaderError` whose message names the limit's
key and how to raise it (:func:`over_limit`); :func:`bounded_documents` counts the text a loader
yields and stops it at ``max_text_per_file_mb``. The zip check is in ``zipcheck.py``; the time limit
and the memory ceiling are kept by the loader process (``ragkit.index.load_worker``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ragkit.errors import LoaderError
from ragkit.types import Document

MB = 1024 * 1024
#: ``raise sources.limits.KEY in the pipeline YAML (now VALUE)`` in a skip reason: the limit, its value
_LIMIT_MARK = re.compile(r"sources\.limits\.(\w+) in the pipeline YAML \(now ([^)]+)\)")


@dataclass(frozen=True)
class LoadLimits:
    """What one load may cost. Sizes in MB (2**20 bytes or characters), times in seconds."""

    #: text extracted from one file (all its documents), in millions of characters
    max_text_per_file_mb: float = 100.0
    #: text extracted in one indexing run (a server job is a run), in millions of characters
    max_text_per_run_mb: float = 2048.0
    #: uncompressed size of a zip container (DOCX, XLSX, PPTX, EPUB, ODT): all members together,
    #: as declared in the archive and as actually inflated
    max_unzipped_mb: float = 256.0
    #: wall time to load one file (parse and extract its text)
    file_timeout_s: float = 300.0
    #: memory the loader process may use on top of what it uses at rest
    max_memory_mb: float = 2048.0
    #: text one document's include directives (mdBook's ``{{#include}}``, reStructuredText's
    #: ``.. include::``) pull in from other files, all together; 0 turns includes off (the server's
    #: upload area: one key's upload may not read another's)
    max_included_mb: float = 4.0


DEFAULT_LIMITS = LoadLimits()


def over_limit(path: Path | str, what: str, key: str, value: float, unit: str) -> LoaderError:
    """A file over a limit: ``{what} (limit {value} {unit}); to index it, raise
    sources.limits.{key} in the pipeline YAML (now {value})``; a later run with the limit changed
    loads the file again (:func:`limit_changed`)."""
    shown = f"{value:g}"
    return LoaderError(
        f"{path}: {what} (limit {shown} {unit}); to index it, raise sources.limits.{key} in the pipeline YAML "
        f"(now {shown})",
        path=str(path), reason=f"over a limit: sources.limits.{key}",
    )


def limit_changed(reason: str, limits: LoadLimits) -> bool:
    """Whether ``reason`` (a skip's) names a limit whose value is no longer ``limits``'s."""
    m = _LIMIT_MARK.search(reason)
    if m is None:
        return False
    current = getattr(limits, m.group(1), None)
    return current is None or f"{current:g}" != m.group(2)


def bounded_documents(docs: Iterable[Document], path: Path | str, limits: LoadLimits) -> list[Document]:
    """The documents a loader yields, until their text passes ``max_text_per_file_mb`` (then the
    file is over the limit: the loader is stopped there, nothing more is read)."""
    cap = limits.max_text_per_file_mb * MB
    out: list[Document] = []
    total = 0
    for d in docs:
        total += len(d.text)
        if total > cap:
            raise over_limit(path, "more text than one file may yield", "max_text_per_file_mb",
                             limits.max_text_per_file_mb, "million characters")
        out.append(d)
    return out


__all__ = ["DEFAULT_LIMITS", "MB", "LoadLimits", "bounded_documents", "limit_changed", "over_limit"]
