"""Office files that are not the zip packages their name says: password-protected (encrypted)
documents and old binary files (``.xls``, ``.doc``, ``.ppt``) renamed; and packages saved as Strict
Open XML, which python-docx, openpyxl and python-pptx do not read.

Excel, Word and PowerPoint save a password-protected ``.xlsx``/``.docx``/``.pptx`` as an OLE
compound file (not a zip) holding an ``EncryptedPackage`` stream; an old binary file is an OLE
compound file without one. :func:`office_container_error` tells them apart by the OLE signature and
the stream's name in the file's directory, so the skip reason says which it is and how to fix it.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ragkit.errors import LoaderError
from ragkit.loaders.base import import_extra, unreadable

T = TypeVar("T")

#: the first bytes of an OLE compound file
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED = "EncryptedPackage".encode("utf-16-le")  # a directory entry's name
#: the relationship a Strict Open XML package's ``_rels/.rels`` names its main part by
_STRICT = b"http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument"
#: the application and the old binary extension, by the package's extension
_APPS = {".xlsx": ("Excel", ".xls"), ".xlsm": ("Excel", ".xls"), ".docx": ("Word", ".doc"),
         ".pptx": ("PowerPoint", ".ppt")}


#: the loader of the old binary format, by the package's extension
BINARY_LOADERS = {".xlsx": "xls", ".xlsm": "xls", ".docx": "doc", ".pptx": "ppt"}


def old_binary_loader(path: Path) -> str | None:
    """The loader of the old binary format (``doc``, ``xls``, ``ppt``) when ``path`` is an OLE file
    with an OOXML name that is not encrypted (a ``.doc`` saved or renamed as ``.docx``), else None."""
    try:
        with open(path, "rb") as f:
            if f.read(len(OLE_MAGIC)) != OLE_MAGIC or _ENCRYPTED in f.read():
                return None
    except OSError:
        return None
    return BINARY_LOADERS.get(path.suffix.lower())


def office_container_error(path: Path) -> LoaderError | None:
    """The error for ``path`` when it is an OLE compound file (encrypted, or an old binary file)
    or a Strict Open XML package, else None (a zip package, however damaged)."""
    app, old = _APPS.get(path.suffix.lower(), ("Office", "binary Office"))
    where = str(path)
    try:
        with open(path, "rb") as f:
            if f.read(len(OLE_MAGIC)) != OLE_MAGIC:
                return _strict_error(path, app)
            encrypted = _ENCRYPTED in f.read()
    except OSError:
        return None
    if encrypted:
        return LoaderError(
            f"{where}: password-protected (encrypted) {app} file; ragkit cannot read it without the password. "
            f"Remove the password in {app} (File > Info > Protect > Encrypt with Password: clear it) and save, "
            "or decrypt a copy: msoffcrypto-tool -p PASSWORD in out",
            path=where, reason=f"encrypted {_KINDS.get(app, 'document')}",
        )
    return LoaderError(
        f"{where}: an old binary {app} 97-2003 file ({old}) with a {path.suffix} name; open it in {app} or "
        f"LibreOffice and save it as {path.suffix}",
        path=where, reason=f"old binary {old} file",
    )


_KINDS = {"Excel": "workbook", "Word": "document", "PowerPoint": "presentation"}


def _strict_error(path: Path, app: str) -> LoaderError | None:
    """The error for a package saved as Strict Open XML (ISO/IEC 29500 Strict), else None."""
    try:
        with zipfile.ZipFile(path) as package, package.open("_rels/.rels") as rels:
            strict = _STRICT in rels.read(1 << 16)
    except Exception:  # noqa: BLE001 - not a readable zip, no _rels/.rels: not this case
        return None
    if not strict:
        return None
    where = str(path)
    return LoaderError(
        f"{where}: a Strict Open XML {app} file, which ragkit cannot read; open it in {app} or LibreOffice and "
        f"save it as a standard {path.suffix} ({app} {_KINDS.get(app, 'document').title()}, not Strict Open XML)",
        path=where, reason=f"Strict Open XML {_KINDS.get(app, 'document')}",
    )


def read_ole(path: Path, read: Callable[[Any], T], *, extra: str, what: str, fix: str) -> T:
    """``read(ole)`` of the OLE compound file ``path``, opened with olefile (which the ragkit extra
    ``extra`` installs). A file that is no OLE file, or one olefile or ``read`` fails on, is a
    :class:`LoaderError` naming ``what`` it should be ("a Word document") and the ``fix``."""

    olefile = import_extra(path, "olefile", package="olefile", extra=extra)
    if not olefile.isOleFile(str(path)):
        raise LoaderError(f"{path}: not {what} (not an OLE compound file); {fix}", path=str(path), reason=f"not {what}")
    try:
        with olefile.OleFileIO(str(path)) as ole:
            return read(ole)
    except LoaderError:
        raise
    # olefile's own errors derive from OSError (a damaged directory, sector); a reader's from the
    # sizes and offsets it reads (struct.error, IndexError, ValueError)
    except (OSError, struct.error, ValueError, IndexError, UnicodeDecodeError) as exc:
        raise unreadable(path, exc, what=what.split(" ", 1)[1], fix=fix) from exc


__all__ = ["BINARY_LOADERS", "OLE_MAGIC", "office_container_error", "old_binary_loader", "read_ole"]
