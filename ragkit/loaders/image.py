"""Images (PNG, JPEG, TIFF, WebP) read through OCR (``ragkit.loaders.ocr``): one document per image.

An image whose text has fewer than ``ocr.min_chars`` letters and digits, or reads as symbol soup
(``ragkit.loaders.textcheck``), holds no text worth indexing (a photo, a diagram with a few labels)
and is skipped with that reason. Discovery passes images to this loader only while OCR is on.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

from ragkit.errors import LoaderError
from ragkit.loaders import ocr
from ragkit.loaders.base import Loader
from ragkit.loaders.textcheck import garbage_reason
from ragkit.registry import loaders
from ragkit.types import Document

_MIMES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".tif": "image/tiff",
          ".tiff": "image/tiff", ".webp": "image/webp"}


@loaders.register("image")
class ImageLoader(Loader):
    """The text of an image, by OCR; metadata ``ocr: True``, ``page`` 1, ``title`` the file stem."""

    name = "image"
    mime = "image/png"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        settings = self.ocr
        if settings.mode == "never":
            raise LoaderError(f"{path}: images are read only through OCR, which the pipeline turns off "
                              "(ocr.mode: never)", path=str(path), reason="OCR turned off (ocr.mode: never)")
        try:
            settings.check_engine(path)
            text = ocr.OcrCache(path, settings).page(1, functools.partial(ocr.ocr_image, path, settings)).text
        except ocr.OcrError as exc:
            raise LoaderError(f"{path}: {exc}", path=str(path), reason=f"OCR failed: {exc}") from None
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
        return iter([Document(text=text, metadata=meta)])
