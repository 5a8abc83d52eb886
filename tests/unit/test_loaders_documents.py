"""PDF and DOCX loaders on generated files, including encrypted, corrupt and text-less PDFs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.registry import loaders
from ragkit.types import Document


def load(name: str, path: Path) -> list[Document]:
    return list(loaders.get(name)().load(path, source=path.name))


def make_pdf(path: Path, pages: list[str], *, title: str | None = None) -> Path:
    """A PDF with one page per entry; an empty string makes a page with a drawing but no text."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    if title:
        pdf.set_title(title)
    for text in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=12)
        if text:
            pdf.multi_cell(0, 8, text)
        else:
            pdf.rect(20, 20, 50, 30)
    pdf.output(str(path))
    return path


def encrypt(src: Path, dst: Path, *, user_password: str) -> Path:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(src))
    writer.encrypt(user_password=user_password, owner_password="owner-pw", algorithm="RC4-128")
    with open(dst, "wb") as fh:
        writer.write(fh)
    return dst


# ---------------------------------------------------------------- pdf


def test_pdf_one_document_per_page_with_text(tmp_path: Path) -> None:
    path = make_pdf(
        tmp_path / "manual.pdf",
        ["Radio channel 67 is for work.", "", "The boat carries six people."],
        title="Field Manual",
    )
    docs = load("pdf", path)
    assert [d.metadata["page"] for d in docs] == [1, 3]  # the drawing-only page 2 is skipped
    assert "channel 67" in docs[0].text and "six people" in docs[1].text
    assert docs[0].metadata == {
        "source": "manual.pdf", "mime": "application/pdf", "title": "Field Manual", "page": 1,
    }  # fmt: skip


def test_pdf_title_falls_back_to_the_file_stem(tmp_path: Path) -> None:
    [doc] = load("pdf", make_pdf(tmp_path / "untitled-notes.pdf", ["Some text."]))
    assert doc.metadata["title"] == "untitled-notes"


