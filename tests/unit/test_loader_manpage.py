"""Manual pages read as ``man`` shows them: sections are headings, options list items with their
tag, examples code, and no troff markup reaches the text; a paper written with the ms macros reads
as its typeset copy does (title, numbered headings, abstract, displays); each case from a page
written for it."""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.loaders.manpage import inline, is_troff, man_to_markdown
from ragkit.registry import loaders

KILN_1 = r""".\" Man page generated from reStructuredText
.de1 INDENT
. RS \\$1
. nr rst2man-indent-level +1
..
.TH "kiln-trim" "1" "2026-03-02" "" "kiln snapshot tool"
.SH NAME
kiln-trim \- Remove snapshots that the retention rules do not keep
.SH SYNOPSIS
.sp
kiln [common options] trim [options] [NAME]
.SH DESCRIPTION
.sp
Trim removes old snapshots. Disk space is freed only after \fBkiln sweep\fP runs \(em run
it \fIafterwards\fP\&.
.INDENT 0.0
.IP \(bu 2
\fBkeep\-all\fP: nothing is removed.
.UNINDENT
.SH OPTIONS
.TP
.BI \-\-keep\-weekly \ N
number of weekly snapshots to keep (default: 4)
.TP
.B \-n\fP,\fB  \-\-dry\-run
do not change the repository
.SS Environment
.TP
.B KILN_REPO
the repository, when \fB\-\-repo\fP is not given \" what users set most
.SH EXAMPLES
.EX
$ kiln trim \-\-keep\-weekly 8 \-\-dry\-run
.EE
.TS
tab(\t);
l l.
Code\tMeaning
0\tsuccess
.TE
"""

MDOC = r""".Dd March 2, 2026
.Dt KILNCTL 8
.Os
.Sh NAME
.Nm kilnctl
.Nd control the kiln daemon
.Sh OPTIONS
.Bl -tag -width Ds
.It Fl p Ar port
Listen on
.Ar port
instead of 7070.
.El
"""

MARKUP = re.compile(r"\\f[BIRP]|\\-|\\\(|^\.[A-Za-z]{1,4}\b|\\&", re.MULTILINE)


def test_a_man_page_reads_as_man_shows_it() -> None:
    text, title = man_to_markdown(KILN_1)
    assert title == "kiln-trim(1): Remove snapshots that the retention rules do not keep"
    assert MARKUP.search(text) is None, text
    assert "## DESCRIPTION" in text and "### Environment" in text
    assert "Disk space is freed only after kiln sweep runs — run it afterwards." in text
    assert "- --keep-weekly N: number of weekly snapshots to keep (default: 4)" in text
    assert "- -n, --dry-run: do not change the repository" in text
    assert "- KILN_REPO: the repository, when --repo is not given" in text and "what users set" not in text
    assert "- keep-all: nothing is removed." in text
    assert "```\n$ kiln trim --keep-weekly 8 --dry-run\n```" in text
    assert "0 | success" in text
    assert "rst2man" not in text and "RS" not in text


def test_a_bsd_mdoc_page_reads_too() -> None:
    text, title = man_to_markdown(MDOC)
    assert title == "KILNCTL(8): control the kiln daemon"
    assert "## OPTIONS" in text and "- -p port:" in text and "instead of 7070" in text
    assert "kilnctl" in text and "control the kiln daemon" in text


MDOC_NAMED = r""".Dd March 2, 2026
.Dt KILN-LOCK 8
.Os
.Sh NAME
.Nm "kiln lock" ,
.Nm "kiln unlock"
.Nd lock or unlock kilns
.Sh DESCRIPTION
.Nm
is used to keep a kiln from being fired.
In dry mode (without
.Fl n ) ,
nothing is locked; see
.Xr kiln.conf 5
for the defaults.
.Sh OPTIONS
The following options are supported by
.Nm :
.Bl -tag -width Ds
.It Fl a , Fl -all
Lock every kiln.
.It Fl -has-locked-kilns
Return 0 if at least one kiln is locked, 1 otherwise.
.It Fl x
Match the name as a regular expression
.Fl ( x ) .
.El
.Sh EXIT STATUS
.Ex -std
"""


def test_a_bare_nm_shows_the_pages_name_and_delimiters_are_set_as_man_sets_them() -> None:
    text, _ = man_to_markdown(MDOC_NAMED)
    assert "kiln lock, kiln unlock" in text
    assert "kiln lock is used to keep a kiln from being fired." in text
    assert "In dry mode (without -n), nothing is locked; see kiln.conf(5) for the defaults." in text
    assert "The following options are supported by kiln lock:" in text
    assert "- -a, --all: Lock every kiln." in text
    assert "- --has-locked-kilns: Return 0 if at least one kiln is locked, 1 otherwise." in text
    assert "regular expression (-x)." in text
    assert "## EXIT STATUS\n\nThe kiln lock utility exits 0 on success, and >0 if an error occurs." in text


def test_escapes_read_as_their_characters() -> None:
    assert inline(r"\fBa\fR\-b \(lqc\(rq \[em] d\e \*(lq") == "a-b “c” — d\\ "


