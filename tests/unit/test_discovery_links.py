"""Discovery over symlinked folders: each real folder is walked once, cycles are reported as cycles."""

from __future__ import annotations

import os
from itertools import islice
from pathlib import Path

from ragkit.config import SourcesSpec
from ragkit.index.sources import LinkNotes, discover, make_roots
from tests.unit.pipeline.helpers import make_spec


def _names(root: Path, notes: LinkNotes | None = None, limit: int = 50) -> list[str]:
    roots = make_roots([root])
    found = discover(roots, SourcesSpec(), base=root, links=notes)
    return [f.source for f in islice(found, limit)]  # bounded: a walk that loops cannot hang the test


def test_two_links_to_the_same_folder_walk_it_once(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hello", encoding="utf-8")
    os.symlink(".", tmp_path / "a")
    os.symlink(".", tmp_path / "b")
    notes = LinkNotes()
    assert _names(tmp_path, notes) == ["x.txt"]
    assert [n.split(":")[0] for n in notes.lines] == ["a", "b"]
    assert all("cycle" in n for n in notes.lines)


def test_a_link_to_an_ancestor_is_a_cycle_not_a_broken_link(tmp_path: Path) -> None:
    deep = tmp_path / "one" / "two"
    deep.mkdir(parents=True)
    (deep / "note.txt").write_text("the ferry sails on Tuesdays", encoding="utf-8")
    os.symlink("../..", deep / "up")
    notes = LinkNotes()
    assert _names(tmp_path, notes) == ["one/two/note.txt"]
    assert len(notes.lines) == 1
    assert notes.lines[0].startswith("one/two/up: ") and "cycle" in notes.lines[0]


def test_a_real_folder_wins_over_a_link_to_it(tmp_path: Path) -> None:
    (tmp_path / "zeta").mkdir()
    (tmp_path / "zeta" / "doc.txt").write_text("text", encoding="utf-8")
    os.symlink("zeta", tmp_path / "alias")  # sorts first, yet the real folder names the file
    notes = LinkNotes()
    assert _names(tmp_path, notes) == ["zeta/doc.txt"]
    assert notes.lines and "already walked as zeta" in notes.lines[0] and "cycle" not in notes.lines[0]


def test_a_link_to_a_folder_outside_is_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.txt").write_text("outside text", encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "ext")
    assert _names(root) == ["ext/o.txt"]


def test_a_symlink_loop_file_is_reported_as_a_loop(tmp_path: Path) -> None:
    os.symlink("y", tmp_path / "x.txt")
    os.symlink("x.txt", tmp_path / "y")
    from ragkit.errors import LoaderError
    from ragkit.loaders.base import check_file

    try:
        check_file(tmp_path / "x.txt", max_bytes=1000)
    except LoaderError as exc:
        assert exc.reason == "symlink loop" and "does not exist" not in str(exc)
    else:
        raise AssertionError("a symlink loop was loaded")


def test_indexing_a_folder_linked_to_itself_reports_the_cycle(tmp_path: Path) -> None:
    from ragkit.index.writer import IndexingPipeline

    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "lighthouse.txt").write_text("The lighthouse was built in 1871.", encoding="utf-8")
    os.symlink(".", docs / "a")
    os.symlink(".", docs / "b")
    os.symlink("..", docs / "sub" / "parent")
    report = IndexingPipeline(make_spec(tmp_path / "index")).index_paths([docs])
    assert report.added == ["sub/lighthouse.txt"]
    assert not report.skipped
    assert len(report.links_not_followed) == 3
    assert any("cycle" in line for line in report.summary_lines())
