"""C-family sources documented in their comments (Javadoc, KDoc, Doxygen, C#'s XML and Rust's
``///``): written out with each documented declaration a heading, its comment as prose without
markers, tags or HTML, and the code fenced, so a sentence a comment states is one the answerer
quotes; a file without documentation comments stays code. The sources are invented for the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ragkit.loaders.doc_comments import doc_comments_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear
from tests.unit.markdown_passages import markdown_passages

JAVA = '''/*
 * Copyright (C) 2031 The Harbour authors.
 */
package org.harbour.tides;

import java.util.List;

/**
 * Reads tide gauges along the quay.
 *
 * <p>This class is <b>not</b> thread-safe: give each worker thread its own
 * {@code TideReader}, or lock on it yourself.
 *
 * <pre>{@code
 * TideReader reader = new TideReader("pier-3");
 * double height = reader.height();
 * }</pre>
 *
 * <ul>
 *   <li>Heights are in metres above chart datum.
 *   <li>Readings older than {@value #MAX_AGE} minutes are stale.
 * </ul>
 *
 * @author Ann Pilot
 * @since 2.1
 */
public final class TideReader implements AutoCloseable {
  /** How long a reading stays fresh, in minutes. */
  public static final int MAX_AGE = 45;

  private final String gauge; // "/** not a comment */" in a string: "{"

  /**
   * Opens the gauge named {@code gauge}. The default gauge is {@link Gauges#PIER_ONE the first pier}.
   *
   * @param gauge the gauge's name, such as {@code "pier-3"}; {@code null} means the first pier
   * @throws IllegalArgumentException if no gauge has that
   *     name
   */
  @Deprecated(since = "3.0")
  public TideReader(String gauge) {
    this.gauge = gauge == null ? "pier-1" : gauge;
  }

  /**
   * Returns the last height read, smoothed over {@code List<Double>} samples.
   *
   * @return the height in metres; never negative
   */
  public double height() {
    return 0.0;
  }

  @Override
  public void close() {}
}
'''


def written(source: str = JAVA, name: str = "TideReader", suffix: str = ".java") -> str:
    text = doc_comments_to_markdown(source, name, suffix)
    assert text is not None
    return text


def test_a_class_and_its_members_are_headings_with_their_comments_as_prose() -> None:
    text = written()
    assert text.startswith("# TideReader\n\n```java\n/*\n * Copyright (C) 2031 The Harbour authors.\n */\npackage")
    assert ("## public final class TideReader implements AutoCloseable\n\nReads tide gauges along the quay.\n\n"
            "This class is not thread-safe: give each worker thread its own\n`TideReader`, or lock on it yourself.\n") in text
    assert "### public static final int TideReader.MAX_AGE = 45\n\nHow long a reading stays fresh, in minutes.\n" in text
    assert "### public TideReader(String gauge)\n\nOpens the gauge named `gauge`. The default gauge is the first pier.\n" in text
    assert "### public double TideReader.height()\n" in text
    for code in ("public final class TideReader implements AutoCloseable {", '  @Deprecated(since = "3.0")',
                 "    return 0.0;", "  @Override\n  public void close() {}"):
        assert code in text  # nothing of the code is lost
    assert text.count("/**") == 1 and "{@" not in text  # the one in a string and "<p>" not in text and "\n *" not in text.split("package")[1]


def test_tags_html_and_examples_become_items_and_fenced_code() -> None:
    text = written()
    assert "\n- Author: Ann Pilot\n- Since: 2.1\n" in text
    assert ('- Parameter `gauge`: the gauge\'s name, such as `"pier-3"`; `null` means the first pier\n'
            "- Throws `IllegalArgumentException`: if no gauge has that name\n") in text
    assert "- Returns: the height in metres; never negative" in text
    assert "```\nTideReader reader = new TideReader(\"pier-3\");\ndouble height = reader.height();\n```" in text
    assert "- Heights are in metres above chart datum." in text
    assert "- Readings older than `#MAX_AGE` minutes are stale." in text
    assert "smoothed over `List<Double>` samples" in text  # a type's brackets are no HTML
    one_line = written("/**\n * Example:\n * <pre>{@code\n * new TideReader(null).close();\n * }</pre>\n */\nclass A {}\n")
    assert "```\nnew TideReader(null).close();\n```" in one_line


def test_comment_markers_in_strings_and_line_comments_are_code() -> None:
    text = written()
    assert 'private final String gauge; // "/** not a comment */" in a string: "{"' in text
    assert text.count("### ") == 3  # the string's "{" opened no scope, its "/**" no comment


def test_other_languages_doc_comments() -> None:
    csharp = written('''namespace Harbour {
    public class Ferry {
        /// <summary>Boards a passenger.</summary>
        /// <param name="ticket">The ticket, checked at the gangway.</param>
        /// <returns>The seat, or <c>null</c> when the ferry is full.</returns>
        /// <exception cref="System.InvalidOperationException">The ferry has left.</exception>
        public Seat Board(Ticket ticket) { return null; }
    }
}
''', "Ferry", ".cs")
    assert "#### public Seat Harbour.Ferry.Board(Ticket ticket)\n\nBoards a passenger.\n" in csharp
    assert "- Parameter `ticket`: The ticket, checked at the gangway." in csharp
    assert "- Returns: The seat, or `null` when the ferry is full." in csharp
    assert "- Throws `System.InvalidOperationException`: The ferry has left." in csharp
    rust = written('''//! Tide tables for the harbour.

/// The height at `hour`, in metres.
///
/// # Panics
///
/// When `hour` is 24 or more.
pub fn height<'a>(table: &'a Table, hour: u8) -> f64 {
    let quote = '"';
    0.0
}
''', "tides", ".rs")
    assert rust.startswith("# tides\n\nTide tables for the harbour.\n")
    assert "## pub fn height<'a>(table: &'a Table, hour: u8) -> f64\n\nThe height at `hour`, in metres.\n\n### Panics\n" in rust
    header = written('''#ifndef TIDES_H
/**
 * @brief Height of the tide.
 * @param[in] hour the hour, 0 to 23
 * @return metres above chart datum
 */
double tide_height(int hour);

/** Gauges the harbour has. */
#define TIDE_GAUGES 4
#endif
''', "tides", ".h")
    assert "## double tide_height(int hour)\n\nHeight of the tide.\n\n- Parameter `hour`: the hour, 0 to 23\n- Returns: metres above chart datum\n" in header
    assert "## #define TIDE_GAUGES 4\n\nGauges the harbour has.\n" in header


GO = """// Copyright 2031 The Harbour authors.

