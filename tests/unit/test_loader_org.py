"""Emacs Org-mode (.org): read with no extra package as Markdown-structured text, so headings cut
the chunks; written by the test as Org users and pandoc write it."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from ragkit.types import Document

ORG = """#+title: Harbour notes
#+author: Ann
#+options: toc:nil

* TODO Ferries :travel:boats:
:PROPERTIES:
:CUSTOM_ID: ferries
:END:
The ferry leaves at nine, see [[https://example.org/timetable][the timetable]] or [[https://example.org]].
# a comment nobody should read
#+begin_quote
Weather permitting.
#+end_quote

** Fares
#+BEGIN_SRC python
# fares in kroner
* this star line is code
FARE = 40
#+END_SRC
"""


def load(path: Path) -> list[Document]:
    return list(loaders.get("org")().load(path, source=path.name))


def test_an_org_file_picks_the_org_loader() -> None:
    assert loader_name_for(Path("notes.org")) == "org"


def test_org_markup_becomes_markdown_headings_code_and_link_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.org"
    path.write_text(ORG, encoding="utf-8")
    [doc] = load(path)
    assert doc.metadata["title"] == "Harbour notes"
    assert doc.metadata["mime"] == "text/x-org" and doc.metadata["markup"] == "markdown"
    assert doc.text.startswith("# Ferries\n")
    assert "the timetable or https://example.org." in doc.text
    assert "Weather permitting." in doc.text
    assert "```\n# fares in kroner\n* this star line is code\nFARE = 40\n```" in doc.text
    for gone in ("#+", "CUSTOM_ID", ":END:", "a comment", "TODO", ":travel:", "[["):
        assert gone not in doc.text


def test_org_headings_cut_the_chunks_and_code_lines_do_not(tmp_path: Path) -> None:
    path = tmp_path / "notes.org"
    path.write_text(ORG, encoding="utf-8")
    [doc] = load(path)
    chunks = MarkdownSplitter(chunk_size=400, chunk_overlap=0, unit="chars").split(doc)
    headings = [c.metadata.get("headings") or c.metadata.get("section") for c in chunks]
    assert len(chunks) == 2, headings
    assert "FARE = 40" in chunks[1].text and "ferry" not in chunks[1].text


def test_an_unclosed_source_block_is_closed_and_a_headline_alone_reads(tmp_path: Path) -> None:
    path = tmp_path / "open.org"
    path.write_text("*   \n#+begin_example\n* code\n", encoding="utf-8")
    [doc] = load(path)
    assert doc.text == "# \n```\n* code\n```\n"
    assert doc.metadata["title"] == "open"


def test_a_run_of_open_brackets_is_read_in_one_pass_and_the_link_after_it_still_reads() -> None:
    from ragkit.loaders.org import org_to_markdown

    # a link's parts hold no bracket, so each "[[" of the run is tried once (it took a minute for
    # 500,000 of them when a part could run over the brackets that follow)
    text, _ = org_to_markdown("Notes " + "[[" * 200_000 + " see [[https://example.org][the harbour site]].")
    assert text.rstrip().endswith("see the harbour site.") and text.count("[[") == 200_000


def test_verbatim_and_code_markup_read_as_code_spans() -> None:
    """``=gauge-interval=`` had stayed in the text with its equals signs; it is a literal, as a
    Markdown code span is, and an equation or a path is left as written."""
    from ragkit.loaders.org import org_to_markdown

    text, _ = org_to_markdown("* Setting =gauge-interval=\n"
                              "Larger logs (the cutoff defaults to 10 lines, see =gauge-cutoff=) go to ~C-c C-c~.\n"
                              "a = b, x=1= y, /usr/bin/ and =a`b=.\n")
    assert text.splitlines() == [
        "# Setting `gauge-interval`",
        "Larger logs (the cutoff defaults to 10 lines, see `gauge-cutoff`) go to `C-c C-c`.",
        "a = b, x=1= y, /usr/bin/ and `` a`b ``.",
    ]


def test_the_author_line_is_the_documents_byline_and_answers_who_wrote_it(tmp_path: Path) -> None:
    from ragkit.rag.extractive import extractive_answer
    from ragkit.rag.passages import Passage

    path = tmp_path / "tides.org"
    path.write_text("#+TITLE: Tide Table Notes\n#+AUTHOR: Maren Solvik\n#+filetags: :tides:\n\n"
                    "* Reading a tide table\nHigh water at the harbour comes about fifty minutes later each day.\n",
                    encoding="utf-8")
    [doc] = load(path)
    assert doc.metadata["authors"] == "Maren Solvik"
    assert "Maren Solvik" not in doc.text and "#+" not in doc.text
    passage = Passage(1, doc.text, {"source": "tides.org", "start": "0", "document_title": "Tide Table Notes",
                                    "authors": doc.metadata["authors"]})
    assert "Maren Solvik" in extractive_answer("Who is listed as the author of the tide table notes?", [passage])
    # a file without the line has no byline from it; an empty one names no one
    (tmp_path / "bare.org").write_text("#+author:\n* Fares\nThe ferry costs forty kroner.\n", encoding="utf-8")
    assert "authors" not in load(tmp_path / "bare.org")[0].metadata
