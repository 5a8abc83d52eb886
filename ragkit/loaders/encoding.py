"""Which Unicode encoding a text file is in, and its decoding: the one decoder of the text loaders.

UTF-8 (with or without a BOM) is the default. UTF-16 and UTF-32 are recognised by their BOM or,
without one, by where the NUL bytes fall: text in UTF-16LE has a NUL in most odd bytes and few in
even ones, UTF-32LE in bytes 2 and 3 of every four, and so on (what ASCII, Latin and most other
scripts below U+0100 / U+10000 give); such a guess must decode to text that is not mostly control
characters (binary data can have NULs in a UTF-16 pattern). What still has NUL bytes after that is
binary and not text:
:func:`decode_text` refuses it with the reason, except a few stray NUL characters in a long text
(a log written by a crashed program), which are dropped.
"""

from __future__ import annotations

import codecs

from ragkit.errors import LoaderError

#: bytes inspected when recognising the encoding (and binary content)
SNIFF_BYTES = 8192
#: the share of a text's characters that may be stray NULs (dropped); more is binary
MAX_NUL_SHARE = 0.001
#: the share of control characters (other than white space) above which a UTF-16/32 guess is binary
MAX_CONTROL_SHARE = 0.05
_WHITE = frozenset("\t\n\r\f\v")
_BOMS = (  # UTF-32 first: its little-endian BOM starts like UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
    (codecs.BOM_UTF8, "utf-8-sig"),
)
#: (encoding, bytes per unit, the unit offsets that are mostly NUL, the offsets that are rarely NUL)
_NUL_PATTERNS = (
    ("utf-32-le", 4, (2, 3), (0,)), ("utf-32-be", 4, (0, 1), (3,)),
    ("utf-16-le", 2, (1,), (0,)), ("utf-16-be", 2, (0,), (1,)),
)


def sniff_encoding(head: bytes) -> str | None:
    """The encoding of a text that starts with ``head`` (a Python codec name: ``utf-8-sig``,
    ``utf-16``, ``utf-32-le``, ...), or None when it has NUL bytes in no encoding's pattern
    (binary)."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    if head.count(0) <= max(1, MAX_NUL_SHARE * len(head)):
        return "utf-8-sig"  # no NUL, or a stray one
    for name, width, mostly, rarely in _NUL_PATTERNS:
        units = len(head) // width
        if units < 2:
            continue
        share = [head[i : units * width : width].count(0) / units for i in range(width)]
        if all(share[i] >= 0.5 for i in mostly) and all(share[i] <= 0.1 for i in rarely):
            return name
    return None


def decode_text(data: bytes, where: str) -> str:
    """``data`` as text in the encoding :func:`sniff_encoding` finds; a :class:`LoaderError`
    naming ``where`` for binary content or undecodable bytes."""
    encoding = sniff_encoding(data[:SNIFF_BYTES])
    if encoding is None:
        raise binary_error(where)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise decode_error(where, exc, encoding) from None
    if encoding in _GUESSED and _controls(text[:SNIFF_BYTES]) > MAX_CONTROL_SHARE:
        raise binary_error(where)
    nuls = text.count("\x00")
    if nuls:
        if nuls > max(1, MAX_NUL_SHARE * len(text)):
            raise binary_error(where)
        text = text.replace("\x00", "")
    return text


_GUESSED = frozenset(name for name, *_ in _NUL_PATTERNS)


def _controls(text: str) -> float:
    """The share of ``text``'s characters that are control characters other than white space."""
    if not text:
        return 0.0
    return sum(1 for c in text if (c < " " or "\x7f" <= c <= "\x9f") and c not in _WHITE) / len(text)


def binary_error(where: str, what: str = "text") -> LoaderError:
    return LoaderError(
        f"{where}: binary file (NUL bytes, and not UTF-16 or UTF-32 text), not {what}; exclude it from the "
        "sources or map its extension to a suitable loader",
        path=where,
        reason="binary file",
    )


def decode_error(where: str, exc: UnicodeDecodeError, encoding: str) -> LoaderError:
    bad = exc.object[exc.start : exc.start + 1].hex()
    shown = {"utf-8-sig": "UTF-8"}.get(encoding, encoding.upper())
    return LoaderError(
        f"{where}: not valid {shown} text (undecodable byte 0x{bad} at byte offset {exc.start}); "
        "convert the file to UTF-8 (e.g. iconv -f LATIN1 -t UTF-8)",
        path=where,
        reason="undecodable text",
    )


__all__ = ["MAX_NUL_SHARE", "SNIFF_BYTES", "binary_error", "decode_error", "decode_text", "sniff_encoding"]
