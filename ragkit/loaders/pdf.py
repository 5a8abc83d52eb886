"""PDF files via pypdf: one document per page that has text, ``page`` is 1-based."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError, MissingDependencyError
from ragkit.loaders.base import Loader
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

#: the requirement pypdf names in a DependencyError ("cryptography>=3.1 is required for AES ...")
_REQUIREMENT = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*(?:\[[\w,]+\])?(?:[<>=!~]=?[\w.]+)?")


@loaders.register("pdf")
class PdfLoader(Loader):
    """Reads a PDF's text layer page by page. ``title`` comes from the PDF metadata, else the
    file stem. Encrypted PDFs are opened with the empty password when that works."""

    name = "pdf"
    mime = "application/pdf"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        reader = _open(path)
        title = _title(reader) or path.stem
        docs: list[Document] = []
        try:
            for number, page in enumerate(reader.pages, start=1):
                text = (page.extract_text() or "").strip()
                if text:
                    meta = self._metadata(source, title=title, page=number)
                    docs.append(Document(text=text, metadata=meta))
        except Exception as exc:  # pypdf raises many types on damaged content streams
            raise _unreadable(path, exc) from exc
        if not docs:
            raise LoaderError(
                f"{path}: no extractable text in {len(reader.pages)} page(s) (scanned? run OCR first, "
                "e.g. ocrmypdf)",
                path=str(path),
                reason="no extractable text",
            )
        return iter(docs)


def _open(path: Path) -> Any:
    try:
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover - pypdf is a core dependency
        raise MissingDependencyError("pypdf", "pdf", "reading PDF files") from None
    try:
        reader = PdfReader(path)
    except Exception as exc:
        raise _unreadable(path, exc) from exc
    if not reader.is_encrypted:
        return reader
    try:
        opened = reader.decrypt("")
    except Exception as exc:
        raise _unreadable(path, exc) from exc
    if not opened:
        raise LoaderError(
            f"{path}: encrypted PDF (a password is required to open it); decrypt it first, "
            "e.g. qpdf --decrypt --password=... in.pdf out.pdf",
            path=str(path),
            reason="encrypted PDF",
        )
    return reader


def _title(reader: Any) -> str | None:
    try:
        meta = reader.metadata
        title = meta.title if meta is not None else None
    except Exception as exc:  # damaged info dictionary: the title is optional
        log.debug("unreadable PDF metadata: %s", exc)
        return None
    text = str(title).strip() if title else ""
    return text or None


def _unreadable(path: Path, exc: BaseException) -> LoaderError:
    """A missing optional package (pypdf's ``DependencyError``, e.g. ``cryptography`` for AES
    encryption) is reported as such, with the pip command; anything else as a damaged PDF."""
    from pypdf.errors import DependencyError

    reason = str(exc) or type(exc).__name__
    if isinstance(exc, DependencyError):
        match = _REQUIREMENT.match(reason)
        requirement = match.group(0) if match else "cryptography"
        package = re.split(r"[<>=!~ \[]", requirement, maxsplit=1)[0]
        return LoaderError(
            f"{path}: the optional package '{package}' is needed to read this PDF but is not installed "
            f"({reason}); install it with: pip install '{requirement}' (it comes with ragkit's "
            "dependencies; reinstall ragkit if it is missing). The file itself is fine.",
            path=str(path),
            reason=f"missing dependency: {package}",
        )
    return _corrupt(path, reason)


def _corrupt(path: Path, reason: str) -> LoaderError:
    return LoaderError(
        f"{path}: corrupt or unreadable PDF ({reason}); re-export or repair it (e.g. qpdf in.pdf out.pdf)",
        path=str(path),
        reason=f"corrupt PDF: {reason}",
    )
