"""A PDF whose words are parted by shifts in TJ arrays, in a subset composite font with no space
glyph (as TeX writes a journal article), is read with its words apart: pypdf measures the font's
space by the glyph at code 32, a letter here, and would run the words of a tight line together
("originallycompiledwiththeg77compiler"). The PDF is written for the test, in the shape of a
replication article."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

from ragkit.loaders.pdf_word_gaps import _letter_spaced, glued_share
from ragkit.registry import loaders

LINES = [
    "The model of the tidal basin was first written in Fortran seventy seven",
    "and originally compiled with the g77 compiler on a workstation of the lab",
    "before its authors moved the whole simulation to a cluster of machines",
    "where each run of the flood scenarios took about three hours to complete",
    "and the results were archived together with the scripts that drew figures",
]
WORD_GAP = -211  # a tight line's gap between two words, in thousandths of an em
KERN = -15  # a small kern inside a word
PLACED_GAP = 300  # the gap before a word set at a position of its own, in thousandths of an em (a tight line's)


def composite_font_pdf(path: Path, lines: list[str], *, placed: bool = False) -> Path:
    """The PDF of ``lines``; ``placed``: each word set at a position of its own (a text object
    and a text matrix each, as some office suites write), the gap between words in the
    positions alone, else one ``TJ`` array a line."""
    chars = sorted({c for line in lines for c in line if c != " "})
    cid = {c: 20 + i for i, c in enumerate(chars)}  # a subset numbers its glyphs: code 32 is a letter
    assert 32 in cid.values()
    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    to_unicode = DecodedStreamObject()
    pairs = "\n".join(f"<{n:04X}> <{ord(c):04X}>" for c, n in cid.items())
    to_unicode.set_data((
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n"
        f"{len(cid)} beginbfchar\n{pairs}\nendbfchar\nendcmap\n"
        "CMapName currentdict /CMap defineresource pop\nend\nend\n").encode())
    widths = ArrayObject([NumberObject(20), ArrayObject([NumberObject(660 if n == 32 else 480) for n in cid.values()])])
    descriptor = DictionaryObject({
        NameObject("/Type"): NameObject("/FontDescriptor"), NameObject("/FontName"): NameObject("/ABCDEF+Serif-Light"),
        NameObject("/Flags"): NumberObject(4), NameObject("/Ascent"): NumberObject(900),
        NameObject("/Descent"): NumberObject(-250), NameObject("/CapHeight"): NumberObject(700),
        NameObject("/ItalicAngle"): NumberObject(0), NameObject("/StemV"): NumberObject(80),
        NameObject("/FontBBox"): ArrayObject([NumberObject(v) for v in (-200, -250, 1000, 900)]),
    })
    cid_font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/CIDFontType2"),
        NameObject("/BaseFont"): NameObject("/ABCDEF+Serif-Light"), NameObject("/DW"): NumberObject(500),
        NameObject("/W"): widths, NameObject("/FontDescriptor"): writer._add_object(descriptor),
        NameObject("/CIDSystemInfo"): DictionaryObject({
            NameObject("/Registry"): TextStringObject("Adobe"), NameObject("/Ordering"): TextStringObject("Identity"),
            NameObject("/Supplement"): NumberObject(0)}),
    })
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type0"),
        NameObject("/BaseFont"): NameObject("/ABCDEF+Serif-Light"), NameObject("/Encoding"): NameObject("/Identity-H"),
        NameObject("/DescendantFonts"): ArrayObject([writer._add_object(cid_font)]),
        NameObject("/ToUnicode"): writer._add_object(to_unicode),
    })
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F5"): writer._add_object(font)})})
    ops = [] if placed else ["BT /F5 9 Tf 72 700 Td"]
    if placed:  # each glyph moved to by ``TD`` in units of a text matrix that scales a large font down
        ops.append("1 0 0 -1 0 792 cm")
    for k, line in enumerate(lines * placed):
        x = 72.0
        for word in line.split():
            glyphs = f" {480 * 0.18:.1f} 0 TD ".join(f"<{cid[c]:04X}>Tj" for c in word)
            ops.append(f"BT /F5 180 Tf 0.05 0 0 -0.05 {x:.2f} {92 + 11 * k} Tm {glyphs} ET")
            x += 9 * (0.48 * len(word) + PLACED_GAP / 1000)
    for k, line in enumerate(lines * (not placed)):
        parts = []
        for word in line.split():
            half = len(word) // 2  # a kern inside each longer word, as a typesetter puts them
            pieces = [word[:half], word[half:]] if half > 1 else [word]
            parts.append(f" {KERN} ".join("<" + "".join(f"{cid[c]:04X}" for c in p) + ">" for p in pieces))
        ops.append(("" if k == 0 else "0 -11 Td ") + "[" + f" {WORD_GAP} ".join(parts) + "] TJ")
    ops += [] if placed else ["ET"]
    content = DecodedStreamObject()
    content.set_data("\n".join(ops).encode())
    page[NameObject("/Contents")] = writer._add_object(content)
    with path.open("wb") as f:
        writer.write(f)
    return path


def test_words_parted_by_shifts_in_a_font_without_a_space_are_read_apart(tmp_path: Path) -> None:
    pdf = composite_font_pdf(tmp_path / "article.pdf", LINES)
    [doc] = loaders.get("pdf")().load(pdf, source="article.pdf")
    for line in LINES:
        assert line in doc.text, doc.text
    assert glued_share(doc.text) == 0.0


def test_glued_words_are_told_from_long_words_and_names() -> None:
    assert glued_share("originallycompiledwiththecompiler on a workstation") > 0.5
    assert glued_share("internationalization of the ScaledBalanceTokenBase and GAGGACGCATGTATTGTGCTGGC") == 0.0
    assert glued_share("") == 0.0


def test_a_code_listing_set_in_fixed_columns_keeps_its_shifts() -> None:
    assert _letter_spaced([b"p", -180, b"a", -180, b"r", -180, b"a", -180, b"l", -180, b"l", -180, b"e", -180, b"l"])
    assert not _letter_spaced([b"matched", -211, b"circles", -211, b"in", -211, b"the", -15, b"cosmic"])


def test_words_each_set_at_a_position_of_their_own_are_read_apart(tmp_path: Path) -> None:
    """No TJ array holds the gaps: each word is its own text object, so the page is read by the
    positions of its glyphs (a vendor's application note: "By thisway,theamountofdatatransmitted")."""
    pdf = composite_font_pdf(tmp_path / "note.pdf", LINES, placed=True)
    [doc] = loaders.get("pdf")().load(pdf, source="note.pdf")
    assert glued_share(doc.text) == 0.0, doc.text
    read = set(doc.text.split())
    # positions are read on a grid of characters: a gap narrower than a cell may still join a pair
    joined = [word for line in LINES for word in line.split() if word not in read]
    assert len(joined) <= 2, doc.text
