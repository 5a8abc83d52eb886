"""Rich Text Format (``.rtf``, loader ``rtf``), read with no extra package.

The text of the document body in order: paragraphs and line breaks as line ends, a table's cells
joined by ``|`` one row per line, ``\\uN`` and ``\\'hh`` characters decoded (the latter in the
document's ``\\ansicpg`` code page), a field's shown result kept and its instruction dropped.
Everything that is not body text is left out: the font, colour and style tables, pictures and
embedded objects, the document's info (its ``\\title`` becomes the ``title``), and every group
RTF marks as skippable (``{\\*\\destination …}``). One pass over the file, group nesting bounded
(``MAX_DEPTH``: deeper groups are read as their text, never recursed into).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, strip_encoded_data
from ragkit.loaders.table_rows import cell_lines
from ragkit.registry import loaders
from ragkit.types import Document

#: groups deeper than this are not tracked (their text still reads); a hostile file nests thousands
MAX_DEPTH = 200
_TOKEN = re.compile(rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([\r\n]+)|([^\\{}\r\n]+)",
                    re.DOTALL)
#: destinations whose text is not the document's
_SKIP = frozenset({
    "fonttbl", "colortbl", "stylesheet", "pict", "object", "objdata", "fldinst", "header", "headerl",
    "headerr", "headerf", "footer", "footerl", "footerr", "footerf", "listtable", "listoverridetable", "rsidtbl",
    "generator", "themedata", "colorschememapping", "datastore", "latentstyles", "xmlnstbl", "revtbl",
    "filetbl", "pgdsctbl", "bkmkstart", "bkmkend", "shppict", "nonshppict", "blipuid", "template", "userprops",
    "docvar", "mmathPr", "wgrffmtfilter", "pnseclvl", "listtext", "pntext", "txe", "annotation", "atnid",
    "atnauthor", "comment", "fontemb", "falt", "panose", "leveltext", "levelnumbers", "passwordhash", "protusertbl",
})
_NEWLINE = frozenset({"par", "line", "sect", "page", "row"})
_CHARS = {"tab": "\t", "emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022", "lquote": "\u2018",
          "rquote": "\u2019", "ldblquote": "\u201c", "rdblquote": "\u201d", "emspace": " ", "enspace": " ",
          "qmspace": " ", "cell": " | ", "nestcell": " | "}
_SYMBOLS = {"~": "\u00a0", "-": "", "_": "-", "\\": "\\", "{": "{", "}": "}", "\n": "\n", "\r": "\n"}


@dataclass
class _Group:
    skip: bool = False
    info: bool = False  # inside the document's \info group
    title: bool = False  # the info group's \title
    hidden: bool = False  # hidden text (\v)
    note: bool = False  # a footnote's group: its end ends the note's line
    uc: int = 1  # characters that stand for a \uN character in readers without Unicode


@loaders.register("rtf")
class RtfLoader(Loader):
    """One document of a ``.rtf`` file: its body text."""

    name = "rtf"
    mime = "application/rtf"
    version = 2  # 2: a table of words has its first row as header (``table_rows.split_header``)

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        data = path.read_bytes()
        if not data.lstrip().startswith(b"{\\rtf"):
            raise LoaderError(f"{path}: not a Rich Text Format file (it does not start with {{\\rtf); rename it to "
                              "what it is", path=str(path), reason="not an RTF file")
        text, title = rtf_text(data)
        text = strip_encoded_data(text)
        if not text.strip():
            raise LoaderError(f"{path}: the RTF file contains no text", path=str(path), reason="empty file")
        return iter([Document(text=text, metadata=self._metadata(source, title=title or path.stem))])


def rtf_text(data: bytes) -> tuple[str, str]:
    """(the body text, the ``\\title`` of the info group or "") of an RTF document."""
    out: list[str] = []
    title: list[str] = []
    stack = [_Group()]
    codepage = "cp1252"
    pending: list[int] = []  # \'hh bytes, decoded together (a double-byte code page needs both)
    skip_next = 0  # fallback characters still to drop after a \uN

    def flush() -> None:
        if pending:
            text = bytes(pending).decode(codepage, errors="replace")
            (title if stack[-1].title else out).append(text)
            pending.clear()

    def emit(text: str) -> None:
        flush()
        group = stack[-1]
        if group.title:
            title.append(text)
        elif not group.skip and not group.hidden:
            out.append(text)

    ignorable = False  # the last token was \*: the group it opens is skipped unless known
    table = False  # in a table's cell (\intbl): a paragraph mark does not end the row
    pos = 0
    while (match := _TOKEN.search(data, pos)) is not None:
        pos = match.end()
        word, arg, hexa, symbol, brace, _newline, plain = match.groups()
        if word == b"bin" and arg:  # raw bytes follow: never read as text or groups
            pos += max(0, int(arg))
            continue
        if skip_next and (hexa or plain):
            if hexa:
                skip_next -= 1
                continue
            take = plain.decode("latin-1")
            dropped, skip_next = min(skip_next, len(take)), max(0, skip_next - len(take))
            plain = take[dropped:].encode("latin-1")
            if not plain:
                continue
        if brace == b"{":
            flush()
            top = stack[-1]
            stack.append(_Group(top.skip, top.info, top.title, top.hidden, uc=top.uc) if len(stack) < MAX_DEPTH else top)
        elif brace == b"}":
            flush()
            if len(stack) > 1:
                if stack.pop().note:
                    emit("\n")
        elif word:
            name = word.decode("ascii")
            group = stack[-1]
            if name in ("ansicpg",) and arg:
                codepage = _codepage(int(arg))
            elif name == "u" and arg:
                emit(chr(int(arg) % 0x10000 if int(arg) >= 0 else int(arg) + 0x10000))
                skip_next = group.uc
            elif name == "uc" and arg:
                group.uc = max(0, min(int(arg), 10))
            elif name == "title" and group.info:
                group.title = True
            elif name == "info":
                group.skip = group.info = True
            elif name == "v":
                group.hidden = arg != b"0"
            elif name == "footnote":  # its own line, after the sentence that cites it
                emit("\nNote: ")
                group.note = True
            elif name == "intbl":
                table = True
            elif name == "pard":
                table = False
            elif name == "par" and table:
                emit(" ")  # a paragraph inside a table's cell: the cell goes on
            elif name == "row":
                table = False
                emit("\n")
            elif name in _SKIP or ignorable:
                group.skip = True
            elif name in _NEWLINE:
                emit("\n")
            elif name in _CHARS:
                emit(_CHARS[name])
            ignorable = False
            continue
        elif hexa:
            if not stack[-1].skip or stack[-1].title:
                pending.append(int(hexa, 16))
        elif symbol:
            if symbol == b"*":
                ignorable = True
                continue
            emit(_SYMBOLS.get(symbol.decode("latin-1"), ""))
        elif plain:
            emit(plain.decode(codepage, errors="replace"))
        ignorable = False
    flush()
    return cell_lines("".join(out)), " ".join("".join(title).split())


def _codepage(number: int) -> str:
    name = f"cp{number}"
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


__all__ = ["RtfLoader", "rtf_text"]
