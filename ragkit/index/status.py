"""Index status and verification (store vs catalog)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.index.catalog import Catalog
from ragkit.index.reader import KnowledgeBase


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def index_status(*, pipeline: str | None = None, index: str | None = None, verify: bool = False) -> dict[str, Any]:
    kb = KnowledgeBase.open(pipeline=pipeline, index=index)
    cat = Catalog(kb.layout.catalog, read_only=True)
    try:
        runs = cat.runs(limit=1)
        info: dict[str, Any] = {
            "index_dir": str(kb.index_dir),
            "size_bytes": dir_size(kb.index_dir),
            "store": kb.spec.store.type,
            "embedder": cat.get_meta("embedder"),
            "totals": cat.totals(),
            "last_run": runs[0] if runs else None,
            "skipped": cat.skipped(),
        }
        if verify:
            info["verify"] = verify_index(kb, cat)
    finally:
        cat.close()
        kb.close()
    return info


def verify_index(kb: KnowledgeBase, cat: Catalog) -> dict[str, Any]:
    in_store = kb.store.ids()
    in_catalog = cat.all_chunk_ids()
    missing = sorted(in_catalog - in_store)
    orphans = sorted(in_store - in_catalog)
    return {
        "ok": not missing and not orphans and kb.store.count() == len(in_catalog),
        "store_count": kb.store.count(),
        "catalog_count": len(in_catalog),
        "missing_from_store": missing[:100],
        "orphans_in_store": orphans[:100],
    }
