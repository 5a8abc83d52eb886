"""TiddlyWiki tiddlers (.tid): the title from the fields, the wikitext written out as Markdown so
an answer quotes text, not markup. The tiddlers are written by the test as a wiki's how-to pages
are, hostile ones too."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.loaders.tiddlywiki import split_fields, tiddlywiki_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear
from tests.unit.markdown_passages import markdown_passages

TIDDLER = """created: 20160817104110857
modified: 20211029090145708
tags: [[Harbour log]] Howto
title: Logging a tide
type: text/vnd.tiddlywiki

\\define note(text) <span class="note">$text$</span>
\\define long()
a macro over
several lines
\\end
Pressing the gauge icon {{$:/core/images/gauge}} opens the ''tide log'' (see [[Tide tables|Tides]]).

! Offline logging

Right of the gauge there is another icon, <<.icon $:/core/images/chevron-down>>, which gives you access to //four// kinds of reading:

* ''high'' water, in metres
** with its time
# Open the log
# Click [ext[Save|https://example.org/save]]
#> `https://tides.example.org/log`
<$edit-text tiddler="$:/temp/url" default="https://example.org/<port>/log" tag="input"/>
; Ebb
: The tide going out.

|!Port |!Code |
|Penwith |PNW |
|Harbour codes|c

<<<
The first rule: keep a copy of your ~TideLog.
<<<

```
''this'' stays [[as written]]
```
"""


def _load(tmp_path: Path, text: str, name: str = "Logging a tide.tid"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return next(iter(loaders.get("tiddlywiki")().load(path, source=name)))


def test_tid_files_go_to_the_tiddlywiki_loader() -> None:
    assert loader_name_for(Path("How to log.tid")) == "tiddlywiki"


def test_a_tiddler_reads_as_markdown_titled_by_its_field(tmp_path: Path) -> None:
    doc = _load(tmp_path, TIDDLER)
    assert doc.metadata["title"] == "Logging a tide" and doc.metadata["markup"] == "markdown"
    text = doc.text
    assert "created:" not in text and "\\define" not in text and "several lines" not in text
    assert text.startswith("Pressing the gauge icon opens the tide log (see Tide tables).")
    assert "# Offline logging" in text
    assert "gives you access to four kinds of reading:" in text
    assert ("- high water, in metres\n  - with its time\n1. Open the log\n1. Click Save\n"
            "  `https://tides.example.org/log`") in text  # a quote in an item is a line of it
    assert "edit-text" not in text and "<port>" not in text
    assert "- Ebb: The tide going out." in text
    assert "| Port | Code |\n| --- | --- |\n| Penwith | PNW |\nTable: Harbour codes" in text
    assert "> The first rule: keep a copy of your TideLog." in text
    assert "```\n''this'' stays [[as written]]\n```" in text
    for markup in ("''", "<<", "{{", "//four//", "[ext["):
        assert markup not in text.replace("''this'' stays", ""), markup


def test_a_markdown_tiddler_stays_as_written_and_an_image_tiddler_is_skipped(tmp_path: Path) -> None:
    doc = _load(tmp_path, "title: Notes\ntype: text/x-markdown\n\n# Notes\n\n''not bold here''\n", "Notes.tid")
    assert doc.text == "# Notes\n\n''not bold here''\n"
    with pytest.raises(LoaderError, match="image tiddler"):
        _load(tmp_path, "title: Logo\ntype: image/png\n\niVBORw0KGgo=\n", "Logo.tid")
    assert split_fields("No fields here.\n\nJust text.") == ({}, "No fields here.\n\nJust text.")


def test_the_answer_quotes_text_not_markup(tmp_path: Path) -> None:
    passages = markdown_passages(_load(tmp_path, TIDDLER).text, "Logging a tide.tid")
    answer = extractive_answer("How many kinds of reading does the dropdown next to the gauge icon give access to?",
                               passages)
    assert "four kinds of reading" in answer and "//four//" not in answer, answer


def test_hostile_wikitext_is_read_in_linear_time() -> None:
    """Unclosed marks, brackets and macros on long lines: each pattern is bounded and lazy."""
    for mark, n in (("''", 50_000), ("[[", 50_000), ("<<", 50_000), ("{{", 50_000), ("{{{", 30_000), ("//x", 50_000),
                    ("|a", 50_000), ("[img[", 30_000), ("<$x ", 30_000), ('<$x "', 30_000), ("__a", 50_000),
                    ("#>", 50_000), ("<!--", 100_000), ("\\define a()\n", 100_000)):
        assert_linear(tiddlywiki_to_markdown, lambda k, mark=mark: f"{mark * k}\n" * 4, n)
