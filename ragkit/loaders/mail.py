"""E-mail: single messages (``.eml``, loader ``eml``) and mailboxes (``.mbox``, loader ``mbox``),
with the standard library's ``email`` and ``mailbox``.

A message in UTF-16 or UTF-32 (a mail client's export) is read as well as one in bytes. A message
becomes a document of its ``Subject``, ``From``, ``To``, ``Cc`` and ``Date`` lines, an
``Attachments`` line naming its attached files, a blank line and its body (the plain-text part,
else the HTML part as visible text). Its attachments go through the loader of their extension (a
PDF through ``pdf``, a CSV through ``csv``...; the pipeline's ``loaders:`` mapping applies to them
as to files, with its options), each document marked with ``attachment`` (the file name);
attachments that are assets (images...), have no loader or cannot be read are left out with a log
line, the message itself is still indexed. Metadata:
``title`` (the subject), ``author`` (the sender), ``date`` (ISO 8601); in a mailbox ``page`` is
the message number (1-based). A mailbox is read one message at a time.
"""

from __future__ import annotations

import codecs
import email
import email.policy
import email.utils
import logging
import mailbox
import tempfile
from collections.abc import Iterable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError, RagkitError
from ragkit.loaders.assets import is_asset
from ragkit.loaders.base import InnerLoaders, Loader, default_inner_loader, strip_encoded_data
from ragkit.loaders.encoding import SNIFF_BYTES, binary_error, decode_text, sniff_encoding
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)
HEADERS = ("Subject", "From", "To", "Cc", "Date")
#: loaders an attachment may go through (never another mail: no unbounded nesting)
_NO_NESTING = frozenset({"eml", "mbox"})


class _MailLoader(Loader):
    option_defaults = {"attachments": True}
    version = 2  # 2: an "Attachments:" line names the message's attached files
    _inner: InnerLoaders = staticmethod(default_inner_loader)

    def use_inner_loaders(self, choose: InnerLoaders) -> None:
        self._inner = choose  # the pipeline's loaders: mapping applies to attachments too

    def _message_documents(self, msg: EmailMessage, source: str, where: str, **extra: Any) -> list[Document]:
        meta = self._metadata(
            source, title=_header(msg, "Subject") or None, author=_header(msg, "From") or None,
            date=_iso_date(msg), **extra,
        )
        lines = [f"{name}: {value}" for name in HEADERS if (value := _header(msg, name))]
        if named := attachment_line(part.get_filename() or "" for part in msg.iter_attachments()):
            lines.append(named)
        body = _body(msg)
        docs = [Document(text=strip_encoded_data("\n".join(lines) + ("\n\n" + body if body else "")), metadata=meta)]
        if self.options["attachments"]:
            docs.extend(_attachments(msg, source, where, meta, self._inner))
        return docs


@loaders.register("eml")
class EmlLoader(_MailLoader):
    """One e-mail message (RFC 822 / MIME) and its attachments."""

    name = "eml"
    mime = "message/rfc822"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise LoaderError(f"{path}: cannot read file ({exc.strerror or exc})", path=str(path),
                              reason="read error") from None
        msg = email.message_from_bytes(_message_bytes(data, str(path)), policy=email.policy.default)
        if not isinstance(msg, EmailMessage) or not (msg.keys() or msg.get_payload()):
            raise LoaderError(f"{path}: not an e-mail message (no headers, no body)", path=str(path),
                              reason="not an e-mail message")
        return iter(self._message_documents(msg, source, str(path)))


@loaders.register("mbox")
class MboxLoader(_MailLoader):
    """A Unix mailbox: every message (and its attachments), ``page`` its number."""

    name = "mbox"
    mime = "application/mbox"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        with open(path, "rb") as f:
            if not f.read(5) == b"From ":
                raise LoaderError(
                    f"{path}: not an mbox mailbox (it does not start with a 'From ' line); export the "
                    "folder as mbox, or map .mbox to another loader under loaders: in the pipeline",
                    path=str(path), reason="not an mbox mailbox",
                )
        return self._messages(path, source)

    def _messages(self, path: Path, source: str) -> Iterator[Document]:
        box = mailbox.mbox(str(path), factory=_parse, create=False)
        try:
            for number, key in enumerate(box.iterkeys(), start=1):
                msg = box.get(key)
                if isinstance(msg, EmailMessage):
                    yield from self._message_documents(msg, source, f"{path} message {number}", page=number)
        finally:
            box.close()


