"""Generate the binary files of ragkit's sample corpus: ``data/annual-report-2022.docx`` and the
four-page ``data/field-manual.pdf``.

The sample corpus (``data/``) describes the **Skerrow Tidal and Magnetic Observatory**, a made-up
research station on Skerrow Island, fourteen kilometres off the (equally made-up) Calder Coast,
founded in 1887 by Dr. Marguerite Halloran and run today by the University of Port Aldous. Every
fact appears in exactly one file, so the expected source of each question in
``data/questions.yaml`` is unambiguous:

- ``history.md``: founding, the Wren Hut, the university transfer, the current director
- ``instruments.md``: tide gauge, magnetometer, weather mast, seismometer, data link
- ``station-guide.md``: ferry, bunks, water rules, meals, internet, house rules
- ``wildlife.md``: puffins, seals, the Skerrow vole, plants
- ``keepers-log-1953.txt``: the storm of January 1953
- ``power-and-supplies.txt``: wind, solar, diesel, fuel, supply boat, emergency stores
- ``visitor-centre.html``: Halloran House in Port Aldous (hours, tickets, exhibits)
- ``annual-report-2022.docx`` (generated here): budget, staff, papers, data availability table
- ``field-manual.pdf`` (generated here): one topic per page: arrival and shore safety, radio,
  boat operations, emergencies

The output is deterministic (fixed dates and zip timestamps), and the generated files are
committed, so the demo never needs this script. Run it after editing the text below::

    .venv/bin/python scripts/make_sample_docs.py [--out data]

Needs python-docx and fpdf2 (``pip install 'ragkit[dev]'``).
"""

from __future__ import annotations

import argparse
import io
import logging
import zipfile
from datetime import datetime, timezone
from pathlib import Path

log = logging.getLogger("make_sample_docs")

FIXED_DATE = datetime(2023, 3, 1, 9, 0, 0, tzinfo=timezone.utc)
ZIP_DATE = (2023, 3, 1, 9, 0, 0)

REPORT_TITLE = "Skerrow Observatory Annual Report 2022"
REPORT: list[tuple[str, str]] = [
    ("Heading 1", "Director's summary"),
    (
        "Normal",
        "2022 was the observatory's first full year without pandemic restrictions. Forty-one "
        "visiting researchers from nine countries stayed on the island, and the summer field course "
        "of the School of Ocean Sciences returned after a two-year break.",
    ),
    (
        "Normal",
        "The highlight of the year was the opening of the new boathouse at Gull Haven on "
        "9 September 2022. It replaces the winch house that was damaged in the storm of 1953 and "
        "never fully repaired, and it has a slipway long enough for the station's rigid inflatable.",
    ),
    ("Heading 1", "Finances"),
    (
        "Normal",
        "Total expenditure for the year was 1.42 million pounds. The University of Port "
        "Aldous provided 61 percent of the budget, research grants 30 percent, and the Calder "
        "Maritime Trust and visitor income the remaining 9 percent. The largest single cost was the "
        "boathouse, at 386,000 pounds.",
    ),
    ("Heading 1", "People"),
    (
        "Normal",
        "At the end of 2022 the observatory employed eleven permanent staff and six "
        "seasonal field assistants. Dr. Priya Lindqvist joined as data manager in March, and the "
        "long-serving boatman Hamish Grieve retired in October after thirty-one years on the island.",
    ),
    ("Heading 1", "Research output"),
    (
        "Normal",
        "Staff and visitors published 27 peer-reviewed papers using Skerrow data in 2022. "
        "The most cited was a study of storm surges in the Calder Sound over 130 years, which "
        "combined the modern radar record with the digitised float gauge charts.",
    ),
    ("Heading 1", "Data availability"),
    ("Normal", "The table below gives the share of the year for which each instrument delivered valid data."),
]
AVAILABILITY = [
    ("Instrument", "Availability", "Main gap"),
    ("Radar tide gauge TG-7", "99.6%", "radar housing iced, February"),
    ("Fluxgate magnetometer", "97.1%", "logger replacement, June"),
    ("Weather mast", "98.4%", "anemometer bearing, November"),
    ("Seismometer", "94.8%", "power fault, August"),
]

