"""What an index directory's bytes are: its disk broken down by component.

The segment files by what they hold (the vector store's vectors, its approximate index, its rows
of ids, metadata and text; the BM25 postings and rows; each segment's id keys), and the DuckDB
catalog by table and column from its storage information (the embedding cache's vectors, the
chunks' text and metadata, their ids and hashes, free pages). ``index_scale.py`` records it per
stage, so a disk target that is missed says which part grows.

    python benchmarks/index_disk.py PATH/TO/INDEX      # KB per chunk by component
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: a segment file's component, by the sink folder and the file's name
SEGMENT_FILES = {
    "vectors.npy": "vectors",
    "pq.faiss": "ann index (pq/ivf)",
    "pq.json": "ann index (pq/ivf)",
    "keys.npy": "id keys",
    "terms.npy": "postings",
    "indptr.npy": "postings",
    "docs.npy": "postings",
    "tfs.npy": "postings",
    "lengths.npy": "postings",
}
#: the catalog's columns, by component (every other column of a table: ``TABLE: ids, hashes, ...``)
CATALOG_COLUMNS = {
    ("embeddings", "vector"): "catalog: embedding cache vectors",
    ("embeddings", "text_hash"): "catalog: embedding cache keys",
    ("embeddings", "model"): "catalog: embedding cache keys",
    ("chunks", "text"): "catalog: chunk text",
    ("chunks", "meta"): "catalog: chunk metadata",
}


def segment_component(rel: Path) -> str:
    """The component of a file under the index directory (``rel``: its path relative to it)."""
    top = rel.parts[0] if len(rel.parts) > 1 else ""
    sink = {"store": "store", "bm25": "bm25"}.get(top, top or "index")
    name = rel.name
    if name.startswith("rows."):
        return f"{sink}: rows (ids, metadata, text)"
    if name in SEGMENT_FILES:
        return f"{sink}: {SEGMENT_FILES[name]}"
    if name.startswith("ivf") or name.endswith(".faiss"):
        return f"{sink}: ann index (pq/ivf)"
    return f"{sink}: other"


def catalog_breakdown(path: Path) -> dict[str, int]:
    """The catalog file's bytes by component (blocks of its storage information; a block shared
    by several columns counts for the first)."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        size = con.execute("SELECT block_size, total_blocks, free_blocks FROM pragma_database_size()").fetchone()
        assert size is not None
        block, free = int(size[0]), int(size[2])
        owner: dict[int, str] = {}
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        for table in tables:
            rows = con.execute(f"SELECT column_name, block_id, additional_block_ids FROM pragma_storage_info('{table}') "
                               "WHERE block_id >= 0").fetchall()
            for column, block_id, extra in rows:
                part = CATALOG_COLUMNS.get((table, column), f"catalog: {table} (ids, hashes, offsets)"
                                           if table == "chunks" else f"catalog: {table}")
                for b in [block_id, *(extra or [])]:
                    owner.setdefault(int(b), part)
    finally:
        con.close()
    out: dict[str, int] = {}
    for part in owner.values():
        out[part] = out.get(part, 0) + block
    out["catalog: free pages"] = free * block
    out["catalog: other (file header, DuckDB metadata)"] = max(path.stat().st_size - (len(owner) + free) * block, 0)
    return out


def disk_breakdown(index: Path) -> dict[str, int]:
    """Bytes per component of the index directory ``index``, largest first."""
    out: dict[str, int] = {}
    for p in index.rglob("*"):
        if not p.is_file():
            continue
        rel = p.relative_to(index)
        if rel.name == "catalog.duckdb":
            for part, n in catalog_breakdown(p).items():
                out[part] = out.get(part, 0) + n
            continue
        part = "catalog: write-ahead log" if rel.name.startswith("catalog.") else segment_component(rel)
        out[part] = out.get(part, 0) + p.stat().st_size
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def per_chunk_kb(breakdown: dict[str, int], chunks: int) -> dict[str, float]:
    """The breakdown in KB (1,024 bytes) per chunk."""
    return {k: round(v / 1024 / max(chunks, 1), 3) for k, v in breakdown.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path)
    ap.add_argument("--chunks", type=int, default=0, help="the index's chunks (default: the catalog's count)")
    args = ap.parse_args(argv)
    chunks = args.chunks or catalog_chunks(args.index / "catalog.duckdb")
    parts = disk_breakdown(args.index)
    total = sum(parts.values())
    print(json.dumps({"chunks": chunks, "total_kb_per_chunk": round(total / 1024 / max(chunks, 1), 3),
                      "kb_per_chunk": per_chunk_kb(parts, chunks)}, indent=1))
    return 0


def catalog_chunks(path: Path) -> int:
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        row = con.execute("SELECT count(*) FROM chunks").fetchone()
        return int(row[0]) if row else 0
    finally:
        con.close()


if __name__ == "__main__":
    sys.exit(main())
