"""Images whose words stand too small for Tesseract are read again enlarged (``ragkit.loaders.ocr_scale``):
a page saved at 72 DPI, a photographed page. The images are drawn by the tests themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragkit.loaders import ocr, ocr_scale
from ragkit.loaders.image import ImageLoader
from ragkit.loaders.ocr_layout import OcrWord

needs_tesseract = pytest.mark.skipif(
    not ocr.engine_available(),
    reason=f"the OCR engine (tesseract) is not installed; install it with: {ocr.INSTALL_COMMAND} (make test does)")

LINES = ["The keeper's log of Alpha Point records", "that the tower held 4417 lamp hours",
         "and its keeper was Ada Marlowe, who", "served there for 27 years until 1912."] * 3  # a page's worth
#: what the log says, as Tesseract reads it only enlarged
SAID = ["Alpha Point records", "Ada Marlowe", "27 years until 1912"]


def small_text(size: int = 9, lines: list[str] = LINES) -> object:
    """A grey image of ``lines`` in a ``size``-pixel font: the words of a page saved at ~72 DPI."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (34 * size, 40 + int(size * 1.5) * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=size)
    for i, line in enumerate(lines):
        draw.text((20, 20 + int(size * 1.5) * i), line, fill=0, font=font)
    return image


def load(path: Path, tmp_path: Path) -> list:  # type: ignore[type-arg]
    loader = ImageLoader()
    loader.use_ocr(ocr.OcrSettings(cache_dir=tmp_path / "ocr-cache"))
    return list(loader.load(path, source=path.name))


def words(height: int, count: int = 12, text: str = "keeper") -> list[OcrWord]:
    return [OcrWord(10 * i, 0, 40, height, (1, 1, 1), 95, text) for i in range(count)]


def test_small_words_are_enlarged_towards_a_300_dpi_page() -> None:
    assert ocr_scale.scale_for(ocr_scale.text_height(words(30))) == 1.0  # a page rendered at 300 DPI
    assert ocr_scale.scale_for(ocr_scale.text_height(words(10))) == pytest.approx(3.0)
    assert ocr_scale.scale_for(ocr_scale.text_height(words(4))) == ocr_scale.MAX_SCALE
    # a few words (a photo's label) or marks of one character are not measured
    assert ocr_scale.text_height(words(10, count=3)) is None
    assert ocr_scale.text_height(words(10, text="~")) is None


@needs_tesseract
def test_an_image_with_small_text_is_read_enlarged(tmp_path: Path) -> None:
    path = tmp_path / "log.png"
    small_text().save(path)  # type: ignore[attr-defined]
    native = ocr.ocr_image(path, ocr.OcrSettings())
    assert not all(said in native.text for said in SAID)  # what Tesseract makes of it at its own size
    [doc] = load(path, tmp_path)
    assert all(said in doc.text for said in SAID), doc.text


@needs_tesseract
def test_every_page_of_a_small_text_tiff_is_enlarged(tmp_path: Path) -> None:
    path = tmp_path / "log.tif"
    second = small_text(lines=["The second page says the lamp", "was lit for 3650 nights in 1899."] * 5)
    small_text().save(path, save_all=True, append_images=[second])  # type: ignore[attr-defined]
    [doc] = load(path, tmp_path)
    assert all(said in doc.text for said in SAID) and "second page says the lamp" in doc.text, doc.text


@needs_tesseract
def test_an_entry_of_an_older_format_is_read_again_and_removed(tmp_path: Path) -> None:
    path = tmp_path / "log.png"
    small_text().save(path)  # type: ignore[attr-defined]
    [fresh] = load(path, tmp_path)
    [entry] = list((tmp_path / "ocr-cache").iterdir())
    older = entry.with_name(entry.name.replace(f"-v{ocr.CACHE_FORMAT}.json", "-v2.json"))
    entry.unlink()
    older.write_text(json.dumps({"format": 2, "entries": {"1": {"text": "Old words " * 10, "words": []}}}),
                     encoding="utf-8")
    [doc] = load(path, tmp_path)
    assert doc.text == fresh.text and entry.exists() and not older.exists()


def test_a_page_image_tells_its_resolution_by_its_width() -> None:
    assert ocr_scale.page_dpi(612, 792) == pytest.approx(72)  # US Letter at 72 DPI
    assert ocr_scale.page_dpi(3300, 2550) == pytest.approx(300)  # turned
    assert ocr_scale.page_dpi(595, 842) == pytest.approx(72, abs=0.1)  # A4
    assert ocr_scale.page_dpi(640, 480) is None and ocr_scale.page_dpi(1000, 1000) is None
    assert ocr_scale.page_factor(612, 792, 300) == pytest.approx(300 / 72)
    assert ocr_scale.page_factor(2550, 3300, 300) == 1.0 and ocr_scale.page_factor(640, 480, 300) == 1.0


@needs_tesseract
def test_a_page_saved_at_72_dpi_is_read_at_the_ocr_dpi_even_when_its_words_cannot_be_measured(tmp_path: Path) -> None:
    """Words 8 pixels high on a US Letter page of 612 x 792 pixels: Tesseract reads too few of them
    at that size to measure them, so their height asks for no enlarging; the page's width says it
    was saved at 72 DPI, and it is read enlarged towards the DPI PDF pages are rendered at."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (612, 792), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(LINES * 2):
        draw.text((40, 40 + 12 * i), line, fill=0, font=ImageFont.load_default(size=8))
    path = tmp_path / "page.png"
    image.save(path)
    native = ocr.ocr_image(path, ocr.OcrSettings())
    assert ocr_scale.text_height(native.words) is None and "Ada Marlowe" not in native.text
    [doc] = load(path, tmp_path)
    assert "Ada Marlowe" in doc.text and "27 years until 1912" in " ".join(doc.text.split()), doc.text