MANUAL_TITLE = "Skerrow Field Safety Manual"
MANUAL_PAGES: list[tuple[str, list[str]]] = [
    (
        "1. Arrival and shore safety",
        [
            "Every new arrival completes the safety induction with the station manager within two "
            "hours of landing, before going beyond the Long Hut garden wall.",
            "The two-person rule: nobody works alone on the shore below the mean high water mark. "
            "The second person stays within sight and carries a handheld radio.",
            "Lifejackets are worn on the jetty, on the slipway and on any boat. Hard hats are worn in "
            "the powder store and below the north cliffs.",
            "The safest time to visit the gauge well at Gull Haven is the hour either side of low "
            "water. Never enter the well itself.",
        ],
    ),
    (
        "2. Radio procedures",
        [
            "The station's radio callsign is Skerrow Base. The radio room is in the Long Hut hall.",
            "VHF channel 16 is reserved for distress and calling. Routine traffic between the station "
            "and the field parties uses the working channel, VHF channel 67.",
            "The station checks in with the Port Aldous coastguard every day at 08:00 and 20:00. If "
            "two scheduled checks are missed, the coastguard will send a vessel to investigate.",
            "Field parties report by radio to Skerrow Base every two hours while away from the Long "
            "Hut, giving their position and the number of people in the party.",
        ],
    ),
    (
        "3. Boat operations",
        [
            "The station boat is Tern, a 5.8-metre rigid inflatable with a 60-horsepower outboard "
            "engine. She may carry no more than six people, including the coxswain.",
            "Tern is not launched when the wind is above force 5 on the Beaufort scale or the waves "
            "are higher than 1.5 metres. The coxswain's decision not to launch is final.",
            "Only staff holding a powerboat level 2 certificate may take the helm. A second crew "
            "member always stays with the boat while others are ashore on the skerries.",
            "After each trip the engine is flushed with fresh water and the fuel level is written in "
            "the boat log kept in the boathouse.",
        ],
    ),
    (
        "4. Emergencies",
        [
            "In a medical emergency call the coastguard on VHF channel 16 or by satellite telephone. "
            "The satellite telephone is kept in the red grab bag by the radio.",
            "The rescue helicopter lands on the flat plateau north of the summit cairn of Beacon "
            "Knoll, marked by white-painted stones in the shape of a letter H.",
            "The defibrillator hangs in the Long Hut kitchen, next to the main first-aid kit. A second "
            "first-aid kit is kept in the Wren Hut and a third in the boathouse.",
            "If the island must be evacuated, everyone gathers at the muster point in front of the "
            "Long Hut door and the station manager counts heads against the sign-out board.",
        ],
    ),
]


def build_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    props = document.core_properties
    props.title = REPORT_TITLE
    props.author = "Skerrow Observatory"
    props.created = props.modified = FIXED_DATE.replace(tzinfo=None)
    props.last_printed = FIXED_DATE.replace(tzinfo=None)
    props.revision = 1
    document.add_paragraph(REPORT_TITLE, style="Title")
    for style, text in REPORT:
        document.add_paragraph(text, style=style)
    table = document.add_table(rows=0, cols=3)
    table.style = "Table Grid"
    for row in AVAILABILITY:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    document.add_paragraph("Data availability was computed over 365 days of 2022.")
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(_normalise_zip(buffer.getvalue()))


def _normalise_zip(data: bytes) -> bytes:
    """Rewrite a zip with fixed timestamps so the output is byte-for-byte reproducible."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_DATE)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def build_pdf(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_title(MANUAL_TITLE)
    pdf.set_author("Skerrow Observatory")
    pdf.set_creator("ragkit scripts/make_sample_docs.py")
    pdf.set_producer("fpdf2")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_margins(20, 20, 20)
    for heading, paragraphs in MANUAL_PAGES:
        pdf.add_page()
        pdf.set_font("Helvetica", size=9)
        pdf.cell(0, 6, MANUAL_TITLE, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", style="B", size=16)
        pdf.cell(0, 12, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        for text in paragraphs:
            pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
    pdf.file_id = lambda: "<7261676b69742d736b6572726f772d31><7261676b69742d736b6572726f772d31>"
    pdf.output(str(path))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_out = Path(__file__).resolve().parent.parent / "data"
    parser.add_argument("--out", type=Path, default=default_out, help="output directory")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    build_docx(args.out / "annual-report-2022.docx")
    build_pdf(args.out / "field-manual.pdf")
    log.info("wrote %s and %s", args.out / "annual-report-2022.docx", args.out / "field-manual.pdf")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