// Package tides reads the harbour's gauges.
//
// Heights are in metres; see [Reader], [*Gauge] and [example.com/sea.Level].
package tides

import "fmt"

const quote = `// not a comment {`

// DefaultWindow is how long a reading stays fresh.
const DefaultWindow = 45

// Reader reads one gauge. It is safe for concurrent use by
// several goroutines.
//
// Options it understands:
//   - [WithWindow] sets the window
//   - [WithGauge] picks the gauge
//
// For example:
//
//\tr := tides.NewReader("pier-3")
//\th := r.Height()
type Reader struct {
\t// gauge names the gauge the reader was opened on.
\tgauge string
}

func helper() {
\t// a comment inside a function is code
\tfmt.Println("x")
}
"""


def test_go_doc_comments_are_the_comments_right_above_top_level_declarations() -> None:
    text = written(GO, "tides", ".go")
    assert text.startswith("# tides\n\n```go\n// Copyright 2031 The Harbour authors.\n```\n\n"
                           "## package tides\n\nPackage tides reads the harbour's gauges.\n\n"
                           "Heights are in metres; see Reader, *Gauge and example.com/sea.Level.\n")
    assert "## const DefaultWindow = 45\n\nDefaultWindow is how long a reading stays fresh.\n" in text
    assert ("## type Reader struct\n\nReader reads one gauge. It is safe for concurrent use by\nseveral goroutines.\n\n"
            "Options it understands:\n- WithWindow sets the window\n- WithGauge picks the gauge\n\nFor example:\n\n"
            "```\nr := tides.NewReader(\"pier-3\")\nh := r.Height()\n```\n") in text
    assert "### Reader.gauge string\n\ngauge names the gauge the reader was opened on.\n" in text
    assert "\t// a comment inside a function is code" in text and text.count("\n## ") == 3
    assert "const quote = `// not a comment {`" in text  # a raw string opens no comment or scope


GO_MEMBERS = """package quay

