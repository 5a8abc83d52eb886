"""The text a reader asks for (MCP's read tool: ``Library.document_text``) is loaded the way an
indexing run loads a file: under the pipeline's limits, ragkit's parsers in a loader process. A
hostile file there is a clear error naming the limit, never a hang or the server's memory."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.index.writer import IndexingPipeline
from ragkit.server.library import Library
from ragkit.testing.fuzz_mutations import zip_inflate
from ragkit.testing.fuzz_seeds import build_seeds

from ..pipeline.helpers import make_spec

pytestmark = pytest.mark.slow  # each read of a parsed format starts a loader process


@pytest.fixture
def library(tmp_path: Path) -> Iterator[tuple[Library, Path]]:
    docs = tmp_path / "docs"
    docs.mkdir()
    seeds = build_seeds()
    (docs / "census.docx").write_bytes(seeds[".docx"])
    (docs / "notes.txt").write_text("The ferry sails on Tuesdays.", encoding="utf-8")
    spec = make_spec(tmp_path / "index", sources={"limits": {"max_memory_mb": 64, "max_text_per_file_mb": 1}})
    report = IndexingPipeline(spec).index_paths([docs])
    assert sorted(report.added) == ["census.docx", "notes.txt"]
    lib = Library(tmp_path / "index", pipeline=None, uploads_dir=tmp_path / "index" / "uploads")
    yield lib, docs
    lib.close()


def test_a_document_reads_as_its_text(library: tuple[Library, Path]) -> None:
    lib, _ = library
    assert "lighthouse at Alpha Point" in lib.document_text("census.docx")
    assert lib.document_text("notes.txt") == "The ferry sails on Tuesdays."


def test_a_bomb_put_in_place_of_an_indexed_docx_is_stopped_by_the_memory_ceiling(library: tuple[Library, Path]) -> None:
    lib, docs = library
    seeds = build_seeds()
    bomb = zip_inflate(".docx", seeds[".docx"], random.Random(1), seeds, 48)  # 48 MB of XML, 200 KB on disk
    (docs / "census.docx").write_bytes(bomb.data)
    with pytest.raises(LoaderError, match=r"census\.docx: .*more memory than allowed.*sources\.limits\.max_memory_mb"):
        lib.document_text("census.docx")
    assert lib.document_text("notes.txt") == "The ferry sails on Tuesdays."  # the next read is served


def test_a_text_file_grown_past_the_text_limit_is_refused_naming_the_limit(library: tuple[Library, Path]) -> None:
    lib, docs = library
    (docs / "notes.txt").write_text("tide tables " * 120_000, encoding="utf-8")  # 1.4 million characters
    with pytest.raises(LoaderError, match=r"more text than one file may yield.*sources\.limits\.max_text_per_file_mb"):
        lib.document_text("notes.txt")
