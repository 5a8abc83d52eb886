"""A Markdown document's authors, as a design proposal or an RFC heads its text: front matter
``author:``, or an "Author:" field under the title; and "Who wrote the proposal …?" answered from
them when search finds only the proposal's later sections."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.bylines import field_authors, front_matter_authors, section_authors
from ragkit.loaders.markdown import MarkdownLoader
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

PROPOSAL = """# Separators in Tide Tables

* **Type**: Design proposal
* **Author**: Maren Solvik
* **Status**: Stable in 1.4

## Synopsis

Allow spaces between the digit groups of a tide height.

## Motivation

Long heights are hard to read, which is why groups of three digits may be parted.
"""


def _load(tmp_path: Path, name: str, text: str) -> dict[str, object]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return next(MarkdownLoader().load(path, source=name)).metadata


def test_an_author_field_under_the_title_is_the_documents_byline(tmp_path: Path) -> None:
    assert _load(tmp_path, "proposal.md", PROPOSAL)["authors"] == "Maren Solvik"
    assert field_authors("# Moorings\n\nAuthors: [Ada Quill](https://example.org/ada) <ada@example.org>, Tom Reed\n") \
        == "Ada Quill, Tom Reed"


def test_an_author_field_in_italics_is_the_chapters_byline(tmp_path: Path) -> None:
    """A book's guest chapter opens "*Author: Ada Quill @ Harbour College*" under its title (a
    Quarto chapter): the names are its byline; an italic sentence that starts alike is not."""
    chapter = "# Harbour Currents {#currents}\n\n*Author: Ada Quill @ Harbour College*\n\nCurrents move sand.\n"
    assert _load(tmp_path, "currents.qmd", chapter)["authors"] == "Ada Quill @ Harbour College"
    assert field_authors("# Tides\n\n_Authors: Ada Quill, Tom Reed_\n") == "Ada Quill, Tom Reed"
    assert field_authors("# Tides\n\n*Authorised readers only.*\n") is None


def test_front_matter_authors_are_the_byline(tmp_path: Path) -> None:
    meta = _load(tmp_path, "rfc.md", "---\nauthor: Ines Varga (@ivarga)\n---\n\n# Buoy naming\n\nText.\n")
    assert meta["authors"] == "Ines Varga (@ivarga)"
    assert front_matter_authors({"authors": ["Ada Quill", {"name": "Tom Reed"}]}) == "Ada Quill, Tom Reed"


def test_a_later_authors_list_or_code_is_no_byline(tmp_path: Path) -> None:
    notes = "# Release 2.1\n\n## Changes\n\nFaster tides.\n\n## Authors\n\nAuthors: Ada Quill, Tom Reed\n"
    assert "authors" not in _load(tmp_path, "notes.md", notes)
    code = "# Borrowing\n\n```rust\nstruct Book {\n    author: &'static str,\n}\n```\n"
    assert "authors" not in _load(tmp_path, "borrow.md", code)
    assert field_authors("# Essay\n\nAuthor: " + "word " * 100) is None  # a long field is prose, not names


def test_who_wrote_a_proposal_is_answered_from_its_byline_when_search_finds_its_motivation(tmp_path: Path) -> None:
    authors = _load(tmp_path, "proposal.md", PROPOSAL)["authors"]
    motivation = Passage(1, "## Motivation\n\nLong heights are hard to read, which is why groups of three digits may "
                            "be parted.", {"source": "proposal.md", "heading": "Separators in Tide Tables > Motivation",
                                           "start": "200", "document_title": "Separators in Tide Tables",
                                           "authors": authors})
    question = "Who wrote the proposal for separators in tide tables?"  # "proposal" names the relation
    assert extractive_answer(question, [motivation]) == "Maren Solvik [1]"
    # without the byline the proposal's motivation names no one
    bare = Passage(1, motivation.text, {k: v for k, v in motivation.meta.items() if k != "authors"})
    assert "Maren Solvik" not in extractive_answer(question, [bare])


def test_only_the_head_of_a_long_text_is_read_for_its_byline() -> None:
    """A huge file's byline is found in its first lines without splitting all of it; a field
    beyond the head is not one."""
    assert field_authors("# Tides\n\n* **Author**: Maren Solvik\n\n" + "tide " * 1_000_000) == "Maren Solvik"
    assert field_authors("# Tides\n\n" + "x" * 10_000 + "\nAuthor: Maren Solvik\n") is None


FOREWORD = """# Tidal Notes - 2nd Edition
# Foreword

When Kit asked me to write this foreword, I said yes before the sentence was over.

These pages will serve you better than any tide table ever will. Keep an open mind.

