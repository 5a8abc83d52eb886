"""GNU Texinfo sources (.texi): read with no extra package as Markdown-structured text, so sections
cut the chunks; @example blocks as fenced code, lists and tables as Markdown lists and rows,
definitions as headings, inline commands as their text or code spans; written by the test as
Texinfo manuals write it, about an invented tide-gauge program."""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.loaders.texinfo import TexinfoLoader, texinfo_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from tests.unit.linear_time import assert_linear

MANUAL = r"""\input texinfo   @c -*-texinfo-*-
@c %**start of header
@setfilename tidectl.info
@settitle The @command{tidectl} Manual
@set VERSION 2.4
@c %**end of header

@copying
This manual is for tidectl, the tide-gauge controller.
@end copying

@titlepage
@title tidectl
@end titlepage

@ifnottex
@node Top
@top tidectl

This manual documents @command{tidectl}, version @value{VERSION}.
@end ifnottex

@menu
* Gauges::        Reading tide gauges.
* Options::       Command options.
@end menu

@node Gauges
@chapter Reading Gauges
@cindex gauges
@findex read-gauge

A gauge reports the water level@footnote{Relative to chart datum.} every
minute.  @xref{Calibration}.  Run @code{tidectl read @var{file}} to read a
log @dots{} or see @uref{https://example.org, the site}. @c nobody reads this

@example
$ tidectl read --port @var{dev} @{"unit": "m"@}
mail@@example.org
@end example

@ignore
An ignored draft paragraph.
@end ignore

@tex
\hbox{TeX only}
@end tex

@node Options
@section Options

@table @code
@item --gauge-slots
@itemx -t
Raises the limit of open gauge slots (default 512).

A limit below 64 is refused.
@item --quiet
Prints nothing.
@end table

@printindex cp
@bye
"""


def load(path: Path):
    return list(TexinfoLoader().load(path, source=path.name))


def test_headings_and_title() -> None:
    text, title = texinfo_to_markdown(MANUAL)
    assert title == "The tidectl Manual"
    assert text.startswith("# tidectl\n")
    assert "\n# Reading Gauges\n" in text and "\n## Options\n" in text
    assert "version 2.4" in text


def test_the_top_node_titles_a_manual_without_settitle() -> None:
    assert texinfo_to_markdown("@top Tide Tables\n\nText.\n")[1] == "Tide Tables"
    assert texinfo_to_markdown("Just text.\n")[1] is None


def test_nodes_indexes_menus_comments_and_other_formats_are_left_out() -> None:
    text, _ = texinfo_to_markdown(MANUAL)
    assert re.findall(r"@\w+", text) == ["@example"]  # mail@@example.org's, and no command
    for gone in ("setfilename", "Top", "Gauges::", "read-gauge", "ignored draft", "TeX only",
                 "nobody reads", "This manual is for", "-*-", "\\input", "%**"):
        assert gone not in text, gone


def test_an_example_is_fenced_code_with_its_escapes_read() -> None:
    text, _ = texinfo_to_markdown(MANUAL)
    assert '```\n$ tidectl read --port dev {"unit": "m"}\nmail@example.org\n```' in text


def test_verbatim_is_kept_to_the_letter() -> None:
    text, _ = texinfo_to_markdown("@verbatim\n@code{x} @@ {\n@end verbatim\n")
    assert text == "```\n@code{x} @@ {\n```\n"


def test_itemize_and_enumerate_items_with_a_nested_list() -> None:
    text, _ = texinfo_to_markdown(
        "Tides:\n\n@itemize @bullet\n@item\nLow water.\n@item High water,\nat noon.\n\n"
        "A later paragraph.\n@itemize @minus\n@item spring tide\n@end itemize\n@end itemize\n\n"
        "@enumerate\n@item Mount the gauge.\n@item Start @command{tidectl}.\n@end enumerate\n")
    assert text.splitlines() == [
        "Tides:", "", "- Low water.", "- High water,", "at noon.", "", "  A later paragraph.", "",
        "  - spring tide", "", "1. Mount the gauge.", "1. Start `tidectl`.",
    ]


