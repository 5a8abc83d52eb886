"""The plugin guide's examples (docs/guides/plugins.md), run as written: a loader, an embedder and a
vector store written against ``ragkit.contracts`` index a folder and answer a search through a
pipeline that names them, and the store passes ``VectorStoreContract``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragkit import registry
from ragkit.config import parse_pipeline
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline

from ..doc_examples import blocks_run_by

GUIDE = "tests/unit/test_docs_plugins.py"
_REGISTRIES = (registry.loaders, registry.embedders, registry.stores)


def run_guide() -> dict[str, Any]:
    """Every example of the guide, in one namespace, as a reader would paste them in order."""
    found = blocks_run_by(GUIDE)
    assert len(found) == 4, f"docs/guides/plugins.md: expected 4 examples run by {GUIDE}, found {len(found)}"
    namespace: dict[str, Any] = {"__name__": "plugin_guide"}
    for block in found:
        block.run(namespace)
    return namespace


@contextlib.contextmanager
def isolated_registries() -> Iterator[None]:
    """Leave the registries as they were (the guide registers its examples under their names)."""
    saved = [(reg, reg._items) for reg in _REGISTRIES]
    for reg, items in saved:
        reg._items = dict(items)
    try:
        yield
    finally:
        for reg, items in saved:
            reg._items = items


with isolated_registries():
    TestRowStore = run_guide()["TestRowStore"]  # the guide's store, through the conformance suite


@pytest.fixture()
def plugins() -> Iterator[dict[str, Any]]:
    with isolated_registries():
        yield run_guide()


RECORDS = "title: Ferry\nThe ferry sails on Tuesdays at nine.\n%%\ntitle: Lighthouse\nThe lens was installed in 1887.\n"


def test_a_pipeline_of_the_guide_components_indexes_and_searches(plugins: dict[str, Any], tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "island.rec").write_text(RECORDS, encoding="utf-8")
    (docs / "broken.rec").write_text("no separator here\n", encoding="utf-8")
    spec = parse_pipeline({"index": str(tmp_path / "index"), "loaders": {".rec": "records"},
                           "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 200, "chunk_overlap": 0},
                           "embedder": {"type": "trigrams", "dimension": 128}, "store": {"type": "rows"},
                           "retriever": {"type": "dense"}}, origin="plugins.yaml")
    report = IndexingPipeline(spec).index_paths([docs])
    assert report.added == ["island.rec"] and report.chunks_total == 2
    assert [path for path, _ in report.skipped] == ["broken.rec"]
    assert "no '%%' separator" in report.skipped[0][1]  # the loader's reason, as written
    assert list((tmp_path / "index").rglob("rows.json"))  # the store persisted its rows
    with KnowledgeBase(spec) as kb:
        hit = kb.search("when does the ferry sail", k=1)[0]
    assert hit.source == "island.rec" and hit.metadata["title"] == "Ferry" and hit.metadata["page"] == 1


def test_the_guide_embedder_reports_usage_and_unit_vectors(plugins: dict[str, Any]) -> None:
    embedder = plugins["TrigramEmbedder"](dimension=64)
    vectors = embedder.embed_documents(["the ferry", "the lighthouse lens"])
    assert vectors.shape == (2, 64)
    assert abs(float((vectors[0] ** 2).sum()) - 1.0) < 1e-5
    assert embedder.usage.texts == 2 and embedder.usage.tokens == 5
