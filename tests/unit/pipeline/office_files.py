"""Office files built for the bounded-loading tests: a DOCX with a table python-docx cannot lay
out, and DOCX zip bombs (a small file whose ``document.xml`` inflates to hundreds of MB), written
without ever holding or compressing the inflated bytes."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

_PARAGRAPH = b"<w:p><w:r><w:t>" + b"bomb " * 200 + b"</w:t></w:r></w:p>"
_MB = 1024 * 1024


def broken_table_docx(path: Path, *, before: str, after: str) -> Path:
    """A DOCX whose one table has a vertically merged cell at grid column 1 under a row whose only
    cell spans columns 0-1: no cell starts at that column, so python-docx raises ``ValueError: no
    `tc` element at grid_offset=1`` reading the table."""
    import docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = docx.Document()
    document.add_paragraph(before)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(1, 0).text, table.cell(1, 1).text = "a", "c", "d"
    first, second = table._tbl.tr_lst
    first.remove(first.tc_lst[1])
    span = OxmlElement("w:gridSpan")
    span.set(qn("w:val"), "2")
    first.tc_lst[0].get_or_add_tcPr().append(span)
    second.tc_lst[1].get_or_add_tcPr().append(OxmlElement("w:vMerge"))  # continues the cell above
    document.add_paragraph(after)
    document.save(str(path))
    return path


def docx_bomb(path: Path, *, inflated_mb: int, declared_mb: int | None = None) -> Path:
    """A valid DOCX whose ``word/document.xml`` inflates to about ``inflated_mb`` MB of paragraphs
    (the file is about a thousandth of that). ``declared_mb``: the size its headers claim instead
    (a zip that lies about what it inflates to)."""
    import docx

    seed = io.BytesIO()
    docx.Document().save(seed)
    entries = []
    with zipfile.ZipFile(seed) as src:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                head, tail = data.split(b"<w:body>", 1)
                block = _PARAGRAPH * (_MB // len(_PARAGRAPH))
                entries.append((info.filename, *_repeated(head + b"<w:body>", block, inflated_mb, tail)))
            else:
                entries.append((info.filename, *_repeated(data, b"", 0, b"")))
    if declared_mb is not None:
        entries = [(n, c, crc, declared_mb * _MB if n == "word/document.xml" else size)
                   for n, c, crc, size in entries]
    path.write_bytes(_zip(entries))
    return path


def _repeated(head: bytes, block: bytes, times: int, tail: bytes) -> tuple[bytes, int, int]:
    """Raw deflate of ``head + block * times + tail`` with the block compressed once (a full flush
    before and after it resets the compressor, so each copy compresses to the same bytes)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = comp.compress(head) + comp.flush(zlib.Z_FULL_FLUSH)
    one = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    end = comp.compress(tail) + comp.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(times):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    return start + one * times + end, crc, len(head) + len(block) * times + len(tail)


def _zip(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of ``(name, raw deflate data, crc, uncompressed size)`` members."""
    out, central = bytearray(), bytearray()
    for name, data, crc, size in entries:
        raw = name.encode()
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(data), size,
                               len(raw), 0, 0, 0, 0, 0, len(out)) + raw
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(data), size, len(raw), 0)
        out += raw + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
    return bytes(out + central + end)
