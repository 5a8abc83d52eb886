"""FictionBook e-books (.fb2): the annotation and bodies with chapters as headings, the book's
title and authors; written by the test as pandoc and e-book programs write it, hostile ones too."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from ragkit.types import Document

NS = 'xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" xmlns:l="http://www.w3.org/1999/xlink"'
BOOK = f"""<?xml version="1.0" encoding="utf-8"?>
<FictionBook {NS}>
 <description><title-info>
  <genre>unrecognised</genre>
  <author><first-name>Ann</first-name><last-name>Lind</last-name></author>
  <book-title>Harbour notes</book-title>
  <annotation><p>A year at the lighthouse.</p></annotation>
 </title-info><document-info><program-used>pandoc</program-used></document-info></description>
 <body>
  <section><title><p>Ferries</p></title>
   <p>The ferry to \u00c6r\u00f8sk\u00f8bing leaves at <emphasis>nine</emphasis><a l:href="#n1">[1]</a>.</p>
   <image l:href="#map.png"/>
   <table><tr><th>Port</th><th>Fare</th></tr><tr><td>Bergen</td><td>40</td></tr></table>
   <section><title><p>Winter</p></title><poem><stanza><v>Ice on the quay,</v><v>no boats today.</v></stanza>
    <text-author>Ann</text-author></poem></section>
  </section>
 </body>
 <body name="notes"><section id="n1"><title><p>1</p></title><p>Not on public holidays.</p></section></body>
 <binary id="map.png" content-type="image/png">{base64.b64encode(bytes(range(256)) * 4).decode()}</binary>
</FictionBook>
"""


def load(path: Path) -> list[Document]:
    return list(loaders.get("fb2")().load(path, source=path.name))


def write(tmp_path: Path, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / "book.fb2"
    path.write_bytes(text.encode(encoding))
    return path


def test_an_fb2_file_picks_the_fictionbook_loader() -> None:
    assert loader_name_for(Path("book.fb2")) == "fb2"


def test_the_book_text_with_chapters_as_headings_and_no_images(tmp_path: Path) -> None:
    [doc] = load(write(tmp_path, BOOK))
    assert doc.metadata["title"] == "Harbour notes" and doc.metadata["authors"] == ["Ann Lind"]
    assert doc.text.split("\n\n") == [
        "A year at the lighthouse.", "# Ferries", "The ferry to \u00c6r\u00f8sk\u00f8bing leaves at nine[1].",
        "Port | Fare", "Bergen | 40", "## Winter", "Ice on the quay,", "no boats today.", "Ann", "# 1",
        "Not on public holidays.\n",
    ]
    for gone in ("unrecognised", "pandoc", "iVBOR", "AAEC"):
        assert gone not in doc.text


def test_a_book_in_a_legacy_encoding_reads_by_its_declaration(tmp_path: Path) -> None:
    text = BOOK.replace('encoding="utf-8"', 'encoding="windows-1251"').replace("Harbour notes", "Записки")
    [doc] = load(write(tmp_path, text.replace("\u00c6r\u00f8sk\u00f8bing", "Бергена"), "windows-1251"))
    assert doc.metadata["title"] == "Записки" and "Бергена" in doc.text


def test_chapters_cut_the_chunks(tmp_path: Path) -> None:
    [doc] = load(write(tmp_path, BOOK))
    chunks = MarkdownSplitter(chunk_size=400, chunk_overlap=0, unit="chars").split(doc)
    winter = next(c for c in chunks if "Ice on the quay" in c.text)
    assert "ferry" not in winter.text and "Not on public holidays" not in winter.text


@pytest.mark.parametrize(("text", "reason"), [
    ("<FictionBook", "unreadable FictionBook file"),
    ("<?xml version='1.0'?><html><body><p>a web page</p></body></html>", "not a FictionBook file"),
    (f"<FictionBook {NS}><description/><body><section><title><p/></title></section></body></FictionBook>",
     "empty file"),
    ('<?xml version="1.0"?><!DOCTYPE b [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
     f"<FictionBook {NS}><body><p>&x;</p></body></FictionBook>", "empty file"),
])
def test_a_file_that_is_no_book_is_skipped_with_its_reason(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(LoaderError) as info:
        load(write(tmp_path, text))
    assert info.value.reason.startswith(reason)
    assert "book.fb2" in str(info.value)


def test_deep_nesting_is_refused_not_recursed(tmp_path: Path) -> None:
    deep = "<section>" * 5000 + "<p>deep</p>" + "</section>" * 5000
    with pytest.raises(LoaderError) as info:
        load(write(tmp_path, f"<FictionBook {NS}><body>{deep}</body></FictionBook>"))
    assert info.value.reason.startswith("unreadable FictionBook file")
