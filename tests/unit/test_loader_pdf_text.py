"""PDF text: ligatures of embedded CFF fonts extracted and normalized, pages of symbol soup left out."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
import tomllib
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.errors import LoaderError
from ragkit.loaders.textcheck import garbage_reason
from ragkit.registry import loaders
from ragkit.testing.fuzz_seeds import helvetica_page_pdf, pdf_file

ROOT = Path(__file__).resolve().parents[2]
SOUP = "!\"#$%&'()*+,-./ 0#3G+G(3#3/@1 %*#! 7&(#@ $%3G <=>?@ [\\]^_` {|}~ +,-./:;<=>?@ " * 6
WORDS = "The lighthouse at Alpha Point was built in 1871 and its lamp turns twice a minute. "


def cff_ligature_font() -> bytes:
    """A CFF (Type1C) font whose built-in encoding puts the fi and fl ligatures at 0x0C and 0x0D,
    as LaTeX's OT1 fonts do; the PDF gives no ToUnicode map, so only the font itself says what
    those codes are (pypdf reads it with fontTools)."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.t2CharStringPen import T2CharStringPen

    letters = sorted(set("significantlyfiveactivereplicasofthefilesandflows"))
    glyphs = [".notdef", "space", "fi", "fl", *letters]

    def box():  # type: ignore[no-untyped-def]
        pen = T2CharStringPen(500, None)
        pen.moveTo((50, 0))
        pen.lineTo((450, 0))
        pen.lineTo((450, 700))
        pen.closePath()
        return pen.getCharString()

    fb = FontBuilder(1000, isTTF=False)
    fb.setupGlyphOrder(glyphs)
    fb.setupCharacterMap({})
    fb.setupCFF("LigTest", {"FullName": "LigTest"}, {g: box() for g in glyphs}, {})
    cff = fb.font["CFF "].cff
    encoding = [".notdef"] * 256
    encoding[0x0C], encoding[0x0D], encoding[0x20] = "fi", "fl", "space"
    for g in letters:
        encoding[ord(g)] = g
    cff.topDictIndex[0].Encoding = encoding
    out = io.BytesIO()
    cff.compile(out, fb.font)
    return out.getvalue()


def ligature_pdf(path: Path, text: bytes) -> Path:
    font = cff_ligature_font()
    content = b"BT /F1 12 Tf 72 720 Td (" + text + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /LigTest /FontDescriptor 6 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /FontDescriptor /FontName /LigTest /Flags 4 /FontBBox [0 0 500 700] /ItalicAngle 0 "
        b"/Ascent 700 /Descent 0 /CapHeight 700 /StemV 80 /FontFile3 7 0 R >>",
        b"<< /Subtype /Type1C /Length %d >>\nstream\n" % len(font) + font + b"\nendstream",
    ]
    path.write_bytes(pdf_file(objects))
    return path


def pages_pdf(path: Path, pages: list[str]) -> Path:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path


def load(path: Path) -> list:  # type: ignore[type-arg]
    return list(loaders.get("pdf")().load(path, source=path.name))


def test_fonttools_is_a_core_dependency() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert any(d.lower().startswith("fonttools") for d in deps)  # without it the ligature codes vanish


def test_ligatures_of_an_embedded_cff_font_are_read_and_normalized(tmp_path: Path) -> None:
    path = ligature_pdf(tmp_path / "paper.pdf", b"signi\x0ccantly \x0cve active replicas of the \x0cles and \x0dows")
    [doc] = load(path)
    assert doc.text == "significantly five active replicas of the files and flows"  # not "signicantly", not "ﬁles"


def test_bm25_finds_files_in_text_with_ligature_characters() -> None:
    pytest.importorskip("bm25s")
    from ragkit.retrieval.bm25 import BM25Index
    from ragkit.stores.base import SinkRecord

    index = BM25Index()
    index.upsert([SinkRecord("a", "Keep the ﬁles in the ﬂat folder.", None, {"source": "a.md"}),
                  SinkRecord("b", "Nothing of the kind here.", None, {"source": "b.md"})])
    assert [h.id for h in index.search("files flat", k=2)] == ["a"]


def test_a_page_of_symbol_soup_is_left_out_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = pages_pdf(tmp_path / "mixed.pdf", [WORDS * 3, SOUP, WORDS + "The ferry sails on Tuesdays. " * 3])
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders.pdf"):
        docs = load(path)
    assert [d.metadata["page"] for d in docs] == [1, 3]
    assert "left out 1 page(s) whose text is mostly not words" in caplog.text and "page 2" in caplog.text
    assert str(path) in caplog.text


