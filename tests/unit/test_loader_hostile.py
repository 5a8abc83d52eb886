"""Odd but real files: UTF-16/32 text, HTML whose head swallows the body, CSVs with other
delimiters or a title row, PDFs whose font encoding breaks words apart, encrypted workbooks."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.textcheck import garbage_reason
from ragkit.registry import loaders
from ragkit.types import Document
from tests.unit.test_loader_pdf_text import pages_pdf

TEXT = "Die Fähre fährt dienstags — the ferry sails on Tuesdays from the old harbour.\nZweite Zeile: ok.\n"


def load(name: str, path: Path, **options: Any) -> list[Document]:
    return list(loaders.get(name)(**options).load(path, source=path.name))


# ---------------------------------------------------------------- encodings

ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"]  # with and without BOM


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_utf16_and_utf32_text_is_decoded(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(TEXT.encode(encoding))
    [doc] = load("text", path)
    assert doc.text == TEXT and "\x00" not in doc.text


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_utf16_and_utf32_mail_is_decoded(tmp_path: Path, encoding: str) -> None:
    message = f"From: Ann <ann@example.org>\nTo: Bob <bob@example.org>\nSubject: Ferry times\n\n{TEXT}"
    path = tmp_path / "ferry.eml"
    path.write_bytes(message.encode(encoding))
    [doc] = load("eml", path)
    assert doc.metadata["title"] == "Ferry times" and doc.metadata["author"] == "Ann <ann@example.org>"
    assert "the ferry sails on Tuesdays" in doc.text and "Fähre" in doc.text and "\x00" not in doc.text


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-32-be"])
def test_utf16_csv_and_markdown_are_decoded(tmp_path: Path, encoding: str) -> None:
    csv_path = tmp_path / "ports.csv"
    csv_path.write_bytes("port,ships\nLeith,4\nBergen,7\n".encode(encoding))
    assert [d.text for d in load("csv", csv_path)][0] == "table: ports\nport: Leith\nships: 4"
    md = tmp_path / "guide.md"
    md.write_bytes("# Guide\n\nThe ferry sails on Tuesdays.\n".encode(encoding))
    assert "The ferry sails on Tuesdays." in load("markdown", md)[0].text


def test_nul_ridden_bytes_are_skipped_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(bytes(random.Random(3).randrange(256) for _ in range(4000)) + b"\x00" * 400)
    with pytest.raises(LoaderError) as info:
        load("text", path)
    assert info.value.reason == "binary file" and "NUL" in str(info.value)
    eml = tmp_path / "blob.eml"
    eml.write_bytes(b"Subject: x\n\n" + b"\x00\x01\x02\x00" * 300)
    with pytest.raises(LoaderError) as info:
        load("eml", eml)
    assert info.value.reason == "binary file"


def test_a_few_stray_nuls_in_text_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_bytes(("The ferry sails on Tuesdays. " * 50).encode() + b"\x00" + b" and Fridays.")
    [doc] = load("text", path)
    assert "\x00" not in doc.text and doc.text.endswith("and Fridays.")


# ---------------------------------------------------------------- HTML

@pytest.mark.parametrize("stray", ["</div>", "</p>", "</span></div>", ""])
def test_html_whose_head_is_never_closed_keeps_its_body(tmp_path: Path, stray: str) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Harbour</title>{stray}"
        "<link rel='stylesheet' href='x.css'><style>p {{color: red}}</style><script>var x = 1;</script>"
        "<body><h1>Timetable</h1><p>The ferry sails on Tuesdays.</p></body></html>", encoding="utf-8")
    [doc] = load("html", path)
    assert doc.text == "Timetable\n\nThe ferry sails on Tuesdays."
    assert doc.metadata["title"] == "Harbour"


# ---------------------------------------------------------------- CSV

@pytest.mark.parametrize("delimiter", [";", "\t", "|"])
def test_the_csv_delimiter_is_sniffed(tmp_path: Path, delimiter: str) -> None:
    path = tmp_path / "prices.csv"
    rows = [["item", "price", "note"], ["tea", "2,50", "hot, sweet"], ["coffee", "3,10", "black"]]
    path.write_text("\n".join(delimiter.join(r) for r in rows) + "\n", encoding="utf-8")
    docs = load("csv", path)
    assert [d.text for d in docs] == ["table: prices\nitem: tea\nprice: 2,50\nnote: hot, sweet",
                                      "table: prices\nitem: coffee\nprice: 3,10\nnote: black"]


def test_an_explicit_delimiter_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "odd.csv"
    path.write_text("a;b,c\n1;2,3\n", encoding="utf-8")
    assert load("csv", path, delimiter=",")[0].text == "table: odd\na;b: 1;2\nc: 3"


def test_a_title_row_above_the_header_names_the_table(tmp_path: Path) -> None:
    path = tmp_path / "cups.csv"
    path.write_text("Stanley Cups,,\nTeam,Titles,Last won\nMontreal Canadiens,24,1993\nToronto Maple Leafs,13,1967\n",
                    encoding="utf-8")
    docs = load("csv", path)
    assert [d.text for d in docs] == [
        "table: Stanley Cups\nTeam: Montreal Canadiens\nTitles: 24\nLast won: 1993",
        "table: Stanley Cups\nTeam: Toronto Maple Leafs\nTitles: 13\nLast won: 1967",
    ]
    assert [d.metadata["row"] for d in docs] == [0, 1]


def test_a_one_name_header_above_data_is_still_the_header(tmp_path: Path) -> None:
    path = tmp_path / "people.csv"
    path.write_text("Name,,\nAlice,30,Oslo\n", encoding="utf-8")
    assert load("csv", path)[0].text == "table: people\nName: Alice\ncolumn 2: 30\ncolumn 3: Oslo"


def test_a_title_row_in_a_workbook(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for row in (["Stanley Cups"], ["Team", "Titles"], ["Montreal Canadiens", 24]):
        sheet.append(row)
    book.save(tmp_path / "cups.xlsx")
    [doc] = load("xlsx", tmp_path / "cups.xlsx")
    assert doc.text == "table: Stanley Cups\nTeam: Montreal Canadiens\nTitles: 24"
    assert doc.metadata["sheet_row"] == 3


# ---------------------------------------------------------------- PDF with a broken font encoding

PROSE = ("PageRank ranks web pages by the links that point to them. The index held 150 million pages in "
         "1998, and the crawler fetched about 100 pages per second on a single machine. ")


def broken_encoding(text: str, seed: int = 5) -> str:
    """``text`` as a PDF with a broken font encoding extracts: words split apart at kerning gaps
    ("P ageRank"), digits as glyph names ("/1/5/0 million")."""
    rng = random.Random(seed)
    words = []
    for word in text.split():
        if word.isdigit():
            words.append("".join(f"/{d}" for d in word))
        elif len(word) > 2 and rng.random() < 0.6:
            cut = rng.randrange(1, min(3, len(word) - 1))
            words.append(f"{word[:cut]} {word[cut:]}")
        else:
            words.append(word)
    return " ".join(words)


def test_broken_words_are_not_words() -> None:
    sample = broken_encoding(PROSE * 3)
    assert "/1/5/0 million" in sample
    reason = garbage_reason(sample)
    assert reason is not None and "broken" in reason


@pytest.mark.parametrize("text", [
    PROSE * 3,
    "Let x be a point in R and f a map from X to Y; if x is in A then f(x) is in B. " * 4,
    "y = a x + b, where a and b are fitted; x is the year and y the price in $ per t. " * 4,
    "Sur la route de Paris à Lyon, il y a un pont; à droite, o vent. Y a-t-il un bac ici ? " * 4,
    "Phone /dev/sda1 /usr/bin/env 3/4/5 and 1/2 cup of milk. The mix sits for 10 minutes. " * 3,
])
def test_prose_math_and_paths_are_words(text: str) -> None:
    assert garbage_reason(text) is None


def test_a_pdf_page_with_broken_words_is_left_out_like_symbol_soup(tmp_path: Path) -> None:
    path = pages_pdf(tmp_path / "paper.pdf", [PROSE * 3, broken_encoding(PROSE * 3)])
    docs = load("pdf", path)
    assert [d.metadata["page"] for d in docs] == [1]
    only = pages_pdf(tmp_path / "broken.pdf", [broken_encoding(PROSE * 3, seed=s) for s in (1, 2)])
    with pytest.raises(LoaderError, match="OCR") as info:
        load("pdf", only)
    assert "broken" in str(info.value)


# ---------------------------------------------------------------- encrypted workbooks

def encrypted(document: Any, path: Path) -> Path:
    """``document`` (an openpyxl workbook, a python-docx document) saved at ``path`` encrypted with
    a password, as Office does."""
    from msoffcrypto.format.ooxml import OOXMLFile

    plain = io.BytesIO()
    document.save(plain)
    plain.seek(0)
    with open(path, "wb") as out:
        OOXMLFile(plain).encrypt("hunter2", out)
    return path


def test_an_encrypted_xlsx_is_reported_as_password_protected(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    msoffcrypto = pytest.importorskip("msoffcrypto")

    book = openpyxl.Workbook()
    book.active.append(["port", "ships"])
    book.active.append(["Leith", 4])
    path = encrypted(book, tmp_path / "secret.xlsx")
    assert msoffcrypto.OfficeFile(open(path, "rb")).is_encrypted()
    with pytest.raises(LoaderError) as info:
        load("xlsx", path)
    assert info.value.reason == "encrypted workbook"
    assert "password" in str(info.value) and "not a zip file" not in str(info.value)
    assert ".xls" not in str(info.value).replace(".xlsx", "")


def test_an_encrypted_docx_is_reported_as_password_protected(tmp_path: Path) -> None:
    docx = pytest.importorskip("docx")
    pytest.importorskip("msoffcrypto")

    document = docx.Document()
    document.add_paragraph("The ferry sails on Tuesdays.")
    path = encrypted(document, tmp_path / "secret.docx")
    with pytest.raises(LoaderError) as info:
        load("docx", path)
    assert info.value.reason == "encrypted document" and "password" in str(info.value)


def test_an_old_binary_xls_renamed_xlsx_is_named_as_such(tmp_path: Path) -> None:
    olefile = pytest.importorskip("olefile")
    path = tmp_path / "old.xlsx"
    path.write_bytes(olefile.MAGIC + b"\x00" * 600)
    with pytest.raises(LoaderError) as info:
        load("xlsx", path)
    assert "Excel 97-2003" in str(info.value)


def test_the_json_report_lists_encodings_fixed_in_one_run(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ragkit.cli.main import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "wide.txt").write_bytes("The lighthouse keeper writes in UTF-16.".encode("utf-16-le"))
    (docs / "wider.txt").write_bytes("The harbour master writes in UTF-32.".encode("utf-32"))
    (docs / "semi.csv").write_text("port;ships\nLeith;4\n", encoding="utf-8")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 32},
                                "store": {"type": "memory"}, "retriever": {"type": "dense"}}), encoding="utf-8")
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"])
    report = json.loads(run.stdout)
    assert sorted(report["added"]) == ["semi.csv", "wide.txt", "wider.txt"] and not report["skipped"]
    found = CliRunner().invoke(cli, ["search", "lighthouse keeper", "--pipeline", str(pipe), "--json"])
    assert "The lighthouse keeper writes in UTF-16." in found.stdout


# ---------------------------------------------------------------- found by the fuzz harness

def test_html_nested_twenty_thousand_deep_is_read(tmp_path: Path) -> None:
    """Block sentinels were inserted after each element, a walk to its last descendant each time:
    quadratic in the depth (minutes for this page)."""
    path = tmp_path / "deep.html"
    n = 20000
    path.write_bytes(b"<html><body>" + b"<div><span>" * n + b"deep text" + b"</span></div>" * n + b"</body></html>")
    [doc] = load("html", path)
    assert doc.text == "deep text"


def test_binary_bytes_in_a_utf16_nul_pattern_are_not_taken_for_text(tmp_path: Path) -> None:
    """NULs every other byte make a UTF-16 guess, but what it decodes to is control characters."""
    from ragkit.loaders.encoding import decode_text

    with pytest.raises(LoaderError, match="binary file"):
        decode_text(b"\x00\x01" * 40, "blob.txt")
    with pytest.raises(LoaderError, match="binary file"):
        decode_text(bytes([7, 0, 3, 0]) * 50, "blob.txt")
    assert decode_text("tide gauge\nnorth pier".encode("utf-16-be"), "ok.txt") == "tide gauge\nnorth pier"


def test_a_workbook_whose_dimension_claims_fewer_rows_is_read_to_its_last_row(tmp_path: Path) -> None:
    """openpyxl's read-only mode stopped at the rows the sheet's ``<dimension>`` claims: rows past
    it (a program that wrote a stale dimension) were silently lost."""
    import zipfile

    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for row in (("port", "ships"), ("Leith", 4), ("Bergen", 7), ("Tromso", 2)):
        sheet.append(row)
    whole = tmp_path / "whole.xlsx"
    book.save(whole)
    stale = tmp_path / "stale.xlsx"
    with zipfile.ZipFile(whole) as src, zipfile.ZipFile(stale, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                assert b'<dimension ref="A1:B4"/>' in data
                data = data.replace(b'<dimension ref="A1:B4"/>', b'<dimension ref="A1:B2"/>')
            dst.writestr(info, data)
    texts = [d.text for d in load("xlsx", stale)]
    assert len(texts) == 3 and "Tromso" in texts[-1] and "Bergen" in texts[1]


def test_docx_paragraphs_and_tables_are_all_read_in_order(tmp_path: Path) -> None:
    """The body is walked child by child (python-docx's paragraph-or-table query took time
    quadratic in the paragraph count: a long document ran past the time limit)."""
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("First the harbour.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Leith", "4"
    document.add_paragraph("Then the lighthouse.")
    for i in range(300):
        document.add_paragraph(f"Log line {i}.")
    document.save(str(tmp_path / "order.docx"))
    body, table = load("docx", tmp_path / "order.docx")
    blocks = body.text.split("\n\n")
    assert blocks[:2] == ["First the harbour.", "Then the lighthouse."]
    assert blocks[-1] == "Log line 299." and len(blocks) == 302
    assert table.text == "table: order, table 1\ncolumn 1: Leith\ncolumn 2: 4"


@pytest.mark.parametrize("ext", [".docx", ".pptx"])
def test_a_truncated_office_file_is_said_to_be_no_zip_package(tmp_path: Path, ext: str) -> None:
    """python-docx and python-pptx say "Package not found at PATH" for a file that is there."""
    from ragkit.testing.fuzz_seeds import build_seeds

    seed = build_seeds().get(ext)
    if seed is None:
        pytest.skip(f"no {ext} seed (its package is not installed)")
    path = tmp_path / f"cut{ext}"
    path.write_bytes(seed[: len(seed) // 2])
    with pytest.raises(LoaderError, match="not a zip package: the file is truncated") as err:
        load(ext[1:], path)
    assert "Package not found" not in str(err.value)