def test_man_pages_go_to_the_man_page_loader_and_plain_text_stays_plain(tmp_path: Path) -> None:
    assert loader_name_for(Path("man/kiln-trim.1")) == "manpage"
    assert loader_name_for(Path("man3/Digest.3pm")) == "manpage"
    page = tmp_path / "kiln-trim.1"
    page.write_text(KILN_1, encoding="utf-8")
    [doc] = list(loaders.get("manpage")().load(page, source=page.name))
    assert doc.metadata["title"].startswith("kiln-trim(1)") and doc.metadata["markup"] == "markdown"
    notes = tmp_path / "release-notes.1"
    notes.write_text("Release 1\n\n...and more to come.\n.5 percent faster.\n", encoding="utf-8")
    assert not is_troff(notes.read_text())
    [doc] = list(loaders.get("manpage")().load(notes, source=notes.name))
    assert doc.text.startswith("Release 1") and ".5 percent faster." in doc.text


def test_a_build_template_of_a_man_page_is_a_man_page(tmp_path: Path) -> None:
    """``ip-netns.8.in``, the page a build fills in (``@NETNS_RUN_DIR@``), reads as the page it
    becomes. Before, its ``.in`` ending sent it to the generic reader, and its requests (``.TP``,
    ``.B``) were indexed and quoted as written. A template of no format ragkit reads stays so."""
    assert loader_name_for(Path("man/man8/kiln-trim.8.in")) == "manpage"
    assert loader_name_for(Path("config.h.in")) == loader_name_for(Path("config.h"))
    assert loader_name_for(Path("Makefile.in")) == loader_name_for(Path("Makefile.unknown-ending"))
    page = tmp_path / "kiln-trim.8.in"
    page.write_text(KILN_1.replace("kiln-trim", "kiln-trim @VERSION@"), encoding="utf-8")
    [doc] = list(loaders.get("manpage")().load(page, source=page.name))
    assert doc.metadata["markup"] == "markdown" and not re.search(r"^\.(?:TP|B|SH) ", doc.text, re.MULTILINE)


KILN_MS = r""".TL
Building Harbours with Kiln
.AU
Ada Quill
.AB
.CW Kiln
builds harbour charts in parallel.
.AE
.NH 1
Introduction
.PP
.CW Kiln\fR'\fPs
rules are read once [Quill87].
.NH 1
Parallel work
.PP
When possible,
.CW kiln
runs recipes in parallel.
The variable
.CW $NPROC
sets the maximum number of recipes running at once
.I "at one time" .
.EQ
delim $$
.EN
.P1
kiln -n chart
.P2
.NH 2
Archives
.LP
An archive is updated at the end.
.[
Quill87
.]
.SH
Appendix
.PP
Differences from make.
"""


def test_an_ms_paper_reads_as_its_typeset_copy() -> None:
    """``.TL`` is the title, ``.NH`` headings numbered as ms numbers them, ``.CW`` words text (with
    what follows them set against them), displays code, equations and references gone."""
    text, title = man_to_markdown(KILN_MS)
    assert title == "Building Harbours with Kiln"
    assert text.startswith("# Building Harbours with Kiln\n")
    assert "## Abstract\n\nKiln builds harbour charts in parallel." in text
    assert "## 1. Introduction\n\nKiln's rules are read once [Quill87]." in text
    assert "## 2. Parallel work" in text and "### 2.1. Archives" in text and "## Appendix" in text
    assert "The variable $NPROC sets the maximum number of recipes running at once at one time." in text
    assert "```\nkiln -n chart\n```" in text
    assert "delim" not in text and "\nQuill87" not in text and ".CW" not in text and ".NH" not in text
    assert loader_name_for(Path("doc/kiln.ms")) == "manpage" and is_troff(KILN_MS)
    unclosed, _ = man_to_markdown(".TL\nKiln\n.EQ\nx sup 2\n" + "x\n" * 300 + ".PP\nThe end of the paper.\n")
    assert "The end of the paper." in unclosed  # an equation never closed loses no more than its bound
    endless, _ = man_to_markdown(".TL\nKiln\n" + "A line of a paper that sends no other request.\n" * 50)
    assert endless.startswith("# Kiln A line") and endless.count("\n\n") >= 1  # a heading takes at most 4 lines


def test_random_troff_never_breaks_the_reader() -> None:
    import random

    rng = random.Random(7)
    pieces = [".TH", ".SH", ".TP", ".IP", ".B", ".BI", ".nf", ".fi", ".TS", ".TE", ".de", "..", ".It Fl", '.\\"',
              ".TL", ".NH", ".NH 9", ".CW", ".AB", ".EQ", ".EN", ".[", ".]", ".P1", ".P2",
              "\\f", "\\fB", "\\(", "\\[", "\\*(", "\\s+", "\\", '"', '""', "\t", " ", "\n", "word", "-", "."]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        out, title = man_to_markdown(text)
        assert isinstance(out, str) and (title is None or isinstance(title, str))
    long_line = ".TH x 1\n.B " + '""' * 50_000 + "\n" + "\\f" * 50_000 + "\n.TP\n" + "a " * 50_000
    assert man_to_markdown(long_line)[0]