def test_a_pdf_of_garbage_is_skipped_with_the_reason_not_indexed(tmp_path: Path) -> None:
    docs = tmp_path / "papers"
    docs.mkdir()
    garbage = pages_pdf(docs / "garbage.pdf", [SOUP] * 4)
    pages_pdf(docs / "good.pdf", [WORDS * 2])
    with pytest.raises(LoaderError, match=r"all 4 page\(s\) with text is not words .*OCR") as info:
        load(garbage)
    assert str(garbage) in str(info.value)
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 32},
                                "store": {"type": "memory"}, "retriever": {"type": "dense"},
                                "ocr": "never"}), encoding="utf-8")
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"])
    report = json.loads(run.stdout)
    assert report["added"] == ["good.pdf"]
    assert [(s["source"], "OCR" in s["reason"]) for s in report["skipped"]] == [("garbage.pdf", True)]


@pytest.mark.parametrize("text", [
    WORDS * 2,
    "for i in range(10):\n    print(i, x[i] ** 2)\nresult = {k: v for k, v in items.items() if v > 0}\n" * 2,
    "Year Revenue Cost Margin\n2019 1,204.5 980.1 18.6%\n2020 1,310.2 1,001.0 23.6%\n2021 1,455.9 1,120.4 23.0%",
    "Let x ∈ ℝ and f(x) = ∑_{i=1}^{n} α_i x^i. Then f'(x) = ∑ i α_i x^{i−1} for all x > 0, as in (3).",
    "東京は日本の首都であり、世界で最も人口の多い都市圏の一つである。" * 2,
    "Introduction ........................ 1\nMethods .............................. 5\nResults ...... 12\n",
    "d\x001∑ k=0 (\x001)k dim Bk = a0 + (\x001)kbk, Dimensionsformel für Zn und dim Bn für n ≥ 1 " * 2,
])
def test_real_text_is_words(text: str) -> None:
    assert garbage_reason(text) is None


@pytest.mark.parametrize("text", [SOUP, "\x03\x04\x05\x06 \x07\x08\x0e\x0f \x10\x11\x12\x13 \x14\x15\x16" * 5])
def test_soup_and_control_characters_are_not_words(text: str) -> None:
    assert garbage_reason(text) is not None


def shadowed_title_pdf(path: Path, title: bytes, body: bytes) -> Path:
    """A slide whose title is drawn twice, the second copy a shadow a point and a half off, as
    presentation programs export a title with a shadow."""
    path.write_bytes(helvetica_page_pdf(
        b"BT /F1 24 Tf 72 720 Td (" + title + b") Tj ET BT /F1 24 Tf 73.5 718.5 Td (" + title + b") Tj ET "
        b"BT /F1 12 Tf 72 600 Td (" + body + b") Tj ET"))
    return path


def test_a_title_drawn_twice_is_read_once(tmp_path: Path) -> None:
    path = shadowed_title_pdf(tmp_path / "deck.pdf", b"HARBOUR TIDE TABLES", b"The harbour opens at dawn.")
    [doc] = load(path)
    assert doc.text == "HARBOUR TIDE TABLES\nThe harbour opens at dawn."  # not "…TABLESHARBOUR TIDE TABLES"


@pytest.mark.parametrize(("line", "read"), [
    ("PROPOSALSPROPOSALS", "PROPOSALS"),
    ("WITX - WIT WITH EXTENSIONSWITX - WIT WITH EXTENSIONS", "WITX - WIT WITH EXTENSIONS"),
    ("murmur", "murmur"),  # a word of two same halves, too short to be a line drawn twice
    ("couscouscouscous", "couscous"),
    ("1234512345 1234512345", "1234512345 1234512345"),  # odd length: as it is
    ("------------", "------------"),  # no letter: a rule
    ("DEPT.DNO DEPT.DNO ", "DEPT.DNO DEPT.DNO "),  # a table's two cells of one value
    (" /noteheads.s2 /noteheads.s2", " /noteheads.s2 /noteheads.s2"),
])
def test_a_line_of_two_same_halves_is_read_once(line: str, read: str) -> None:
    from ragkit.loaders.pdf import _undoubled

    assert _undoubled(line) == read
