"""Uploaded documents are named by their upload name wherever the server shows a source; the index
names them relative to its base directory (``../index/uploads/...`` for an index built from docs/)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragkit.index.writer import IndexingPipeline
from ragkit.server.library import Library

from ..pipeline.helpers import make_spec, write_tree

WINTER = "In winter the ferry to Skerry Island only sails on Fridays, weather permitting."


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    spec = make_spec(tmp_path / "index", embedder={"type": "hashing", "dimension": 64})
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    lib = Library(tmp_path / "index", pipeline=None, uploads_dir=tmp_path / "index" / "uploads")
    (lib.uploads_dir / "faq").mkdir(parents=True)
    (lib.uploads_dir / "faq" / "winter.md").write_text(WINTER, encoding="utf-8")
    yield lib
    lib.close()


def catalog_names(lib: Library) -> set[str]:
    return set(lib._read_catalog()[0])


def test_uploads_are_shown_by_their_upload_name(library: Library) -> None:
    report = library.ingest()
    assert report["added"] == ["faq/winter.md"]
    assert "../index/uploads/faq/winter.md" in catalog_names(library)  # what the index calls it
    docs = {d["source"]: d["uploaded"] for d in library.documents()}
    assert docs == {"alpha.md": False, "beta.txt": False, "notes/gamma.txt": False, "faq/winter.md": True}
    hits = library.search("ferry Skerry winter", k=10, filter=None, kind=None)
    assert {h["source"] for h in hits} == set(docs)
    assert library.document_text("faq/winter.md") == WINTER
    assert library.upload_of("faq/winter.md") == "faq/winter.md" and library.upload_of("alpha.md") is None
    assert library.taken(["alpha.md", "faq/winter.md", "new.md"]) == ["alpha.md"]


@pytest.mark.parametrize(("flt", "expected"), [
    ({"source": "faq/winter.md"}, {"faq/winter.md"}),
    ({"source": {"$in": ["faq/winter.md", "alpha.md"]}}, {"faq/winter.md", "alpha.md"}),
    ({"source": {"$glob": "faq/*"}}, {"faq/winter.md"}),
    ({"source": {"$glob": "*.md"}}, {"faq/winter.md", "alpha.md"}),
    ({"source": {"$glob": "notes/*"}}, {"notes/gamma.txt"}),
    ({"source": {"$glob": "../*"}}, set()),  # the index's own names of uploads are not shown names
])
def test_source_filters_match_the_shown_names(library: Library, flt: dict, expected: set[str]) -> None:
    library.ingest()
    for kind in ("dense", "bm25"):
        hits = library.search("ferry island winter alpha gamma", k=20, filter=flt, kind=kind)
        assert {h["source"] for h in hits} <= expected and ("faq/winter.md" in expected) == any(
            h["source"] == "faq/winter.md" for h in hits)
    scoped = library.scoped(flt, None)  # what the chat's search tool searches
    assert {h.source for h in scoped.search("ferry island winter alpha gamma", 20)} <= expected


def test_a_folder_document_added_later_with_an_uploads_name_does_not_collide(library: Library, tmp_path: Path) -> None:
    library.ingest()
    write_tree(tmp_path / "docs", {"faq/winter.md": "A different winter page, from the docs folder."})
    spec = make_spec(tmp_path / "index", embedder={"type": "hashing", "dimension": 64})
    IndexingPipeline(spec).index_paths([tmp_path / "docs"])  # `ragkit index docs` while the server runs
    (library.index_dir / "server.generation").write_text("next", encoding="utf-8")
    docs = {d["source"]: d["uploaded"] for d in library.documents()}
    assert docs["faq/winter.md"] is False and docs["../index/uploads/faq/winter.md"] is True
    assert library.document_text("../index/uploads/faq/winter.md") == WINTER
    assert library.upload_of("faq/winter.md") is None  # the name is the folder document's now
    assert library.upload_of("../index/uploads/faq/winter.md") == "faq/winter.md"
    hits = library.search("winter", k=10, filter={"source": "faq/winter.md"}, kind="bm25")
    assert hits and all("docs folder" in h["text"] for h in hits)
