"""Old binary Excel workbooks (``.xls``, Excel 97-2003; loader ``xls``) via xlrd
(``pip install 'ragkit[xls]'``), read as ``.xlsx`` workbooks are (``ragkit.loaders.xlsx``).

Every worksheet is a table: its first non-empty row is the header, each later row a document
(``TableLoader``: the ``text`` column or ``text_field`` when there is one, else ``column: value``
lines under the table's name, a title row above the header naming the table). Dates are written
ISO style, whole numbers without ``.0``. Metadata: ``sheet``, ``row`` (0-based across the workbook)
and ``sheet_row`` (the row number Excel shows). A web page or a CSV file saved with an ``.xls``
name (as many web applications export) is skipped with what it is and the name to give it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import import_extra, unreadable
from ragkit.loaders.office_binary import OLE_MAGIC
from ragkit.loaders.tabular import TableLoader
from ragkit.registry import loaders
from ragkit.types import Document

_FIX = "open it in Excel or LibreOffice and save it as .xlsx"


@loaders.register("xls")
class XlsLoader(TableLoader):
    """Reads every worksheet of an Excel 97-2003 workbook, one document per row."""

    name = "xls"
    mime = "application/vnd.ms-excel"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        xlrd = import_extra(path, "xlrd", package="xlrd", extra="xls")
        _check_kind(path)
        try:
            book = xlrd.open_workbook(str(path), on_demand=True, logfile=_Quiet())
        except Exception as exc:  # XLRDError, CompDocError, struct.error on a damaged file
            raise unreadable(path, exc, what="Excel 97-2003 workbook", fix=_FIX) from exc
        return self._rows(path, source, book, xlrd)

    def _rows(self, path: Path, source: str, book: Any, xlrd: Any) -> Iterator[Document]:
        done = 0
        try:
            names = book.sheet_names()
            for name in names:
                sheet = book.sheet_by_name(name)
                table = path.stem if len(names) == 1 else f"{path.stem} / {name}"
                values = ([_value(c, book.datemode, xlrd) for c in sheet.row(n)] for n in range(sheet.nrows))
                rows = (
                    (cells, {"sheet": name, "sheet_row": number})
                    for number, cells in enumerate(values, start=1)
                    if any(v is not None and str(v).strip() for v in cells)
                )
                header = next(rows, None)
                if header is not None:
                    for doc in self.table_documents(path, source, table, header[0], rows, first_row=done):
                        done = doc.metadata["row"] + 1
                        yield doc
                book.unload_sheet(name)
        except LoaderError:
            raise
        except Exception as exc:  # a sheet xlrd cannot read further
            raise unreadable(path, exc, what="Excel 97-2003 workbook", fix=_FIX) from exc
        finally:
            book.release_resources()
        if not done:
            raise LoaderError(f"{path}: the workbook has no rows below a header row (empty sheets only)",
                              path=str(path), reason="empty table (header only)")


def _value(cell: Any, datemode: int, xlrd: Any) -> Any:
    """A cell's value as a spreadsheet shows it: dates ISO style, whole numbers without ``.0``,
    booleans as TRUE/FALSE, errors and blanks as empty."""
    kind, value = cell.ctype, cell.value
    if kind == xlrd.XL_CELL_DATE:
        try:
            when = xlrd.xldate_as_datetime(value, datemode)
        except (ValueError, OverflowError, xlrd.xldate.XLDateError):
            return value
        return when.date().isoformat() if when.time() == dt.time(0) else when.isoformat(sep=" ")
    if kind == xlrd.XL_CELL_NUMBER:
        return int(value) if float(value).is_integer() and abs(value) < 1e15 else value
    if kind == xlrd.XL_CELL_BOOLEAN:
        return "TRUE" if value else "FALSE"
    if kind in (xlrd.XL_CELL_ERROR, xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
        return None
    return value


def _check_kind(path: Path) -> None:
    """Skip, with what it is, a file that only has the name of a workbook: a web page or text."""
    with open(path, "rb") as f:
        head = f.read(512)
    if head.startswith(OLE_MAGIC) or head.startswith(b"\x09\x08") or head.startswith(b"\x09\x04"):
        return  # an OLE workbook, or a bare BIFF stream xlrd reads too
    if head.startswith(b"PK\x03\x04"):
        raise LoaderError(f"{path}: an Excel .xlsx workbook with an .xls name; rename it to .xlsx", path=str(path),
                          reason="an .xlsx workbook named .xls")
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith((b"<!doctype html", b"<html", b"<table", b"<?xml")):
        raise LoaderError(f"{path}: a web page (HTML/XML) with an .xls name, as web applications export tables; "
                          "rename it to .html to index its tables", path=str(path), reason="a web page named .xls")
    if b"\x00" not in head and (b"," in head or b"\t" in head):
        raise LoaderError(f"{path}: a text table (CSV or TSV) with an .xls name; rename it to .csv or .tsv",
                          path=str(path), reason="a text table named .xls")


class _Quiet:
    """xlrd's log file: its warnings about odd records go nowhere (the rows are what matters)."""

    def write(self, text: str) -> None:
        pass


__all__ = ["XlsLoader"]
