"""What an index holds, compared between two builds of the same folder (the local engine and the
Ray engine, a run that was interrupted and completed, ...): a folder of small files, a snapshot of
an index (catalog rows, chunk rows, vectors, search rankings, and the check that each store holds
exactly the catalog's chunks, once) and the equality of two snapshots."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.config import PipelineSpec, load_pipeline
from ragkit.index.catalog import Catalog
from ragkit.index.reader import KnowledgeBase

WORDS = "tide gauge keeper lamp ferry harbour storm seal gull rain wind survey magnet".split()
QUERIES = ["ferry harbour storm", "lamp keeper", "rain gauge survey"]


def write_docs(root: Path, n: int = 24) -> Path:
    """``n`` files of three paragraphs of random words (md and txt, some in a subfolder)."""
    rng = random.Random(15)
    docs = root / "docs"
    for i in range(n):
        paras = [" ".join(rng.choice(WORDS) for _ in range(25)) + f" item{i}p{j}." for j in range(3)]
        p = docs / ("sub" if i % 3 == 0 else "") / f"f{i:02d}.{'md' if i % 4 == 0 else 'txt'}"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n\n".join(paras), encoding="utf-8")
    return docs


def snapshot(pipe: Path) -> dict[str, Any]:
    """What an index holds: catalog rows, chunk rows, the vectors of its chunks, search results."""
    spec: PipelineSpec = load_pipeline(pipe)
    index = Path(spec.index)
    cat = Catalog(index / "catalog.duckdb", read_only=True)
    try:
        sources = sorted(cat.con.execute(
            "SELECT source, content_hash, size, status, reason, loader, chunks FROM sources").fetchall())
        chunks = sorted(cat.con.execute(
            "SELECT id, source, ordinal, part, start_offset, end_offset, text_hash, tokens FROM chunks").fetchall())
        current = {c[6] for c in chunks}
        rows = cat.con.execute("SELECT text_hash, vector FROM embeddings WHERE model = ?",
                               [cat.get_meta("embedder")]).fetchall()
        vectors = {h: np.frombuffer(blob, dtype=np.float32) for h, blob in rows if h in current}
    finally:
        cat.close()
    ids = [c[0] for c in chunks]
    assert len(set(ids)) == len(ids)
    with KnowledgeBase.open(pipeline=pipe, index=index) as kb:
        # nothing duplicated, nothing missing: each store holds exactly the catalog's chunks, once
        assert kb.store.count() == len(ids) and kb.store.ids() == set(ids)
        lexical = list(kb.lexical.iter_ids())
        assert len(lexical) == kb.lexical.count() == len(ids) and set(lexical) == set(ids)
        searches = {(kind, q): ranking(kb.search(q, k=10, kind=kind), k=10)
                    for kind in ("dense", "bm25") for q in QUERIES}
    return {"sources": sources, "chunks": chunks, "vectors": vectors, "searches": searches}


def ranking(hits: list[Any], *, k: int, tol: float = 1e-6) -> list[tuple[str, float]]:
    """Hits as (id, score) with equal scores (within ``tol``) ordered by id: the order of a tie is
    the index's commit order, which differs between engines (a retried Ray batch commits later).
    With ``k`` hits the last tie group is cut, as its members depend on that order too."""
    pairs = sorted(((h.id, h.score) for h in hits), key=lambda p: -p[1])
    groups: list[list[tuple[str, float]]] = []
    for pair in pairs:
        if groups and abs(groups[-1][-1][1] - pair[1]) <= tol:
            groups[-1].append(pair)
        else:
            groups.append([pair])
    if len(pairs) == k and groups:
        groups.pop()
    return [p for g in groups for p in sorted(g)]


def assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["sources"] == b["sources"]
    assert a["chunks"] == b["chunks"]
    assert a["vectors"].keys() == b["vectors"].keys() == {c[6] for c in a["chunks"]}
    for h, v in a["vectors"].items():
        np.testing.assert_allclose(v, b["vectors"][h], atol=1e-5)
    for key, hits in a["searches"].items():
        other = b["searches"][key]
        assert [i for i, _ in hits] == [i for i, _ in other], key
        np.testing.assert_allclose([s for _, s in hits], [s for _, s in other], atol=1e-5)
