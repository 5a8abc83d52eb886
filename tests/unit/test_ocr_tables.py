"""Tables on OCR'd pages: Tesseract's word boxes laid out as lines and read by the PDF table
reader, rows with their headers as on a born-digital page; the OCR cache's format is versioned."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ragkit.loaders import ocr
from ragkit.loaders.image import ImageLoader
from ragkit.loaders.ocr_layout import OcrWord, layout_lines, parse_tsv, physical_lines
from ragkit.loaders.pdf import PdfLoader
from ragkit.types import Document
from tests.unit.test_ocr import scanned_pdf, settings, text_image

needs_tesseract = pytest.mark.skipif(
    not ocr.engine_available(),
    reason=f"the OCR engine (tesseract) is not installed; install it with: {ocr.INSTALL_COMMAND} (make test does)")

#: a table whose columns stand far apart (Tesseract reads each column as a block of its own)
HEADER = ("Station", "Keeper", "Built", "Visitors")
ROWS = [("Alpha Point", "Morgan", "1871", "4,120"), ("Cape Verity", "Lindqvist", "1902", "2,875"),
        ("Gull Rock", "Okafor", "1888", "960"), ("North Shoal", "Brennan", "1925", "7,310")]
COLUMNS = (40, 420, 760, 1000)  # left edge of each column (pixels)


def table_image(path: Path) -> Path:
    """A grey-scale image of a caption and :data:`HEADER` over :data:`ROWS`, the numbers
    right-aligned as a typesetter sets them."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (1260, 120 + 56 * (len(ROWS) + 1)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=30)
    draw.text((360, 20), "Table 4: Lighthouse stations", fill=0, font=font)
    for i, row in enumerate([HEADER, *ROWS]):
        y = 90 + 56 * i
        for k, cell in enumerate(row):
            x = COLUMNS[k] if k < 2 or i == 0 else COLUMNS[k] + 150 - draw.textlength(cell, font=font)
            draw.text((x, y), cell, fill=0, font=font)
    image.save(path)
    return path


def load(path: Path, conf: ocr.OcrSettings, **options: Any) -> list[Document]:
    loader = PdfLoader(**options) if path.suffix == ".pdf" else ImageLoader()
    loader.use_ocr(conf)
    return list(loader.load(path, source=path.name))


def word(left: int, top: int, text: str, line: tuple[int, int, int] = (1, 1, 1)) -> OcrWord:
    return OcrWord(left, top, 20 * len(text), 30, line, 96, text)


# --------------------------------------------------------------------------- layout lines, no engine


def test_words_of_different_blocks_at_one_height_stand_on_one_line() -> None:
    words = [word(0, 100, "Gull", (1, 1, 1)), word(100, 100, "Rock", (1, 1, 1)), word(0, 160, "North", (1, 1, 2)),
             word(400, 104, "1888", (2, 1, 1)), word(400, 158, "1925", (2, 1, 2))]
    lines = physical_lines(words)
    assert [[w.text for w in line] for line in lines] == [["Gull", "Rock", "1888"], ["North", "1925"]]
    # a phrase keeps one space; another block's word starts where its pixels put it, so columns line up
    assert layout_lines(words) == ["Gull Rock           1888", "North               1925"]


def test_words_of_one_tesseract_line_far_apart_are_two_cells() -> None:
    words = [word(0, 0, "Errors"), word(200, 0, "4,459"), word(400, 0, "98.61"), word(530, 0, "none")]
    # four characters apart and more: a column's gap; one character (20 px): a word space
    assert layout_lines(words) == ["Errors    4,459     98.61 none"]


def test_tsv_rows_other_than_words_are_left_out() -> None:
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
           "1\t1\t0\t0\t0\t0\t0\t0\t800\t600\t-1\t\n"
           "5\t1\t2\t1\t3\t1\t40\t90\t120\t30\t95.5\tStation\n"
           "5\t1\t2\t1\t3\t2\t170\t90\t20\t30\t10.0\t \n")
    assert parse_tsv(tsv) == [OcrWord(40, 90, 120, 30, (2, 1, 3), 96, "Station")]
    assert parse_tsv("not a tsv\n") == []


# --------------------------------------------------------------------------- the real Tesseract


@needs_tesseract
def test_a_scanned_table_becomes_rows_with_their_headers(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "stations.pdf", table_image(tmp_path / "table.png"))
    docs = load(pdf, settings(tmp_path), keep_table_text=False)
    rows = [d for d in docs if "row" in d.metadata]
    assert len(rows) == len(ROWS), [d.text for d in docs]
    assert all(d.metadata["ocr"] is True and d.metadata["page"] == 1 for d in docs)
    assert rows[0].metadata["table"] == "Table 4: Lighthouse stations"
    assert rows[0].text.splitlines() == ["table: Table 4: Lighthouse stations", "Station: Alpha Point",
                                         "Keeper: Morgan", "Built: 1871", "Visitors: 4,120"]
    assert "Visitors: 7,310" in rows[-1].text and "Station: North Shoal" in rows[-1].text
    # with keep_table_text: false the page's text no longer holds the table's cells as runs of words
    [page] = [d for d in docs if "row" not in d.metadata]
    assert "1871" not in page.text
    # by default it keeps them, beside the same rows
    [kept] = [d for d in load(pdf, settings(tmp_path)) if "row" not in d.metadata]
    assert "1871" in kept.text and kept.metadata["ocr"] is True


