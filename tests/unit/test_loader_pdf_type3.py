"""A Type 3 font drawn by dvips is read with its glyph names as character codes, its widths in its
own units and a space of its own: before, pypdf wrote "/#0Cle" for "file" and split every word at a
kern ("Adv anced T ransaction Pro cessing"). The PDF is written for the test, in the shape of a 1995
technical report set in TeX and printed through dvips."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
)

from ragkit.loaders.pdf_fonts import map_type3_font
from ragkit.registry import loaders

WIDTH = 20  # every glyph's width in the font's own units (a bitmap font at 300 dpi)
FIRST = 11


def _names(text: str) -> list:
    """A dvips ``/Differences`` array: each glyph named by its own character code."""
    out: list = []
    for code in sorted({ord(c) for c in text}):
        out += [NumberObject(code), NameObject("/" + "".join(c if c.isalnum() else f"#{ord(c):02X}" for c in chr(code)))]
    return out


def type3_pdf(path: Path, content: bytes, drawn: str) -> Path:
    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    last = max(ord(c) for c in drawn)
    widths = [FloatObject(WIDTH if chr(c) in drawn else 0) for c in range(FIRST, last + 1)]
    procs = DictionaryObject()
    for c in drawn:
        proc = DecodedStreamObject()
        proc.set_data(b"20 0 0 0 20 20 d1")
        procs[NameObject("/" + "".join(ch if ch.isalnum() else f"#{ord(ch):02X}" for ch in c))] = writer._add_object(proc)
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type3"),
        NameObject("/FontMatrix"): ArrayObject([NumberObject(1), NumberObject(0), NumberObject(0), NumberObject(-1),
                                                NumberObject(0), NumberObject(0)]),
        NameObject("/FontBBox"): ArrayObject([NumberObject(0), NumberObject(-8), NumberObject(32), NumberObject(26)]),
        NameObject("/FirstChar"): NumberObject(FIRST), NameObject("/LastChar"): NumberObject(last),
        NameObject("/Widths"): ArrayObject(widths), NameObject("/CharProcs"): procs,
        NameObject("/Encoding"): DictionaryObject({NameObject("/Type"): NameObject("/Encoding"),
                                                   NameObject("/Differences"): ArrayObject(_names(drawn))}),
    })
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/T1"): writer._add_object(font)})})
    stream = DecodedStreamObject()
    stream.set_data(content)
    page[NameObject("/Contents")] = writer._add_object(stream)
    with path.open("wb") as f:
        writer.write(f)
    return path


def test_a_dvips_type3_font_reads_as_words(tmp_path: Path) -> None:
    # "Adv" is drawn, then the pen moves by its width (3 glyphs): no gap; a kern of 2 units between
    # "pro" and "cessing" is no gap either; 18 units are a word space; code 0x0C is the "fi" ligature
    content = (b"BT /T1 1 Tf 0.24 0 0 -0.24 72 700 Tm (Adv)Tj 60 0 TD [(anced)-18000(pro)-2000(cessing)"
               b"-18000(in)-18000(a)-18000(\x0cle)-18000(store,)-18000(di\x0berent)]TJ ET")
    pdf = type3_pdf(tmp_path / "report.pdf", content, "Advncedprosigal\x0c\x0bt,")
    [doc] = loaders.get("pdf")().load(pdf, source="report.pdf")
    assert "Advanced processing in a file store, different" in doc.text, doc.text


def test_a_type3_font_named_otherwise_is_left_to_pypdf() -> None:
    font = DictionaryObject({
        NameObject("/Subtype"): NameObject("/Type3"), NameObject("/FirstChar"): NumberObject(65),
        NameObject("/Widths"): ArrayObject([NumberObject(500)]),
        NameObject("/Encoding"): DictionaryObject({NameObject("/Differences"): ArrayObject(
            [NumberObject(65), NameObject("/g12")])}),
    })
    assert map_type3_font(font) == 0 and "/ToUnicode" not in font