def test_a_table_item_and_its_itemx_are_one_line_joined_by_its_description() -> None:
    text, _ = texinfo_to_markdown(MANUAL)
    assert ("- `--gauge-slots`, `-t`:\nRaises the limit of open gauge slots (default 512).\n\n"
            "  A limit below 64 is refused.\n- `--quiet`:\nPrints nothing.\n") in text
    text, _ = texinfo_to_markdown("@table @asis\n@item Spring tide\nThe largest range.\n@end table\n")
    assert text == "- Spring tide:\nThe largest range.\n"


def test_a_multitable_becomes_table_rows() -> None:
    text, _ = texinfo_to_markdown("@multitable @columnfractions .3 .7\n@headitem Gauge @tab Site\n"
                                  "@item G1 @tab Bergen\n@item @code{G2}\n@tab Oslo | fjord\n@end multitable\n")
    assert text.splitlines() == ["| Gauge | Site |", "| --- | --- |", "| G1 | Bergen |", "| `G2` | Oslo \\| fjord |"]


def test_definitions_are_headings_below_their_section() -> None:
    text, _ = texinfo_to_markdown(
        "@section Commands\n@deffn Command read-gauge port @var{timeout}\n@deffnx Command read-gauges\n"
        "Reads a gauge.\n@end deffn\n\n@defun tide-height time &optional station\nReturns the height.\n"
        "@end defun\n@defvr {User Option} tide-interval\nThe interval.\n@end defvr\n")
    assert text.splitlines() == [
        "## Commands", "", "### Command: read-gauge port timeout", "", "### Command: read-gauges", "",
        "Reads a gauge.", "", "### Function: tide-height time &optional station", "", "Returns the height.", "",
        "### User Option: tide-interval", "", "The interval.",
    ]


def test_nested_inline_commands() -> None:
    text, _ = texinfo_to_markdown(MANUAL)
    assert "Run `tidectl read file` to read a\nlog ... or see the site." in text
    assert "water level (Relative to chart datum.) every" in text
    assert "See Calibration." in text
    text, _ = texinfo_to_markdown("See @pxref{Gauges, , Reading}, @email{ann@@example.org, Ann}, "
                                  "@code{@{x@}}, @samp{a`b}, Caf@'e, na@\"{i}ve, @acronym{NOAA}, @result{} 3.\n")
    assert text == "See see Gauges, Ann, `{x}`, `` a`b ``, Café, naïve, NOAA, => 3.\n"


def test_an_unclosed_block_and_unbalanced_braces_do_not_raise() -> None:
    text, _ = texinfo_to_markdown("@section Logs\nRun @code{tidectl log\n\n@example\nfoo @var{x\n")
    assert text.endswith("```\nfoo @var{x\n```\n")
    assert "Run @code{tidectl log" in text
    assert texinfo_to_markdown("@end itemize\n@item\n@itemx\n@tab x\n}}{{\n@deffn\n")[0] == "- }}{{\n"


def test_deep_nesting_of_braces_is_bounded() -> None:
    assert_linear(texinfo_to_markdown, lambda k: "@code{" * k, 100_000)
    assert_linear(texinfo_to_markdown, lambda k: "@code{" * k + "x" + "}" * k, 100_000)


def test_a_texinfo_file_loads_and_its_sections_cut_the_chunks(tmp_path: Path) -> None:
    path = tmp_path / "tidectl.texi"
    path.write_text(MANUAL, encoding="utf-8")
    assert isinstance(loaders.get("texinfo")(), TexinfoLoader)
    [doc] = load(path)
    assert doc.metadata["title"] == "The tidectl Manual"
    assert doc.metadata["mime"] == "text/x-texinfo" and doc.metadata["markup"] == "markdown"
    chunks = MarkdownSplitter(chunk_size=400, chunk_overlap=0, unit="chars").split(doc)
    options = [c for c in chunks if "--gauge-slots" in c.text]
    assert options and "Options" in options[0].metadata["headings"]


def test_the_offline_answerer_names_the_option_of_a_table_item() -> None:
    text, _ = texinfo_to_markdown(MANUAL)
    answer = extractive_answer("Which option raises the limit of open gauge slots?",
                               [Passage(1, text, {"source": "tidectl.texi", "heading": "Options"})])
    assert "--gauge-slots" in answer and "@" not in answer
