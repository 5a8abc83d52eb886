"""OCR with the real Tesseract: images and scanned PDF pages the tests render themselves."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.config import PipelineSpec, load_pipeline
from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders import ocr
from ragkit.loaders.assets import ocr_image
from ragkit.loaders.image import ImageLoader
from ragkit.loaders.pdf import PdfLoader

pytestmark = pytest.mark.skipif(
    not ocr.engine_available(),
    reason=f"the OCR engine (tesseract) is not installed; install it with: {ocr.INSTALL_COMMAND} (make test does)")

LINES = ["The lighthouse at Alpha Point", "was built in 1871 and its lamp", "turns twice a minute."]


def text_image(path: Path, lines: list[str] = LINES) -> Path:
    """A small grey-scale image of ``lines`` in a 28-pixel font (what a scan at ~200 DPI shows)."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (760, 60 + 44 * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 44 * i), line, fill=0, font=font)
    image.save(path)
    return path


def scanned_pdf(path: Path, image: Path, *, text_page: str | None = None) -> Path:
    """A PDF whose last page is ``image`` only (no text layer), after a born-digital page when
    ``text_page`` is given."""
    from fpdf import FPDF

    pdf = FPDF(format=(200, 100), unit="mm")
    pdf.set_font("helvetica", size=12)
    if text_page:
        pdf.add_page()
        pdf.multi_cell(0, 6, text_page)
    pdf.add_page()
    pdf.image(str(image), x=0, y=0, w=200)
    pdf.output(str(path))
    return path


def settings(tmp_path: Path, **kw: object) -> ocr.OcrSettings:
    return ocr.OcrSettings(cache_dir=tmp_path / "ocr-cache", dpi=150, **kw)  # type: ignore[arg-type]


def load(loader: PdfLoader | ImageLoader, path: Path, conf: ocr.OcrSettings) -> list:  # type: ignore[type-arg]
    loader.use_ocr(conf)
    return list(loader.load(path, source=path.name))


def test_an_image_of_text_becomes_a_document_read_by_ocr(tmp_path: Path) -> None:
    image = text_image(tmp_path / "note.png")
    [doc] = load(ImageLoader(), image, settings(tmp_path))
    assert "lighthouse" in doc.text and "1871" in doc.text
    assert doc.metadata["ocr"] is True and doc.metadata["mime"] == "image/png" and doc.metadata["source"] == "note.png"
    assert doc.metadata["page"] == 1


def test_an_image_without_text_is_skipped_with_the_reason(tmp_path: Path) -> None:
    from PIL import Image

    photo = tmp_path / "photo.jpg"
    Image.radial_gradient("L").resize((300, 300)).convert("RGB").save(photo)
    with pytest.raises(LoaderError, match=r"photo\.jpg: too little text in the image .*ocr\.min_chars 40"):
        load(ImageLoader(), photo, settings(tmp_path))
    labels = text_image(tmp_path / "diagram.png", ["Input", "Output"])
    with pytest.raises(LoaderError, match="too little text"):
        load(ImageLoader(), labels, settings(tmp_path))


def test_a_scanned_pdf_page_is_ocrd_and_keeps_its_page_number(tmp_path: Path) -> None:
    born = "A born-digital page about the harbour master and the tide tables of the bay. " * 2
    pdf = scanned_pdf(tmp_path / "mixed.pdf", text_image(tmp_path / "scan.png"), text_page=born)
    docs = load(PdfLoader(), pdf, settings(tmp_path))
    assert [(d.metadata["page"], d.metadata.get("ocr")) for d in docs] == [(1, None), (2, True)]
    assert "harbour master" in docs[0].text and "lighthouse" in docs[1].text


