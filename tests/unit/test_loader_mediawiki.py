"""MediaWiki pages (.mediawiki, .wiki): read with no extra package as Markdown-structured text, so
sections cut the chunks and an answer quotes no wiki markup; written by the test as a wiki exported
to files writes them."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.loaders.mediawiki import mediawiki_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from tests.unit.linear_time import assert_linear

PAGE = """{{Infobox server
| name = tidesrv
| maintainer = [[User:Ada|Ada Quill]]
| latest = {{version|0.4}}
}}
'''tidesrv''' is the [[Python]] server of the [[Harbour Project|harbour project]].<ref>See the list.</ref>
[[Category:Servers]] __TOC__
<!-- a note to editors -->
== Setup ==
Install it with <code>pip install tidesrv</code>; see [https://example.org the site] or [https://example.net].
=== Options ===
* '''port''': the port, default 6923
** ''nested'' item
# first step
; turn timer : ends the turn after a fixed time
 $ tidesrv --port 6923
== Frames ==
{| class="wikitable"
|+ Frame types
! Name !! Value
|-
| Order || 1001
|-
| style="color:red" | '''Admin command''' || '''1006'''
|}
<syntaxhighlight lang="python">
gauge.read()
</syntaxhighlight>
"""


def test_a_wiki_page_picks_the_mediawiki_loader() -> None:
    assert {loader_name_for(Path(f"p.{ext}")) for ext in ("mediawiki", "wiki", "wikitext")} == {"mediawiki"}


def test_wiki_markup_becomes_markdown() -> None:
    text = mediawiki_to_markdown(PAGE)
    lines = text.splitlines()
    assert lines[:3] == ["- name: tidesrv", "- maintainer: Ada Quill", "tidesrv is the Python server of the harbour project."]
    assert "# Setup" in lines and "## Options" in lines  # a page's sections start at "=="
    assert "Install it with `pip install tidesrv`; see the site or https://example.net." in lines
    assert "- port: the port, default 6923" in lines and "  - nested item" in lines and "1. first step" in lines
    assert "- turn timer: ends the turn after a fixed time" in lines
    assert lines[lines.index("$ tidesrv --port 6923") - 1] == "```"  # a line indented by a space is code
    assert "Frame types" in lines and "| Name | Value |" in lines and "| Admin command | 1006 |" in lines
    assert lines[lines.index("gauge.read()") - 1] == "```"
    for markup in ("'''", "[[", "{{", "<ref", "Category", "__TOC__", "editors", "style="):
        assert markup not in text


def test_a_redirect_and_unbalanced_braces_read_as_text() -> None:
    assert mediawiki_to_markdown("#REDIRECT [[Tide tables]]\n") == "Redirects to Tide tables.\n"
    assert "== A ==" not in mediawiki_to_markdown("{{broken\n== A ==\ntext\n")  # still read, its heading a heading
    # one pass: no blow-up on hostile markup (unclosed comments too)
    assert_linear(mediawiki_to_markdown, lambda k: "{{" * 2 * k + "[[" * k + "'''" * k + "<!--" * k, 100_000)
    assert mediawiki_to_markdown("a <!-- hidden\nover lines --> b <!-- open") == "a  b <!-- open\n"


def test_sections_cut_the_chunks_and_the_title_is_the_page_name(tmp_path: Path) -> None:
    path = tmp_path / "Tide_Server.mediawiki"
    path.write_text(PAGE, encoding="utf-8")
    (doc,) = loaders.get("mediawiki")().load(path, source=path.name)
    assert doc.metadata["title"] == "Tide Server" and doc.metadata["markup"] == "markdown"
    chunks = MarkdownSplitter(chunk_size=200, chunk_overlap=0, unit="chars").split(doc)
    assert any("Frames" in c.metadata.get("heading", "") and "1006" in c.text for c in chunks)


def test_an_answer_from_a_wiki_table_is_its_row() -> None:
    """Read as text, the table was lines of "|" and "||" and "'''" that no sentence held; its row
    answers now."""
    text = mediawiki_to_markdown(PAGE)
    answer = extractive_answer("What is the value of the Admin command frame type?",
                               [Passage(1, text, {"source": "Tide_Server.mediawiki", "title": "Tide Server"})])
    assert "1006" in answer and "'''" not in answer
