"""Images (PNG, JPEG, TIFF, WebP) read through OCR (``ragkit.loaders.ocr``): one document per image.

An image whose text has fewer than ``ocr.min_chars`` letters and digits, or reads as symbol soup
(``ragkit.loaders.textcheck``), holds no text worth indexing (a photo, a diagram with a few labels)
and is skipped with that reason. Discovery passes images to this loader only while OCR is on.

A table in the image becomes rows with their headers, one document each (metadata ``table``,
``row``), read from the words' boxes as on a scanned PDF page (``ragkit.loaders.pdf_tables``);
the image's text then loses the lines that only repeat the table.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from pathlib import Path

from ragkit.errors import LoaderError
from ragkit.loaders import ocr
from ragkit.loaders import pdf_tables as tables
from ragkit.loaders.base import Loader
from ragkit.loaders.textcheck import garbage_reason
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

_MIMES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".tif": "image/tiff",
          ".tiff": "image/tiff", ".webp": "image/webp"}


@loaders.register("image")
class ImageLoader(Loader):
    """The text of an image, by OCR; metadata ``ocr: True``, ``page`` 1, ``title`` the file stem."""

    name = "image"
    mime = "image/png"
    #: 2: a table of words has its first row as header (``table_rows.split_header``); 3: a table of
    #: contents is no table (``pdf_tables.named_rows``)
    version = 3

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        settings = self.ocr
        if settings.mode == "never":
            raise LoaderError(f"{path}: images are read only through OCR, which the pipeline turns off "
                              "(ocr.mode: never)", path=str(path), reason="OCR turned off (ocr.mode: never)")
        try:
            settings.check_engine(path)
            page = ocr.OcrCache(path, settings).page(1, functools.partial(ocr.read_image, path, settings))
        except ocr.OcrError as exc:
            raise LoaderError(f"{path}: {exc}", path=str(path), reason=f"OCR failed: {exc}") from None
        text = page.text
        found = ocr.letters(text)
        if found < settings.min_chars:
            raise LoaderError(
                f"{path}: too little text in the image for indexing ({found} letters and digits read by OCR, "
                f"fewer than ocr.min_chars {settings.min_chars}): a photo or a diagram",
                path=str(path), reason="image holds too little text")
        reason = garbage_reason(text)
        if reason is not None:
            raise LoaderError(f"{path}: the image's OCR text is not words ({reason}): a photo or a diagram",
                              path=str(path), reason="image holds no text (OCR read noise)")
        mime = _MIMES.get(path.suffix.lower(), self.mime)
        meta = {**self._metadata(source, title=path.stem, page=1, ocr=True), "mime": mime}
        named, text = _tables(path, page, text)
        rows = [Document(text=row, metadata={**meta, "table": name, "row": number})
                for name, found_rows in named for number, row in found_rows]
        return iter([Document(text=text, metadata=meta), *rows])


def _tables(path: Path, page: ocr.OcrPage, text: str) -> tuple[list[tuple[str, list[tuple[int, str]]]], str]:
    """The image's tables as named rows, and its text without the lines that only repeat them
    (their names when nothing else is left); a page whose tables take too long keeps its text."""
    try:
        found = tables.word_tables(page.words, text, tables.TABLE_PAGE_TIMEOUT_S)
    except tables.TableTimeout as exc:
        log.warning("%s: tables left out (its text is kept): %s", path, exc)
        return [], text
    named = tables.named_rows(found, 1, path.stem)
    if not named:
        return [], text
    return named, tables.without_tables(text, found) or "\n".join(name for name, _ in named)
