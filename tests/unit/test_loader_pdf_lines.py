"""A PDF whose writer placed every word on its own (each in its own text object, positioned by a
flipped text matrix, as an office suite's export does) gives pypdf's text one word to a line; the
page is read again as lines from where its words are, with its paragraphs and its columns. The
PDFs are written for the test in that shape."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.pdf_lines import one_word_lines
from ragkit.registry import loaders
from ragkit.testing.fuzz_seeds import helvetica_page_pdf

WAITING = [
    ["Waiting Periods"],
    ["Some activities should trigger a waiting period during which", "withdrawals of lamp oil are blocked.",
     "The period should be at least 24 hours."],
    ["Signing in on a new device starts one."],
]


def word_placed_pdf(path: Path, columns: list[list[list[str]]]) -> Path:
    """One page; each column a list of paragraphs of lines, each word its own text object."""
    ops = [b"1 0 0 -1 0 792 cm"]
    for k, paragraphs in enumerate(columns):
        y = 52
        for paragraph in paragraphs:
            for line in paragraph:
                x = 72 + 270 * k
                for word in line.split():
                    ops.append(b"BT /F1 10 Tf 1 0 0 -1 %d 0 Tm 0 %d Td (%s) Tj ET" % (x, -y, word.encode()))
                    x += int(len(word) * 5.5) + 3
                y += 13
            y += 13
    path.write_bytes(helvetica_page_pdf(b"\n".join(ops)))
    return path


def test_a_page_of_one_word_lines_is_read_as_its_lines_and_paragraphs(tmp_path: Path) -> None:
    from pypdf import PdfReader

    path = word_placed_pdf(tmp_path / "takeover.pdf", [WAITING])
    assert one_word_lines(PdfReader(path).pages[0].extract_text())  # the shape: one word to a line
    (doc,) = loaders.get("pdf")().load(path, source="takeover.pdf")
    assert doc.text.startswith("Waiting Periods\n\nSome activities should trigger a waiting period during which\n")
    assert "\nThe period should be at least 24 hours.\n\nSigning in on a new device starts one." in doc.text


def test_two_columns_of_placed_words_are_read_column_by_column(tmp_path: Path) -> None:
    left = [["The keeper trims the wick", "every evening at dusk", "and fills the lamp with oil."]] * 3
    right = [["The relief keeper logs", "each passing ship by name", "and notes the weather."]] * 3
    path = word_placed_pdf(tmp_path / "duties.pdf", [left, right])
    (doc,) = loaders.get("pdf")().load(path, source="duties.pdf")
    assert "every evening at dusk\nand fills the lamp with oil." in doc.text
    assert doc.text.index("fills the lamp") < doc.text.index("The relief keeper logs")
    assert "dusk each passing" not in doc.text and "oil. and notes" not in doc.text


def test_a_page_of_short_lines_written_as_lines_is_not_judged() -> None:
    assert not one_word_lines("Contents\nOverview\nInstall\n" * 3)  # too few lines to say
    assert not one_word_lines("The keeper trims the wick.\n" * 40)
