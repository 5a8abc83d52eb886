"""Words a PDF's lines break with a hyphen are whole again in the stored text."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.dehyphenate import dehyphenate, hyphenated_words
from ragkit.loaders.pdf import PdfLoader


def test_a_syllable_break_is_joined_and_a_written_compound_keeps_its_hyphen() -> None:
    text = ("We present a learn-\ning algorithm with l1/l2 regulariza-\n  tion for large-\nscale training.\n"
            "Large-scale training needs care. Soft\u00ad\nhyphens go.")
    assert dehyphenate(text, hyphenated_words([text])) == (
        "We present a learning algorithm with l1/l2 regularization for large-scale training.\n"
        "Large-scale training needs care. Softhyphens go.")


def test_a_hyphen_before_a_capital_a_number_or_a_list_item_stays() -> None:
    text = "the Smith-\nJones rule\nversion 2-\n3 of it\nitems:\n- first\nthe x-\n- second"
    assert dehyphenate(text) == text


def test_a_long_run_of_letters_or_breaks_is_read_in_one_pass() -> None:
    # each try looks at most 40 letters either side of a hyphen (an unbounded word on both sides
    # made a run of 200,000 letters quadratic)
    hostile = "a" * 200_000 + "-\n" + ("b-\n" * 100_000) + "end"
    joined = dehyphenate(hostile, hyphenated_words([hostile]))
    assert joined.startswith("a" * 200_000 + "-\nbb-\nbb") and joined.count("-\n") == 50_001


def test_a_pdf_paragraph_broken_by_hyphens_is_stored_whole(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    for line in ("The keepers recorded every ship in a log-", "book kept in the lamp room; the light-",
                 "house itself was rebuilt after the storm of 1902."):
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(tmp_path / "keepers.pdf"))
    [doc] = PdfLoader().load(tmp_path / "keepers.pdf", source="keepers.pdf")
    assert "in a logbook kept in the lamp room; the lighthouse itself was rebuilt" in doc.text