Ada Quill<br>
Head of Tides<br>
Harbour Office<br>
Penwith
"""


def test_the_signature_under_a_forewords_last_paragraph_is_its_byline(tmp_path: Path) -> None:
    """A foreword ends with its writer's name over her role and office (Markdown with ``<br>``, a
    reStructuredText line block); a closing list of contributors, a credits line in a sentence or
    a list item is no signature."""
    from ragkit.loaders.bylines import closing_signature
    from ragkit.loaders.rst import RstLoader

    assert _load(tmp_path, "foreword.md", FOREWORD)["authors"] == "Ada Quill"
    rst = tmp_path / "foreword.rst"
    rst.write_text("Foreword\n========\n\nThe tides have changed since the first edition. Enjoy.\n\n\n"
                   "| Tom Reed\n| Penwith College\n| October 2020\n", encoding="utf-8")
    assert next(RstLoader().load(rst, source="foreword.rst")).metadata["authors"] == "Tom Reed"
    assert closing_signature("# Letter\n\nThanks for reading.\n\n\u2014 Ines Varga (@ivarga)\n") == "Ines Varga"
    assert closing_signature("# Credits\n\nThanks to:\n\n- Ada Quill\n- Tom Reed\n") is None
    assert closing_signature("# Credits\n\n## Contributors\n\nAda Quill\nTom Reed\n") is None
    assert closing_signature("# Tides\n\nThe tide turns.\n\nAda Quill wrote this chapter in 2020.\n") is None
    assert closing_signature("# Tides\n\nThe tide turns.\n\nAda Quill\nShe edited the charts and the index.\n") is None
    assert closing_signature("Ada Quill\n") is None  # a name alone is no signature under prose
    assert closing_signature(" " * 100_000 + "x") is None  # only the text's end is read


def test_who_wrote_a_foreword_is_answered_by_its_signature_when_search_misses_its_last_lines(tmp_path: Path) -> None:
    """Search finds the foreword's first paragraphs, not the short passage of its signature: the
    loader's byline still names its writer, and the foreword's heading over the passages found is
    as much the byline's as theirs."""
    meta = {"source": "afloat/foreword.md", "heading": "Foreword", "document_title": "Know Your Tides: Afloat - 2nd Edition",
            "authors": _load(tmp_path, "foreword.md", FOREWORD)["authors"]}
    passages = [
        Passage(1, "Once the printing of the charts completed, I saw that a lot of people were really excited to read "
                   "this series and I decided to give it a try. Once I dug in and poured over the tables, I felt a "
                   "profound mix of learning, surprise, and even a little anger. Kit has a knack for saying something "
                   "that challenges my view of the sea.", {**meta, "start": "450"}),
        Passage(2, "# Know Your Tides: Afloat - 2nd Edition\n# Foreword\n\nThe first time I saw a notice for the original "
                   "series, I thought that whoever this Kit is can get lost. Of course I know the tides! I had been "
                   "sailing for many years.", {**meta, "start": "0"}),
    ]
    got = extractive_answer("Who wrote the foreword of Afloat?", passages)
    assert got.startswith("Ada Quill [1]"), got


PATTERN = """## Title

Lantern Rota

## Patlet

Keepers take turns lighting the harbour lanterns, so no harbour goes dark when one keeper is ill.

## Solution

Each keeper signs the rota for one night a week; a missed night passes to the next name.

## Known Instances

* Port Elling

## Authors

- Mara Quist (Harbour Board)
- Tobin Vey, Elling Lights
- [Ada Fenn](https://example.org/ada)

## Status

Structured
"""


def test_the_names_under_an_authors_heading_are_the_documents_byline(tmp_path: Path) -> None:
    """A pattern catalogue's page ends with its authors under a heading: each item a person, with
    an organisation in brackets or after a comma, or a link to a profile."""
    assert _load(tmp_path, "lantern-rota.md", PATTERN)["authors"] == "Mara Quist, Tobin Vey, Ada Fenn"
    assert section_authors("## Author(s)\n\n* [Jo Ng][]\n\n[Jo Ng]: https://example.org\n") is None  # a link definition is no name
    assert section_authors("## Authors\n\n- **Tomas Kalin**. Author, maintainer.\n") == "Tomas Kalin"


def test_an_authors_section_that_says_more_than_names_is_no_byline() -> None:
    # a field's description, code, a sentence, and a change log's section under every release
    assert section_authors("### Author\n\nThis is the GitHub author of the integration.\n") is None
    assert section_authors("## Author\n\n```toml\nname = \"...\"\n```\n") is None
    assert section_authors("## Authors\n\nWe welcome any authors who would like to contribute.\n") is None
    assert section_authors("## 2.1\n\n### Authors\n\n* Ada Quill\n\n## 2.0\n\n### Authors\n\n* Tom Reed\n") is None


def test_who_wrote_a_pattern_is_answered_from_its_authors_section_when_search_finds_its_patlet(tmp_path: Path) -> None:
    """Before, the authors' section was not among the passages search found, and the question was
    refused: the patlet names no one."""
    authors = _load(tmp_path, "lantern-rota.md", PATTERN)["authors"]
    patlet = Passage(1, "## Patlet\n\nKeepers take turns lighting the harbour lanterns, so no harbour goes dark "
                        "when one keeper is ill.", {"source": "lantern-rota.md", "heading": "Patlet", "start": "20",
                                                     "document_title": "Lantern Rota", "authors": authors})
    got = extractive_answer("Who is the author of the pattern about keepers taking turns lighting the harbour "
                            "lanterns?", [patlet])
    assert "Mara Quist" in got, got


def test_one_author_of_a_page_titled_by_its_file_name_answers_who_wrote_it() -> None:
    """A page with no title of its own is titled by its file's name, and one author's name alone on
    a line looks like a title too: the byline passage is written as a heading and the names under it,
    so the names are still read as the byline under the title. Before, they were read as a heading
    at the passage's start, and the question was refused."""
    meta = {"source": "patterns/lantern-rota.md", "heading": "Patlet", "start": "20",
            "document_title": "lantern-rota", "authors": "Mara Quist"}
    patlet = Passage(1, "## Patlet\n\nKeepers take turns lighting the harbour lanterns, so no harbour goes dark "
                        "when one keeper is ill.", meta)
    got = extractive_answer("Who is the author of the pattern about keepers taking turns lighting the harbour "
                            "lanterns?", [patlet])
    assert got == "Mara Quist [1]", got