def test_a_scan_whose_page_number_is_text_is_ocrd(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(format=(200, 100), unit="mm")
    pdf.add_page()
    pdf.image(str(text_image(tmp_path / "scan.png")), x=0, y=0, w=200)
    pdf.set_font("helvetica", size=9)
    pdf.text(190, 95, "3")  # the page number, added as text over the scan
    pdf.output(str(tmp_path / "report.pdf"))
    [doc] = load(PdfLoader(), tmp_path / "report.pdf", settings(tmp_path))
    assert doc.metadata["ocr"] is True and "lighthouse" in doc.text
    [doc] = load(PdfLoader(), tmp_path / "report.pdf", settings(tmp_path, mode="never"))  # as before, without OCR
    assert doc.text == "3" and "ocr" not in doc.metadata


def test_a_page_of_drawing_with_a_few_letters_of_text_goes_to_ocr(tmp_path: Path) -> None:
    from fpdf import FPDF
    from pypdf import PdfReader

    from ragkit.loaders.pdf_ocr import thin_pages

    pdf = FPDF(format=(200, 100), unit="mm")
    pdf.set_font("helvetica", size=9)
    for lines in (3000, 10):  # text set as outlines draws thousands of paths; a blank page, nothing
        pdf.add_page()
        for i in range(lines):
            pdf.line(10 + i % 180, 10 + i % 80, 11 + i % 180, 12 + i % 80)
        pdf.text(190, 95, "3")
    pdf.output(str(tmp_path / "drawn.pdf"))
    reader = PdfReader(tmp_path / "drawn.pdf")
    assert thin_pages(reader, [(1, "3"), (2, "3")], settings(tmp_path)) == [1]
    assert thin_pages(reader, [(1, "3"), (2, "3")], settings(tmp_path, mode="never")) == []


def test_ocr_output_is_cached_by_file_content(tmp_path: Path) -> None:
    image = text_image(tmp_path / "note.png")
    conf = settings(tmp_path)
    load(ImageLoader(), image, conf)
    [entry] = list(conf.cache_dir.iterdir())  # type: ignore[union-attr]
    assert entry.name.endswith(f"-eng-150-v{ocr.CACHE_FORMAT}.json")
    # the cached text is what a second load returns: the image is not OCR'd again
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["entries"]["1"]["text"] = "Cached words " * 10
    entry.write_text(json.dumps(data), encoding="utf-8")
    [doc] = load(ImageLoader(), image, conf)
    assert doc.text.startswith("Cached words")
    # changed bytes are a new entry, read by OCR
    text_image(image, ["A different note about", "the keeper's logbook of 1902."])
    [doc] = load(ImageLoader(), image, conf)
    assert "logbook" in doc.text and len(list(conf.cache_dir.iterdir())) == 2  # type: ignore[union-attr]


def test_ocr_never_keeps_todays_skip_and_leaves_images_out(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "scan.pdf", text_image(tmp_path / "scan.png"))
    with pytest.raises(LoaderError, match=r"no extractable text .*ocr\.mode: never"):
        load(PdfLoader(), pdf, settings(tmp_path, mode="never"))
    with pytest.raises(LoaderError, match=r"OCR turned off|ocr\.mode: never"):
        load(ImageLoader(), tmp_path / "scan.png", settings(tmp_path, mode="never"))
    assert not PipelineSpec(ocr="never").sources.ocr_images and PipelineSpec(ocr="auto").sources.ocr_images


def test_images_in_asset_folders_stay_assets() -> None:
    assert ocr_image("scans/receipt.PNG") and ocr_image("page.tiff")
    assert not ocr_image("site/img/shot.png") and not ocr_image("docs/_static/logo.png")
    assert not ocr_image("scans/diagram.svg")


def test_a_missing_language_names_the_package(tmp_path: Path) -> None:
    image = text_image(tmp_path / "note.png")
    with pytest.raises(LoaderError, match="apt-get install tesseract-ocr-xyz"):
        load(ImageLoader(), image, settings(tmp_path, languages=("xyz",)))


def test_ocr_options_are_checked_naming_the_key(tmp_path: Path) -> None:
    pipe = tmp_path / "p.yaml"
    pipe.write_text("ocr: {mode: auto, dpix: 200}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ocr\.dpix"):
        load_pipeline(pipe)
    pipe.write_text("ocr: sometimes\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ocr\.mode"):
        load_pipeline(pipe)


def test_indexing_a_folder_reads_images_and_scans_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(docs / "note.png")
    scanned_pdf(docs / "scan.pdf", text_image(tmp_path / "scan.png", ["The keeper wrote in his logbook", "that the fog",
                                                                       "lasted nine days in 1902."]))
    index = tmp_path / "index"
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(index), "embedder": {"type": "hashing", "dimension": 32},
                                "store": {"type": "memory"}, "retriever": {"type": "dense"},
                                "ocr": {"mode": "auto", "dpi": 150}}), encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="ragkit"):
        run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"])
    report = json.loads(run.stdout)
    assert sorted(report["added"]) == ["note.png", "scan.pdf"], run.output
    assert "OCR read 2 page(s)" in caplog.text
    assert len(list((index / "ocr-cache").iterdir())) == 2