// Berth is implemented by each mooring the harbour master assigns.
type Berth interface {
\t// Reserve holds the berth for a ship. It must return quickly, because the
\t// tide clock is stopped while Reserve is running.
\tReserve(ship string) error

\t// Release frees the berth. The range of slots it frees is inclusive.
\tRelease(first, last int) error
}

var (
\t// ErrFull is returned when every berth is taken.
\tErrFull = errors.New("quay is full")

\t// ErrClosed is returned once the harbour has closed for the night.
\tErrClosed = errors.New("harbour closed")
)

// Note: never renumber these, the numbers are written to the harbour log.
const (
\t// Moored is a ship tied up at a berth.
\tMoored State = iota
\t// Anchored is a ship waiting in the roads.
\tAnchored
)

func wait() {
\tcall(
\t\t// a comment in a call's arguments is code
\t\tx,
\t)
}
"""


def test_go_fields_methods_and_grouped_names_are_documented_by_the_comments_above_them() -> None:
    text = written(GO_MEMBERS, "quay", ".go")
    assert ("### Berth.Reserve(ship string) error\n\nReserve holds the berth for a ship. It must return quickly,"
            " because the\ntide clock is stopped while Reserve is running.\n") in text
    assert "### Berth.Release(first, last int) error\n\nRelease frees the berth. The range of slots it frees is inclusive.\n" in text
    assert ('## var\n\n```go\nvar (\n```\n\n- `ErrFull = errors.New("quay is full")`: '
            'ErrFull is returned when every berth is taken.\n') in text
    assert '- `ErrClosed = errors.New("harbour closed")`: ErrClosed is returned once the harbour has closed for the night.\n' in text
    assert ("## const\n\nNote: never renumber these, the numbers are written to the harbour log.\n\n```go\nconst (\n```\n\n"
            "- `Moored State = iota`: Moored is a ship tied up at a berth.\n\n- `Anchored`: Anchored is a ship waiting in the roads.\n") in text
    answer = extractive_answer("Why may the Moored and Anchored constants not be renumbered?",
                               markdown_passages(text, "quay.go", chunk_size=400))
    assert "written to the harbour log" in answer
    assert "\t\t// a comment in a call's arguments is code" in text
    answer = extractive_answer("When Release is called with first and last, is the last slot freed too?",
                               markdown_passages(text, "quay.go", chunk_size=400))
    assert "inclusive" in answer


def test_members_of_a_block_without_a_comment_are_headed_by_its_declaration() -> None:
    rust = written('''/// The largest tide on record.
pub const MAX_TIDE: f64 = 9.5;

impl<Tz: Zone> Tide<Tz> {
    /// The tide as a harbour notice.
    ///
    /// # Panics
    ///
    /// Panics if the height is negative or has more than 3 digits.
    pub fn notice(&self) -> String { String::new() }

    /// Only the harbour crate sees this.
    pub(crate) fn raw(&self) -> f64 { 0.0 }
}
''', "tide", ".rs")
    assert "## pub const MAX_TIDE: f64 = 9.5\n\nThe largest tide on record.\n" in rust
    assert ("## impl<Tz: Zone> Tide<Tz>\n\n```rust\nimpl<Tz: Zone> Tide<Tz> {\n```\n\n### pub fn Tide.notice(&self) -> String\n\n"
            "The tide as a harbour notice.\n\n#### Panics\n\nPanics if the height is negative") in rust
    assert "### pub(crate) fn Tide.raw(&self) -> f64\n" in rust
    passages = markdown_passages(rust, "tide.rs", chunk_size=400)
    notice = next(p for p in passages if "Panics if" in p.text)
    assert notice.meta["heading"].endswith("impl<Tz: Zone> Tide<Tz> > pub fn Tide.notice(&self) -> String > Panics")


def test_a_file_without_documentation_comments_is_read_as_it_is(tmp_path: Path) -> None:
    assert doc_comments_to_markdown("int main(void) {\n  /* a comment */\n  return 0; // done\n}\n", "main", ".c") is None
    assert doc_comments_to_markdown("/*************\n * banner\n *************/\nint x;\n", "x", ".c") is None
    assert doc_comments_to_markdown("/** Docs. */\nclass A {}\n", "A", ".lua") is None  # not a suffix it reads
    path = tmp_path / "Main.java"
    path.write_text("class Main { public static void main(String[] a) {} }\n", encoding="utf-8")
    [doc] = loaders.get("text")().load(path, source="Main.java")
    assert "markup" not in doc.metadata and doc.text.startswith("class Main")


def test_the_text_loader_writes_out_a_documented_source(tmp_path: Path) -> None:
    path = tmp_path / "TideReader.java"
    path.write_text(JAVA, encoding="utf-8")
    [doc] = loaders.get("text")().load(path, source="TideReader.java")
    assert doc.metadata["markup"] == "markdown" and doc.metadata["title"] == "TideReader"
    assert doc.text.startswith("# TideReader\n")


def test_an_answer_quotes_the_comment_that_states_it() -> None:
    passages = markdown_passages(written(), "TideReader.java", chunk_size=500)
    answer = extractive_answer("Can I share one TideReader between threads?", passages)
    assert "not thread-safe" in answer and "*" not in answer.split("[")[0]


@pytest.mark.parametrize("make", [
    lambda k: "/**" * 2 * k,
    lambda k: "/** " + "{@code " * k,
    lambda k: "/** " + "<pre>" * k + " */ class A {}",
    lambda k: "/** Doc. */\n" + "{" * k + "}" * k,
    lambda k: "/** Doc. */\nclass A " + '"' * 5 * k,
    lambda k: "/// Doc.\n" * k + "fn f() {}",
    lambda k: "/** " + "<a href=\"" * k + " */ int x;",
    lambda k: "/** Doc. */ " + "'" * 5 * k,
    lambda k: "/** " + "@param " * k + "*/ int x;",
    lambda k: "// Doc.\n" * k + "func f() {}\n",
    lambda k: "// Doc.\n//\t" + "x\n//\t" * k + "\ntype T int\n",
    lambda k: "// Doc.\nfunc f() " + "`" * (5 * k + 1),
    lambda k: "// [" * 2 * k + "\nvar x int\n",
    lambda k: "type T struct {\n" + "\t// Doc.\n\tA int\n" * (k // 2) + "}\n",
    lambda k: "var (\n" + "\t// Doc.\n" * k + "\tX = 1\n)\n",
    lambda k: "/// Doc.\nimpl" + "<" * k + " T {}",
    lambda k: "impl<T> A<T> {\n" * (k // 50) + "/// Doc.\nfn f() {}\n" * (k // 5),
    lambda k: "/// Doc.\nfn f() {}\n/// " + "# Panics #" * k + "\n",
])
def test_hostile_sources_are_written_out_in_linear_time(make: Callable[[int], str]) -> None:
    for suffix in (".java", ".go"):
        assert_linear(lambda source, suffix=suffix: doc_comments_to_markdown(source, "hostile", suffix), make, 100_000)
