"""The BM25 index is built by the same pipeline and kept in step incrementally."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import ConfigError
from ragkit.index.reader import KnowledgeBase
from ragkit.index.status import index_status
from ragkit.index.writer import IndexingPipeline

from .helpers import FILES, make_spec, write_tree


@pytest.fixture()
def spec(tmp_path: Path):
    return make_spec(tmp_path / "index", retriever={"type": "hybrid", "fusion": "rrf"})


def test_each_retriever_finds_the_fact(spec, tmp_path: Path) -> None:
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    with KnowledgeBase(spec) as kb:
        for kind in ("dense", "bm25", "hybrid"):
            hits = kb.search("ferry Tuesdays harbour", k=2, kind=kind)
            assert hits[0].source == "notes/gamma.txt", kind


def test_filters_pass_through_every_retriever(spec, tmp_path: Path) -> None:
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    with KnowledgeBase(spec) as kb:
        for kind in ("dense", "bm25", "hybrid"):
            hits = kb.search("ferry Tuesdays harbour rain", k=5, filter={"source": {"$in": ["beta.txt"]}}, kind=kind)
            assert hits and {h.source for h in hits} == {"beta.txt"}, kind


def test_lexical_index_follows_changes_and_deletions(spec, tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs")
    IndexingPipeline(spec).index_paths([docs])
    (docs / "notes/gamma.txt").unlink()
    (docs / "beta.txt").write_text("Beta station now measures snow depth with a laser.\n", encoding="utf-8")
    rep = IndexingPipeline(spec).index_paths([docs])
    assert rep.removed == ["notes/gamma.txt"] and rep.updated == ["beta.txt"]
    with KnowledgeBase(spec) as kb:
        assert kb.lexical.ids() == kb.store.ids()
        assert kb.search("ferry Tuesdays", k=5, kind="bm25") == [] or all(
            h.source != "notes/gamma.txt" for h in kb.search("ferry Tuesdays", k=5, kind="bm25")
        )
        assert kb.search("laser snow depth", k=1, kind="bm25")[0].source == "beta.txt"
        assert not kb.search("rain gauge storm bent", k=5, kind="bm25") or all(
            "bent" not in h.text for h in kb.search("rain gauge storm bent", k=5, kind="bm25")
        )


def test_lost_lexical_rows_are_repaired_by_the_next_run(spec, tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs")
    IndexingPipeline(spec).index_paths([docs])
    with KnowledgeBase(spec) as kb:  # simulate a crash that lost BM25 rows and left an orphan
        victim = sorted(kb.lexical.ids())[0]
        kb.lexical.delete([victim])
        kb.lexical.add(["orphan"], ["ghost text"], [{"source": "ghost"}])
        kb.lexical.persist()
    rep = IndexingPipeline(spec).index_paths([docs])
    assert rep.updated == [] and rep.chunks_restored == 1 and rep.texts_embedded == 0  # from the catalog
    with KnowledgeBase(spec) as kb:
        assert kb.lexical.ids() == kb.store.ids()
    assert index_status(index=str(spec.index), verify=True)["verify"]["ok"]


def test_bm25_on_a_dense_only_index_is_built_from_the_catalog(tmp_path: Path) -> None:
    """`ragkit search --retriever hybrid` on a dense-only index works."""
    spec = make_spec(tmp_path / "index", retriever={"type": "dense"})
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs", {k: v for k, v in FILES.items()})])
    assert not (tmp_path / "index" / "bm25").exists()
    with KnowledgeBase(spec) as kb:
        assert kb.search("ferry Tuesdays", kind="bm25", k=1)[0].source == "notes/gamma.txt"
        assert kb.search("ferry Tuesdays", kind="hybrid", k=1)[0].source == "notes/gamma.txt"
    assert not (tmp_path / "index" / "bm25").exists()  # built in memory: the reader writes nothing


def test_bm25_on_a_dense_only_index_without_chunk_texts_is_a_clear_error(tmp_path: Path) -> None:
    import duckdb

    spec = make_spec(tmp_path / "index", retriever={"type": "dense"})
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs", {k: v for k, v in FILES.items()})])
    with duckdb.connect(str(tmp_path / "index" / "catalog.duckdb")) as con:  # as an older ragkit left it
        con.execute("UPDATE chunks SET text = NULL")
    with KnowledgeBase(spec) as kb, pytest.raises(ConfigError, match=r"no lexical .*ragkit index"):
        kb.search("ferry", kind="bm25")
