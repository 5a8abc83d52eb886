"""OCR for the PDF loader: the pages whose text layer is missing, not words (``textcheck``), or
only a few characters beside an image (a scan with a text page number) are rendered and read by
Tesseract (``ragkit.loaders.ocr``); with ``ocr.mode: always``, every page.

A page OCR cannot read (too slow, nothing but noise) stays out with a warning naming it; the rest
of the file is kept. Without the engine the pages stay out and the skip names the install command.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders import ocr
from ragkit.loaders.textcheck import garbage_reason

log = logging.getLogger(__name__)


def advice(settings: ocr.OcrSettings) -> str:
    """What to do about pages without usable text, given the OCR settings."""
    if settings.mode == "never":
        return "OCR is turned off (ocr.mode: never); set ocr.mode: auto, or run OCR first (ocrmypdf)"
    if not ocr.engine_available():
        return f"install the OCR engine to read such pages: {ocr.INSTALL_COMMAND} (see docs/guides/ocr.md)"
    return "OCR found no text on them either"


#: Tesseract refuses an image wider or taller than this many pixels ("Image too large")
MAX_OCR_SIDE_PX = 32_767
#: a page rendered for OCR has at most this many pixels (Tesseract takes about 10 bytes of memory
#: a pixel: an A0 poster at 300 DPI is 139 million, a web page printed as one sheet 400 million)
MAX_OCR_PIXELS = 50_000_000
#: a page that fits the limits above only below this resolution is left out: its text would be
#: too small to read
MIN_OCR_DPI = 100

#: a page whose drawing instructions take this many bytes draws far more than its text says
#: (text set as outlines: a dense page of it takes 700 KB; a born-digital page of text, 5-20 KB)
DRAWN_PAGE_BYTES = 64 * 1024


def thin_pages(reader: Any, pages: list[tuple[int, str]], settings: ocr.OcrSettings) -> list[int]:
    """The pages of ``pages`` whose text layer holds fewer than ``ocr.min_chars`` letters and
    digits beside an image or a lot of drawing: a scan whose page number or running head is
    text, or text set as outlines (what OCR should read), when OCR is on."""
    if not settings.enabled:
        return []
    return [n for n, text in pages if ocr.letters(text) < settings.min_chars and _draws(reader.pages[n - 1])]


def _draws(page: Any) -> bool:
    """Whether ``page`` draws an image or more than :data:`DRAWN_PAGE_BYTES` of instructions."""
    if _draws_image(page):
        return True
    try:
        contents = page.get_contents()
        return contents is not None and len(contents.get_data()) >= DRAWN_PAGE_BYTES
    except Exception:  # noqa: BLE001 - pypdf raises many types on damaged content streams
        return False


def _draws_image(page: Any, depth: int = 2) -> bool:
    """Whether ``page`` (or a form it draws, ``depth`` levels down) has an image among its resources."""
    try:
        objects = page.get("/Resources", {}).get_object().get("/XObject", {}).get_object()
        for ref in objects.values():
            obj = ref.get_object()
            kind = obj.get("/Subtype")
            if kind == "/Image" or (kind == "/Form" and depth > 1 and _draws_image(obj, depth - 1)):
                return True
    except (AttributeError, KeyError, TypeError, ValueError):
        return False
    return False


def fit_dpi(page: Any, dpi: int) -> tuple[int, str | None]:
    """The resolution to render ``page`` at for OCR: ``dpi``, or lower for a page too large for it
    (:data:`MAX_OCR_SIDE_PX`, :data:`MAX_OCR_PIXELS`), with why when it fits only under
    :data:`MIN_OCR_DPI` (the page is left out). A web page printed to PDF as one sheet can be
    26 x 171 inches: 7,733 x 51,257 pixels at 300 DPI, which Tesseract refuses after a minute of
    rendering; said at once, it costs nothing."""
    try:
        box = page.mediabox
        unit = float(page.get("/UserUnit", 1) or 1)
        inches = (abs(float(box.width)) * unit / 72, abs(float(box.height)) * unit / 72)
    except (AttributeError, KeyError, TypeError, ValueError):
        return dpi, None
    if min(inches) <= 0:
        return dpi, None
    fits = min(MAX_OCR_SIDE_PX / max(inches), (MAX_OCR_PIXELS / (inches[0] * inches[1])) ** 0.5)
    if fits >= dpi:
        return dpi, None
    if fits >= MIN_OCR_DPI:
        return int(fits), None
    return dpi, (f"the page is {inches[0]:,.0f} x {inches[1]:,.0f} in: it fits Tesseract's limits "
                 f"({MAX_OCR_SIDE_PX:,} px a side, {MAX_OCR_PIXELS // 1_000_000} million pixels) only at "
                 f"{int(fits)} DPI, too coarse to read (under {MIN_OCR_DPI})")


def recover_pages(path: Path, reader: Any, pages: list[tuple[int, str]], unread: list[int],
                  settings: ocr.OcrSettings) -> dict[int, ocr.OcrPage]:
    """OCR the pages of ``unread`` (every page under ``mode: always``) into ``pages`` (kept in page
    order); what OCR read on the pages whose text now comes from it, by page number. A page too
    large for ``ocr.dpi`` is rendered at a resolution that fits, or left out unrendered with its
    reason (:func:`fit_dpi`)."""
    if not settings.enabled:
        return {}
    try:
        settings.check_engine(path)
    except ocr.OcrError as exc:
        if settings.mode == "always":
            raise LoaderError(f"{path}: {exc}", path=str(path), reason=f"OCR failed: {exc}") from None
        log.warning("%s: %s; pages without a text layer are left out", path, exc)
        return {}
    wanted = sorted(set(unread) | ({n for n, _ in pages} if settings.mode == "always" else set()))
    if not wanted:
        return {}
    cache = ocr.OcrCache(path, settings)
    read: dict[int, ocr.OcrPage] = {}
    failed: list[str] = []
    for number in wanted:
        dpi, reason = fit_dpi(reader.pages[number - 1], settings.dpi)
        if reason is not None:
            failed.append(f"page {number}: {reason}")
            continue
        if dpi != settings.dpi:
            log.info("%s: page %d is large; OCR reads it at %d DPI", path, number, dpi)
        try:
            read_page = functools.partial(ocr.ocr_pdf_page, path, number, dataclasses.replace(settings, dpi=dpi))
            page = cache.page(number, read_page)
        except ocr.OcrError as exc:
            failed.append(f"page {number}: {exc}")
            continue
        if page.text and garbage_reason(page.text) is None:
            read[number] = page
    if failed:
        log.warning("%s: OCR left out %d page(s) (%s)", path, len(failed), "; ".join(failed[:3]))
    if read:
        kept = [(n, t) for n, t in pages if n not in read]
        pages[:] = sorted(kept + [(n, p.text) for n, p in read.items()])
        log.info("%s: OCR read %d page(s)", path, len(read))
    return read


__all__ = ["MAX_OCR_PIXELS", "MAX_OCR_SIDE_PX", "MIN_OCR_DPI", "advice", "fit_dpi", "recover_pages", "thin_pages"]
