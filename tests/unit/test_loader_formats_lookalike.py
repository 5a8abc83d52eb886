"""Formats that look like others: a Sphinx project's ``.txt`` sources are reStructuredText, and an
mdBook chapter's include directives are replaced by what they name (or dropped)."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.markdown import MarkdownLoader
from ragkit.loaders.mdbook import MAX_INCLUDE_BYTES
from ragkit.loaders.text import TextLoader

SESSIONS = """\
========
Sessions
========

.. setting:: SESSION_COOKIE_AGE

``SESSION_COOKIE_AGE``
----------------------

The age of session cookies, in seconds. See :class:`~django.contrib.sessions.backends.base.SessionBase`.

Default: ``1209600`` (2 weeks, in seconds)
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_a_sphinx_projects_txt_sources_are_read_as_restructuredtext(tmp_path: Path) -> None:
    _write(tmp_path, {"docs/conf.py": "project = 'x'\n", "docs/index.txt": "Index\n=====\n\nHello.\n",
                      "docs/topics/http/sessions.txt": SESSIONS})
    doc = next(TextLoader().load(tmp_path / "docs/topics/http/sessions.txt", source="topics/http/sessions.txt"))
    assert ":class:" not in doc.text and "``" not in doc.text
    assert "SessionBase" in doc.text and "1209600" in doc.text
    assert doc.metadata["mime"] == "text/x-rst" and doc.metadata["title"] == "Sessions"


def test_a_txt_file_outside_a_sphinx_project_stays_plain_text(tmp_path: Path) -> None:
    _write(tmp_path, {"notes/sessions.txt": SESSIONS, "notes/conf.py": "x = 1\n"})  # conf.py, no Sphinx
    doc = next(TextLoader().load(tmp_path / "notes/sessions.txt", source="sessions.txt"))
    assert doc.text == SESSIONS and doc.metadata["mime"] == "text/plain"


LISTING = """\
use std::io;

// ANCHOR: main
fn main() {
    println!("Guess the number!");
}
// ANCHOR_END: main
"""


def _chapter(tmp_path: Path, body: str) -> str:
    _write(tmp_path, {"book/book.toml": "[book]\ntitle = 'x'\n", "book/listings/ch02/main.rs": LISTING,
                      "book/src/intro.md": "Shared *intro* text.\n{{#include ch02.md}}\n", "book/src/ch02.md": body,
                      "secret.txt": "TOP SECRET\n"})
    return next(MarkdownLoader().load(tmp_path / "book/src/ch02.md", source="ch02.md")).text


def test_mdbook_includes_are_resolved_against_the_book(tmp_path: Path) -> None:
    text = _chapter(tmp_path, "# Guessing\n\n```rust\n{{#rustdoc_include ../listings/ch02/main.rs:main}}\n```\n\n"
                              "```rust\n{{#include ../listings/ch02/main.rs:1:1}}\n```\n\n{{#include intro.md}}\n")
    assert "{{#" not in text and "ANCHOR" not in text
    assert 'fn main() {\n    println!("Guess the number!");\n}' in text
    assert "```rust\nuse std::io;\n```" in text
    assert "Shared *intro* text." in text  # a loop (intro.md includes ch02.md) stops: no file read twice
    escaped = _chapter(tmp_path, "Write `\\{{#include file.rs:2:5}}` to include lines 2 to 5.\n")
    assert "Write `{{#include file.rs:2:5}}` to include lines 2 to 5." in escaped


def test_mdbook_includes_that_cannot_be_resolved_are_dropped(tmp_path: Path) -> None:
    (tmp_path / "big.rs").parent.mkdir(exist_ok=True)
    _write(tmp_path, {"book/src/big.rs": "x" * (MAX_INCLUDE_BYTES + 1)})
    text = _chapter(tmp_path, "# Guessing\n\n{{#include ../../secret.txt}}\n{{#include missing.rs}}\n"
                              "{{#include ../listings/ch02/main.rs:nowhere}}\n{{#include big.rs}}\nEnd.\n")
    assert "SECRET" not in text and "{{#" not in text and "xxxx" not in text and "fn main" not in text
    assert text.strip().endswith("End.")
