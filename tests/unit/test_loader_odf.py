"""OpenDocument text, spreadsheets and presentations (.odt, .ods, .odp, flat .fodt), each on a
file the test writes from its XML (``ragkit.testing.odf_files``), hostile ones included."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.testing.odf_files import content_xml, flat_odf, odf_package, paragraphs, table
from ragkit.types import Document


def load(path: Path) -> list[Document]:
    return list(loaders.get("odf")().load(path, source=path.name))


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_every_opendocument_extension_picks_the_odf_loader() -> None:
    assert {loader_name_for(Path(f"x{e}")) for e in (".odt", ".ods", ".odp", ".fodt", ".fods", ".fodp")} == {"odf"}


TEXT = (
    '<text:tracked-changes><text:changed-region text:id="c1"><text:deletion>'
    "<text:p>Struck from the draft: the ferry is free.</text:p></text:deletion></text:changed-region></text:tracked-changes>"
    '<text:h text:outline-level="1">Harbour guide</text:h>'
    '<text:p>The ferry leaves at <text:span>nine</text:span>,<text:s text:c="3"/>weather permitting'
    '<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body>'
    "<text:p>Not on public holidays.</text:p></text:note-body></text:note>.</text:p>"
    '<text:p>Ask the keeper<office:annotation><text:p>check this with Ann</text:p></office:annotation> for tickets.</text:p>'
    '<text:h text:outline-level="2">Berths</text:h>'
    "<text:list><text:list-item><text:p>North berth</text:p>"
    "<text:list><text:list-item><text:p>for ferries</text:p></text:list-item></text:list></text:list-item>"
    "<text:list-item><text:p>South berth</text:p></text:list-item></text:list>"
    + table([["Port", "Ships"], ["Leith", "4"], ["Bergen", "7"]], header_rows=1)
    + paragraphs("Table 1: Ships per port", style="Table")
    + paragraphs("The harbour master signs every log.")
)


def test_a_text_document_reads_in_order_with_headings_lists_notes_and_table_rows(tmp_path: Path) -> None:
    docs = load(write(tmp_path, "guide.odt", odf_package("text", TEXT, title="Harbour Guide 2024")))
    body, *rows = docs
    assert body.metadata["title"] == "Harbour Guide 2024" and body.metadata["markup"] == "markdown"
    assert body.metadata["mime"] == "application/vnd.oasis.opendocument.text"
    assert body.text == (
        "# Harbour guide\n\n"
        "The ferry leaves at nine, weather permitting.\n\n"
        "Note 1: Not on public holidays.\n\n"
        "Ask the keeper for tickets.\n\n"
        "## Berths\n\n"
        "- North berth\n  - for ferries\n- South berth\n\n"
        "The harbour master signs every log."
    )  # no tracked deletion, no comment; the caption names the table instead of being a paragraph
    assert [(d.metadata["table"], d.metadata["row"], d.text) for d in rows] == [
        ("Table 1: Ships per port", 0, "table: Table 1: Ships per port\nPort: Leith\nShips: 4"),
        ("Table 1: Ships per port", 1, "table: Table 1: Ships per port\nPort: Bergen\nShips: 7"),
    ]


def test_marked_header_rows_name_the_columns_even_when_every_row_is_words(tmp_path: Path) -> None:
    grid = [["Day", "Leader"], ["Monday", "Sarah"], ["Friday", "Ryan"]]
    marked = load(write(tmp_path, "a.odt", odf_package("text", table(grid, header_rows=1))))
    assert [d.text.splitlines()[1:] for d in marked] == [["Day: Monday", "Leader: Sarah"], ["Day: Friday", "Leader: Ryan"]]
    assert marked[0].metadata["title"] == "a" and marked[0].metadata["table"] == "a, table 1"


def test_a_spreadsheet_gives_each_sheets_rows_and_repeats_stay_bounded(tmp_path: Path) -> None:
    # a styled sheet repeats an empty row a million times and an empty cell 16,000 times: nothing
    # of them is read; a repeated row of text is read as often as it repeats
    empty_cells = '<table:table-cell table:number-columns-repeated="16000"/>'
    sheet = (
        '<table:table table:name="Ferries">'
        '<table:table-row><table:table-cell><text:p>route</text:p></table:table-cell>'
        f'<table:table-cell><text:p>fare</text:p></table:table-cell>{empty_cells}</table:table-row>'
        '<table:table-row table:number-rows-repeated="2"><table:table-cell><text:p>Leith-Bergen</text:p></table:table-cell>'
        f'<table:table-cell office:value-type="float" office:value="12"><text:p>12</text:p></table:table-cell>{empty_cells}'
        "</table:table-row>"
        f'<table:table-row table:number-rows-repeated="1048000">{empty_cells}</table:table-row></table:table>'
        '<table:table table:name="Empty"><table:table-row><table:table-cell/></table:table-row></table:table>'
    )
    docs = load(write(tmp_path, "fares.ods", odf_package("spreadsheet", sheet)))
    # read as an Excel workbook's sheets are: named after the file and the sheet, the row numbers a
    # spreadsheet shows
    assert [d.text for d in docs] == ["table: fares / Ferries\nroute: Leith-Bergen\nfare: 12"] * 2
    assert [(d.metadata["sheet"], d.metadata["sheet_row"], d.metadata["row"]) for d in docs] == [
        ("Ferries", 2, 0), ("Ferries", 3, 1)]
    assert docs[0].metadata["mime"].endswith("spreadsheet")


def test_a_presentation_gives_one_document_per_slide_with_its_notes(tmp_path: Path) -> None:
    def frame(inner: str, cls: str = "outline") -> str:
        return f'<draw:frame presentation:class="{cls}"><draw:text-box>{inner}</draw:text-box></draw:frame>'

    body = (
        '<draw:page draw:name="page1">' + frame(paragraphs("Harbour report"), "title")
        + frame("<text:list><text:list-item><text:p>Ferries ran on 301 days</text:p></text:list-item>"
                "<text:list-item><text:p>Two new berths</text:p></text:list-item></text:list>")
        + '<presentation:notes><draw:frame presentation:class="notes"><draw:text-box>'
        + paragraphs("Storms closed the port for 64 days.") + "</draw:text-box></draw:frame></presentation:notes>"
        + "</draw:page>"
        + '<draw:page draw:name="page2"/>'
        + '<draw:page draw:name="page3">' + frame(paragraphs("Ships per port"), "title")
        + '<draw:frame>' + table([["port", "ships"], ["Leith", "4"]]) + "</draw:frame></draw:page>"
    )
    docs = load(write(tmp_path, "deck.odp", odf_package("presentation", body)))
    assert [(d.metadata["page"], d.text) for d in docs] == [
        (1, "# Harbour report\n\n- Ferries ran on 301 days\n- Two new berths\n\nNotes: Storms closed the port for 64 days."),
        (3, "# Ships per port"),
        (3, "table: Ships per port\nport: Leith\nships: 4"),
    ]
    assert {d.metadata["title"] for d in docs} == {"Harbour report"}


def test_a_flat_opendocument_file_reads_like_its_package(tmp_path: Path) -> None:
    flat = load(write(tmp_path, "guide.fodt", flat_odf("text", TEXT, title="Harbour Guide 2024")))
    packaged = load(write(tmp_path, "guide.odt", odf_package("text", TEXT, title="Harbour Guide 2024")))
    assert [d.text for d in flat] == [d.text for d in packaged]


@pytest.mark.parametrize(("data", "reason"), [
    (odf_package("text", paragraphs("secret"), encrypted=True), "encrypted file"),
    (b"PK\x03\x04 not really a zip", "corrupt OpenDocument file"),
    (odf_package("text", "", content="<office:document-content>unclosed"), "corrupt OpenDocument file"),
    (odf_package("text", "<text:p/>"), "empty file"),
])
def test_a_bad_file_is_skipped_with_its_reason(tmp_path: Path, data: bytes, reason: str) -> None:
    path = write(tmp_path, "bad.odt", data)
    with pytest.raises(LoaderError) as info:
        load(path)
    assert info.value.reason.startswith(reason) and str(path) in str(info.value)


def test_entities_are_not_expanded_and_deep_nesting_is_read_flat(tmp_path: Path) -> None:
    laughs = ('<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
              '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY f SYSTEM "file:///etc/passwd">]>'
              + content_xml("text", "<text:p>&c; &f; tail</text:p>").split("\n", 1)[1])
    try:
        docs = load(write(tmp_path, "laughs.odt", odf_package("text", "", content=laughs)))
    except LoaderError:
        pass  # refused outright: as good
    else:
        assert docs[0].text == "tail"  # neither the entities nor a file's text
    def nested(levels: int) -> bytes:
        return odf_package("text", "<text:list><text:list-item>" * levels + "<text:p>bottom</text:p>"
                           + "</text:list-item></text:list>" * levels)

    docs = load(write(tmp_path, "deep.odt", nested(120)))  # past MAX_DEPTH: its text, flat
    assert docs[0].text.endswith("bottom")
    with pytest.raises(LoaderError) as info:  # past the XML parser's own bound: skipped, with the reason
        load(write(tmp_path, "deeper.odt", nested(3000)))
    assert "depth" in str(info.value)


def test_opendocument_files_in_a_folder_are_indexed_not_skipped(tmp_path: Path) -> None:
    from ragkit.index.writer import IndexingPipeline
    from tests.unit.pipeline.helpers import make_spec

    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "guide.odt", odf_package("text", TEXT, title="Harbour Guide 2024"))
    write(folder, "fares.fods", flat_odf("spreadsheet", table([["route", "fare"], ["Leith-Bergen", "12"]])))
    report = IndexingPipeline(make_spec(tmp_path / "index")).index_paths([folder])
    assert sorted(report.added) == ["fares.fods", "guide.odt"] and not report.skipped


def test_repeated_rows_of_text_expand_within_a_bound_per_table(tmp_path: Path) -> None:
    from ragkit.loaders.odf import MAX_REPEAT, MAX_REPEATED_ROWS

    row = '<table:table-row table:number-rows-repeated="1000000"><table:table-cell><text:p>ferry</text:p></table:table-cell></table:table-row>'
    sheet = '<table:table table:name="Ferries"><table:table-row><table:table-cell><text:p>boat</text:p></table:table-cell></table:table-row>' + row * 30 + "</table:table>"
    docs = load(write(tmp_path, "repeats.ods", odf_package("spreadsheet", sheet)))
    # 30 rows of text asking for a million copies each: each read at least once, the copies bounded
    assert MAX_REPEAT <= len(docs) <= MAX_REPEATED_ROWS + 30 and {d.text for d in docs} == {"table: repeats\nboat: ferry"}
