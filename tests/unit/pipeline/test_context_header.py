"""Contextual chunk headers: with the splitter's ``context_header`` on, the document's
title and heading path are part of what is embedded and indexed by BM25, never of the text shown
or cited; offsets stay exact; a renamed heading re-embeds the chunks under it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragkit import ids
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.splitters import MarkdownSplitter, RecursiveSplitter
from ragkit.splitters.base import chunk_header, header_parts
from ragkit.testing import HashingEmbedder
from ragkit.types import CONTEXT_HEADER, Document, indexed_text

from .helpers import make_spec, write_tree

GUIDE = (
    "# Configuration\n\nHow a site is set up.\n\n## Build directories\n\n### dev_addr\n\n"
    "Determines the address used when running the server. Must be of the format IP:PORT.\n\n"
    "Allows a custom default to be set without passing an option every time.\n\n"
    "**default**: `'127.0.0.1:8000'`\n"
)


def words(text: str) -> int:
    return len(text.split())


def _doc(text: str = GUIDE, title: str = "Configuration") -> Document:
    return Document(text, {"source": "config.md", "title": title, "mime": "text/markdown"})


def test_chunks_carry_title_and_heading_path_but_their_text_is_unchanged() -> None:
    doc = _doc()
    chunks = MarkdownSplitter(chunk_size=24, chunk_overlap=0, unit="tokens", length_function=words,
                              context_header=True).split(doc)
    by_text = {c.text: c for c in chunks}
    value = next(c for c in chunks if "127.0.0.1:8000" in c.text)
    # the title is also the first heading: said once; the section's heading path follows
    assert value.metadata[CONTEXT_HEADER] == "Configuration > Build directories > dev_addr"
    assert value.indexed_text == f"Configuration > Build directories > dev_addr\n\n{value.text}"
    # a chunk that opens with its own heading lines does not repeat them ("## Build directories"
    # has nothing under it: it opens the section of "### dev_addr", and no chunk is headings alone)
    opening = next(c for c in chunks if c.text.startswith("## Build directories\n\n### dev_addr\n\nDetermines"))
    assert opening.metadata[CONTEXT_HEADER] == "Configuration"
    assert by_text["# Configuration\n\nHow a site is set up."].metadata.get(CONTEXT_HEADER) is None
    for c in chunks:
        assert doc.text[c.start:c.end] == c.text  # offsets exact: the header is not in the text
        assert words(c.indexed_text) <= 24  # header and text together within chunk_size


def test_without_the_option_nothing_changes() -> None:
    doc = _doc()
    plain = MarkdownSplitter(chunk_size=24, chunk_overlap=0, unit="tokens", length_function=words).split(doc)
    assert all(CONTEXT_HEADER not in c.metadata and c.indexed_text == c.text for c in plain)
    assert [c.id for c in plain] == [ids.chunk_id("config.md", "", i, c.text) for i, c in enumerate(plain)]


def test_recursive_splitter_uses_the_title_and_skips_it_when_the_text_opens_with_it() -> None:
    split = RecursiveSplitter(chunk_size=8, chunk_overlap=0, unit="tokens", length_function=words,
                              context_header=True).split
    entry = Document("Oceanic Airlines Oceanic Airlines is a fictional airline used in several films and shows.",
                     {"source": "e", "title": "Oceanic Airlines"})
    first, *rest = split(entry)
    assert CONTEXT_HEADER not in first.metadata  # an entry that starts with its title
    assert rest and all(c.metadata[CONTEXT_HEADER] == "Oceanic Airlines" for c in rest)
    assert all(words(c.indexed_text) <= 8 for c in (first, *rest))


def test_a_long_header_is_shortened_to_fit_a_quarter_of_the_chunk() -> None:
    doc = Document("text", {"title": "A very long document title indeed"})
    parts = header_parts(doc, ["Part one of the guide", "Chapter about many things", "Install"])
    splitter = RecursiveSplitter(chunk_size=24, chunk_overlap=0, unit="tokens", length_function=words)
    kept, room = splitter.header_room(parts)
    assert kept == ["Install"] and room == 1
    assert chunk_header(["Guide", "Install"], "Installation notes follow") == "Guide > Install"
    assert chunk_header(["Guide", "Install"], "## Install\n\nrun it") == "Guide"
    # a table row says its table already (the title is the file's stem)
    assert chunk_header(["president_heights"], "table: president heights\nname: George Washington") == ""


def test_header_words_find_a_chunk_by_bm25_and_the_vector_is_the_headers(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"config.md": GUIDE, "other.md": "# Other\n\nNothing about addresses.\n"})
    spec = make_spec(tmp_path / "index", splitter={"type": "markdown", "unit": "chars", "chunk_size": 200,
                                                   "chunk_overlap": 0, "context_header": True},
                     retriever={"type": "hybrid", "fusion": "rrf"})
    IndexingPipeline(spec).index_paths([docs])
    with KnowledgeBase(spec) as kb:
        hit = kb.search("dev_addr default", k=1, kind="bm25")[0]
        assert "127.0.0.1:8000" in hit.text and "dev_addr" not in hit.text  # found by its header
        assert hit.metadata[CONTEXT_HEADER] == "Configuration > Build directories > dev_addr"
        source_text = (docs / "config.md").read_text(encoding="utf-8")
        assert source_text[hit.metadata["start"]:hit.metadata["end"]] == hit.text
        # the stored vector is that of the header and the text, not of the text alone
        embed = HashingEmbedder(dimension=64).embed_documents
        with_header, alone = embed([indexed_text(hit.text, hit.metadata), hit.text])
        top = kb.store.search(with_header, k=1)[0]
        assert top.id == hit.id and top.score > 0.999
        assert float(np.dot(with_header, alone)) < 0.99


def test_a_renamed_heading_re_embeds_the_chunks_under_it(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"config.md": GUIDE})
    spec = make_spec(tmp_path / "index", splitter={"type": "markdown", "unit": "chars", "chunk_size": 200,
                                                   "chunk_overlap": 0, "context_header": True})
    first = IndexingPipeline(spec).index_paths([docs])
    (docs / "config.md").write_text(GUIDE.replace("## Build directories", "## Build folders"), encoding="utf-8")
    second = IndexingPipeline(spec).index_paths([docs])
    # every chunk of the section below the renamed heading has a new header (or text), so a new
    # vector: all but the title's chunk
    assert second.chunks_total == first.chunks_total >= 3
    assert second.texts_embedded == second.chunks_total - 1
    with KnowledgeBase(spec) as kb:
        hit = kb.search("127.0.0.1:8000 default", k=1, kind="bm25")[0]
        assert hit.metadata[CONTEXT_HEADER] == "Configuration > Build folders > dev_addr"


def test_turning_the_option_on_re_indexes_with_headers(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"config.md": GUIDE})
    splitter = {"type": "markdown", "unit": "chars", "chunk_size": 200, "chunk_overlap": 0}
    off = make_spec(tmp_path / "index", splitter=splitter, retriever={"type": "hybrid", "fusion": "rrf"})
    IndexingPipeline(off).index_paths([docs])
    with KnowledgeBase(off) as kb:
        assert kb.search("dev_addr", k=5, kind="bm25")[0].text.startswith("## Build directories\n\n### dev_addr")
    on = make_spec(tmp_path / "index", splitter={**splitter, "context_header": True},
                   retriever={"type": "hybrid", "fusion": "rrf"})
    report = IndexingPipeline(on).index_paths([docs])
    assert report.texts_embedded > 0
    with KnowledgeBase(on) as kb:
        assert kb.lexical.ids() == kb.store.ids()
        found = [h.text for h in kb.search("dev_addr", k=5, kind="bm25")]
        assert any("127.0.0.1:8000" in t and "dev_addr" not in t for t in found)  # by its header


def test_an_index_built_before_the_option_existed_keeps_its_fingerprint(tmp_path: Path) -> None:
    """With the option off, the settings that decide the chunks read as they did before it existed,
    so upgrading re-splits nothing; on, they differ."""
    off = make_spec(tmp_path / "index", splitter={"type": "markdown", "unit": "chars", "chunk_size": 200})
    before = off.model_dump_json(include={"loaders", "splitter"}).replace(',"context_header":false', "")
    assert off.settings_key("loaders", "splitter") == before
    on = make_spec(tmp_path / "index", splitter={"type": "markdown", "unit": "chars", "chunk_size": 200,
                                                 "context_header": True})
    assert on.settings_key("loaders", "splitter") != before
