"""A PDF's embedded Type 1 font is read by the encoding the PDF declares for it (a base encoding
and its differences), not by the font program's own: a subset font numbers its glyphs in the order
they were used, so its built-in encoding puts a letter where the PDF's text has a period. The PDF
is written for the test, in the shape of a 2004 conference paper where the text read "data sets”
Users specify …" and "takes PPx longer"."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject, NumberObject

from ragkit.loaders.pdf_fonts import declared_encoding
from ragkit.registry import loaders

#: the clear part of a Type 1 font program whose built-in encoding numbers its glyphs by first use
#: (only the part pypdf reads: the encoding before ``eexec``)
SUBSET_PROGRAM = (b"%!PS-AdobeFont-1.0: ABCDEF+Times-Roman\n/FontName /ABCDEF+Times-Roman def\n"
                  b"/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n"
                  b"dup 46 /quotedblright put\ndup 44 /W put\ndup 37 /P put\nreadonly def\ncurrentfile eexec\n")


def subset_font_pdf(path: Path, text: bytes, *, differences: list, base: str | None = "/WinAnsiEncoding") -> Path:
    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    program = DecodedStreamObject()
    program.set_data(SUBSET_PROGRAM)
    descriptor = DictionaryObject({
        NameObject("/Type"): NameObject("/FontDescriptor"), NameObject("/FontName"): NameObject("/ABCDEF+Times-Roman"),
        NameObject("/Flags"): NumberObject(34), NameObject("/FontFile"): writer._add_object(program),
    })
    encoding = DictionaryObject({NameObject("/Type"): NameObject("/Encoding"),
                                 NameObject("/Differences"): ArrayObject(differences)})
    if base:
        encoding[NameObject("/BaseEncoding")] = NameObject(base)
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/ABCDEF+Times-Roman"), NameObject("/Encoding"): encoding,
        NameObject("/FontDescriptor"): writer._add_object(descriptor),
    })
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})
    content = DecodedStreamObject()
    content.set_data(b"BT /F1 11 Tf 72 700 Td (" + text + b") Tj ET")
    page[NameObject("/Contents")] = writer._add_object(content)
    with path.open("wb") as f:
        writer.write(f)
    return path


def test_the_declared_encoding_wins_over_the_subset_fonts_own(tmp_path: Path) -> None:
    words = b"Users specify a map function, as shown in the paper. The sort takes 44% longer without backup tasks."
    pdf = subset_font_pdf(tmp_path / "paper.pdf", words,
                          differences=[NumberObject(37), NameObject("/percent"), NumberObject(44), NameObject("/comma"),
                                       NameObject("/hyphen"), NameObject("/period")])
    [doc] = loaders.get("pdf")().load(pdf, source="paper.pdf")
    assert "Users specify a map function, as shown in the paper. The sort takes 44% longer" in doc.text, doc.text


def test_a_font_whose_differences_name_no_character_is_left_to_its_program() -> None:
    assert declared_encoding("/WinAnsiEncoding", [46, "/g12"]) is None  # "/g12" means something only to the font
    assert declared_encoding("", [46, "/period"]) is None  # no base: the font program's own encoding is the base
    codes = declared_encoding("/WinAnsiEncoding", [NumberObject(46), NameObject("/fi")])
    assert codes is not None and codes[46] == "ﬁ" and codes[0x41] == "A" and codes[0xAD] == "-"
