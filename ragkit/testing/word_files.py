"""Word 97-2003 ``.doc`` files built from their parts, for tests (``write_ole`` holds the streams):
a File Information Block, the text stored piece by piece (8-bit or UTF-16) and the piece table
that maps character positions to it, in the ``1Table`` stream. Only what a reader of the text
needs; Word itself would want styles and formatting too.

    write_doc(path, [("Harbour notes\\r", True), ("Łódź ferry\\r", False)])
"""

from __future__ import annotations

import struct
from pathlib import Path

from ragkit.testing.ole import write_ole

_HEADER = 1024  # the text starts here in the WordDocument stream
_CSW, _CSLW, _PAIRS = 14, 22, 93


def word_streams(pieces: list[tuple[str, bool]], *, main: int | None = None, footnotes: int = 0,
                 version: int = 0x00C1, encrypted: bool = False, clx: bytes | None = None) -> dict[str, bytes]:
    """The ``WordDocument`` and ``1Table`` streams of a document whose text is ``pieces`` (text,
    stored as 8-bit Windows-1252?): ``main`` characters of main text (default: all) and
    ``footnotes`` after them; ``clx``: a piece table of your own."""
    body = bytearray()
    cps, fcs = [0], []
    for text, compressed in pieces:
        offset = _HEADER + len(body)
        body += text.encode("cp1252") if compressed else text.encode("utf-16-le")
        fcs.append((offset * 2) | 0x40000000 if compressed else offset)
        cps.append(cps[-1] + len(text))
    total = cps[-1]
    plc = struct.pack(f"<{len(cps)}i", *cps) + b"".join(struct.pack("<HIH", 0, fc, 0) for fc in fcs)
    clx = clx if clx is not None else b"\x01" + struct.pack("<H", 2) + b"\x00\x00" + b"\x02" + struct.pack("<I", len(plc)) + plc
    fib = bytearray(_HEADER)
    struct.pack_into("<HH", fib, 0, 0xA5EC, version)
    struct.pack_into("<H", fib, 0x0A, 0x0200 | (0x0100 if encrypted else 0))  # the 1Table stream; encrypted?
    at = 0x20
    struct.pack_into("<H", fib, at, _CSW)
    at += 2 + 2 * _CSW
    lengths = [0] * _CSLW
    lengths[3], lengths[4] = (total - footnotes if main is None else main), footnotes
    struct.pack_into(f"<H{_CSLW}i", fib, at, _CSLW, *lengths)
    at += 2 + 4 * _CSLW
    struct.pack_into("<H", fib, at, _PAIRS)
    struct.pack_into("<II", fib, at + 2 + 8 * 33, 0, len(clx))  # fcClx, lcbClx
    return {"WordDocument": bytes(fib + body), "1Table": clx}


def write_doc(path: Path, pieces: list[tuple[str, bool]], **options: object) -> Path:
    """A ``.doc`` at ``path`` (see :func:`word_streams` for ``options``)."""
    return write_ole(path, word_streams(pieces, **options))  # type: ignore[arg-type]


__all__ = ["word_streams", "write_doc"]
