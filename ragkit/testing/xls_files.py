"""Excel 97-2003 ``.xls`` workbooks built from BIFF8 records, for tests: a workbook stream
(globals: BOF, a BOUNDSHEET per sheet, EOF; each sheet: BOF, DIMENSIONS, a LABEL or NUMBER per
cell, EOF) in an OLE file's ``Workbook`` stream (``write_ole``). Only what a reader of the
cells needs; Excel itself would want fonts and formats too.

    write_xls(path, {"Ports": [["port", "ships"], ["Leith", 4]]})
"""

from __future__ import annotations

import struct
from pathlib import Path

from ragkit.testing.ole import write_ole

_BOF, _EOF, _BOUNDSHEET, _DIMENSIONS, _NUMBER, _LABEL = 0x0809, 0x000A, 0x0085, 0x0200, 0x0203, 0x0204


def _record(kind: int, data: bytes = b"") -> bytes:
    return struct.pack("<HH", kind, len(data)) + data


def _bof(substream: int) -> bytes:
    return _record(_BOF, struct.pack("<HHHHII", 0x0600, substream, 0x0DBB, 0x07CC, 0, 0x06))


def _text(value: str, length_bytes: int) -> bytes:
    wide = any(ord(c) > 0xFF for c in value)
    chars = value.encode("utf-16-le") if wide else value.encode("latin-1")
    return struct.pack("<B" if length_bytes == 1 else "<H", len(value)) + bytes([1 if wide else 0]) + chars


def biff8_workbook(sheets: dict[str, list[list[str | float | int | None]]]) -> bytes:
    """The BIFF8 ``Workbook`` stream of ``sheets`` (name -> rows of cells)."""
    bodies = []
    for rows in sheets.values():
        width = max((len(r) for r in rows), default=0)
        cells = b"".join(
            _record(_NUMBER, struct.pack("<HHHd", r, c, 0, float(v))) if isinstance(v, (int, float))
            else _record(_LABEL, struct.pack("<HHH", r, c, 0) + _text(str(v), 2))
            for r, row in enumerate(rows) for c, v in enumerate(row) if v is not None)
        bodies.append(_bof(0x0010) + _record(_DIMENSIONS, struct.pack("<IIHHH", 0, len(rows), 0, width, 0))
                      + cells + _record(_EOF))
    sizes = [len(_record(_BOUNDSHEET, struct.pack("<IBB", 0, 0, 0) + _text(name, 1))) for name in sheets]
    offset = len(_bof(0x0005)) + sum(sizes) + len(_record(_EOF))
    globals_ = _bof(0x0005)
    for name, body in zip(sheets, bodies, strict=True):
        globals_ += _record(_BOUNDSHEET, struct.pack("<IBB", offset, 0, 0) + _text(name, 1))
        offset += len(body)
    return globals_ + _record(_EOF) + b"".join(bodies)


def write_xls(path: Path, sheets: dict[str, list[list[str | float | int | None]]]) -> Path:
    """An ``.xls`` at ``path`` holding ``sheets`` (its stream under 4096 bytes: ``write_ole``)."""
    return write_ole(path, {"Workbook": biff8_workbook(sheets)})


__all__ = ["biff8_workbook", "write_xls"]
