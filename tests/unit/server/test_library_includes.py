"""Every key's uploads share the server's upload area, so an uploaded page's include directives
(mdBook's ``{{#include}}``, reStructuredText's ``.. include::``) could pull another key's upload
into the text its own key searches: the upload area is read with includes off, while a folder
indexed by ``ragkit index`` keeps them."""

from __future__ import annotations

from pathlib import Path

from ragkit.index.writer import IndexingPipeline
from ragkit.server.library import Library

from ..pipeline.helpers import make_spec

SECRET = "The vault code is 4417."


def test_an_upload_cannot_include_another_upload(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "vault.md").write_text(f"# Vault\n\n{SECRET}\n", encoding="utf-8")
    (docs / "guide.md").write_text("# Guide\n\nThe guide quotes the vault:\n\n{{#include vault.md}}\n", encoding="utf-8")
    index = tmp_path / "index"
    IndexingPipeline(make_spec(index, store="faiss")).index_paths([docs])
    lib = Library(index, pipeline=None, uploads_dir=index / "uploads")
    try:
        assert "4417" in lib.document_text("guide.md")  # a folder's book keeps its includes
        shared = index / "uploads" / "shared"
        shared.mkdir(parents=True)
        (shared / "alice-notes.md").write_text(f"# Alice\n\n{SECRET}\n", encoding="utf-8")
        (shared / "bob.md").write_text("# Bob\n\nMy page.\n\n{{#include alice-notes.md}}\n", encoding="utf-8")
        (shared / "bob.rst").write_text("Bob\n===\n\nMy other page.\n\n.. include:: alice-notes.md\n", encoding="utf-8")
        report = lib.ingest()
        assert sorted(report["added"]) == ["shared/alice-notes.md", "shared/bob.md", "shared/bob.rst"]
        for page in ("shared/bob.md", "shared/bob.rst"):
            text = lib.document_text(page)
            assert "My" in text and "4417" not in text and "include" not in text, (page, text)
        hits = lib.search("vault code 4417", k=10, filter=None, kind=None)
        assert {h["source"] for h in hits if "4417" in h["text"]} <= {"shared/alice-notes.md", "vault.md", "guide.md"}
    finally:
        lib.close()
