"""A PDF's running headers and footers (``ragkit.loaders.pdf_running``) are left out of its pages'
text, past the first page that shows each: a report's header and "Page N of M" footer, a paper's
alternating author and title lines. A heading that only looks alike ("Article 5" atop one page,
"Article 9" atop the next), a bullet alone on its line, and the same words inside a page's text
stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.loaders.pdf_running import without_running_lines
from ragkit.registry import loaders

HEADER = "Harbour Survey Report, March 3, 2024, North Quay Office"


def _pages(bodies: list[str], *, header: str = HEADER) -> list[tuple[int, str]]:
    return [(n, f"{header}\n{body}\nPage {n} of {len(bodies)}") for n, body in enumerate(bodies, 1)]


def test_a_header_and_a_numbered_footer_on_every_page_are_left_out() -> None:
    bodies = ["The survey covered the north quay.", "Its moorings were inspected in March.",
              "likely to hold until the spring tides, since the chains were renewed.", "The crane is new."]
    kept = without_running_lines(_pages(bodies))
    assert [text for _, text in kept] == [f"{HEADER}\n\n{bodies[0]}\n\nPage 1 of 4", *bodies[1:]]  # said once, apart


def test_headers_on_every_other_page_are_running_too() -> None:
    bodies = [f"The {word} mooring was tested." for word in "first second third fourth fifth sixth".split()]
    pages = [(n, f"{'I. Holm and T. Berg' if n % 2 else 'Mooring Loads in Tidal Harbours'}\n{body}\n{n}")
             for n, body in enumerate(bodies, 1)]
    assert [text for _, text in without_running_lines(pages)][2:] == bodies[2:]


def test_numbered_headings_a_bullet_and_the_header_words_inside_a_page_stay() -> None:
    articles = [(1, "Article 1\nEveryone is free."), (2, "Article 5\nNo one shall be held."),
                (3, "Article 9\nNo one shall be exiled."), (4, "Article 14\nEveryone may seek asylum.")]
    assert without_running_lines(articles) == articles  # their numbers do not follow the pages'
    bullets = [(n, f"•\n{item}\n•") for n, item in enumerate(["Chains", "Buoys", "Cranes", "Bollards"], 1)]
    assert without_running_lines(bullets) == bullets
    pages = _pages(["A", "B", f"The report is titled {HEADER}.\nIts pages are numbered.\nC", "D"])
    assert f"The report is titled {HEADER}." in without_running_lines(pages)[2][1]


def test_a_page_that_is_only_its_frame_keeps_its_text_and_two_pages_are_left_alone() -> None:
    pages = [(1, f"{HEADER}\nPage 1 of 3"), (2, f"{HEADER}\nText.\nPage 2 of 3"), (3, f"{HEADER}\nMore.\nPage 3 of 3")]
    kept = without_running_lines(pages)
    assert kept[0][1] == f"{HEADER}\n\nPage 1 of 3" and kept[1][1] == "Text." and kept[2][1] == "More."
    assert without_running_lines(pages[:2]) == pages[:2]


def test_the_pdf_loader_leaves_the_frame_out_of_its_documents(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_title("Harbour Survey")
    bodies = ["The survey covered the north quay and its moorings.", "The moorings were inspected in March.",
              "The chains were renewed before the spring tides."]
    for n, body in enumerate(bodies, 1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        for line in (HEADER, body, f"Page {n} of {len(bodies)}"):
            pdf.multi_cell(0, 6, line)
            pdf.ln(1)
    path = tmp_path / "survey.pdf"
    pdf.output(str(path))
    docs = list(loaders.get("pdf")().load(path, source=path.name))
    assert [d.text for d in docs] == [f"{HEADER}\n\n{bodies[0]}\n\nPage 1 of 3", *bodies[1:]]
    assert docs[0].metadata["title"] == "Harbour Survey"


def test_a_footer_that_names_each_page_s_section_after_the_title_stays() -> None:
    sections = ["Scope", "System Overview", "Security Model and Trust Assumptions", "Low Severity"]
    pages = [(n, f"{section}\nThe {section.lower()} part has {n + 2} findings.\n"
                 f"Harbour Berth Booking Audit 2024 − {section} − {n}") for n, section in enumerate(sections, 1)]
    assert without_running_lines(pages) == pages  # the one line that says which audit the page is of
