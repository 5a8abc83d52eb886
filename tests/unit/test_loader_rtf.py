"""Rich Text Format (.rtf): body text without the tables of fonts, colours and styles, written by
the test as Word and pandoc write it, hostile files included."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.types import Document

HEADER = (r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman Times New Roman;}}{\colortbl;\red0\green0\blue0;}"
          r"{\stylesheet{\s1 heading 1;}}{\*\generator Riched20 10.0;}{\info{\title Harbour notes}{\author Ann}}")


def load(path: Path) -> list[Document]:
    return list(loaders.get("rtf")().load(path, source=path.name))


def write(tmp_path: Path, body: str, name: str = "notes.rtf") -> Path:
    path = tmp_path / name
    path.write_bytes((HEADER + body + "}").encode("latin-1"))
    return path


def test_an_rtf_file_picks_the_rtf_loader() -> None:
    assert loader_name_for(Path("notes.rtf")) == "rtf"


def test_the_body_text_in_order(tmp_path: Path) -> None:
    body = (
        r"\pard\s1 Ferries\par"
        r"\pard The ferry to \'c6r\'f8sk\'f8bing leaves at nine\emdash weather permitting"
        r"{\super\chftn}{\*\footnote\pard {\super\chftn} Not on public holidays.}.\par "
        r"Ask at {\field{\*\fldinst HYPERLINK \"https://example.org\"}{\fldrslt the harbour office}}"
        r" \u321?\u243?d\u378?.\line Secret: {\v hidden words}none.\par"
        r"{\pict\pngblip 89504e470d0a1a0a}"
        r"{\*\unknowndestination skipped text}"
        r"\trowd\cellx2000\cellx4000\pard\intbl port\cell ships\cell\row"
        r"\trowd\cellx2000\cellx4000\pard\intbl Leith\par north\cell 4\cell\row"
        r"\pard The end\par"
    )
    [doc] = load(write(tmp_path, body))
    assert doc.text == (
        "Ferries\n"
        "The ferry to \u00c6r\u00f8sk\u00f8bing leaves at nine\u2014weather permitting\n"
        "Note: Not on public holidays.\n"
        ".\n"
        "Ask at the harbour office \u0141\u00f3d\u017a.\n"
        "Secret: none.\n"
        "port | ships\n"
        "Leith north | 4\n"
        "The end"
    )
    assert doc.metadata["title"] == "Harbour notes" and doc.metadata["mime"] == "application/rtf"


def test_binary_data_and_deep_nesting_are_bounded(tmp_path: Path) -> None:
    binary = r"{\pict\bin6 " + "}}{{\\x" + "}"  # six raw bytes holding braces and a backslash
    [doc] = load(write(tmp_path, r"\pard before" + binary + r" after\par"))
    assert doc.text == "before after"
    deep = "{" * 100_000 + "bottom" + "}" * 100_000
    [doc] = load(write(tmp_path, r"\pard " + deep + r"\par", name="deep.rtf"))
    assert doc.text == "bottom"


@pytest.mark.parametrize(("data", "reason"), [
    (b"Just some text that is named .rtf", "not an RTF file"),
    ((HEADER + r"{\pict\pngblip 89504e47}}").encode(), "empty file"),
])
def test_a_bad_file_is_skipped_with_its_reason(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "bad.rtf"
    path.write_bytes(data)
    with pytest.raises(LoaderError) as info:
        load(path)
    assert info.value.reason == reason and str(path) in str(info.value)
