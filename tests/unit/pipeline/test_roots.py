"""Sources under several roots keep their own identity."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline

from .helpers import make_spec, write_tree

PROJECTS = {
    "projA/README.md": "# Alpha\nProject Alpha uses PostgreSQL.\n",
    "projB/README.md": "# Beta\nProject Beta uses MongoDB.\n",
}


@pytest.fixture()
def spec(tmp_path: Path):
    return make_spec(tmp_path / "index")


def run(spec, *paths: Path):
    return IndexingPipeline(spec).index_paths(list(paths))


def sources(spec, query: str = "which database does the project use") -> list[str]:
    with KnowledgeBase(spec) as kb:
        return sorted({h.source for h in kb.search(query, k=10)})


def test_same_name_under_two_roots_in_one_run_is_kept_twice_and_stable(spec, tmp_path: Path) -> None:
    write_tree(tmp_path, PROJECTS)
    first = run(spec, tmp_path / "projA", tmp_path / "projB")
    assert sorted(first.added) == ["projA/README.md", "projB/README.md"]
    for _ in range(2):
        again = run(spec, tmp_path / "projA", tmp_path / "projB")
        assert (again.added, again.updated, again.removed, again.unchanged) == ([], [], [], 2)
        assert again.chunks_total == first.chunks_total
    # results say which root a source came from
    assert sources(spec) == ["projA/README.md", "projB/README.md"]


def test_indexing_a_second_root_later_keeps_the_first(spec, tmp_path: Path) -> None:
    write_tree(tmp_path, PROJECTS)
    first = run(spec, tmp_path / "projA")
    assert first.added == ["README.md"]  # a single-root index names sources relative to its root
    rep = run(spec, tmp_path / "projB")
    # a root outside the first one: every name now says which folder it came from, the same names
    # as indexing both at once; the renamed chunks move from the catalog and the embedding cache
    assert rep.removed == [] and rep.updated == [] and rep.added == ["projB/README.md"]
    assert rep.texts_embedded == 1 and rep.chunks_restored == first.chunks_total
    assert sources(spec) == ["projA/README.md", "projB/README.md"]
    again = run(spec, tmp_path / "projA")
    assert (again.added, again.updated, again.removed, again.unchanged) == ([], [], [], 1)
    both = run(spec, tmp_path / "projA", tmp_path / "projB")
    assert (both.added, both.updated, both.removed, both.unchanged) == ([], [], [], 2)
    with KnowledgeBase(spec) as kb:
        assert len(kb.store.ids()) == both.chunks_total
        hit = kb.search("which database does Alpha use", k=1)[0]
        assert hit.source == "projA/README.md" and hit.metadata["source"] == "projA/README.md"
    from ragkit.index.status import index_status

    assert index_status(index=str(spec.index), verify=True)["verify"]["ok"]


def test_a_nested_root_does_not_index_its_files_twice(spec, tmp_path: Path) -> None:
    write_tree(tmp_path, {"nest/top.md": "# Top\nThe top file.\n", "nest/sub/history.md": "# History\nFounded in 1887.\n"})
    first = run(spec, tmp_path / "nest")
    assert sorted(first.added) == ["sub/history.md", "top.md"]
    inner = run(spec, tmp_path / "nest" / "sub")
    assert (inner.added, inner.updated, inner.removed, inner.unchanged) == ([], [], [], 1)
    assert inner.chunks_total == first.chunks_total
    # a file deleted under the nested root is removed; its sibling outside it stays
    (tmp_path / "nest" / "sub" / "history.md").unlink()  # the folder is empty now: --prune removes its file
    gone = IndexingPipeline(spec).index_paths([tmp_path / "nest" / "sub"], prune=True)
    assert gone.removed == ["sub/history.md"]
    assert sources(spec, "top file") == ["top.md"]


def test_the_outer_root_after_the_nested_one_does_not_duplicate(spec, tmp_path: Path) -> None:
    write_tree(tmp_path, {"nest/top.md": "# Top\nThe top file.\n", "nest/sub/history.md": "# History\nFounded in 1887.\n"})
    run(spec, tmp_path / "nest" / "sub")
    outer = run(spec, tmp_path / "nest")
    assert outer.added == ["top.md"] and outer.unchanged == 1 and outer.removed == []
    assert sources(spec, "Founded") == ["sub/history.md", "top.md"]  # renamed, not kept twice
    both = run(spec, tmp_path / "nest", tmp_path / "nest" / "sub")
    assert (both.added, both.removed, both.unchanged) == ([], [], 2)


def test_a_root_added_to_an_index_without_chunk_texts_rereads_the_renamed_files(spec, tmp_path: Path) -> None:
    import duckdb

    write_tree(tmp_path, PROJECTS)
    run(spec, tmp_path / "projA")
    with duckdb.connect(str(tmp_path / "index" / "catalog.duckdb")) as con:  # as an older ragkit left it
        con.execute("UPDATE chunks SET text = NULL")
    rep = run(spec, tmp_path / "projB")
    assert rep.added == ["projB/README.md"] and rep.updated == [] and rep.removed == []
    # A's chunks stay searchable (under the old name) until a run over projA re-reads the file
    assert sources(spec) == ["README.md", "projB/README.md"]
    again = run(spec, tmp_path / "projA")
    assert again.updated == ["projA/README.md"] and again.texts_embedded == 0  # re-read, not re-embedded
    assert sources(spec) == ["projA/README.md", "projB/README.md"]
    from ragkit.index.status import index_status

    assert index_status(index=str(spec.index), verify=True)["verify"]["ok"]


def test_a_folder_inside_the_index_directory_does_not_rename_anything(spec, tmp_path: Path) -> None:
    """`ragkit serve` indexes its upload area `<index>/uploads`; the server names uploads itself."""
    write_tree(tmp_path, PROJECTS)
    run(spec, tmp_path / "projA")
    uploads = write_tree(tmp_path / "index" / "uploads", {"faq.md": "# FAQ\nThe ferry sails on Fridays.\n"})
    rep = run(spec, uploads)
    assert rep.added == ["../index/uploads/faq.md"] and rep.chunks_restored == 0
    assert "README.md" in sources(spec)



def test_a_renamed_index_is_restored_into_the_store_a_bounded_batch_at_a_time(tmp_path: Path, monkeypatch) -> None:
    """A second root renames every source: the stored chunks are restored and persisted every
    ``RESTORE_PERSIST_ROWS`` rows (memory bounded by the batch; segments the merges take in),
    not held until one segment of the whole index is written."""
    from ragkit.config import parse_pipeline
    from ragkit.index import writer

    monkeypatch.setattr(writer, "RESTORE_PERSIST_ROWS", 4)
    files = {f"projA/note{n}.md": f"# Note {n}\nThe ferry number {n} leaves at {n} o'clock.\n" for n in range(12)}
    write_tree(tmp_path, {**files, **PROJECTS})
    data = make_spec(tmp_path / "index").to_yaml_dict()
    spec = parse_pipeline({**data, "store": {"type": "faiss", "index": "flat"}, "indexing": {"flush_chunks": 2}})
    first = run(spec, tmp_path / "projA")
    assert first.chunks_total == 13
    rep = run(spec, tmp_path / "projB")
    assert rep.chunks_restored == first.chunks_total and rep.added == ["projB/README.md"]
    with KnowledgeBase(spec) as kb:
        kb.store.wait_merges()
        assert kb.store.count() == first.chunks_total + 1
        assert kb.search("when does ferry number 7 leave", k=1)[0].source == "projA/note7.md"
        sizes = [len(s) for s in kb.store._log.live_segments()]
    # the 13 restored rows were persisted 4 at a time (one segment of all 13 before), then projB's flush
    assert max(sizes) <= 4 and sum(sizes) == first.chunks_total + 1
