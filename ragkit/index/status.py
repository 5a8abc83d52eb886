"""Index status and verification (store vs catalog).

``status`` is read-only and works while an index run holds the catalog (DuckDB lets no other
process open it then): it says a run is in progress (and its pid) and shows what it can read
without the catalog. A ``running`` row whose run no longer holds the lock was killed: it is
shown as ``interrupted``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.errors import IndexLockedError, RagkitError, StoreDamagedError
from ragkit.index.catalog import Catalog
from ragkit.index.lock import is_locked, running_pid
from ragkit.index.reader import KnowledgeBase
from ragkit.index.report import group_skips
from ragkit.index.sinks import StoreSink, sink_ids


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
        **embedder_settings(kb),
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
        try:
            info["search_index"] = search_index(kb)
        except StoreDamagedError as exc:
            info["search_index"] = {"damaged": str(exc)}
        if verify:
            info["verify"] = verify_index(kb, cat)
    finally:
        cat.close()
        kb.close()
    return info


def embedder_settings(kb: KnowledgeBase) -> dict[str, Any]:
    """``backend`` and int8 ``recipe`` of the index's embedder (what its vectors and queries use):
    from the embedder when it can be built here, else as the saved pipeline writes them."""
    try:
        settings = dict(kb.embedder.saved_options())
    except RagkitError:  # e.g. the model is not installed on this machine
        settings = {k: v for k, v in kb.spec.embedder.options.items() if k in ("backend", "quantize", "recipe")}
    if "quantize" in settings:  # the onnx embedder
        settings["backend"] = "onnx-int8" if settings.pop("quantize") == "int8" else "onnx"
    return {"backend": settings.get("backend"), "recipe": settings.get("recipe")}


def verify_index(kb: KnowledgeBase, cat: Catalog) -> dict[str, Any]:
    """Compare the store with the catalog (inside the catalog: no set of every id is held)."""
    total = cat.chunk_count()
    try:
        diff = cat.compare_ids(sink_ids(StoreSink(kb.store, path=None)))
        count = kb.store.count()
    except StoreDamagedError as exc:
        return {"ok": False, "damaged": str(exc), "store_count": None, "catalog_count": total,
                "missing_from_store": [], "orphans_in_store": []}
    missing = next(diff.batches("lacking", 100), [])
    orphans = next(diff.batches("orphans", 100), [])
    return {
        "ok": not diff.lacking and not diff.orphans and count == total,
        "damaged": None,
        "store_count": count,
        "catalog_count": total,
        "missing_from_store": missing,
        "orphans_in_store": orphans,
    }


def search_index(kb: KnowledgeBase) -> dict[str, Any] | None:
    """How the store searches (exact or approximate) and the recall its approximate indexes
    measured when they were built, for stores that say (``describe()``); None otherwise."""
    describe = getattr(kb.store, "describe", None)
    if not callable(describe):
        return None
    info = describe()
    keys = ("index", "segments", "live", "search_mode", "ann_segments", "ann_rows", "pq_segments", "pq_rows", "pq_m",
            "rerank", "ivfpq_segments", "ivfpq_rows", "nlist", "ivf_segments", "ivf_rows", "nprobe", "recall_at_10")
    return {k: info[k] for k in keys if k in info}
