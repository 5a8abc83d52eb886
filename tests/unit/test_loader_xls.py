"""Old binary Excel workbooks (.xls), each built by the test from BIFF8 records
(``ragkit.testing.xls_files``), and files that only carry the name."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.testing.xls_files import write_xls
from ragkit.types import Document

pytest.importorskip("xlrd")


def load(path: Path) -> list[Document]:
    return list(loaders.get("xls")().load(path, source=path.name))


def test_an_xls_file_picks_the_xls_loader() -> None:
    assert loader_name_for(Path("fares.xls")) == "xls"


def test_every_sheet_reads_as_an_xlsx_sheet_does(tmp_path: Path) -> None:
    path = write_xls(tmp_path / "ports.xls", {
        "Ports": [["Harbour ports"], ["port", "ships", "note"], ["Leith", 4, "north berth"], [None], ["Łódź", 7.5, None]],
        "Fares": [["route", "fare"], ["Leith-Bergen", 12]],
    })
    docs = load(path)
    assert [d.text for d in docs] == [
        "table: Harbour ports\nport: Leith\nships: 4\nnote: north berth",  # a title row names the table
        "table: Harbour ports\nport: Łódź\nships: 7.5",
        "table: ports / Fares\nroute: Leith-Bergen\nfare: 12",
    ]
    assert [(d.metadata["sheet"], d.metadata["sheet_row"], d.metadata["row"]) for d in docs] == [
        ("Ports", 3, 0), ("Ports", 5, 1), ("Fares", 2, 2)]
    assert docs[0].metadata["mime"] == "application/vnd.ms-excel"


@pytest.mark.parametrize(("data", "reason"), [
    (b"<html><body><table><tr><td>port</td></tr></table></body></html>", "a web page named .xls"),
    (b"port,ships\nLeith,4\n", "a text table named .xls"),
    (b"PK\x03\x04" + b"\x00" * 40, "an .xlsx workbook named .xls"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, "unreadable Excel 97-2003 workbook"),  # an OLE header, then nothing
])
def test_a_file_that_is_not_a_readable_workbook_is_skipped_with_what_it_is(tmp_path: Path, data: bytes,
                                                                          reason: str) -> None:
    path = tmp_path / "export.xls"
    path.write_bytes(data)
    with pytest.raises(LoaderError) as info:
        load(path)
    assert info.value.reason.startswith(reason) and str(path) in str(info.value)


def test_a_workbook_of_empty_sheets(tmp_path: Path) -> None:
    with pytest.raises(LoaderError) as info:
        load(write_xls(tmp_path / "empty.xls", {"Sheet1": [], "Sheet2": [["only a header"]]}))
    assert info.value.reason == "empty table (header only)"