@needs_tesseract
def test_a_prose_page_reads_as_tesseract_reads_it(tmp_path: Path) -> None:
    image = text_image(tmp_path / "scan.png")
    docs = load(scanned_pdf(tmp_path / "prose.pdf", image), settings(tmp_path))
    rendered = tmp_path / "page"
    subprocess.run(["pdftoppm", "-r", "150", "-gray", "-png", "-singlefile", str(tmp_path / "prose.pdf"),
                    str(rendered)], check=True)
    plain = subprocess.run(["tesseract", f"{rendered}.png", "stdout", "-l", "eng", "--dpi", "150"],
                           capture_output=True, check=True).stdout.decode().strip()
    assert [(d.text, d.metadata.get("ocr"), "row" in d.metadata) for d in docs] == [(plain, True, False)]


@needs_tesseract
def test_the_ocr_cache_keeps_words_and_reads_only_its_own_format(tmp_path: Path) -> None:
    image = text_image(tmp_path / "note.png")
    conf = settings(tmp_path)
    [fresh] = load(image, conf)
    [entry] = list(conf.cache_dir.iterdir())  # type: ignore[union-attr]
    assert entry.name.endswith(f"-eng-150-v{ocr.CACHE_FORMAT}.json")
    data = json.loads(entry.read_text(encoding="utf-8"))
    assert data["format"] == ocr.CACHE_FORMAT and data["entries"]["1"]["text"] == fresh.text
    assert any(row[-1] == "lighthouse" for row in data["entries"]["1"]["words"])
    # an entry of this format is what a second load returns: the image is not OCR'd again
    data["entries"]["1"]["text"] = "Cached words " * 10
    entry.write_text(json.dumps(data), encoding="utf-8")
    assert load(image, conf)[0].text.startswith("Cached words")
    # an entry of another format at this name is OCR'd again, not read
    entry.write_text(json.dumps({"format": 99, "entries": {"1": {"text": "Cached words " * 10, "words": []}}}),
                     encoding="utf-8")
    assert load(image, conf)[0].text == fresh.text


@needs_tesseract
def test_a_cache_entry_from_before_formats_is_ocrd_again_and_removed(tmp_path: Path) -> None:
    image = text_image(tmp_path / "note.png")
    conf = settings(tmp_path)
    [fresh] = load(image, conf)
    [entry] = list(conf.cache_dir.iterdir())  # type: ignore[union-attr]
    legacy = entry.with_name(entry.name.replace(f"-v{ocr.CACHE_FORMAT}.json", ".json"))
    entry.unlink()
    legacy.write_text(json.dumps({"pages": {"1": "Text-only words " * 10}}), encoding="utf-8")  # the old format
    [doc] = load(image, conf)
    assert doc.text == fresh.text and not legacy.exists() and entry.exists()


@needs_tesseract
def test_a_table_in_an_image_becomes_rows_too(tmp_path: Path) -> None:
    docs = load(table_image(tmp_path / "stations.png"), settings(tmp_path))
    rows = [d for d in docs if "row" in d.metadata]
    assert [d.metadata["row"] for d in rows] == [0, 1, 2, 3], [d.text for d in docs]
    assert "Keeper: Okafor" in rows[2].text and "Built: 1888" in rows[2].text
    assert all(d.metadata["ocr"] is True and d.metadata["mime"] == "image/png" for d in docs)


def test_words_tesseract_is_unsure_of_are_left_out_of_the_lines() -> None:
    marks = OcrWord(300, 0, 40, 30, (2, 1, 1), 22, "=~")  # what Tesseract reads in a chart's lines
    assert layout_lines([word(0, 0, "Gull"), marks]) == ["Gull"]


def test_two_charts_side_by_side_are_not_a_table_but_one_whose_rows_are_named_is() -> None:
    from ragkit.loaders.pdf_tables import word_tables

    ticks = [w for i, n in enumerate(("100", "95", "90", "85")) for w in (word(0, 60 * i, n, (1, 1, i)),
                                                                         word(600, 60 * i, n, (2, 1, i)))]
    assert word_tables(ticks, "", 10.0) == []
    rows = [("Station", "Built", "Visitors"), ("Alpha", "100", "100"), ("Gull", "95", "95"), ("North", "90", "90")]
    table = [w for i, row in enumerate(rows) for k, cell in enumerate(row) for w in [word(300 * k, 60 * i, cell, (k, 1, i))]]
    [found] = word_tables(table, "", 10.0)
    assert found.grid.rows[:2] == (("Station", "Built", "Visitors"), ("Alpha", "100", "100"))
    # an axis title beside the ticks is one label for every row, not a label of each
    titled = [*ticks, *(word(-300, 60 * i, "Accuracy", (0, 1, i)) for i in range(4))]
    assert word_tables([*titled, word(0, -60, "Errors", (1, 1, 9)), word(600, -60, "Failures", (2, 1, 9))], "", 10.0) == []
