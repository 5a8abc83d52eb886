"""Old binary Word documents (.doc), each built by the test from its parts
(``ragkit.testing.word_files``), damaged and hostile ones included."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.testing.word_files import write_doc
from ragkit.types import Document

pytest.importorskip("olefile")


def load(path: Path) -> list[Document]:
    return list(loaders.get("doc")().load(path, source=path.name))


def test_a_doc_file_picks_the_doc_loader() -> None:
    assert loader_name_for(Path("minutes.doc")) == "doc"


def test_the_main_text_and_footnotes_are_read_piece_by_piece(tmp_path: Path) -> None:
    pieces = [
        ("Harbour notes\r\rThe ferry to Ærøskøbing leaves at nine\x02.\r", True),  # 8-bit
        ("Łódź office: see \x13 HYPERLINK \"https://example.org\" \x14the harbour site\x15.\r", False),  # UTF-16
        ("port\x07ships\x07\x07Leith\x074\x07\x07", True),  # a table: cells, then each row's end
        ("\x02 Not on public holidays.\r", True),  # the footnote
        ("Page header, not read\r", True),
    ]
    main = sum(len(t) for t, _ in pieces[:3])
    path = write_doc(tmp_path / "notes.doc", pieces, main=main, footnotes=len(pieces[3][0]))
    [doc] = load(path)
    assert doc.text == ("Harbour notes\n\nThe ferry to Ærøskøbing leaves at nine.\n"
                        "Łódź office: see the harbour site.\n"
                        "port | ships\nLeith | 4\n"
                        "Not on public holidays.")
    assert doc.metadata["mime"] == "application/msword" and doc.metadata["title"] == "notes"


@pytest.mark.parametrize(("options", "reason"), [
    ({"encrypted": True}, "encrypted document"),
    ({"version": 0x0065}, "Word 6/95 document"),  # Word 95's nFib
    ({"clx": b"\x01\x02\x00ab"}, "unreadable Word document"),  # formatting only, no piece table
    ({"clx": b"\x02" + struct.pack("<I", 0xFFFFFF) + b"\x00" * 8}, "unreadable Word document"),  # a size past the stream
])
def test_a_bad_doc_is_skipped_with_its_reason(tmp_path: Path, options: dict, reason: str) -> None:
    path = write_doc(tmp_path / "bad.doc", [("Some text\r", True)], **options)
    with pytest.raises(LoaderError) as info:
        load(path)
    assert info.value.reason.startswith(reason) and str(path) in str(info.value)


def test_pieces_pointing_past_the_stream_give_what_there_is(tmp_path: Path) -> None:
    # the piece table claims 5,000 characters of main text; the stream holds 12
    path = write_doc(tmp_path / "short.doc", [("Twelve chars", True)], main=5000)
    assert [d.text for d in load(path)] == ["Twelve chars"]


def test_a_file_that_is_not_a_word_document(tmp_path: Path) -> None:
    text = tmp_path / "renamed.doc"
    text.write_text("minutes of the harbour meeting", encoding="utf-8")
    with pytest.raises(LoaderError) as info:
        load(text)
    assert info.value.reason == "not a Word document" and "save it as .docx" in str(info.value)


def test_old_binary_files_saved_under_the_new_formats_names_are_read_as_what_they_are(tmp_path: Path) -> None:
    from ragkit.testing.ppt_files import container, slide_persist, text_chars, text_header, write_ppt
    from ragkit.testing.xls_files import write_xls

    pytest.importorskip("xlrd")
    word = write_doc(tmp_path / "minutes.docx", [("The harbour board met on Monday.\r", True)])
    sheet = write_xls(tmp_path / "ports.xlsx", {"Ports": [["port", "ships"], ["Leith", 4]]})
    deck = write_ppt(tmp_path / "deck.pptx", container(0x03E8, container(
        0x0FF0, slide_persist(256), text_header(0), text_chars("Harbour report"))))
    read = {path.suffix: [d.text for d in loaders.get(loader_name_for(path))().load(path, source=path.name)]
            for path in (word, sheet, deck)}
    assert read == {".docx": ["The harbour board met on Monday."], ".xlsx": ["table: ports\nport: Leith\nships: 4"],
                    ".pptx": ["# Harbour report"]}
