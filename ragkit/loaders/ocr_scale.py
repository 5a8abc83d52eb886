"""Images whose text is too small for Tesseract, scaled up before it reads them again.

A PDF page is rendered at ``ocr.dpi`` (300), where a 10-point word stands about 30 pixels high.
An image is read at its own size: a page saved at 72-120 DPI, a photographed newspaper page or a
screenshot has words 9-15 pixels high, and Tesseract's binarization then breaks letters apart
("80863" read as soup, "7,778" as "178", "Iodice" as "lodice"). The first reading's word boxes
tell how high the image's words stand (:func:`text_height`); below :data:`SMALL_TEXT_PX` the image
is enlarged towards :data:`TARGET_TEXT_PX` (:func:`scale_for`) into a grey copy
(:func:`scaled_copy`, every frame of a multi-page TIFF) and read again.

Words read that small are poorly measured: at 72 DPI Tesseract's first reading is part noise,
and its boxes understate the text (enlarged by their measure, a 72 DPI page of 9-point text still
loses words: "manually annotated" read as "lly tated"). An image with a page's proportions (US
Letter or A4, upright or turned: :func:`page_dpi`) tells its resolution by its width, and is
enlarged to at least ``ocr.dpi``, the resolution PDF pages are rendered at (at most
:data:`MAX_SCALE` times, within :data:`MAX_SCALED_PIXELS`).

Scaling uses Pillow (the ``ocr`` extra, imported only here and only then); without it the image
is read at its own size, as before, and the run says so once.
"""

from __future__ import annotations

import functools
import logging
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragkit.loaders.ocr_layout import OcrWord

if TYPE_CHECKING:
    from PIL.Image import Image

log = logging.getLogger(__name__)

#: words whose median box height (pixels) is under this are too small to read well
SMALL_TEXT_PX = 20
#: the height the words are scaled to: a 10-point word on a page rendered at 300 DPI
TARGET_TEXT_PX = 30
#: the most an image is enlarged
MAX_SCALE = 4.0
#: the most pixels an enlarged image may have, all its frames together (a larger one is enlarged
#: less, or not at all)
MAX_SCALED_PIXELS = 40_000_000
#: words (of two letters or digits and more) a reading needs before its heights are trusted
MIN_WORDS = 10
#: (long side / short side, short side in inches) of the pages an image may be: US Letter, A4
PAGES = ((11 / 8.5, 8.5), (297 / 210, 210 / 25.4))
#: how far (a share) an image's proportions may be from a page's
PAGE_TOLERANCE = 0.01


def text_height(words: Sequence[OcrWord]) -> float | None:
    """The median height of the words of two letters or digits or more, or None when there are
    fewer than :data:`MIN_WORDS` of them (a photo, a label: nothing to measure)."""
    heights = [w.height for w in words if sum(ch.isalnum() for ch in w.text) >= 2 and w.height > 0]
    return float(statistics.median(heights)) if len(heights) >= MIN_WORDS else None


def scale_for(height: float | None) -> float:
    """How much to enlarge an image whose words stand ``height`` pixels high (1.0: not at all)."""
    if height is None or height >= SMALL_TEXT_PX:
        return 1.0
    return min(MAX_SCALE, TARGET_TEXT_PX / height)


def page_dpi(width: int, height: int) -> float | None:
    """The resolution of an image that is a whole page (:data:`PAGES`, upright or turned): its
    short side in pixels over the page's in inches; None for an image of any other shape."""
    short, long = sorted((width, height))
    for ratio, inches in PAGES:
        if short > 0 and abs(long / short - ratio) <= PAGE_TOLERANCE * ratio:
            return short / inches
    return None


def page_factor(width: int, height: int, dpi: int) -> float:
    """How much to enlarge a page image (:func:`page_dpi`) to ``dpi``; 1.0 for another shape or
    a page at ``dpi`` or more."""
    found = page_dpi(width, height)
    return dpi / found if found and found < dpi else 1.0


def scaled_copy(image: Path, factor: float, folder: Path, dpi: int | None = None) -> Path | None:
    """``image`` enlarged ``factor`` times, or to ``dpi`` when it is a page scanned at less
    (:func:`page_factor`), at most :data:`MAX_SCALE` times and less when its frames together
    would pass :data:`MAX_SCALED_PIXELS`, in grey, written into ``folder``; None when Pillow is
    missing, cannot read the image, or the image is too large to enlarge."""
    try:
        from PIL import Image as PilImage
        from PIL import ImageSequence
    except ImportError:
        _pillow_missing()
        return None
    try:
        with PilImage.open(image) as source:
            width, height = source.size
            pixels = width * height * getattr(source, "n_frames", 1)
            if dpi is not None:
                factor = min(max(factor, page_factor(width, height, dpi)), MAX_SCALE)
            factor = min(factor, (MAX_SCALED_PIXELS / max(1, pixels)) ** 0.5)
            if factor <= 1.0:
                return None
            frames = [_enlarged(frame, factor) for frame in ImageSequence.Iterator(source)]
    except (OSError, ValueError, PilImage.DecompressionBombError) as exc:
        log.warning("%s: not enlarged for OCR (%s); read at its own size", image, exc)
        return None
    if len(frames) == 1:
        target = folder / "scaled.png"
        frames[0].save(target)
    else:
        target = folder / "scaled.tif"
        frames[0].save(target, save_all=True, append_images=frames[1:], compression="tiff_deflate")
    return target


def _enlarged(frame: Image, factor: float) -> Image:
    """One frame in grey, ``factor`` times larger."""
    from PIL.Image import Resampling

    width, height = frame.size
    return frame.convert("L").resize((max(1, round(width * factor)), max(1, round(height * factor))),
                                     Resampling.LANCZOS)


@functools.lru_cache(maxsize=1)
def _pillow_missing() -> None:
    log.warning("images with small text are read by OCR at their own size: enlarging them first needs "
                "Pillow (pip install 'ragkit[ocr]')")


__all__ = ["MAX_SCALE", "SMALL_TEXT_PX", "TARGET_TEXT_PX", "page_dpi", "page_factor", "scale_for", "scaled_copy",
           "text_height"]
