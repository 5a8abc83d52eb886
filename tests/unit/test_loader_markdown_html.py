"""HTML in Markdown read as the text it shows: a handbook page that writes its list of labels as
``<li><span style="…">`` lines is indexed and quoted as "- status:…" items, not as styles. Code,
autolinks and tags that are not HTML's stay as written. The page is written for the test, in the
shape of a maintainers' handbook where the labels were HTML."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.markdown_html import html_headings
from ragkit.registry import loaders

LABELS = (
    "# Issue labels\n\n"
    "Maintainers label every issue.\n\n"
    "<ul>\n"
    '<li><span style="font-family: monospace; font-weight: bold; background-color: #FFDFB2;">status:ask the board</span>\n'
    "  <ul>\n"
    "    <li><b>Hex code:</b> #FFDFB2</li>\n"
    "    <li><b>Long Description:</b> Keepers need advice from the Harbour Board &amp; its pilots.</li>\n"
    "  </ul>\n"
    "</li>\n"
    "</ul>\n"
    '<p align="center"><img src="logo.png"></p>\n'
)


def test_html_lists_in_markdown_become_items(tmp_path: Path) -> None:
    path = tmp_path / "labels.md"
    path.write_text(LABELS, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="labels.md")
    assert "style=" not in doc.text and "<" not in doc.text
    assert "- status:ask the board\n- Hex code: #FFDFB2\n" in doc.text
    assert "- Long Description: Keepers need advice from the Harbour Board & its pilots." in doc.text
    assert doc.text.rstrip().endswith("its pilots.")  # the logo's line leaves nothing


def test_code_autolinks_and_other_tags_stay_as_written() -> None:
    text = (
        "Run <b>now</b> `<li>x</li>` then replace <your-name> and see <https://example.org/a>.\n\n"
        "```html\n<li>fenced</li>\n```\n\n"
        "Indented:\n\n    <b>indented code</b>\n\n"
        "<table><tr><th>Tide</th><th>Height</th></tr><tr><td>High</td><td>4 m</td></tr></table>\n"
    )
    shown = html_headings(text)
    assert "Run now `<li>x</li>` then replace <your-name> and see <https://example.org/a>." in shown
    assert "<li>fenced</li>" in shown and "    <b>indented code</b>" in shown
    assert "Tide | Height\nHigh | 4 m" in shown.replace(" \n", "\n")


def test_a_line_of_unmatched_backticks_costs_its_length() -> None:
    """Code spans are found in one pass: a regular expression took time squared on this line."""
    line = "<b>x</b> " + "`" * 100_000 + " <i>y</i>"
    assert html_headings(line).endswith("` y")


CHAPTER = (
    "<!--\nThis page is part of the Lamplighter book project.\nLicensed under the Keeper Licence v2.\n-->\n\n"
    "# Wick Trimming\n\n"
    "Trim the wick before each lighting.\n\n"
    "```sh\nwick trim --all\n```\n\n"
    "<!--\n  - test: `wickTrimWillFail`\n\n  ```shtest\n  -> wick trim --none\n  ```\n-->\n\n"
    "A trimmed wick <!-- see the 1998 survey --> burns evenly.\n\n"
    "```html\n<!-- a comment in code stays -->\n```\n\n"
    "Never closed <!-- here\nthe rest stays.\n"
)


def test_html_comments_show_nothing(tmp_path: Path) -> None:
    """A book's licence header and its hidden test listings are comments: not indexed, embedded or
    quoted. One in code stays; an unclosed one loses nothing."""
    path = tmp_path / "wicks.md"
    path.write_text(CHAPTER, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="wicks.md")
    assert "Licence" not in doc.text and "wickTrimWillFail" not in doc.text and "shtest" not in doc.text
    assert "A trimmed wick  burns evenly." in doc.text and "survey" not in doc.text
    assert "wick trim --all" in doc.text and "<!-- a comment in code stays -->" in doc.text
    assert "Never closed <!-- here\nthe rest stays." in doc.text
    assert doc.metadata["title"] == "Wick Trimming"


def test_comments_cost_the_texts_length() -> None:
    """Hostile comments are read in one pass: 50,000 lines that each open a comment nothing
    closes (each had searched the rest of the file), and one line of 50,000 comments between
    code spans (each had found the line's code spans again)."""
    unclosed = "Keep this line <!-- never closed\n" * 50_000
    assert html_headings(unclosed) == unclosed
    crowded = "`<!-- code -->` <!-- a --> word " * 50_000
    shown = html_headings(crowded)
    assert shown.count("`<!-- code -->`") == 50_000 and "<!-- a -->" not in shown and shown.count("word") == 50_000
    spanning = "Text before <!-- opens\n" + "hidden line\n" * 10 + "closes --> text after.\n"
    assert html_headings(spanning) == "Text before \n text after.\n"


WRAPPED_CHAPTER = (
    "# Scanning\n\n"
    "Consider a variable named `orchid`. This brings us to a principle called <span\n"
    'name="greedy">**greedy matching**</span>. The longest match wins.\n\n'
    '<aside name="greedy">\n\n'
    "Some call it the <cite\n"
    'class="term"\n'
    'lang="en">longest match rule</cite>.\n\n'
    "</aside>\n\n"
    "A comparison such as a < b stays, and so does a <span at a line's end\n\n"
    "before a blank line.\n"
)


def test_a_tag_one_line_opens_and_the_next_closes_is_taken_out(tmp_path: Path) -> None:
    """A book wrapped at 80 columns leaves ``<span`` at one line's end and ``name="greedy">`` at
    the next's start; an ``<aside>`` holds a margin note. Before: both tags were indexed and
    quoted as written."""
    path = tmp_path / "scanning.md"
    path.write_text(WRAPPED_CHAPTER, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="scanning.md")
    assert "principle called **greedy matching** . The longest match wins." in doc.text
    assert "Some call it the longest match rule ." in doc.text
    assert "name=" not in doc.text and "aside" not in doc.text and "class=" not in doc.text
    assert "a < b stays, and so does a <span at a line's end" in doc.text  # no tag: the next line is blank


def test_a_line_break_in_a_pipe_table_cell_keeps_the_row_whole(tmp_path: Path) -> None:
    """A generated registry page puts a badge and a note in one cell with ``<br>``: the row stays
    one line, so the table's cells stay under their columns; outside a table ``<br>`` ends a line."""
    path = tmp_path / "tide.md"
    path.write_text(
        "# Tide\n\n## Deprecated Tide Attributes\n\n"
        "| Key | Stability | Value Type | Description |\n| --- | --- | --- | --- |\n"
        '| <a id="tide-gauge-kind" href="#tide-gauge-kind">`tide.gauge.kind`</a> | '
        "![Deprecated](https://img.shields.io/badge/-deprecated-red)<br>Split to `tide.sensor` and `tide.float`. "
        "| string | Deprecated, use `tide.sensor` and `tide.float`. |\n\n"
        "Gauges are read hourly.<br>Floats are read daily.\n",
        encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="tide.md")
    row = next(line for line in doc.text.split("\n") if "tide.gauge.kind" in line)
    assert row.startswith("| `tide.gauge.kind` |") and row.rstrip().endswith("|")
    assert "Split to `tide.sensor` and `tide.float`. | string |" in row
    assert "Gauges are read hourly.\nFloats are read daily." in doc.text
