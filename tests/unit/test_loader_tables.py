"""Tables (CSV, TSV, .xlsx): rows without a text column become documents, large files stream."""

from __future__ import annotations

import datetime as dt
import json
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.types import Document

HEIGHTS = (
    "order,name,height(cm)\n1,George Washington,189\n2,John Adams,170\n3,Thomas Jefferson,189\n"
    "16,Abraham Lincoln,193\n17,Andrew Johnson,178\n"
)


def load(name: str, path: Path, **options: Any) -> list[Document]:
    return list(loaders.get(name)(**options).load(path, source=path.name))


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_extensions_pick_the_table_loaders() -> None:
    assert [loader_name_for(Path(f"t{ext}")) for ext in (".csv", ".tsv", ".xlsx", ".XLSM")] == [
        "csv", "tsv", "xlsx", "xlsx"]


def test_a_csv_without_text_column_makes_each_row_a_document(tmp_path: Path) -> None:
    docs = load("csv", write(tmp_path, "president_heights.csv", HEIGHTS))
    assert len(docs) == 5
    assert docs[3].text == "table: president heights\norder: 16\nname: Abraham Lincoln\nheight(cm): 193"
    assert docs[3].metadata == {"source": "president_heights.csv", "mime": "text/csv", "row": 3,
                                "title": "president_heights"}
    [alaska] = load("csv", write(tmp_path, "state-areas.csv", "state,area (sq. mi)\nAlaska,656425\n"))
    assert alaska.text == "table: state areas\nstate: Alaska\narea (sq. mi): 656425"


def test_empty_cells_blank_rows_and_ragged_rows(tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", 'a,,c\n1,,3\n,,\n\n"x\ny",2,3,extra\n')
    docs = load("csv", path)
    assert [d.text for d in docs] == ["table: t\na: 1\nc: 3", "table: t\na: x\ny\ncolumn 2: 2\nc: 3\ncolumn 4: extra"]
    assert [d.metadata["row"] for d in docs] == [0, 1]


def test_tsv_and_the_text_column(tmp_path: Path) -> None:
    docs = load("tsv", write(tmp_path, "facts.tsv", "id\ttext\tlang\n1\tPuffins nest here.\ten\n2\tSeals.\ten\n"),
                id_field="id", metadata_fields=["lang"])
    assert [d.text for d in docs] == ["Puffins nest here.", "Seals."]  # a `text` column is still the text
    assert docs[1].metadata == {"source": "facts.tsv", "mime": "text/tab-separated-values", "row": 1,
                                "record_id": "2", "lang": "en"}


def test_text_field_keeps_working_and_a_missing_one_names_the_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "semi.csv", "body;n\nhello;1\n")
    [doc] = load("csv", path, text_field="body", delimiter=";")
    assert doc.text == "hello" and doc.metadata["row"] == 0
    with pytest.raises(LoaderError) as info:
        load("csv", write(tmp_path, "cols.csv", "id,body\n1,hello\n"), text_field="text")
    assert str(tmp_path / "cols.csv") in str(info.value) and "columns: id, body" in str(info.value)
    assert "remove it to index every row" in str(info.value)
    with pytest.raises(ConfigError, match="delimiter must be one character"):
        loaders.get("csv")(delimiter=";;")
    with pytest.raises(ConfigError, match="text_field must be a non-empty string or null"):
        loaders.get("csv")(text_field="")


def test_header_only_and_empty_tables_are_skipped_with_the_reason(tmp_path: Path) -> None:
    path = write(tmp_path, "births.csv", "year,month,day,births\n")
    with pytest.raises(LoaderError) as info:
        load("csv", path)
    assert str(path) in str(info.value) and "no rows" in str(info.value)
    assert info.value.reason == "empty table (header only)"
    with pytest.raises(LoaderError, match="no header row"):
        load("csv", write(tmp_path, "blank.csv", "\n\n"))
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"a,b\n\x00\x01\x02")
    with pytest.raises(LoaderError, match="binary file"):
        loaders.get("csv")().load(binary, source="bin.csv")  # known before the first row


