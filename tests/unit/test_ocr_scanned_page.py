"""OCR with the real Tesseract on a real scan: a book page scanned at 150 DPI (grain, an
illustration, a decorated heading), shipped with a transcription typed from the page
(``tests/fixtures/scanned-page/``, see its SOURCE.md)."""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.loaders import ocr
from ragkit.loaders.pdf import PdfLoader

pytestmark = pytest.mark.skipif(
    not ocr.engine_available(),
    reason=f"the OCR engine (tesseract) is not installed; install it with: {ocr.INSTALL_COMMAND} (make test does)")

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "scanned-page"
SCAN = FIXTURE / "huckleberry-finn-p22.pdf"
TRANSCRIPTION = FIXTURE / "huckleberry-finn-p22.txt"
#: the page's native resolution (300 DPI gives back 0.986 of the words for twice the CPU time)
DPI = 150
#: share of the transcription's words OCR must give back, in order (Tesseract 5.3 gives back 0.977;
#: a rendering at 72 DPI, 0.61)
MIN_WORD_MATCH = 0.95


def words(text: str) -> list[str]:
    """Lower-case words and numbers; dashes part words, a hyphen joins them (``tip-toeing``, and
    ``be-`` at a line's end with ``tween`` on the next, are each one word)."""
    text = re.sub(r"--|[\u2013\u2014]", " ", text)
    text = re.sub(r"-\s*", "", text)
    return re.findall(r"[a-z0-9]+", text.lower())


def word_match(truth: str, read: str) -> float:
    """The share of ``truth``'s words that ``read`` gives back in the same order (the longest
    common subsequence of the two word lists over the transcription's length)."""
    expected, got = words(truth), words(read)
    matcher = difflib.SequenceMatcher(None, expected, got, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(expected)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the scan and a born-digital note, built by ``ragkit index``; returns its folder."""
    root = tmp_path_factory.mktemp("scanned")
    docs = root / "docs"
    docs.mkdir()
    shutil.copy(SCAN, docs / SCAN.name)
    (docs / "river.md").write_text("# The river\n\nThe raft drifted past the towhead at night while Jim kept "
                                   "watch and the steamboat whistled far downstream.\n", encoding="utf-8")
    pipe = root / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(root / "index"), "embedder": {"type": "hashing", "dimension": 64},
                                "store": {"type": "faiss", "index": "flat"}, "ocr": {"mode": "auto", "dpi": DPI}}),
                    encoding="utf-8")
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"], catch_exceptions=False)
    assert run.exit_code == 0, run.output
    assert sorted(json.loads(run.stdout)["added"]) == [SCAN.name, "river.md"], run.output
    return root / "index"


def test_the_word_measure_tells_a_good_reading_from_a_bad_one() -> None:
    truth = "He listened some more; then he\ncome tip-toeing down and stood right be-\ntween us"
    assert word_match(truth, "He listened some more ; then he come tip-\ntoeing down and stood right between us") == 1
    assert word_match(truth, "He lstened sorne more then he corne tip toeing") < 0.6
    assert word_match(truth, "between us right stood and down") < 0.3  # the words, out of order


@pytest.mark.slow
def test_ocr_reads_the_scanned_page_as_transcribed(indexed: Path) -> None:
    loader = PdfLoader()  # the same OCR cache as the index: the text the index was built from
    loader.use_ocr(ocr.OcrSettings(dpi=DPI, cache_dir=indexed / "ocr-cache"))
    [page] = list(loader.load(SCAN, source=SCAN.name))
    assert page.metadata["ocr"] is True and page.metadata["page"] == 1
    score = word_match(TRANSCRIPTION.read_text(encoding="utf-8"), page.text)
    assert score >= MIN_WORD_MATCH, f"OCR gave back {score:.3f} of the transcription's words:\n{page.text}"


@pytest.mark.slow
def test_search_finds_a_phrase_of_the_scan_and_says_it_came_from_ocr(indexed: Path) -> None:
    runner = CliRunner()
    run = runner.invoke(cli, ["search", "Jim was setting in the kitchen door; we could see him pretty clear",
                              "--index", str(indexed), "--retriever", "bm25", "-k", "2", "--json"])
    assert run.exit_code == 0, run.output
    top = json.loads(run.stdout)[0]
    assert (top["source"], top["page"], top["ocr"]) == (SCAN.name, 1, True)
    assert "scrouched down and laid still" in " ".join(top["text"].split())
    shown = runner.invoke(cli, ["search", "scrouched down and laid still", "--index", str(indexed), "--retriever", "bm25",
                                "-k", "1"])
    assert f"{SCAN.name}  p. 1 (OCR)" in shown.output
