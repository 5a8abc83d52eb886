"""Old binary PowerPoint presentations (.ppt), each built by the test from its records
(``ragkit.testing.ppt_files``), damaged and hostile ones included."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.testing.ole import write_ole
from ragkit.testing.ppt_files import (
    container,
    notes_atom,
    record,
    slide_persist,
    text_bytes,
    text_chars,
    text_header,
    write_ppt,
)
from ragkit.types import Document

pytest.importorskip("olefile")
DOCUMENT, SLIDE_LIST, MASTER, SLIDE, NOTES, DRAWING = 0x03E8, 0x0FF0, 0x03F8, 0x03EE, 0x03F0, 0xF000


def load(path: Path) -> list[Document]:
    return list(loaders.get("ppt")().load(path, source=path.name))


def test_a_ppt_file_picks_the_ppt_loader() -> None:
    assert loader_name_for(Path("deck.ppt")) == "ppt"


def test_each_slide_is_a_document_with_its_title_text_boxes_and_notes(tmp_path: Path) -> None:
    stream = (
        container(DOCUMENT, container(
            SLIDE_LIST,
            slide_persist(256), text_header(0), text_chars("Harbour report"),
            text_header(1), text_bytes("Ferries ran on 301 days\rTwo new berths"),
            slide_persist(257), slide_persist(258), text_header(0), text_chars("Ships per port"),
        ))
        + container(MASTER, text_header(0), text_chars("Click to edit Master title style"))
        + container(SLIDE, container(DRAWING, text_header(4), text_chars("Grouped caption"),
                                     text_header(0), text_chars("Harbour report")))  # the placeholder again
        + container(SLIDE)  # a slide with nothing on it
        + container(SLIDE, container(DRAWING, text_header(4), text_bytes("Leith"), text_header(4), text_bytes("4"),
                                     text_header(4), text_bytes("4")))
        + container(NOTES, notes_atom(0), text_chars("Click to edit the notes master"))
        + container(NOTES, notes_atom(256), text_chars("Storms closed the port for 64 days."), text_chars("1"))
    )
    docs = load(write_ppt(tmp_path / "deck.ppt", stream))
    assert [(d.metadata["page"], d.text) for d in docs] == [
        (1, "# Harbour report\n\nFerries ran on 301 days\nTwo new berths\n\nGrouped caption\n\n"
            "Notes: Storms closed the port for 64 days."),
        (3, "# Ships per port\n\nLeith\n\n4\n\n4"),  # a table's equal cells both kept
    ]
    assert {d.metadata["title"] for d in docs} == {"Harbour report"}
    assert docs[0].metadata["mime"] == "application/vnd.ms-powerpoint"


def test_text_only_in_drawings_as_later_powerpoints_save_it(tmp_path: Path) -> None:
    stream = container(DOCUMENT, container(SLIDE_LIST, slide_persist(256))) + container(
        SLIDE, container(DRAWING, text_header(0), text_chars("Tide tables"), text_header(1), text_chars("High at 6")))
    assert [d.text for d in load(write_ppt(tmp_path / "late.ppt", stream))] == ["# Tide tables\n\nHigh at 6"]


def test_nesting_past_the_bound_and_lengths_past_the_stream(tmp_path: Path) -> None:
    deep = text_chars("too deep")
    for _ in range(40):
        deep = container(DRAWING, deep)
    short = record(0x0FA0, "cut".encode("utf-16-le"))[:-2]  # its length claims more than the stream holds
    stream = container(SLIDE, text_header(1), text_chars("shallow"), deep) + container(SLIDE, short)
    assert [d.text for d in load(write_ppt(tmp_path / "deep.ppt", stream))] == ["shallow", "cu"]


@pytest.mark.parametrize(("streams", "reason"), [
    ({"PowerPoint Document": record(0x2F14, b"\x00" * 8) + container(SLIDE, text_chars("x"))}, "encrypted presentation"),
    ({"Pictures": b"\x00" * 16}, "not a PowerPoint presentation"),
    ({"PowerPoint Document": container(SLIDE)}, "empty file"),
])
def test_a_bad_ppt_is_skipped_with_its_reason(tmp_path: Path, streams: dict[str, bytes], reason: str) -> None:
    path = write_ole(tmp_path / "bad.ppt", streams)
    with pytest.raises(LoaderError) as info:
        load(path)
    assert info.value.reason == reason and str(path) in str(info.value)
