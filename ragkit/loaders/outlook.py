"""Outlook messages (``.msg``, loader ``msg``) via olefile (``pip install 'ragkit[msg]'``).

An Outlook ``.msg`` file is an OLE compound file whose MAPI properties are streams named
``__substg1.0_<id><type>`` (type ``001F``: UTF-16 text, ``001E``: 8-bit text, ``0102``: bytes)
plus a fixed-size ``__properties_version1.0`` stream holding the dates. The message becomes one
document laid out as the ``eml`` loader lays out a message: its ``Subject``, ``From``, ``To``,
``Cc`` and ``Date`` lines, an ``Attachments`` line naming its attached files, a blank line and
its body (the plain-text body, else the HTML body as visible text). Metadata: ``title`` (the
subject), ``author`` (the sender), ``date`` (ISO 8601, UTC). The attachments' content is not read
(a log line names how many were left out).
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, strip_encoded_data
from ragkit.loaders.mail import attachment_line
from ragkit.loaders.office_binary import read_ole
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

#: MAPI property ids of the text this loader reads
_SUBJECT, _SENDER_NAME, _SENDER_ADDRESS, _TO, _CC = "0037", "0C1A", "0C1F", "0E04", "0E03"
_BODY, _HTML = "1000", "1013"
#: the dates, in the properties stream: the time it was sent, else the time it was delivered
_DATE_IDS = (0x0039, 0x0E06)
_SYSTIME = 0x0040
_PROPERTIES_HEADER = 32  # bytes before the entries in a top-level message's properties stream
_FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=timezone.utc)


@loaders.register("msg")
class MsgLoader(Loader):
    """One Outlook message (``.msg``): its headers and body."""

    name = "msg"
    mime = "application/vnd.ms-outlook"
    version = 2  # 2: an "Attachments:" line names the attached files

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        def read(ole: Any) -> tuple[list[str], str, str, str | None, str | None, int]:
            fields = _Message(ole)
            subject, sender, date = fields.text(_SUBJECT), _sender(fields), fields.date()
            lines = [f"{name}: {value}" for name, value in (
                ("Subject", subject), ("From", sender), ("To", fields.text(_TO)), ("Cc", fields.text(_CC)),
                ("Date", date or "")) if value]
            body = fields.text(_BODY) or _visible(fields.text(_HTML))
            storages = [entry[0] for entry in ole.listdir(streams=False, storages=True)
                        if len(entry) == 1 and entry[0].startswith("__attach_version1.0_")]
            if named := attachment_line(_attachment_name(fields, storage) for storage in storages):
                lines.append(named)
            return lines, body, subject, sender, date, len(storages)

        lines, body, subject, sender, date, attachments = read_ole(
            path, read, extra="msg", what="an Outlook message",
            fix="save the mail again from Outlook as .msg, or export it as .eml")
        if not lines and not body.strip():
            raise LoaderError(f"{path}: the Outlook message has no subject, headers or body", path=str(path),
                              reason="empty file")
        if attachments:
            log.info("%s: %d attachment(s) of the Outlook message not read", path, attachments)
        meta = self._metadata(source, title=subject or None, author=sender or None, date=date)
        text = "\n".join(lines) + ("\n\n" + body.replace("\r\n", "\n").strip() if body.strip() else "")
        return iter([Document(text=strip_encoded_data(text), metadata=meta)])


class _Message:
    """The top-level properties of an open ``.msg`` file."""

    def __init__(self, ole: Any) -> None:
        self.ole = ole

    def _stream(self, name: str) -> bytes | None:
        return self.ole.openstream(name).read() if self.ole.exists(name) else None

    def text(self, prop: str, *, within: str = "") -> str:
        """A text property: UTF-16 (``001F``), else 8-bit (``001E``, as Windows-1252), else bytes
        (``0102``: an HTML body), decoded; "" when the message has none. ``within``: the storage
        that holds it (an attachment's), else the message's own."""
        for kind, encoding in (("001F", "utf-16-le"), ("001E", "cp1252"), ("0102", "utf-8")):
            data = self._stream(f"{within}/__substg1.0_{prop}{kind}" if within else f"__substg1.0_{prop}{kind}")
            if data is not None:
                return data.decode(encoding, "replace").rstrip("\x00").strip()
        return ""

    def date(self) -> str | None:
        """The time the message was sent (else delivered), ISO 8601 in UTC."""
        data = self._stream("__properties_version1.0") or b""
        found: dict[int, int] = {}
        for offset in range(_PROPERTIES_HEADER, len(data) - 15, 16):
            kind, prop, _flags, value = struct.unpack_from("<HHIQ", data, offset)
            if kind == _SYSTIME and prop in _DATE_IDS and value:
                found[prop] = value
        value = next((found[p] for p in _DATE_IDS if p in found), None)
        if value is None:
            return None
        try:
            return (_FILETIME_EPOCH + timedelta(microseconds=value // 10)).isoformat()
        except OverflowError:
            return None


def _attachment_name(fields: _Message, storage: str) -> str:
    """An attachment's file name: its long file name, else its short one, else its display name."""
    for prop in ("3707", "3704", "3001"):
        name = fields.text(prop, within=storage)
        if name:
            return name
    return ""


def _sender(fields: _Message) -> str:
    """"Name <address>", the name alone, or the address alone."""
    name, address = fields.text(_SENDER_NAME), fields.text(_SENDER_ADDRESS)
    if name and address and "@" in address and address not in name:
        return f"{name} <{address}>"
    return name or address


def _visible(html: str) -> str:
    if not html.strip():
        return ""
    from bs4 import BeautifulSoup

    from ragkit.loaders.html import html_to_text

    return html_to_text(BeautifulSoup(html, "html.parser"))


__all__ = ["MsgLoader"]