def test_malformed_and_undecodable_csv_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "latin.csv"
    bad.write_bytes(b"name,town\n" + b"Ana,Lisboa\n" * 3 + "Jos\u00e9,S\u00e3o Paulo\n".encode("latin-1"))
    with pytest.raises(LoaderError, match=r"not valid utf-8-sig text near line \d+; convert the file to UTF-8"):
        load("csv", bad)
    utf16 = tmp_path / "u16.csv"
    utf16.write_text("name,town\nAna,Lisboa\n", encoding="utf-16")
    assert load("csv", utf16)[0].text == "table: u16\nname: Ana\ntown: Lisboa"


def test_a_100k_row_csv_streams_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("year,month,day,gender,births\n")
        for i in range(100_000):
            f.write(f"{1969 + i % 40},{1 + i % 12},{1 + i % 28},{'MF'[i % 2]},{4000 + i % 997}\n")
    size = path.stat().st_size
    loader = loaders.get("csv")()
    tracemalloc.start()
    try:
        count = 0
        last = None
        for doc in loader.load(path, source="big.csv"):
            count += 1
            last = doc
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 100_000 and last is not None and last.metadata["row"] == 99_999
    # the file is ~1.7 MB and its documents ~40 MB as Python objects; streaming holds a few rows
    assert size > 1_500_000 and peak < 500_000, (size, peak)


def test_xlsx_sheets_are_tables(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "2020"
    ws.append(["state", "population", "counted"])
    ws.append(["Alaska", 733391, dt.datetime(2020, 4, 1)])
    ws.append([None, None, None])
    ws.append(["Wyoming", 576851.0, dt.datetime(2020, 4, 1, 12, 30)])
    other = wb.create_sheet("notes")
    other.append([None])
    other.append(["id", "text"])
    other.append([7, "Census day is April 1."])
    wb.create_sheet("empty")
    path = tmp_path / "census.xlsx"
    wb.save(path)
    docs = load("xlsx", path)
    assert [d.text for d in docs] == [
        "table: census / 2020\nstate: Alaska\npopulation: 733391\ncounted: 2020-04-01",
        "table: census / 2020\nstate: Wyoming\npopulation: 576851\ncounted: 2020-04-01 12:30:00",
        "Census day is April 1.",
    ]
    assert docs[1].metadata == {"source": "census.xlsx", "mime": loaders.get("xlsx").mime, "row": 1,
                                "title": "census / 2020", "sheet": "2020", "sheet_row": 4}
    assert docs[2].metadata["sheet"] == "notes" and docs[2].metadata["sheet_row"] == 3
    assert docs[2].metadata["row"] == 2


def test_bad_and_header_only_workbooks_and_a_missing_openpyxl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    wb.active.append(["a", "b"])
    path = tmp_path / "header.xlsx"
    wb.save(path)
    with pytest.raises(LoaderError, match="no rows below a header row"):
        load("xlsx", path)
    broken = write(tmp_path, "broken.xlsx", "not a zip")
    with pytest.raises(LoaderError, match="not a readable Excel workbook") as info:
        load("xlsx", broken)
    assert str(broken) in str(info.value)
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(LoaderError, match=r"pip install 'ragkit\[xlsx\]'") as info:
        load("xlsx", path)
    assert "install" in (info.value.reason or "")  # retried once the package is installed


def test_a_csv_row_is_found_as_text(tmp_path: Path) -> None:
    docs = tmp_path / "data"
    docs.mkdir()
    write(docs, "president_heights.csv", HEIGHTS)
    write(docs, "births.csv", "year,month,births\n1969,1,4000\n")
    write(docs, "empty.csv", "year,month,births\n")
    pipe = write(tmp_path, "pipe.yaml", json.dumps({
        "index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 64},
        "store": {"type": "faiss", "index": "flat"}}))
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"], catch_exceptions=False)
    report = json.loads(run.stdout)
    assert sorted(report["added"]) == ["births.csv", "president_heights.csv"]
    assert [s["source"] for s in report["skipped"]] == ["empty.csv"]
    run = CliRunner().invoke(cli, ["search", "How tall was Abraham Lincoln?", "--index", str(tmp_path / "index"),
                                   "-k", "1", "--json"])
    hit = json.loads(run.stdout)[0]
    assert hit["source"] == "president_heights.csv" and "name: Abraham Lincoln\nheight(cm): 193" in hit["text"]
