"""Old binary Word documents (``.doc``, Word 97-2003; loader ``doc``) via olefile
(``pip install 'ragkit[doc]'``), with no office suite.

A ``.doc`` is an OLE compound file. Its ``WordDocument`` stream opens with the File Information
Block (FIB), which gives the number of characters of the main text (``ccpText``) and of the
footnotes (``ccpFtn``), which table stream holds the piece table (``0Table`` or ``1Table``), and
where (``fcClx``). The piece table maps runs of character positions to where their text is stored:
8-bit (Windows-1252) or UTF-16. The document is the main text and its footnotes, read piece by
piece; Word's marks become text: paragraph and cell ends become line ends (a table's cells are
separated by ``|``), a field's instruction (``PAGE``, ``HYPERLINK "…"``) is dropped and its shown
result kept, pictures' and objects' placeholders are dropped.

Every size read from the file is checked against the streams it points into, so a damaged or
hostile file is skipped with its reason; so is an encrypted document, and one saved by Word 6 or
95 (a format before the piece table this reads).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, strip_encoded_data
from ragkit.loaders.office_binary import read_ole
from ragkit.loaders.table_rows import cell_lines
from ragkit.registry import loaders
from ragkit.types import Document

_MAGIC = 0xA5EC  # the FIB's wIdent
_WORD97 = 0x00C1  # the nFib of Word 97; older files store their text another way
_ENCRYPTED, _TABLE_1 = 0x0100, 0x0200  # FibBase flags: fEncrypted, fWhichTblStm
_CCP_TEXT, _CCP_FTN = 3, 4  # indexes in FibRgLw97
_FC_CLX = 33  # index of the (fcClx, lcbClx) pair in FibRgFcLcb97
_COMPRESSED = 0x40000000  # in a piece's FcCompressed: 8-bit text at fc / 2
#: Word's marks in the text: what each becomes (None: dropped)
_MARKS = {"\r": "\n", "\x0b": "\n", "\x0c": "\n", "\x0e": "\n", "\x1e": "-", "\x1f": "", "\xa0": " ",
          "\x01": "", "\x08": "", "\x02": "", "\x05": ""}
_CELL = "\x07"
_FIELD_BEGIN, _FIELD_SEPARATOR, _FIELD_END = "\x13", "\x14", "\x15"
_CONTROL = re.compile(r"[\x00-\x06\x0f-\x12\x16-\x1d]")


@loaders.register("doc")
class DocLoader(Loader):
    """One document of a Word 97-2003 ``.doc``: its main text and footnotes."""

    name = "doc"
    mime = "application/msword"
    version = 2  # 2: a table of words has its first row as header (``table_rows.split_header``)

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        text, title = read_ole(path, lambda ole: read_doc(ole, path), extra="doc", what="a Word document",
                               fix="open it in Word or LibreOffice and save it as .docx")
        text = strip_encoded_data(text)
        if not text.strip():
            raise LoaderError(f"{path}: the Word document contains no text", path=str(path), reason="empty file")
        return iter([Document(text=text, metadata=self._metadata(source, title=title or path.stem))])


def _stream(ole: Any, name: str, path: Path) -> bytes:
    if not ole.exists(name):
        raise LoaderError(f"{path}: not a Word 97-2003 document (no {name} stream); open it in Word or LibreOffice "
                          "and save it as .docx", path=str(path), reason=f"not a Word document (no {name})")
    return ole.openstream(name).read()


def read_doc(ole: Any, path: Path) -> tuple[str, str]:
    """(the main text and footnotes, the document's title from its summary, or "")."""
    word = _stream(ole, "WordDocument", path)
    ident, fib_version = struct.unpack_from("<HH", word, 0)
    flags = struct.unpack_from("<H", word, 0x0A)[0]
    if ident != _MAGIC:
        raise LoaderError(f"{path}: not a Word document (its WordDocument stream has no Word header); open it in "
                          "the program that made it and save it as .docx", path=str(path), reason="not a Word document")
    if flags & _ENCRYPTED:
        raise LoaderError(f"{path}: password-protected (encrypted) Word document; remove the password in Word and "
                          "save it, or decrypt a copy: msoffcrypto-tool -p PASSWORD in out",
                          path=str(path), reason="encrypted document")
    if fib_version < _WORD97:
        raise LoaderError(f"{path}: a Word 6/95 document (an older format than Word 97); open it in Word or "
                          "LibreOffice and save it as .docx", path=str(path), reason="Word 6/95 document")
    table = _stream(ole, "1Table" if flags & _TABLE_1 else "0Table", path)
    lengths, clx = _fib(word)
    wanted = lengths[_CCP_TEXT] + lengths[_CCP_FTN]
    text = "".join(_pieces(word, table[clx[0]:clx[0] + clx[1]], wanted))
    return _readable(text), _title(ole)


def _fib(word: bytes) -> tuple[list[int], tuple[int, int]]:
    """(FibRgLw97's counts, (fcClx, lcbClx)) from the FIB's variable parts."""
    at = 0x20
    csw = struct.unpack_from("<H", word, at)[0]
    at += 2 + 2 * csw
    cslw = struct.unpack_from("<H", word, at)[0]
    lengths = list(struct.unpack_from(f"<{cslw}i", word, at + 2))
    at += 2 + 4 * cslw
    pairs = struct.unpack_from("<H", word, at)[0]
    if cslw <= _CCP_FTN or pairs <= _FC_CLX:
        raise ValueError("the Word header is too short to locate the text")
    fc, lcb = struct.unpack_from("<II", word, at + 2 + 8 * _FC_CLX)
    return lengths, (fc, lcb)


def _pieces(word: bytes, clx: bytes, wanted: int) -> Iterator[str]:
    """The text of the first ``wanted`` characters, piece by piece (the piece table after any
    formatting runs in ``clx``)."""
    at = 0
    while at < len(clx) and clx[at] == 0x01:  # a Prc: formatting, skipped
        at += 3 + struct.unpack_from("<H", clx, at + 1)[0]
    if at >= len(clx) or clx[at] != 0x02:
        raise ValueError("no piece table in the document")
    size = struct.unpack_from("<I", clx, at + 1)[0]
    plc = clx[at + 5:at + 5 + size]
    count = (len(plc) - 4) // 12
    if count < 1 or len(plc) < 4 + 12 * count:
        raise ValueError("the piece table is damaged")
    cps = struct.unpack_from(f"<{count + 1}i", plc, 0)
    done = 0
    for i in range(count):
        if done >= wanted:
            return
        start, end = cps[i], cps[i + 1]
        n = min(end - start, wanted - done)
        if n <= 0:
            continue
        fc = struct.unpack_from("<I", plc, 4 * (count + 1) + 8 * i + 2)[0]
        if fc & _COMPRESSED:
            offset = (fc & ~_COMPRESSED) // 2
            raw = word[offset:offset + n]
            yield raw.decode("cp1252", errors="replace")
        else:
            raw = word[fc:fc + 2 * n]
            yield raw.decode("utf-16-le", errors="replace")
        if len(raw) < n:
            return  # the piece points past the stream: what there is
        done += n


def _readable(text: str) -> str:
    """Word's marks as text: fields reduced to their results, cells joined by ``|``, paragraph
    marks as line ends, controls dropped; blank lines squeezed."""
    out: list[str] = []
    depth_instruction: list[bool] = []  # per open field: still in its instruction
    for ch in text:
        if ch == _FIELD_BEGIN:
            depth_instruction.append(True)
        elif ch == _FIELD_SEPARATOR:
            if depth_instruction:
                depth_instruction[-1] = False
        elif ch == _FIELD_END:
            if depth_instruction:
                depth_instruction.pop()
        elif depth_instruction and depth_instruction[-1]:
            continue  # a field's instruction: not shown
        elif ch == _CELL:  # a cell's end; right after one, its row's end
            out.append("\n" if out and out[-1] == " | " else " | ")
        else:
            out.append(_MARKS.get(ch, ch))
    return cell_lines(_CONTROL.sub("", "".join(out)))


def _title(ole: Any) -> str:
    try:
        meta = ole.get_metadata()
    except Exception:  # noqa: BLE001 - a damaged summary stream costs the title only
        return ""
    title = getattr(meta, "title", None)
    if isinstance(title, bytes):
        title = title.decode("cp1252", errors="replace")
    return " ".join(str(title or "").split())


__all__ = ["DocLoader", "read_doc"]
