"""The section a query names by its release ranks at least ``lexical_rank``: a change log that
holds a whole series in one file, one section per release ("1.0 Changelog > 1.0.3"), where the
release's first passage is about its first change and the passages that only mention the version
("backported to 1.0.3") are what both sides of the search find."""

from __future__ import annotations

from ragkit.retrieval.bm25 import BM25Index, BM25Retriever
from ragkit.retrieval.heading_match import names_release, query_releases
from ragkit.retrieval.hybrid import HybridRetriever
from ragkit.types import SearchHit

from .helpers import RecordingRetriever

QUERY = "On what date was Kiln 1.0.3 released?"


def test_releases_are_three_dotted_parts_read_whole() -> None:
    assert query_releases(QUERY) == ["1.0.3"]
    assert query_releases("Did Kiln v2.4.0 drop Python 3.8?") == ["2.4.0"]
    assert query_releases("Is Kiln 2.5 times faster on Python 3.12?") == []
    assert query_releases("Compare 1.0.1, 1.0.2, 1.0.3 and 1.0.4") == []  # a comparison names no one release
    # two parts name a release after the product's name or "version", not after Python's
    assert query_releases("On what date did Kiln 20.0 come out?") == ["20.0"]
    assert query_releases("What changed in version 3.1?") == ["3.1"]
    assert query_releases("Does Kiln run on Python 3.12?") == []
    assert names_release("1.0 Changelog > 1.0.3", "1.0.3")
    assert names_release("Changes > v1.0.3 (2024-05-01)", "1.0.3")
    assert not names_release("1.0.3 > Fixes", "1.0.3")  # the last part heads the section
    assert not names_release("Migration to 1.0", "1.0.3") and not names_release("1.0 Changelog > 1.0.31", "1.0.3")


def _changelog() -> tuple[BM25Index, list[SearchHit]]:
    """Six releases of one series in changelog_10.rst, two passages each (the first opens with
    the release's date), and notes that mention 1.0.3 in passing; the dense ranking puts the
    notes and the other releases first and 1.0.3's first passage nowhere."""
    rows: dict[str, tuple[str, str, str]] = {}
    for n in range(6):
        version = f"1.0.{n}"
        rows[f"{version}-a"] = ("changelog_10.rst", f"1.0 Changelog > {version}",
                                f"## {version}\n\nReleased: May {n + 1}, 2024\n\n[bug] Fixed the reader of tide tables {n}.")
        rows[f"{version}-b"] = ("changelog_10.rst", f"1.0 Changelog > {version}",
                                f"[feature] Added the harbour option {n}.")
    for n in range(4):
        rows[f"note-{n}"] = ("migration.rst", "Migration > Notes",
                             f"Released fixes were backported to 1.0.3 from branch {n}; see the date of each release.")
    index = BM25Index()
    index.add(list(rows), [t for _, _, t in rows.values()],
              [{"source": s, "heading": h, "start": i * 100} for i, (s, h, _) in enumerate(rows.values())])
    order = [d for d in rows if d.startswith("note")] + [d for d in rows if not d.startswith(("note", "1.0.3-a"))]
    hits = [SearchHit(id=d, score=0.7 - i * 0.005, metadata={"source": rows[d][0], "heading": rows[d][1],
                                                             "text": rows[d][2]}) for i, d in enumerate(order)]
    return index, hits


def _hybrid(index: BM25Index, dense_hits: list[SearchHit], **opts: object) -> HybridRetriever:
    return HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index), **opts)  # type: ignore[arg-type]


def test_the_first_passage_of_the_section_a_query_names_ranks_second() -> None:
    index, dense_hits = _changelog()
    top = [h.id for h in _hybrid(index, dense_hits).retrieve(QUERY, k=5)]
    assert "1.0.3-a" in top[:2], top
    before = [h.id for h in _hybrid(index, dense_hits, lexical_rank=0).retrieve(QUERY, k=10)]
    assert "1.0.3-a" not in before
    # a query that names no release of three parts, or one no heading names, keeps its ranking
    retriever = _hybrid(index, dense_hits)
    for query in ("On what date was the tide table reader fixed?", "On what date was Kiln 1.0.9 released?"):
        assert retriever._headed(query, dense_hits, None) == dense_hits


def test_a_title_alone_is_not_raised_for_the_release_it_names() -> None:
    """A page whose title names the release ("# What's New in Kiln 2.14", or the title underlined
    by ``---``, nothing under it) holds nothing to read: the ranking keeps what it had; a section with text under its heading moves up."""
    rows = {
        "title": ("2.14/index.rst", "What's New in Kiln 2.14", "# What's New in Kiln 2.14"),
        "underlined": ("kiln-2.14.md", "Kiln 2.14 release notes.", "Kiln 2.14 release notes.\n---"),  # a setext title
        "summary": ("2.14/summary.rst", "Removed checkers", "# Removed checkers\n\n- The no-tide check was removed."),
        "notes": ("2.15/index.rst", "What's New in Kiln 2.15", "# What's New in Kiln 2.15\n\nReleased: May 2, 2024"),
        "old": ("20.0/index.rst", "Kiln 20.0", "## Kiln 20.0\n\nReleased: June 1, 2019\n\n- Fixed the tide reader."),
    }
    index = BM25Index()
    index.add(list(rows), [t for _, _, t in rows.values()],
              [{"source": s, "heading": h, "start": 0} for s, h, _ in rows.values()])
    dense = [SearchHit(id=d, score=0.7 - i * 0.01, metadata={"source": rows[d][0], "heading": rows[d][1], "text": rows[d][2]})
             for i, d in enumerate(["summary", "notes", "old", "title", "underlined"])]
    retriever = _hybrid(index, dense)
    assert retriever._headed("Why did Kiln 2.14 drop no-tide?", dense, None) == dense
    assert [h.id for h in retriever._headed("On what date did Kiln 20.0 come out?", dense, None)][:2] == ["summary", "old"]


def test_a_hostile_query_is_read_in_one_pass() -> None:
    """A query of 200,000 characters of one hyphenated token, or of names and numbers, is read
    once per token (the first pattern tried every position after a hyphen: minutes, not
    milliseconds)."""
    assert query_releases("A-" * 100_000) == []
    assert query_releases("Kiln 2.1 " * 20_000) == ["2.1"]
    from ragkit.rag.extractive.query import another_numbered, numbered_names

    assert numbered_names("Tier-" * 100_000) == frozenset()
    assert not another_numbered("A-" * 100_000, frozenset({("tier", "2")}))
