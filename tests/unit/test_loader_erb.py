"""Markdown written for other builders: Middleman's ``.html.md.erb`` pages (ERB tags filled from
the front matter or taken out), Quarto's ``.qmd`` and R Markdown's ``.Rmd`` (read as Markdown, not
plain text), a heading's attribute block (``{#id}``), which is no part of its title, and a Jekyll
site's kramdown attribute and extension lines (``{: .no_toc}``, ``{:toc}``), which are no text."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.loaders.erb import render_erb
from ragkit.loaders.markdown import MarkdownLoader

PAGE = """---
title: How to book a harbour survey
last_reviewed_on: 2026-06-30
---

# <%= current_page.data.title %>

<% if current_page.data.draft %>
## Booking {#booking}

Book the survey a month ahead. <%= partial "contact" %>
<% end %>
"""


def _load(path: Path) -> tuple[str, str]:
    (doc,) = MarkdownLoader().load(path, source=path.name)
    return doc.text, str(doc.metadata["title"])


def test_a_middleman_page_shows_its_title_and_text_without_tags_or_front_matter(tmp_path: Path) -> None:
    page = tmp_path / "harbour-survey.html.md.erb"
    page.write_text(PAGE, encoding="utf-8")
    assert loader_name_for(page) == "markdown"
    text, title = _load(page)
    assert title == "How to book a harbour survey"
    assert text.splitlines()[0] == "# How to book a harbour survey"
    assert "## Booking\n\nBook the survey a month ahead." in text
    assert "<%" not in text and "%>" not in text and "last_reviewed_on" not in text


def test_a_page_without_a_title_is_named_by_its_file(tmp_path: Path) -> None:
    """With no front-matter title and no ``#`` heading, a Middleman page is named without its
    three extensions, and a release's notes keep the dots of their version."""
    (tmp_path / "dns-hosting.html.md.erb").write_text("Host internal tools under one domain.\n", encoding="utf-8")
    (tmp_path / "2.44.0.md").write_text("Adds git replay.\n", encoding="utf-8")
    assert _load(tmp_path / "dns-hosting.html.md.erb")[1] == "dns-hosting"
    assert _load(tmp_path / "2.44.0.md")[1] == "2.44.0"


def test_quarto_and_r_markdown_are_markdown_and_heading_attributes_go(tmp_path: Path) -> None:
    for name in ("bikes.qmd", "bikes.Rmd"):
        page = tmp_path / name
        page.write_text("# Bike rentals {#bike-data}\n\nDaily counts of rented bikes.\n\n"
                        "## Notes {.unnumbered}\n\nA {#literal} brace stays.\n", encoding="utf-8")
        assert loader_name_for(page) == "markdown"
        text, title = _load(page)
        assert title == "Bike rentals"
        assert "## Notes\n" in text and "A {#literal} brace stays." in text


def test_erb_tags_are_read_in_one_pass_and_an_unclosed_tag_is_text() -> None:
    assert render_erb("a <% unclosed", {}) == "a <% unclosed"
    assert render_erb("<%= current_page.data[:title] %> and <%= other %>.", {"title": "T"}) == "T and ."
    # hostile pages: each tag is read from its "<%" to the next "%>" once (a scan per "<%" to the
    # end of the page took seconds on the first and minutes on longer ones)
    assert render_erb("<%" * 50_000, {}) == "<%" * 50_000
    assert render_erb("<%a%>\n" * 50_000 + "<%= " + "x" * 100_000, {}) == "<%= " + "x" * 100_000


def test_kramdown_attribute_and_extension_lines_go_outside_code(tmp_path: Path) -> None:
    page = tmp_path / "paho_dengue.md"
    page.write_text("# Harbour counts\n{: .no_toc}\n\n## Table of contents\n{: .no_toc .text-delta}\n\n1. TOC\n{:toc}\n\n"
                    "## Overview\n{: .no_toc }\n\nWeekly counts per harbour. A {: inline} brace stays.\n"
                    "{::options parse_block_html=\"true\" /}\n\n```liquid\n{: .kept-in-code}\n```\n", encoding="utf-8")
    text, title = _load(page)
    assert title == "Harbour counts"
    assert "no_toc" not in text and "{:toc}" not in text and "TOC" not in text and "::options" not in text
    assert "## Overview\n\nWeekly counts per harbour. A {: inline} brace stays." in text
    assert "{: .kept-in-code}" in text


def test_link_reference_definitions_are_left_out_and_footnotes_kept(tmp_path: Path) -> None:
    """A page shows nothing of ``[label]: url`` lines (a book's chapters end with dozens), so they
    are no text to answer from: "[REPL session]: {% link … %}" was quoted as an answer. A
    footnote's definition is text, and code keeps what it holds."""
    page = tmp_path / "worksheets.md"
    page.write_text("# Worksheets\n\nA worksheet has no [program entry point]; its statements run from top to "
                    "bottom.[^1]\n\n[program entry point]: {% link methods-main.md %}\n  [REPL]: https://tern.example/repl "
                    "\"The REPL\"\n[^1]: As in a REPL session.\n\n```ini\n[section]: kept in code\n```\n", encoding="utf-8")
    text, _ = _load(page)
    assert "{% link" not in text and "tern.example" not in text
    assert "A worksheet has no [program entry point]; its statements run from top to bottom.[^1]" in text
    assert "[^1]: As in a REPL session." in text and "[section]: kept in code" in text
