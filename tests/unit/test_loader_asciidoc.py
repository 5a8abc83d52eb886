"""AsciiDoc (.adoc): read with no extra package as Markdown-structured text, so sections cut the
chunks and name them; written by the test as guideline books and release notes write AsciiDoc.
Before, an ``.adoc`` file went to ``unstructured`` (skipped without it), which ran a section's
anchor, title and body together with no heading."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.loaders.asciidoc import asciidoc_to_markdown
from ragkit.loaders.base import loader_name_for
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from ragkit.types import Document

GUIDE = """[[ferries]]
= Harbour Guidelines
:FARE: 40 kroner
:toc:

// a comment nobody should read
////
a comment block
nobody should read
////

[#148]
== {MUST} buy a ticket before boarding

Tickets cost {FARE}{nbsp}each; see <<timetable,the timetable>> and
https://example.org/rules[the rules] or link:https://example.org/faq[].
A {SHOULD} rule defined elsewhere stays as written.

* Ferries leave at nine.
** The last one at {plus}22.
. First step
. Second step

.Fare table
|===
| Route | Fare
| North | 40
a| South | 55
|===

Skipper:: The person who steers.
include::../includes/extra.adoc[]

[source,python]
----
= this line is code
* so is this
FARE = 40
----

=== Night crossings

NOTE: Night crossings need a lamp. +
Ask the skipper.

.Lamps
****
A sidebar on lamps.
****
"""


def load(path: Path) -> list[Document]:
    return list(loaders.get("asciidoc")().load(path, source=path.name))


@pytest.mark.parametrize("name", ["guide.adoc", "guide.asciidoc", "GUIDE.ADOC", "history.asc"])
def test_an_asciidoc_file_picks_the_asciidoc_loader(name: str) -> None:
    assert loader_name_for(Path(name)) == "asciidoc"


def test_asciidoc_markup_becomes_markdown_headings_lists_tables_and_code(tmp_path: Path) -> None:
    path = tmp_path / "guide.adoc"
    path.write_text(GUIDE, encoding="utf-8")
    [doc] = load(path)
    text = doc.text
    assert doc.metadata["title"] == "Harbour Guidelines"
    assert doc.metadata["mime"] == "text/asciidoc" and doc.metadata["markup"] == "markdown"
    assert text.startswith("# Harbour Guidelines\n")
    assert "## {MUST} buy a ticket before boarding" in text
    assert "Tickets cost 40 kroner each; see the timetable and\nthe rules or https://example.org/faq." in text
    assert "A {SHOULD} rule" in text
    assert "- Ferries leave at nine.\n  - The last one at +22.\n1. First step\n1. Second step" in text
    assert "Fare table" in text and "Route | Fare" in text and "South | 55" in text and "a|" not in text
    assert "Skipper: The person who steers." in text
    assert "```\n= this line is code\n* so is this\nFARE = 40\n```" in text
    assert "### Night crossings" in text and "NOTE: Night crossings need a lamp.\nAsk the skipper." in text
    assert "\n\nLamps\n\nA sidebar on lamps.\n" in text  # a block's title is a paragraph of its own
    for gone in ("a comment", "[#148]", "[[ferries]]", ":toc:", "[source", "include::", "|===", "<<", "{FARE}", "****"):
        assert gone not in text


def test_a_two_line_title_is_a_heading_and_a_delimiter_after_a_longer_line_is_not(tmp_path: Path) -> None:
    """Release notes written with an underlined title ("Git v2.44 Release Notes" over "====")."""
    text, title = asciidoc_to_markdown("Kelp v4.2 Release Notes\n=======================\n\nUpdates\n-------\n\n"
                                       " * \"kelp add\" learned --tide.\n\nRun this:\n\n----\nkelp add\n----\n")
    assert title == "Kelp v4.2 Release Notes"
    assert text == ("# Kelp v4.2 Release Notes\n\n## Updates\n\n- \"kelp add\" learned --tide.\n\n"
                    "Run this:\n\n```\nkelp add\n```\n")


def test_asciidoc_sections_cut_the_chunks_and_code_lines_do_not(tmp_path: Path) -> None:
    path = tmp_path / "guide.adoc"
    path.write_text(GUIDE, encoding="utf-8")
    [doc] = load(path)
    chunks = MarkdownSplitter(chunk_size=300, chunk_overlap=0, unit="chars").split(doc)
    night = [c for c in chunks if "lamp" in c.text]
    assert night and all("Tickets" not in c.text for c in night)
    assert any("Night crossings" in str(c.metadata.get("headings") or c.metadata.get("section")) for c in night)


def test_an_unclosed_block_is_closed_and_hostile_lines_are_read_in_one_pass() -> None:
    text, _ = asciidoc_to_markdown("== Open\n----\n* code")
    assert text == "## Open\n```\n* code\n```\n"
    for line in ("<<" * 100_000, "a::b" * 50_000, "link:" + "[" * 100_000, "{" * 100_000 + "x}",
                 "== " + " " * 100_000 + "x", "== x" + " " * 100_000 + "y", ":a: x" + " " * 100_000 + "y", "x" * 100_000 + "::", "|" * 100_000, "https://" + "a" * 100_000 + "["):
        # each pattern is anchored or bounded: a quadratic one would take minutes on these lines
        assert asciidoc_to_markdown("Title\n" + line + "\n")[0].startswith("Title")


def test_a_table_written_a_cell_a_line_reads_a_row_a_line() -> None:
    """The `cols` attribute gives the row's width; a line that starts no cell goes on with the
    last one; an empty cell is left out of the row's line."""
    text, _ = asciidoc_to_markdown('[%noheader,cols="2*,30%"]\n|===\n|Attribute |Default |Notes\n\n|`fare-caption`\n'
                                   "|Fare\n|\n\n|`lamp-caption`\n|_not set_\n|Off by default.\nSet it to show lamps.\n|===\n")
    assert text == ("Attribute | Default | Notes\n\n`fare-caption` | Fare\n\n"
                    "`lamp-caption` | _not set_ | Off by default. Set it to show lamps.\n")


def test_a_table_with_a_header_row_is_a_pipe_table_whose_rows_answer_with_their_columns() -> None:
    """A first line holding a whole row with a blank line after it is the header (Asciidoctor's
    implicit header), as is the first row under ``%header``: the table is a Markdown pipe table, so
    "Which package on Ubuntu 24.04?" reads the row with its columns' names. Before: rows as lines
    of their own, which no answer took ("Ubuntu 24.04 (and later) | libaio1t64" is no sentence)."""
    text, _ = asciidoc_to_markdown("== Runtime\n\nThe package name depends on the release:\n\n|===\n|Release |Package Name\n\n"
                                   "|Tern 22 (and earlier)\n|libtide1\n\n|Tern 24 (and later)\n|libtide1t64\n|===\n")
    assert ("| Release | Package Name |\n| --- | --- |\n| Tern 22 (and earlier) | libtide1 |\n"
            "| Tern 24 (and later) | libtide1t64 |\n") in text, text
    explicit, _ = asciidoc_to_markdown('[%header,cols="1,1"]\n|===\n|Port\n|Use\n|8161\n|console\n|===\n')
    assert explicit == "| Port | Use |\n| --- | --- |\n| 8161 | console |\n"
    passages = [Passage(1, text, {"source": "runtime.adoc"})]
    answer = extractive_answer("Our gauges run Tern 24. Which libtide package do we install there?", passages)
    assert "libtide1t64" in answer, answer


def test_index_terms_and_curved_quotes_read_as_asciidoctor_shows_them(tmp_path: Path) -> None:
    """A book's ``.asc`` sections (as Pro Git writes them): concealed index terms are not text, a
    flow index term and a curved quote are their text. Before, ``.asc`` went to the generic
    loader, and answers quoted "(((Kelp)))(((Python)))" and "`[source,console]` ----"."""
    path = tmp_path / "kelp.asc"
    path.write_text("=== Kelp\n\n(((Kelp)))(((Python)))\nThere is a pure-Python ((Kelp)) library.\n"
                    "The \"`gc`\" command packs what`'s loose.\n\n[source,console]\n----\n$ kelp gc\n----\n",
                    encoding="utf-8")
    assert loader_name_for(path) == "asciidoc"
    [doc] = load(path)
    assert doc.text == ("### Kelp\n\nThere is a pure-Python Kelp library.\nThe \"gc\" command packs what's loose.\n\n"
                        "```\n$ kelp gc\n```\n")


def test_an_armored_openpgp_file_is_skipped_with_its_reason(tmp_path: Path) -> None:
    """``.asc`` is also the extension of an ASCII-armored key or signature: not text to index."""
    from ragkit.errors import LoaderError

    path = tmp_path / "release.tar.gz.asc"
    path.write_text("-----BEGIN PGP SIGNATURE-----\n\niQIzBAABCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n",
                    encoding="utf-8")
    with pytest.raises(LoaderError, match="OpenPGP key or signature"):
        load(path)


def test_html_in_a_passthrough_is_read_as_its_text() -> None:
    """A book's table header written ``pass:[<span class="keep-together">Field tag</span>]`` reads
    "Field tag": the span and its class were indexed, embedded and quoted before."""
    text, _ = asciidoc_to_markdown(
        "= Invoices\n\n"
        "[options=\"header\"]\n|===\n"
        "|pass:[<span class=\"keep-together\">Field tag</span>]|pass:[<span class=\"keep-together\">Data length</span>]|Usage\n"
        "|`x`|Variable|The expiry time of the tide permit. The default is 1 hour if not specified.\n"
        "|===\n\nKeep pass:[<b>this</b> &amp; that] and pass:[plain] as written.\n"
    )
    assert "<span" not in text and "keep-together" not in text
    assert "Field tag | Data length | Usage" in text
    assert "Keep this & that and plain as written." in text
