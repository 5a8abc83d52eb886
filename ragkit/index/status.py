"""Index status and verification (store vs catalog).

``status`` is read-only and works while an index run holds the catalog (DuckDB lets no other
process open it then): it says a run is in progress (and its pid) and shows what it can read
without the catalog. A ``running`` row whose run no longer holds the lock was killed: it is
shown as ``interrupted``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.errors import IndexLockedError, StoreDamagedError
from ragkit.index.catalog import Catalog
from ragkit.index.lock import is_locked, running_pid
from ragkit.index.reader import KnowledgeBase
from ragkit.index.report import group_skips


def dir_size(path: Path) -> int:
    total = 0
    for p in path.rglob("*"):
        try:
            total += p.stat().st_size if p.is_file() else 0
        except OSError:  # a file replaced by a running index run
            continue
    return total


def index_status(*, pipeline: str | None = None, index: str | None = None, verify: bool = False) -> dict[str, Any]:
    kb = KnowledgeBase.open(pipeline=pipeline, index=index)
    running = is_locked(kb.layout)
    info: dict[str, Any] = {
        "index_dir": str(kb.index_dir),
        "size_bytes": dir_size(kb.index_dir),
        "store": kb.spec.store.type,
        "embedder": kb.spec.embedder.options.get("model") or kb.spec.embedder.type,
        "running": {"pid": running_pid(kb.layout)} if running else None,
        "totals": None,
        "last_run": None,
        "skipped": [],
        "skipped_groups": [],
    }
    try:
        cat = Catalog(kb.layout.catalog, read_only=True)
    except IndexLockedError:
        if not running:
            raise
        kb.close()
        if verify:
            info["verify"] = {"ok": False, "busy": True, "damaged": None}
        return info
    try:
        runs = cat.runs(limit=1)
        last = runs[0] if runs else None
        if last is not None and last["status"] == "running" and not running:
            last["status"] = "interrupted"  # killed: its process no longer holds the lock
        skipped = cat.skipped()
        info.update(embedder=cat.get_meta("embedder") or info["embedder"], totals=cat.totals(),
                    last_run=last, skipped=skipped, skipped_groups=[g.to_dict() for g in group_skips(skipped)])
        if verify:
            info["verify"] = verify_index(kb, cat)
    finally:
        cat.close()
        kb.close()
    return info


def verify_index(kb: KnowledgeBase, cat: Catalog) -> dict[str, Any]:
    in_catalog = cat.all_chunk_ids()
    try:
        in_store = kb.store.ids()
        count = kb.store.count()
    except StoreDamagedError as exc:
        return {"ok": False, "damaged": str(exc), "store_count": None, "catalog_count": len(in_catalog),
                "missing_from_store": [], "orphans_in_store": []}
    missing = sorted(in_catalog - in_store)
    orphans = sorted(in_store - in_catalog)
    return {
        "ok": not missing and not orphans and count == len(in_catalog),
        "damaged": None,
        "store_count": count,
        "catalog_count": len(in_catalog),
        "missing_from_store": missing[:100],
        "orphans_in_store": orphans[:100],
    }
