"""A file whose bytes did not change is read again when the pipeline's loader for it changed, or
a newer version of that loader makes other text of it (``Loader.version``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ragkit import registry
from ragkit.index.catalog import Catalog
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.loaders.base import Loader
from ragkit.types import Document

from .helpers import make_spec, write_tree


class ShoutingLoader(Loader):
    """A plugin loader whose later version makes other text of the same file (upper case)."""

    name = "test-shouting"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        text = path.read_text(encoding="utf-8")
        yield Document(text=text.upper() if self.version > 1 else text, metadata={"source": source})


registry.loaders.register("test-shouting")(ShoutingLoader)


def _texts(spec: object) -> list[str]:
    with KnowledgeBase(spec) as kb:  # type: ignore[arg-type]
        return [hit.text for hit in kb.search("ferry", k=5)]


def test_a_new_loader_version_reads_unchanged_files_again(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder = write_tree(tmp_path / "docs", {"log.note": "The ferry sails on Tuesdays.\n", "b.txt": "Other ferry notes.\n"})
    spec = make_spec(tmp_path / "index", loaders={".note": "test-shouting"})
    first = IndexingPipeline(spec).index_paths([folder])
    assert sorted(first.added) == ["b.txt", "log.note"]
    again = IndexingPipeline(spec).index_paths([folder])
    assert again.unchanged == 2 and not again.updated

    monkeypatch.setattr(ShoutingLoader, "version", 2)  # the plugin's next release
    upgraded = IndexingPipeline(spec).index_paths([folder])
    assert upgraded.updated == ["log.note"] and upgraded.unchanged == 1
    assert "THE FERRY SAILS ON TUESDAYS." in _texts(spec)
    catalog = Catalog(tmp_path / "index" / "catalog.duckdb", read_only=True)
    try:
        assert catalog.sources()["log.note"].loader == "test-shouting@2"
    finally:
        catalog.close()
    assert IndexingPipeline(spec).index_paths([folder]).unchanged == 2  # read once per version


def test_a_file_mapped_to_another_loader_is_read_again(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "docs", {"log.note": "The ferry sails on Tuesdays.\n"})
    IndexingPipeline(make_spec(tmp_path / "index", loaders={".note": "test-shouting"})).index_paths([folder])
    remapped = IndexingPipeline(make_spec(tmp_path / "index", loaders={".note": "text"})).index_paths([folder])
    assert remapped.updated == ["log.note"]

