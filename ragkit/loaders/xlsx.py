"""Excel workbooks (``.xlsx``, ``.xlsm``) via openpyxl (``pip install 'ragkit[xlsx]'``).

Every worksheet is a table: its first non-empty row is the header, each later row a document, as
for CSV (``ragkit.loaders.tabular``: the ``text`` column or ``text_field`` when there is one, else
``column: value`` lines under the table's name). The table is named after the file, and after the
sheet too when the workbook has several (``census / 2020``). Cells give their values (a formula's
last computed value); dates are written ISO style. Streamed: openpyxl's read-only mode reads one
row at a time. Metadata: ``sheet``, ``row`` (0-based across the workbook) and ``sheet_row`` (the
row number Excel shows).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.office_binary import old_binary_loader
from ragkit.loaders.tabular import TableLoader
from ragkit.loaders.zipcheck import ZipFormat
from ragkit.registry import loaders
from ragkit.types import Document

XLSX = ZipFormat(what="Excel workbook", module="openpyxl", package="openpyxl", extra="xlsx",
                 fix="re-save it as .xlsx from Excel or LibreOffice")


@loaders.register("xlsx")
class XlsxLoader(TableLoader):
    """Reads every worksheet of an Excel workbook, one document per row."""

    name = "xlsx"
    mime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    checks_zip = True

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        if (binary := old_binary_loader(path)) is not None:  # an old binary file saved with this name
            return self.read_as(binary, path, source=source)
        workbook = XLSX.open(path, self.limits,  # a missing package or a broken file fails here, before any row
                             lambda openpyxl: openpyxl.load_workbook(path, read_only=True, data_only=True))
        return self._rows(path, source, workbook)

    def _rows(self, path: Path, source: str, workbook: Any) -> Iterator[Document]:
        done = 0  # data rows of the sheets before: ``row`` counts across the workbook
        try:
            sheets = list(workbook.worksheets)
            for sheet in sheets:
                _read_every_row(sheet)
                table = path.stem if len(sheets) == 1 else f"{path.stem} / {sheet.title}"
                rows = (
                    ([_value(v) for v in values], {"sheet": sheet.title, "sheet_row": number})
                    for number, values in enumerate(sheet.iter_rows(values_only=True), start=1)
                    if any(v is not None and str(v).strip() for v in values)
                )
                header = next(rows, None)
                if header is None:
                    continue
                for doc in self.table_documents(path, source, table, header[0], rows, first_row=done):
                    done = doc.metadata["row"] + 1
                    yield doc
        finally:
            workbook.close()
        if not done:
            raise LoaderError(f"{path}: the workbook has no rows below a header row (empty sheets only)",
                              path=str(path), reason="empty table (header only)")


def _value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time(0) else value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return value


def _read_every_row(sheet: Any) -> None:
    """Make a read-only sheet read all its rows: openpyxl stops at the size the sheet's
    ``<dimension>`` claims, which some programs write wrong (the rows past it would be lost)."""
    reset = getattr(sheet, "reset_dimensions", None)
    if reset is not None:
        reset()


__all__ = ["XlsxLoader"]