def test_encrypted_pdf_with_a_password(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", ["Top secret tide data."])
    path = encrypt(plain, tmp_path / "locked.pdf", user_password="s3cret")
    with pytest.raises(LoaderError) as info:
        load("pdf", path)
    err = info.value
    assert str(path) in str(err) and err.path == str(path)
    assert err.reason == "encrypted PDF"
    assert "qpdf --decrypt" in str(err)


def test_encrypted_pdf_with_empty_user_password_is_read(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", ["Readable after all."])
    path = encrypt(plain, tmp_path / "owner-only.pdf", user_password="")
    [doc] = load("pdf", path)
    assert "Readable after all." in doc.text


def test_corrupt_pdf_gives_pypdfs_reason(tmp_path: Path) -> None:
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"this is not a pdf at all \x00\x01\x02" * 20)
    with pytest.raises(LoaderError) as info:
        load("pdf", path)
    err = info.value
    assert str(path) in str(err) and err.path == str(path)
    assert (err.reason or "").startswith("corrupt PDF: ") and len(err.reason or "") > len("corrupt PDF: ")


def test_truncated_pdf_is_corrupt(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", ["Some text on a page."])
    path = tmp_path / "truncated.pdf"
    path.write_bytes(good.read_bytes()[:200])
    with pytest.raises(LoaderError) as info:
        load("pdf", path)
    assert (info.value.reason or "").startswith("corrupt PDF")


def test_pdf_without_text_suggests_ocr(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", ["", ""])
    with pytest.raises(LoaderError) as info:
        load("pdf", path)
    err = info.value
    assert str(path) in str(err) and err.reason == "no extractable text"
    assert "OCR" in str(err) and "2 page(s)" in str(err)


# ---------------------------------------------------------------- docx


def make_docx(path: Path, *, core_title: str = "") -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = core_title
    document.add_paragraph("Intro before any heading.")
    document.add_paragraph("Seabird Census", style="Heading 1")
    document.add_paragraph("Puffins counted in June.")
    document.add_paragraph("")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([("Species", "Pairs"), ("Puffin", "2340")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    merged = document.add_table(rows=1, cols=3)
    merged.cell(0, 0).merge(merged.cell(0, 1)).text = "Spans two"
    merged.cell(0, 2).text = "Third"
    document.add_paragraph("Closing line.")
    document.save(str(path))
    return path


def test_docx_paragraphs_in_order_and_each_table_row_a_document(tmp_path: Path) -> None:
    doc, puffin, merged = load("docx", make_docx(tmp_path / "census.docx"))
    assert doc.text == "Intro before any heading.\n\nSeabird Census\n\nPuffins counted in June.\n\nClosing line."
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    assert doc.metadata == {"source": "census.docx", "mime": mime, "title": "Seabird Census"}
    assert puffin.text == "table: Seabird Census, table 1\nSpecies: Puffin\nPairs: 2340"
    assert puffin.metadata == {"source": "census.docx", "mime": mime, "title": "Seabird Census",
                               "table": "Seabird Census, table 1", "row": 0}
    assert merged.text == "table: Seabird Census, table 2\ncolumn 1: Spans two\ncolumn 2: Third"


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_BOX = (f'<w:r xmlns:w="{_W}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
        'xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent><mc:Choice Requires="wps">'
        '<w:drawing><wps:wsp><wps:txbx><w:txbxContent>{paragraphs}</w:txbxContent></wps:txbx></wps:wsp></w:drawing>'
        '</mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent>{paragraphs}</w:txbxContent>'
        '</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>')


def test_docx_text_boxes_and_content_controls_are_read_once(tmp_path: Path) -> None:
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    document.add_paragraph("Reporting procedure")
    anchor = document.add_paragraph("Student falls ill")
    boxed = "".join(f"<w:p><w:r><w:t>{t}</w:t></w:r></w:p>" for t in ("Symptoms:", "Fever", "Rash"))
    anchor._p.append(parse_xml(_BOX.format(paragraphs=boxed)))
    document.element.body.insert(0, parse_xml(
        f'<w:sdt xmlns:w="{_W}"><w:sdtContent><w:p><w:r><w:t>Kindergarten cover page</w:t></w:r></w:p>'
        '</w:sdtContent></w:sdt>'))
    document.save(str(tmp_path / "flyer.docx"))
    [doc] = load("docx", tmp_path / "flyer.docx")
    assert doc.text == ("Kindergarten cover page\n\nReporting procedure\n\nStudent falls ill\n\n"
                        "Symptoms:\n\nFever\n\nRash")


def test_docx_list_paragraphs_are_items_indented_by_level(tmp_path: Path) -> None:
    """Word writes a list as paragraphs that carry a numbering (``w:numPr``, its level ``w:ilvl``)
    or a list style: they are Markdown items, so "what ways out …?" is answered with all of them.
    A numbered heading stays a heading; ``numId`` 0 takes a paragraph out of its list; a level that
    is no number is the top level, and the file still loads."""
    import docx
    from docx.oxml import parse_xml

    def numbered(paragraph: object, level: int, number: int = 1) -> None:
        paragraph._p.get_or_add_pPr().append(parse_xml(  # type: ignore[attr-defined]
            f'<w:numPr xmlns:w="{_W}"><w:ilvl w:val="{level}"/><w:numId w:val="{number}"/></w:numPr>'))

    document = docx.Document()
    heading = document.add_paragraph("1 Conflicts", style="Heading 1")
    numbered(heading, 0)
    numbered(document.add_paragraph("If a licence conflicts:"), 0)
    numbered(document.add_paragraph("Replace: is there another library?"), 1)
    numbered(document.add_paragraph("Re-engineer: can you work around it?"), 1)
    numbered(document.add_paragraph("Not in any list."), 0, number=0)
    document.add_paragraph("Broken level")._p.get_or_add_pPr().append(parse_xml(
        f'<w:numPr xmlns:w="{_W}"><w:ilvl w:val="abc"/><w:numId w:val="zz"/></w:numPr>'))
    document.add_paragraph("Ask the author", style="List Bullet 2")
    document.add_paragraph("Closing line.")
    document.save(str(tmp_path / "practices.docx"))
    [doc] = load("docx", tmp_path / "practices.docx")
    assert doc.text == ("1 Conflicts\n\n- If a licence conflicts:\n\n  - Replace: is there another library?\n\n"
                        "  - Re-engineer: can you work around it?\n\nNot in any list.\n\n- Broken level\n\n  - Ask the author\n\n"
                        "Closing line.")

def test_docx_title_from_core_properties(tmp_path: Path) -> None:
    docs = load("docx", make_docx(tmp_path / "r.docx", core_title="Annual Report"))
    assert {d.metadata["title"] for d in docs} == {"Annual Report"}


def test_corrupt_docx(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04 not really a zip file")
    with pytest.raises(LoaderError) as info:
        load("docx", path)
    err = info.value
    assert str(path) in str(err) and (err.reason or "").startswith("corrupt docx")


def strict(package: Path, out: Path) -> Path:
    """``package`` as Word and Excel save "Strict Open XML": its main part named by the Strict relationship."""
    import zipfile

    transitional = b"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
    with zipfile.ZipFile(package) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "_rels/.rels":
                data = data.replace(transitional, b"http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument")
            dst.writestr(item, data)
    return out


def test_a_strict_open_xml_docx_is_skipped_saying_how_to_save_it(tmp_path: Path) -> None:
    source = make_docx(tmp_path / "census.docx")
    path = strict(source, tmp_path / "strict.docx")
    with pytest.raises(LoaderError) as info:
        load("docx", path)
    assert info.value.reason == "Strict Open XML document"
    assert str(path) in str(info.value) and "save it as a standard .docx" in str(info.value)
    assert len(load("docx", source)) == 3  # the same package saved the usual way reads


def test_docx_without_text(tmp_path: Path) -> None:
    import docx

    path = tmp_path / "blank.docx"
    docx.Document().save(str(path))
    with pytest.raises(LoaderError) as info:
        load("docx", path)
    assert info.value.reason == "empty file" and str(path) in str(info.value)
