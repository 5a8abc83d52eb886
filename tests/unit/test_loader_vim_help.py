"""Vim help files (a plugin's doc/*.txt): the text loader writes them out as Markdown-structured
text, headings from tagged lines and rules, examples as fenced code, links and tags as their text;
written by the test as a plugin's help file is written."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.vim_help import is_vim_help, vim_help_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear

HELP = """*tide.gauge.txt*  Read harbour gauges
*TideGauge*

MIT License Copyright (c) 2024 Ada Quill

==============================================================================
INTRODUCTION                                              *tide-gauge-intro*

- Reads every gauge of a harbour with |TideGauge.read()|.

Comparisons ~

- 'ada/vim-tides':
    - Main inspiration for reading, so they are mostly
      similar for this module.
    - Doesn't read across harbours, while this module does.

Options ~

Set 'tidegauge' to enable it. See *tide-gauge-options* for all.

------------------------------------------------------------------------------
                                                            *TideGauge.config*
                              `TideGauge.config`
Module config

Default values:
>lua
  TideGauge.config = {
    delay = {
      -- Delay between reading and showing all gauges
      show = 250,
    },
  }
<
TideGauge.read({opts})                                      *TideGauge.read()*
Reads the gauges. Example: >
    :lua TideGauge.read()
<
 vim:tw=78:ts=8:noet:ft=help:norl:
"""


def test_a_vim_help_file_is_told_from_other_text() -> None:
    assert is_vim_help(HELP)
    assert is_vim_help("Gauges\n\nSome text.\n\n vim:tw=78:ts=8:ft=help:norl:\n")
    assert not is_vim_help("*Important*: read the notes.\nNo modeline here.\n")


def test_help_markup_becomes_markdown() -> None:
    text, title = vim_help_to_markdown(HELP)
    lines = text.splitlines()
    assert title == "tide.gauge: Read harbour gauges"
    assert "## INTRODUCTION" in lines and "### TideGauge.config" in lines and "#### Options" in lines
    assert "### TideGauge.read({opts})" in lines
    assert "- Reads every gauge of a harbour with TideGauge.read()." in lines
    assert "See tide-gauge-options for all." in lines[lines.index("#### Options") + 2]
    assert lines[lines.index("  TideGauge.config = {") - 1] == "```lua"  # an example is code in its language
    assert lines[lines.index("    :lua TideGauge.read()") - 1] == "```"
    assert "`TideGauge.config`" in lines  # an indented line of prose, not an indented code block
    # a nested list keeps its indent, so it stays the item's: "Doesn't read across harbours" is about vim-tides
    assert lines[lines.index("- 'ada/vim-tides':") + 3] == "    - Doesn't read across harbours, while this module does."
    assert "vim:" not in text and "|" not in text and "===" not in text


def test_the_text_loader_writes_a_help_file_out(tmp_path: Path) -> None:
    path = tmp_path / "tide-gauge.txt"
    path.write_text(HELP, encoding="utf-8")
    (doc,) = loaders.get("text")().load(path, source=path.name)
    assert doc.metadata["title"] == "tide.gauge: Read harbour gauges" and doc.metadata["markup"] == "markdown"
    other = tmp_path / "notes.txt"
    other.write_text("*Important*: read the notes.\n", encoding="utf-8")
    (plain,) = loaders.get("text")().load(other, source=other.name)
    assert plain.text == "*Important*: read the notes.\n" and "markup" not in plain.metadata


def test_a_default_in_an_example_is_answered_with_its_comment() -> None:
    """Read as text, the example's lines were a paragraph of prose; as code, the line that sets the
    value is read with the comment above it."""
    text, title = vim_help_to_markdown(HELP)
    answer = extractive_answer("How long is the delay between reading and showing all gauges by default?",
                               [Passage(1, text, {"source": "tide-gauge.txt", "title": title or ""})])
    # before: "TideGauge.config = { delay = { -- Delay … show = 250, }, } < TideGauge.read({opts}) …"
    assert "```lua" in answer and "show = 250," in answer and "TideGauge.read({opts})" not in answer


def test_hostile_lines_are_read_in_linear_time() -> None:
    """A heading's patterns on a line of a million characters took time quadratic in its length
    (20,000 spaces: six seconds); a line longer than a heading can be is no heading."""
    for line in (lambda k: "*a* " * k + "x", lambda k: "a" + " " * 4 * k + "b", lambda k: "a" * 8 * k + ">"):
        assert_linear(vim_help_to_markdown, lambda k, line=line: f"*x.txt* t\n{line(k)}\n", 250_000)
