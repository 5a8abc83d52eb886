"""Move an index's base directory up when a run adds a root outside it.

Source names are relative to the index's base (``ragkit.index.sources``). When a later run adds a
folder outside the base, every source is renamed relative to the common parent (``README.md``
becomes ``projA/README.md`` beside ``projB/README.md``: the names indexing both at once gives), so
names stay unambiguous. The catalog gives each chunk its new id (from the part and ordinal its
metadata keeps); the writer's reconcile then moves the chunks in every sink from the catalog's
texts and the embedding cache, so nothing is re-embedded.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragkit import ids as _ids
from ragkit.index.catalog import Catalog, SourceRow
from ragkit.index.prepare import DOCUMENTS_ROOT
from ragkit.index.sources import source_name

log = logging.getLogger(__name__)


def rebase(catalog: Catalog, known: Mapping[str, SourceRow], old: Path, new: Path) -> None:
    """Rename every file source of ``known`` from names relative to ``old`` to names relative to
    ``new``, record ``new`` as the base and make the next reconcile run, in one transaction."""
    renames = {
        name: source_name(Path(os.path.normpath(old / name)), new)
        for name, row in known.items() if row.root != DOCUMENTS_ROOT
    }
    renames = {a: b for a, b in renames.items() if a != b}
    catalog.begin()
    try:
        dirty = catalog.rename_sources(renames, rekey)
        catalog.set_meta("base", str(new))
        catalog.set_meta("sinks_state", "")  # the sinks hold the old ids: reconcile
        catalog.commit()
    except BaseException:
        catalog.rollback()
        raise
    if renames:
        example = next(iter(renames.items()))
        log.warning(
            "a folder outside %s was added: %d source names are now relative to %s (%s -> %s)%s",
            old, len(renames), new, *example, f"; {len(dirty)} will be re-read" if dirty else "",
        )


def rekey(source: str, meta: dict[str, Any], text: str) -> str | None:
    """A renamed chunk's id, from what the catalog keeps (the splitter's part and ordinal)."""
    if "chunk_index" not in meta:
        return None
    return _ids.chunk_id(source, meta.get("page", meta.get("row", "")), meta["chunk_index"], text)


__all__ = ["rebase", "rekey"]