def _message_bytes(data: bytes, where: str) -> bytes:
    """A message's bytes as the parser reads them: a UTF-16 or UTF-32 file (``ragkit.loaders.encoding``)
    re-encoded as UTF-8, a UTF-8 BOM dropped; a :class:`LoaderError` for binary content."""
    encoding = sniff_encoding(data[:SNIFF_BYTES])
    if encoding is None:
        raise binary_error(where, "an e-mail message")
    if encoding.startswith(("utf-16", "utf-32")):
        return decode_text(data, where).encode("utf-8")
    return data.removeprefix(codecs.BOM_UTF8)


def _parse(f: Any) -> EmailMessage:
    return email.message_from_binary_file(f, policy=email.policy.default)  # type: ignore[return-value]


MAX_ATTACHMENT_NAMES = 50  # a message naming more lists these and says how many more


def attachment_line(names: Iterable[str]) -> str:
    """The "Attachments: report.pdf, photo.jpg" header line of a message's attached files ("" when
    none has a name): the mail says what it carries ("the email with the PDF attached")."""
    found = [" ".join(n.split())[:200] for n in names if n and n.strip()]
    if not found:
        return ""
    more = len(found) - MAX_ATTACHMENT_NAMES
    return "Attachments: " + ", ".join(found[:MAX_ATTACHMENT_NAMES]) + (f" and {more} more" if more > 0 else "")


def _header(msg: EmailMessage, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # a malformed header that the parser cannot decode  # noqa: BLE001
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _iso_date(msg: EmailMessage) -> str | None:
    raw = _header(msg, "Date")
    try:
        return email.utils.parsedate_to_datetime(raw).isoformat() if raw else None
    except (TypeError, ValueError):
        return None


def _body(msg: EmailMessage) -> str:
    """The plain-text body, else (none, or an empty one) the HTML body as visible text."""
    for kind in ("plain", "html"):
        part = msg.get_body(preferencelist=(kind,))
        text = _part_text(part) if part is not None else ""
        if text.strip():
            return text
    return ""


def _part_text(part: EmailMessage) -> str:
    """A text part's text: in its charset; without one (8-bit text a client sent undeclared), as
    UTF-8 when it is that, else Windows-1252."""
    undeclared = part.get_content_charset() is None
    try:
        content = part.get_content() if not undeclared else _undeclared(part.get_payload(decode=True))
    except (LookupError, UnicodeError, AssertionError):  # an unknown charset
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        from bs4 import BeautifulSoup

        from ragkit.loaders.html import html_to_text

        return html_to_text(BeautifulSoup(content, "html.parser"))
    return content.replace("\r\n", "\n").strip()


def _undeclared(payload: Any) -> str:
    if not isinstance(payload, bytes):
        return str(payload or "")
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return payload.decode("cp1252", "replace")


def _attachments(msg: EmailMessage, source: str, where: str, meta: dict[str, Any],
                 choose: InnerLoaders) -> Iterator[Document]:
    for part in msg.iter_attachments():
        name = Path(part.get_filename() or "").name
        if not name or is_asset(name):
            continue
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes) or not data:
            continue
        yield from _load_attachment(name, data, choose, source, where, meta)


def _load_attachment(name: str, data: bytes, choose: InnerLoaders, source: str, where: str,
                     meta: dict[str, Any]) -> list[Document]:
    with tempfile.TemporaryDirectory(prefix="ragkit-attachment-") as tmp:
        path = Path(tmp) / name
        try:
            found = choose(path)
        except RagkitError as exc:  # a mapping to a loader with bad options
            log.warning("%s: attachment %s left out: %s", where, name, exc)
            return []
        if found is None or found[0] in _NO_NESTING:
            log.info("%s: attachment %s has no loader; left out", where, name)
            return []
        path.write_bytes(data)
        try:
            docs = list(found[1].load(path, source=source))
        except RagkitError as exc:
            log.warning("%s: attachment %s left out: %s", where, name, str(exc).replace(str(path), name))
            return []
    keep = {k: meta[k] for k in ("date", "author", "page") if k in meta}
    return [
        Document(text=d.text, metadata={**d.metadata, **keep, "source": source, "attachment": name,
                                        "title": f"{meta.get('title') or 'message'}: {name}"})
        for d in docs
    ]


__all__ = ["EmlLoader", "MboxLoader", "attachment_line"]