def test_the_ocr_cache_lives_in_the_index_being_built(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    text_image(docs / "note.png")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "pipeline-index"), "embedder": {"type": "hashing", "dimension": 32},
                                "store": {"type": "memory"}, "retriever": {"type": "dense"}}), encoding="utf-8")
    other = tmp_path / "other-index"
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--index", str(other), "--json"])
    assert json.loads(run.stdout)["added"] == ["note.png"], run.output
    assert len(list((other / "ocr-cache").iterdir())) == 1 and not (tmp_path / "pipeline-index").exists()


def test_a_page_over_the_time_limit_is_skipped_naming_the_key(tmp_path: Path) -> None:
    image = text_image(tmp_path / "note.png")
    with pytest.raises(LoaderError, match=r"took longer than 0\.001 s; raise ocr\.page_timeout_s"):
        load(ImageLoader(), image, settings(tmp_path, page_timeout_s=0.001))


def test_search_results_and_citations_say_the_text_came_from_ocr() -> None:
    from ragkit.types import Citation, SearchHit

    scanned = Citation.from_hit(1, SearchHit("c1", 0.5, {"source": "scan.pdf", "page": 2, "ocr": True, "text": "t"}))
    born = Citation.from_hit(2, SearchHit("c2", 0.4, {"source": "born.pdf", "page": 2, "text": "t"}))
    assert (scanned.location(short=True), scanned.location(), born.location()) == ("p. 2 (OCR)", "page 2 (OCR)", "page 2")
    assert scanned.to_dict()["ocr"] is True


def test_without_the_engine_a_scan_is_skipped_naming_the_install_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = scanned_pdf(tmp_path / "scan.pdf", text_image(tmp_path / "scan.png"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    ocr.engine_available.cache_clear()
    try:
        assert not settings(tmp_path).enabled and not PipelineSpec().sources.ocr_images
        with pytest.raises(LoaderError, match=r"no extractable text .*apt-get install tesseract-ocr"):
            load(PdfLoader(), pdf, settings(tmp_path))
        with pytest.raises(LoaderError, match="not installed; install it with: apt-get install tesseract-ocr"):
            load(ImageLoader(), tmp_path / "scan.png", settings(tmp_path, mode="always"))
    finally:
        ocr.engine_available.cache_clear()


def test_a_page_too_large_for_tesseract_is_read_coarser_or_left_out_unrendered(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from fpdf import FPDF
    from pypdf import PageObject

    from ragkit.loaders.pdf_ocr import fit_dpi

    inch = 72
    assert fit_dpi(PageObject.create_blank_page(width=8.5 * inch, height=11 * inch), 300) == (300, None)
    # a web page printed as one 26 x 171-inch sheet: Tesseract's 32,767-px side and the pixel budget
    assert fit_dpi(PageObject.create_blank_page(width=26 * inch, height=171 * inch), 300) == (106, None)
    assert fit_dpi(PageObject.create_blank_page(width=8 * inch, height=236 * inch), 300) == (138, None)
    assert fit_dpi(PageObject.create_blank_page(width=33 * inch, height=47 * inch), 300)[0] == 179  # A0
    dpi, reason = fit_dpi(PageObject.create_blank_page(width=8 * inch, height=787 * inch), 300)
    assert reason == "the page is 8 x 787 in: it fits Tesseract's limits (32,767 px a side, 50 million " \
                     "pixels) only at 41 DPI, too coarse to read (under 100)"

    image = text_image(tmp_path / "note.png")
    pdf = FPDF(format=(200, 100), unit="mm")
    pdf.add_page()
    pdf.image(str(image), x=0, y=0, w=200)
    pdf.add_page(format=(200, 20000))  # a 787-inch sheet
    pdf.image(str(image), x=0, y=0, w=200)
    pdf.output(str(tmp_path / "printed.pdf"))
    with caplog.at_level(logging.WARNING):
        [doc] = load(PdfLoader(), tmp_path / "printed.pdf", settings(tmp_path))
    assert "lighthouse" in doc.text and doc.metadata["page"] == 1
    assert "page 2: the page is 8 x 787 in" in caplog.text
