"""How the server names sources: an uploaded document by its upload name, the others as the index
names them.

The index names a source relative to its *base* directory (fixed by the first indexing run), so a
file uploaded into ``<index>/uploads`` of an index first built from ``docs/`` is named
``../index/uploads/faq/winter.md`` there. The server shows it as ``faq/winter.md``, the name it was
uploaded under: in job results, ``GET /documents``, search hits, citations, sessions, traces,
``DELETE /documents/{source}`` and MCP resources. ``SourceNames`` is the one translation between
the two; hits leave the knowledge base through it (``Library.scoped``) and source filters enter
through it, so a filter matches the names the server shows.

An upload may not take the name of a document indexed from a folder (``POST /documents`` refuses
it). If a later ``ragkit index`` run adds a folder document with an uploaded document's name, the
upload is shown under its index name instead, so no two documents ever share a name.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from ragkit.stores.filters import matches, normalize
from ragkit.types import SearchHit


class SourceNames:
    def __init__(self, base: Path | None, uploads_dir: Path, roots: Mapping[str, str]) -> None:
        """``roots`` maps every catalog source name to its root (the directory it was found under);
        ``base`` is the directory the names are relative to (``None`` for an index from before the
        base was recorded, whose names are relative to their root)."""
        self._base, self._uploads = base, uploads_dir.resolve()
        self._roots = dict(roots)
        # catalog names are normalized relative paths, so one prefix tells uploads apart
        self._prefix = None if base is None else Path(os.path.relpath(self._uploads, base)).as_posix()
        self._folder = {n for n in self._roots if self._upload_part(n) is None}
        self._shown = {n: self.show(n) for n in self._roots}
        self._stored = {shown: n for n, shown in self._shown.items()}

    def _upload_part(self, name: str) -> str | None:
        """The path of source ``name`` inside the upload area, or ``None`` if it is not there."""
        if self._prefix == ".":
            return None if name == ".." or name.startswith("../") else name
        if self._prefix is not None:
            return name[len(self._prefix) + 1:] if name.startswith(self._prefix + "/") else None
        if name not in self._roots:
            return None
        rel = Path(os.path.relpath(os.path.normpath(Path(self._roots[name]) / name), self._uploads))
        return None if rel.parts[:1] in ((), ("..",), (".",)) else rel.as_posix()

    def show(self, name: str) -> str:
        """The name the server shows for the catalog source ``name``."""
        upload = self._upload_part(name)
        return name if upload is None or upload in self._folder else upload

    def stored(self, shown: str) -> str:
        """The catalog name of the source the server shows as ``shown`` (itself if unknown)."""
        return self._stored.get(shown, shown)

    def is_upload(self, name: str) -> bool:
        """Whether the catalog source ``name`` is a file in the upload area."""
        return self._upload_part(name) is not None

    def taken(self, upload: str) -> bool:
        """Whether an upload named ``upload`` would take the name of a folder-indexed document."""
        return upload in self._folder

    def upload_of(self, shown: str) -> str | None:
        """The upload-area path of the document shown as ``shown`` (it may not be indexed yet), or
        ``None`` when that name belongs to a document indexed from a folder."""
        if shown in self._folder:
            return None
        return self._upload_part(self._stored[shown]) if shown in self._stored else shown

    def hit(self, hit: SearchHit) -> SearchHit:
        shown = self.show(hit.source)
        if shown == hit.source:
            return hit
        return dataclasses.replace(hit, metadata={**hit.metadata, "source": shown})

    def filter(self, flt: Mapping[str, Any] | None, hidden: Collection[str] = ()) -> Mapping[str, Any] | None:
        """``flt`` with its ``source`` condition (on shown names) turned into one on catalog names:
        unchanged when it selects the same documents either way, else the matching names as ``$in``.
        Uploads named in ``hidden`` are never selected."""
        if hidden and any(s in hidden or self._upload_part(n) in hidden for n, s in self._shown.items()):
            return self._without(flt or {}, set(hidden))
        if not flt or "source" not in flt:
            return flt
        cond = normalize({"source": flt["source"]})
        renamed = [(n, s) for n, s in self._shown.items() if n != s]
        if all(matches({"source": n}, cond) == matches({"source": s}, cond) for n, s in renamed):
            return flt
        wanted = sorted(n for n, s in self._shown.items() if matches({"source": s}, cond))
        return {**flt, "source": {"$in": wanted}}

    def _without(self, flt: Mapping[str, Any], hidden: set[str]) -> Mapping[str, Any]:
        cond = normalize({"source": flt["source"]}) if "source" in flt else None
        wanted = sorted(n for n, s in self._shown.items()
                        if s not in hidden and self._upload_part(n) not in hidden
                        and (cond is None or matches({"source": s}, cond)))
        return {**flt, "source": {"$in": wanted}}
