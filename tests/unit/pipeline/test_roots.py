"""Sources under several roots keep their own identity (issue 11, defect 1)."""

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
    run(spec, tmp_path / "projA")
    rep = run(spec, tmp_path / "projB")
    assert rep.removed == [] and rep.updated == [] and rep.added == ["../projB/README.md"]
    assert sources(spec) == ["../projB/README.md", "README.md"]
    again = run(spec, tmp_path / "projA")
    assert (again.added, again.updated, again.removed, again.unchanged) == ([], [], [], 1)
    assert len(sources(spec)) == 2


def test_a_nested_root_does_not_index_its_files_twice(spec, tmp_path: Path) -> None:
    write_tree(tmp_path, {"nest/top.md": "# Top\nThe top file.\n", "nest/sub/history.md": "# History\nFounded in 1887.\n"})
    first = run(spec, tmp_path / "nest")
    assert sorted(first.added) == ["sub/history.md", "top.md"]
    inner = run(spec, tmp_path / "nest" / "sub")
    assert (inner.added, inner.updated, inner.removed, inner.unchanged) == ([], [], [], 1)
    assert inner.chunks_total == first.chunks_total
    # a file deleted under the nested root is removed; its sibling outside it stays
    (tmp_path / "nest" / "sub" / "history.md").unlink()
    gone = run(spec, tmp_path / "nest" / "sub")
    assert gone.removed == ["sub/history.md"]
    assert sources(spec, "top file") == ["top.md"]


def test_the_outer_root_after_the_nested_one_does_not_duplicate(spec, tmp_path: Path) -> None:
    write_tree(tmp_path, {"nest/top.md": "# Top\nThe top file.\n", "nest/sub/history.md": "# History\nFounded in 1887.\n"})
    run(spec, tmp_path / "nest" / "sub")
    outer = run(spec, tmp_path / "nest")
    assert outer.added == ["../top.md"] and outer.unchanged == 1 and outer.removed == []
    both = run(spec, tmp_path / "nest", tmp_path / "nest" / "sub")
    assert (both.added, both.removed, both.unchanged) == ([], [], 2)
