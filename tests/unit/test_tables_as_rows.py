"""Tables as rows: PDF (ruled and whitespace-aligned), Word, PowerPoint and HTML tables become one
document per row, written like a CSV row (``table: NAME`` and ``column: value`` lines), with the
page and the caption; a broken table drops the table, never the document."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from ragkit.errors import ConfigError
from ragkit.loaders.table_rows import Grid, grid_rows, split_header
from ragkit.registry import loaders
from ragkit.types import Document
from tests.unit.pipeline.office_files import broken_table_docx

CUPS = [("Team", "Titles", "Last won"), ("Maple Leafs", "13", "1967"), ("Canadiens", "24", "1993"),
        ("Red Wings", "11", "2008"), ("Bruins", "6", "2011")]
PROSE = ("The league's oldest trophy is older than the league itself. Each spring the winners engrave "
         "their names on a band of the bowl, and when the bands are full the oldest one is retired.")


def load(name: str, path: Path, **options: Any) -> list[Document]:
    return list(loaders.get(name)(**options).load(path, source=path.name))


def prose_page(text: str, size: int = 11) -> Any:
    """An fpdf2 document whose first page starts with the paragraph ``text``."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=size)
    pdf.multi_cell(0, size // 2 + 1, text)
    pdf.ln(4)
    return pdf


def cups_pdf(path: Path, *, ruled: bool) -> Path:
    """A page of prose, a caption, the table (with borders, or cells placed by x only), more prose."""
    pdf = prose_page(PROSE)
    pdf.cell(0, 6, "Table 2: Stanley Cup titles by team", new_x="LMARGIN", new_y="NEXT")
    if ruled:
        with pdf.table(col_widths=(60, 30, 30), text_align="LEFT") as table:
            for values in CUPS:
                row = table.row()
                for value in values:
                    row.cell(value)
    else:
        for values in CUPS:
            for x, value in zip((20, 90, 140), values, strict=True):
                pdf.set_x(x)
                pdf.cell(40, 7, value)
            pdf.ln(7)
    pdf.ln(4)
    pdf.multi_cell(0, 6, "Dynasties are rarer now that the league has thirty-two teams.")
    pdf.output(str(path))
    return path


@pytest.mark.parametrize("ruled", [True, False], ids=["ruled", "whitespace"])
def test_a_pdf_table_becomes_one_document_per_row_with_its_header_page_and_caption(tmp_path: Path, ruled: bool) -> None:
    page, *rows = load("pdf", cups_pdf(tmp_path / "cups.pdf", ruled=ruled), keep_table_text=False)
    caption = "Table 2: Stanley Cup titles by team"
    assert [r.text for r in rows] == [
        f"table: {caption}\nTeam: {team}\nTitles: {titles}\nLast won: {year}" for team, titles, year in CUPS[1:]]
    assert [(r.metadata["page"], r.metadata["table"], r.metadata["row"]) for r in rows] == [
        (1, caption, i) for i in range(4)]
    # the page keeps its prose and the caption, not the table again as a run of numbers
    assert page.metadata["page"] == 1 and "table" not in page.metadata
    assert "engrave" in page.text and "Dynasties" in page.text and caption in page.text
    assert "Maple Leafs 13 1967" not in " ".join(page.text.split()) and "1993" not in page.text


@pytest.mark.parametrize("ruled", [True, False], ids=["ruled", "whitespace"])
def test_keep_table_text_reads_the_rows_and_keeps_the_whole_page_text_beside_them(tmp_path: Path, ruled: bool) -> None:
    path = cups_pdf(tmp_path / "cups.pdf", ruled=ruled)
    page, *rows = load("pdf", path, keep_table_text=True)
    caption = "Table 2: Stanley Cup titles by team"
    # the same rows as when the table's lines are cut from the page ...
    assert [r.text for r in rows] == [r.text for r in load("pdf", path, keep_table_text=False)[1:]]
    assert [r.text for r in rows] == [
        f"table: {caption}\nTeam: {team}\nTitles: {titles}\nLast won: {year}" for team, titles, year in CUPS[1:]]
    # ... and the page still holds every line of the table, as tables: false reads it
    flat = " ".join(page.text.split())
    assert "table" not in page.metadata and "engrave" in flat and "Dynasties" in flat
    assert all(" ".join(values) in flat for values in CUPS)
    assert page.text == load("pdf", path, tables=False)[0].text


def test_tables_off_keeps_the_page_as_one_text(tmp_path: Path) -> None:
    [page] = load("pdf", cups_pdf(tmp_path / "cups.pdf", ruled=True), tables=False)
    assert "Maple Leafs" in page.text and "1967" in page.text


def test_a_page_of_prose_is_never_read_for_tables(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_font("Helvetica", size=11)
    for _ in range(2):
        pdf.add_page()
        pdf.multi_cell(0, 6, (PROSE + " ") * 6 + "It was first won in 1893.")
    pdf.output(str(tmp_path / "prose.pdf"))
    docs = load("pdf", tmp_path / "prose.pdf")
    assert [d.metadata["page"] for d in docs] == [1, 2] and not any("table" in d.metadata for d in docs)


def test_a_page_over_its_table_time_limit_keeps_its_text_and_says_so(tmp_path: Path, caplog: Any) -> None:
    path = cups_pdf(tmp_path / "cups.pdf", ruled=True)
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders"):
        [page] = load("pdf", path, table_page_timeout_s=1e-6)
    assert "Maple Leafs" in page.text  # the table stays in the page's text
    assert "tables left out on 1 page(s)" in caplog.text and "table_page_timeout_s" in caplog.text


@pytest.mark.parametrize("options", [{"tables": "yes"}, {"keep_table_text": "no"}, {"table_page_timeout_s": 0}, {"table_page_timeout_s": "10"}])
def test_bad_table_options_are_named(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=next(iter(options))):
        loaders.get("pdf")(**options)


# ------------------------------------------------------------------------- Word, PowerPoint, HTML


def test_a_word_table_is_rows_named_by_its_caption_and_a_broken_one_is_dropped(tmp_path: Path, caplog: Any) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("Champions of the old league.")
    document.add_paragraph("Table 1: Stanley Cup titles", style="Caption")
    table = document.add_table(rows=len(CUPS), cols=3)
    for r, values in enumerate(CUPS):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    document.save(str(tmp_path / "cups.docx"))
    text, *rows = load("docx", tmp_path / "cups.docx")
    assert text.text == "Champions of the old league.\n\nTable 1: Stanley Cup titles"
    assert rows[0].text == "table: Table 1: Stanley Cup titles\nTeam: Maple Leafs\nTitles: 13\nLast won: 1967"
    assert [r.metadata["row"] for r in rows] == [0, 1, 2, 3]

    broken = broken_table_docx(tmp_path / "grid.docx", before="The intro reads fine.", after="So does the end.")
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders"):
        [doc] = load("docx", broken)
    assert doc.text == "The intro reads fine.\n\nSo does the end." and "table 1 dropped" in caplog.text


def test_a_slide_table_is_rows_named_after_the_slide(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Stanley Cup titles"
    table = slide.shapes.add_table(len(CUPS), 3, Inches(1), Inches(2), Inches(6), Inches(3)).table
    for r, values in enumerate(CUPS):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    deck.save(str(tmp_path / "cups.pptx"))
    slide_doc, *rows = load("pptx", tmp_path / "cups.pptx")
    assert slide_doc.text == "# Stanley Cup titles" and len(rows) == 4
    assert rows[3].text == "table: Stanley Cup titles\nTeam: Bruins\nTitles: 6\nLast won: 2011"
    assert rows[3].metadata["page"] == 1 and rows[3].metadata["table"] == "Stanley Cup titles"


def test_html_data_tables_are_rows_and_layout_tables_stay_text(tmp_path: Path) -> None:
    body = "".join(f"<tr><td>{a}</td><td>{b}</td><td>{c}</td></tr>" for a, b, c in CUPS[1:])
    layout = "<table><tr><td>" + "A long column of page text. " * 20 + "</td><td>Sidebar</td></tr></table>"
    page = (f"<html><head><title>Hockey</title></head><body><p>Intro.</p>"
            f"<table><caption>Stanley Cup titles</caption><thead><tr><th>Team</th><th>Titles</th>"
            f"<th>Last won</th></tr></thead><tbody>{body}</tbody></table>{layout}</body></html>")
    (tmp_path / "cups.html").write_text(page, encoding="utf-8")
    text, *rows = load("html", tmp_path / "cups.html")
    assert text.text.startswith("Intro.") and "Sidebar" in text.text and "Maple Leafs" not in text.text
    assert rows[0].text == "table: Stanley Cup titles\nTeam: Maple Leafs\nTitles: 13\nLast won: 1967"
    assert rows[0].metadata["table"] == "Stanley Cup titles" and len(rows) == 4


# ------------------------------------------------------------------------- header detection


def test_the_header_is_the_leading_rows_without_numbers_joined_by_column() -> None:
    rows = [("Region", "Unit rate", "Standing charge"), ("", "p/kWh", "p/day"), ("London", "25.25", "54.69")]
    names, body = split_header(rows)
    assert names == ["Region", "Unit rate p/kWh", "Standing charge p/day"] and body == [rows[2]]
    names, body = split_header([("1", "2"), ("3", "4")])  # no header: the columns are numbered
    assert names == ["column 1", "column 2"] and len(body) == 2
    # a table of words: its first row names the columns (three rows of names were once one header)
    crew = [("Name", "Role"), ("Ada Quill", "Keeper"), ("Tom Reed", "Pilot"), ("Mia Stone", "Cook"), ("Lu Fenn", "Clerk")]
    names, body = split_header(crew)
    assert names == ["Name", "Role"] and body == crew[1:]


def test_a_grid_reads_like_a_csv_row() -> None:
    [(row, text)] = grid_rows(Grid((("Team", "Titles"), ("Maple Leafs", "13")), caption=None), "cups.pdf, table 1")
    assert (row, text) == (0, "table: cups.pdf, table 1\nTeam: Maple Leafs\nTitles: 13")


def test_a_page_that_is_only_a_table_keeps_its_rows_and_is_named_after_the_document(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    with pdf.table(col_widths=(60, 30, 30), text_align="LEFT") as table:
        for values in CUPS:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.output(str(tmp_path / "cups.pdf"))
    page, *rows = load("pdf", tmp_path / "cups.pdf", keep_table_text=False)
    assert page.text == "cups, page 1"  # no text beside the table: the page holds its name, not the rows again
    assert rows[0].text == "table: cups, page 1\nTeam: Maple Leafs\nTitles: 13\nLast won: 1967" and len(rows) == 4


def test_layout_lines_a_numbered_heading_ends_the_table_and_runs_of_numbers_are_split() -> None:
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["  Team          Titles     Last won",
             "  Maple Leafs       13         1967",
             "  Canadiens         24 1993",  # the layout set two cells as one run of text
             "",
             "  5.2   Results of the season"]
    [table] = find_grids(lines)
    assert table.header_rows == 1 and table.grid.rows == (
        ("Team", "Titles", "Last won"), ("Maple Leafs", "13", "1967"), ("Canadiens", "24", "1993"))


def test_a_header_set_at_another_scale_than_its_rows_is_placed_by_order_and_named_by_its_heading() -> None:
    """pypdf lays a header drawn cell by cell wider than rows drawn as one run of text: the
    header reaches past the columns. Its cells go over the last columns by order, a wrapped cell
    ("Charge") under the cell it continues, a group line over the columns it is centred on, and
    the line above the table names it."""
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["                                     Economy 10",
             "                          Unit Rate Day     Unit Rate Night         Standing",
             "                                                                    Charge",
             "Region       Region no.  p/kWh    p/kWh    p/day",
             "East England    10      27.60    21.89    58.37",
             "East Midlands   11      26.68    21.46    58.93"]
    [table] = find_grids(lines)
    assert table.heading == "Economy 10" and table.header_rows == 3
    names, _ = split_header(table.grid.rows, header_rows=table.header_rows)
    assert names == ["Region", "Region no.", "Unit Rate Day p/kWh", "Unit Rate Night p/kWh", "Standing Charge p/day"]
    lines = ["                                      Standard                           Gas",
             "                          Unit Rate      Standing      Unit Rate      Standing",
             "Region        p/kWh    p/day     p/kWh    p/day",
             "London        25.25    54.69      8.17    33.60",
             "Yorkshire     25.13    67.54      7.86    33.60"]
    [table] = find_grids(lines)
    names, _ = split_header(table.grid.rows, header_rows=table.header_rows)
    assert table.heading is None and names == ["Region", "Standard Unit Rate p/kWh", "Standard Standing p/day",
                                               "Gas Unit Rate p/kWh", "Gas Standing p/day"]


def test_a_section_row_names_the_rows_under_it_and_a_total_row_stays_a_row() -> None:
    grid = Grid((("Market", "This week", "Last week", "Year ago"),
                 ("Ethanol ($/gal)", "", "", ""),
                 ("Iowa", "1.35 - 1.42", "1.38 - 1.43", "1.27 - 1.35"),
                 ("Biodiesel ($/gal)", "", "", ""),
                 ("Iowa", "2.85", "2.99 - 3.30", "2.85 - 3.07"),
                 ("Total", "", "", "9.99")), caption=None)
    rows = [text for _, text in grid_rows(grid, "Prices")]
    assert rows == ["table: Prices: Ethanol ($/gal)\nMarket: Iowa\nThis week: 1.35 - 1.42\nLast week: 1.38 - 1.43\n"
                    "Year ago: 1.27 - 1.35",
                    "table: Prices: Biodiesel ($/gal)\nMarket: Iowa\nThis week: 2.85\nLast week: 2.99 - 3.30\n"
                    "Year ago: 2.85 - 3.07",
                    "table: Prices: Biodiesel ($/gal)\nMarket: Total\nYear ago: 9.99"]
    wrapped = Grid((("Impact", "r"), ("Knowledge of the school system and", ""), ("education abroad", "-0.15")))
    assert [t for _, t in grid_rows(wrapped, "T")][0] == "table: T\nImpact: Knowledge of the school system and"


def test_layout_ranges_stay_one_cell_and_a_lone_table_label_takes_its_title() -> None:
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["Table 3",
             "",
             "  Market            This week        Year ago",
             "  Iowa            1.35  - 1.42     1.27 - 1.35",
             "  Nebraska        1.38  - 1.40     1.27 - 1.35"]
    plain = "Table 3\nEthanol prices by state ($/gal)\nMarket This week Year ago\nIowa 1.35 - 1.42 1.27 - 1.35"
    [table] = find_grids(lines, plain)
    assert table.grid.caption == "Table 3 Ethanol prices by state ($/gal)"
    assert table.grid.rows[1] == ("Iowa", "1.35 - 1.42", "1.27 - 1.35")


def test_a_column_of_running_text_beside_a_table_is_not_one_of_its_columns() -> None:
    """A page set in two columns lays a table out beside the other column's lines: the lines of
    text are not the table's first column, the table keeps its own labels, and the page keeps
    the text (its words are not the table's)."""
    from ragkit.loaders.pdf_tables import find_grids, without_tables

    text = ["the fares below were set by the council after a long review of",
            "every route in the county, and they hold until the next review",
            "which the council expects to begin in the spring of next year"]
    lines = [f"{text[0]}     Ticket          Price    Days",
             f"{text[1]}     Adult           4.50     1",
             f"{text[2]}     Child           2.25     1",
             f"{'and they apply on every bus and tram':<63}     Family pass     11.00    7"]
    [table] = find_grids(lines)
    assert table.grid.rows == (("Ticket", "Price", "Days"), ("Adult", "4.50", "1"), ("Child", "2.25", "1"),
                               ("Family pass", "11.00", "7"))
    plain = "\n".join([*text, "Ticket Price Days", "Adult 4.50 1"])
    assert without_tables(plain, [table]).splitlines() == text


def test_a_table_whose_labels_ran_into_the_text_beside_it_stays_text() -> None:
    """When the layout joins each row's label to the line of text beside it, no row can be
    named: the page is read as text rather than as rows of bare numbers."""
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["                                                              Before    After",
             "the council set the fares after a long review of the Adult      4.50      5.00",
             "routes in the county and they hold until the next one Child      2.25      2.50",
             "which the council expects to begin in the spring Family      11.00      12.00"]
    assert find_grids(lines) == []


def test_a_data_sheet_table_keeps_its_rows_of_one_value_and_its_group_labels() -> None:
    """A data sheet's row has one value among its parameter, symbol, conditions and unit: inside
    a table it is a row. A typeset minus sign is a number's sign, a wrapped condition joins its row
    (it does not end the table, nor is it a row of its own), the next group's label does not end
    the table, and a bare "Table 3." line above the header is not header but names the table."""
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["Table 3.",
             "Parameter              Symbol     Conditions              Min     Typ     Max    Unit",
             "SUPPLY VOLTAGE         VS                                 2.7             5.5    V",
             "QUIESCENT CURRENT      IQ         no load                         1.2     2.0    mA",
             "OFFSET                 VOS        TA = 25°C               −3              +3     mV",
             "                                  over temperature",
             "WAKE-UP",
             "  Wake-Up Time         tWAKE      VS = 5 V                        45             µs",
             "  Shutdown Current     ISD        EN = 0 V                        0.1            µA"]
    [table] = find_grids(lines)
    assert table.header_rows == 1 and table.heading == "Table 3." and table.grid.caption is None
    rows = [text for _, text in grid_rows(table.grid, "T", header_rows=table.header_rows)]
    assert "table: T\nParameter: OFFSET\nSymbol: VOS\nConditions: TA = 25°C over temperature\nMin: −3\nMax: +3\n" \
           "Unit: mV" in rows
    assert len(rows) == 5  # the wrapped condition is not a row of its own
    assert rows[-2:] == ["table: T: WAKE-UP\nParameter: Wake-Up Time\nSymbol: tWAKE\nConditions: VS = 5 V\nTyp: 45\n"
                         "Unit: µs",
                         "table: T: WAKE-UP\nParameter: Shutdown Current\nSymbol: ISD\nConditions: EN = 0 V\nTyp: 0.1\n"
                         "Unit: µA"]


def test_tables_without_a_header_are_named_by_the_label_above_and_a_nil_dash_is_a_value() -> None:
    """A statement's figures under class labels: each table (no header of its own) is named by the
    line above it, and a row whose amount is "-" (none) is a row: it does not end the table, nor is
    it taken for a header, and the label over it names the rows under it."""
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["Class A",
             "",
             "Net asset value at year end                  1,250,000",
             "Units outstanding at year end                   12,500",
             "",
             "Class B",
             "",
             "Net asset value at year end                  3,400,000",
             "Units outstanding at year end                   34,000",
             "",
             "Result per unit",
             "Direct result                                        -",
             "Revaluation                                       2.10",
             "Costs                                           (0.05)"]
    first, second = find_grids(lines)
    assert (first.heading, second.heading) == ("Class A", "Class B")
    assert first.header_rows == second.header_rows == 0
    assert first.grid.rows[1] == ("Units outstanding at year end", "12,500")
    rows = [t for _, t in grid_rows(second.grid, "Class B", header_rows=0)]
    assert rows[2:4] == ["table: Class B: Result per unit\ncolumn 1: Direct result\ncolumn 2: -",
                         "table: Class B: Result per unit\ncolumn 1: Revaluation\ncolumn 2: 2.10"]


def test_a_charts_axes_and_a_figure_caption_are_not_read_as_a_table() -> None:
    """A plot's tick labels stand in columns of numbers: when every column of numbers is a run of
    evenly spaced values with a legend's few words among them, or the lines above are a figure's
    caption, the page keeps them as text. A table of numbers alone stays a table."""
    from ragkit.loaders.pdf_tables import find_grids

    axes = ["  5.05        20",
            "                       LOAD = 1mA",
            "  5.04        18       LOAD = 10mA",
            "  5.03        16       LOAD = 100mA",
            "  5.02        14",
            "  5.01        12",
            "  5.00        10"]
    assert find_grids(axes) == []
    figure = ["Figure 12. Dropout Voltage vs. Load        Figure 15. Ground Current vs. Load",
              "  0.31     4.0                              3.26",
              "  0.28     5.0                              3.31",
              "  0.35     7.5                              3.12"]
    assert find_grids(figure) == []
    [numbers] = find_grids(["  200.01      1", "  400.01      3", "  600.01      5", "  800.01      7"])
    assert numbers.grid.rows[-1] == ("800.01", "7")


def aligned_pdf(path: Path, lead: str, lines: list[list[tuple[int, str]]]) -> Path:
    """A page of prose (``lead``) then lines of cells placed by x only (mm), one line each."""
    pdf = prose_page(lead, size=10)
    for cells in lines:
        for x, value in cells:
            pdf.set_x(x)
            pdf.cell(25, 6, value)
        pdf.ln(6)
    pdf.output(str(path))
    return path


def test_a_group_label_under_the_header_names_its_rows_and_the_header_is_still_read(tmp_path: Path) -> None:
    """A loan portfolio: a header of dates and units, then "Real estate loans" over its rows. The
    label is the first group's name, not the table's edge: the header above it names the
    columns. The paragraph's last line above the table ("June 30, 2011 Call Reports:") is not
    the table's heading alone: the sentence ending in that colon, which leads into the table
    ("The following is a summary of the bank's loan portfolio ..."), names it."""
    lead = ("The bank reported total assets of $236.3 billion in its Call Report. The following is a summary of "
            "the bank's loan portfolio, based on its December 31, 2009, December 31, 2010 and\n"
            "June 30, 2011 Call Reports:")
    figures = [[(20, label), (85, a), (110, b), (135, c), (160, d)] for label, a, b, c, d in (
        ("Commercial Mortgage", "361,000", "2.2", "284,000", "1.8"),
        ("Construction Loans", "173,000", "1.0", "170,000", "1.1"),
        ("All other Loans", "611,000", "3.7", "799,000", "5.1"))]
    lines = [[(85, "12/31/2009"), (135, "6/30/2011")],
             [(20, "Loan type"), (85, "$000's"), (110, "%"), (135, "$000's"), (160, "%")],
             [(15, "Real estate loans")], *figures[:2], [(15, "Other loans")], figures[2]]
    page, *rows = load("pdf", aligned_pdf(tmp_path / "loans.pdf", lead, lines), keep_table_text=False)
    name = ("loans, page 1: The following is a summary of the bank's loan portfolio, based on its December 31, 2009, "
            "December 31, 2010 and June 30, 2011 Call Reports")
    assert [r.text for r in rows] == [
        f"table: {name}: Real estate loans\nLoan type: Commercial Mortgage\n12/31/2009 $000's: 361,000\n%: 2.2\n"
        "6/30/2011 $000's: 284,000\n% (5): 1.8",
        f"table: {name}: Real estate loans\nLoan type: Construction Loans\n12/31/2009 $000's: 173,000\n%: 1.0\n"
        "6/30/2011 $000's: 170,000\n% (5): 1.1",
        f"table: {name}: Other loans\nLoan type: All other Loans\n12/31/2009 $000's: 611,000\n%: 3.7\n"
        "6/30/2011 $000's: 799,000\n% (5): 5.1"]
    assert "Call Reports:" in page.text and "Loan type" not in page.text


def test_a_line_that_wraps_a_rows_cells_joins_the_row(tmp_path: Path) -> None:
    """A rate sheet: a label wrapped onto the line under its figures ("Introductory Rate)*", which
    closes the bracket the label left open) and a cell wrapped under itself ("Only Rate") join
    their row; they are neither rows of their own nor labels of the rows under them."""
    xs = (15, 62, 82, 102, 122, 142, 162)
    head = ["Loan type", "Rate", "Comparison", "Package", "Pkg comp.", "IO rate", "Interest only"]

    def line(*cells: str) -> list[tuple[int, str]]:
        return [(x, c) for x, c in zip(xs, cells, strict=False) if c]

    lines = [line(*head),
             line("Fixed Rate", "4.04%", "5.38%", "3.89%", "5.18%", "4.69%", "Fixed Interest"),
             line("", "", "", "", "", "", "Only Rate"),
             line("Extra Home Loan (2 Year", "3.84%", "4.39%", "3.74%", "4.30%", "4.46%"),
             line("Introductory Rate)*"),
             line("Extra Home Loan (4 Year", "3.84%", "4.29%", "3.74%", "4.20%", "4.46%"),
             line("Introductory Rate)*"),
             line("Line of Credit", "6.53%", "-", "6.03%", "-", "-")]
    _, *rows = load("pdf", aligned_pdf(tmp_path / "rates.pdf", "Home loan interest rates, effective 9 April.", lines))
    figures = "Rate: {}\nComparison: {}\nPackage: {}\nPkg comp.: {}\nIO rate: {}"
    assert [r.text for r in rows] == [
        "table: rates, page 1\nLoan type: Fixed Rate\n" + figures.format("4.04%", "5.38%", "3.89%", "5.18%", "4.69%")
        + "\nInterest only: Fixed Interest Only Rate",
        "table: rates, page 1\nLoan type: Extra Home Loan (2 Year Introductory Rate)*\n"
        + figures.format("3.84%", "4.39%", "3.74%", "4.30%", "4.46%"),
        "table: rates, page 1\nLoan type: Extra Home Loan (4 Year Introductory Rate)*\n"
        + figures.format("3.84%", "4.29%", "3.74%", "4.20%", "4.46%"),
        "table: rates, page 1\nLoan type: Line of Credit\n" + figures.format("6.53%", "-", "6.03%", "-", "-")]


def test_a_table_of_contents_is_not_read_as_a_table(tmp_path: Path) -> None:
    """Section numbers, titles led by dots to page numbers: columns of numbers, but the page's
    contents, not a table. The page keeps them as its text."""
    entries = [("1", "Performance", "3"), ("1.1", "Capacity", "3"), ("1.2", "Charging", "4"), ("1.3", "Discharging", "8"),
               ("1.4", "Pulses", "9"), ("2", "Temperature", "12")]
    lines = [[(15, number), (35, f"{title} {'.' * 60}"), (185, page)] for number, title, page in entries]
    docs = load("pdf", aligned_pdf(tmp_path / "spec.pdf", "Contents", lines))
    assert len(docs) == 1 and "table" not in docs[0].metadata
    assert "Charging" in docs[0].text and "Temperature" in docs[0].text
    # a statistics table whose labels are led by dots to their figures stays a table
    from ragkit.loaders.pdf_tables import find_grids

    [table] = find_grids(["Category                        2005      Error      2010      Error",
                          "Male . . . . . . . . . . .      17.9        0.4      17.6        0.4",
                          "Female . . . . . . . . . .      19.0        0.3      18.3        0.4"])
    assert table.grid.rows[1] == ("Male . . . . . . . . . . .", "17.9", "0.4", "17.6", "0.4")


def test_a_data_sheets_measured_values_and_multi_line_records_are_rows(tmp_path: Path) -> None:
    """A cell data sheet: values carry their units, bounds and tolerances ("3380±50 g", "2.0 ~ 3.65
    V"), not bare numbers, and each parameter is a record of two lines: its row number and name
    on one, the name's second wording (indented past the row number) and the condition's end on
    the next. Each record is one row; its lines are not rows of their own."""
    xs = (15, 35, 85, 125)
    lines = [[(15, "No."), (35, "Item"), (85, "Specification"), (125, "Condition")],
             [(15, "1.1.1"), (35, "Capacity"), (85, "196±2 Ah"), (125, "25 C, 1C discharge")],
             [(35, "Nominal capacity"), (125, "to 2.0 V")],
             [(15, "1.1.2"), (35, "Voltage range"), (85, "2.0 ~ 3.65 V"), (125, "-20 C to 55 C")],
             [(35, "Operating voltage")],
             [(15, "1.1.3"), (35, "Endurance"), (85, "2000 cyc"), (125, "25 C, step charge,")],
             [(35, "Cycle life"), (125, "80%SOH")],
             [(15, "1.1.4"), (35, "Mass"), (85, "3380±50 g"), (125, "N.A.")],
             [(35, "Cell weight")]]
    assert all(x in xs for line in lines for x, _ in line)
    _, *rows = load("pdf", aligned_pdf(tmp_path / "cell.pdf", "1 Cell performance", lines))
    name = "table: cell, page 1: 1 Cell performance"
    assert [r.text for r in rows] == [
        f"{name}\nNo.: 1.1.1\nItem: Capacity Nominal capacity\nSpecification: 196±2 Ah\nCondition: 25 C, 1C discharge to 2.0 V",
        f"{name}\nNo.: 1.1.2\nItem: Voltage range Operating voltage\nSpecification: 2.0 ~ 3.65 V\nCondition: -20 C to 55 C",
        f"{name}\nNo.: 1.1.3\nItem: Endurance Cycle life\nSpecification: 2000 cyc\nCondition: 25 C, step charge, 80%SOH",
        f"{name}\nNo.: 1.1.4\nItem: Mass Cell weight\nSpecification: 3380±50 g\nCondition: N.A."]


def test_a_record_whose_row_number_is_centred_takes_the_lines_around_it() -> None:
    """A record's row number set in the middle of its lines (a merged cell, centred): the lines
    above the first number are its record's, and the lines between two numbers are parted in the
    middle, the odd one to the upper record."""
    from ragkit.loaders.pdf_tables import find_grids

    [table] = find_grids([
        "No.     Item                 Specification      Condition",
        "                             ≥192 Ah            25 C, 1C to 2.0 V",
        "1.1.1   Capacity                                25 C, 1C DC to 2.0 V",
        "        Nominal capacity     ≥196 Ah            25 C, C/3 to 2.0 V",
        "        Discharge power",
        "1.1.2   Power                ≥2240 W            25 C, 50%SOC, 10 s",
        "        at 25 C"])
    assert table.grid.rows[table.header_rows:] == (
        ("1.1.1", "Capacity Nominal capacity", "≥192 Ah ≥196 Ah",
         "25 C, 1C to 2.0 V 25 C, 1C DC to 2.0 V 25 C, C/3 to 2.0 V"),
        ("1.1.2", "Discharge power Power at 25 C", "≥2240 W", "25 C, 50%SOC, 10 s"))


def test_a_label_centred_beside_the_rows_it_spans_names_them_all(tmp_path: Path) -> None:
    """A step-charge profile: the temperature band is written once, beside the middle one of its
    rows (a merged cell), under a header of two lines (two languages). Every row of the band
    carries it, and the header's second line is header, not a row."""
    rows_in = [("1.20C", "20%"), ("1.00C", "40%"), ("25-45 C", "0.70C", "60%"), ("0.46C", "70%"), ("0.07C", "3.65V")]
    lines = [[(80, "Strom, A"), (130, "SOC")], [(78, "Current, A")]]
    lines += [[(20, r[0]), (80, r[1]), (130, r[2])] if len(r) == 3 else [(80, r[0]), (130, r[1])] for r in rows_in]
    _, *rows = load("pdf", aligned_pdf(tmp_path / "charge.pdf", "Step charge", lines))
    assert [r.text.split("\n")[1:] for r in rows] == [
        ["column 1: 25-45 C", f"Strom, A Current, A: {current}", f"SOC: {soc}"]
        for current, soc in [("1.20C", "20%"), ("1.00C", "40%"), ("0.70C", "60%"), ("0.46C", "70%"), ("0.07C", "3.65V")]]


def test_a_table_is_named_by_the_numbered_section_it_stands_under() -> None:
    """A statistics page: the section heading ("2. Group Domestic Passenger Traffic") stands a few
    lines above the table, a sentence between; the short line right above the header is the
    table's own heading. The rows are named by both."""
    from ragkit.loaders.pdf_tables import find_grids, named_rows

    lines = ["2. Group Domestic Passenger Traffic",
             "",
             "Combined domestic traffic statistics of the group, all of its airlines included",
             "",
             "                       Dom Pax Traffic",
             "               Pax         y.o.y(%)      RPK(000's)",
             "FY2013     31,218,734       104.0      23,745,163",
             "FY2014     31,557,697       100.0      23,977,994"]
    [(name, rows)] = named_rows(find_grids(lines), 3, "Traffic data")
    assert name == "Traffic data, page 3: 2. Group Domestic Passenger Traffic: Dom Pax Traffic"
    assert rows[1][1].startswith(f"table: {name}\ncolumn 1: FY2014\nPax: 31,557,697")


def test_two_tables_side_by_side_are_two_tables() -> None:
    """A page set in two columns with a results table in each, their rows on the same lines: the
    right table's column of labels after the left one's figures starts a table of its own, with
    its own caption; the left table ends at its last row, its caption under it."""
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["                 Before    After                                         ALL     SEQ",
             "                 ALL       ALL      VP        Baseline                   62.1    38.4",
             "  Base           61.1      57.4     14.0%     - Same Row                 32.1     2.8",
             "  Base 1p        63.4      63.4      9.9%     - Same Column              62.1    37.7",
             "  Base 8p        65.1      64.3      7.2%     - Same Cell                61.8    38.4",
             "                                              - Cell to Sentence         60.5    36.4",
             "Table 6: Perturbed data augmentation.         - Sentence to Header       61.0    37.3",
             "",
             "                                              Table 7: Ablation of attention biases."]
    left, right = find_grids(lines)
    assert left.grid.caption == "Table 6: Perturbed data augmentation."
    assert left.grid.rows[left.header_rows:] == (("Base", "61.1", "57.4", "14.0%"), ("Base 1p", "63.4", "63.4", "9.9%"),
                                                 ("Base 8p", "65.1", "64.3", "7.2%"))
    assert right.grid.caption == "Table 7: Ablation of attention biases."
    assert right.grid.rows[right.header_rows:][1:3] == (("- Same Row", "32.1", "2.8"), ("- Same Column", "62.1", "37.7"))
    assert right.grid.rows[-1] == ("- Sentence to Header", "61.0", "37.3")


def test_a_timetable_is_rows_of_times_under_the_train_numbers(tmp_path: Path) -> None:
    """A timetable: stations as rows, trains as columns, times of day ("12:16p") as its values
    and the trains' numbers, whole numbers over columns of times, as its header."""
    xs = (15, 60, 80, 100, 120)
    trains = ("Train No.", "224", "228", "232", "236")
    stops = [("San Francisco", "8:28a", "9:58a", "10:58a", "11:58a"),
             ("Palo Alto", "9:32a", "11:02a", "12:02p", "1:02p"),
             ("Mountain View", "9:45a", "11:16a", "12:16p", "1:16p"),
             ("San Jose", "10:10a", "11:40a", "12:40p", "1:38p")]
    lines = [list(zip(xs, row, strict=True)) for row in (trains, *stops)]
    _, *rows = load("pdf", aligned_pdf(tmp_path / "weekend.pdf", "Southbound weekend service", lines))
    assert rows[2].text == ("table: weekend, page 1: Southbound weekend service\nTrain No.: Mountain View\n"
                            "224: 9:45a\n228: 11:16a\n232: 12:16p\n236: 1:16p")
    assert len(rows) == 4


def test_tables_side_by_side_under_titles_of_their_own_are_read_apart(tmp_path: Path) -> None:
    """A report's page of panels: "Parties", "Asset Details" and "Notes" titled on one line, their
    rows on the same lines. Each table starts at its title, over its column of labels: its rows
    hold only its own cells and are named by its title; the panel without figures (the parties)
    stays page text."""
    xs = {"pl": 10, "pv": 32, "al": 58, "an": 86, "ab": 98, "nl": 120, "nb": 142, "nc": 160, "ni": 180}

    def line(**cells: str) -> list[tuple[int, str]]:
        return [(xs[k], v) for k, v in cells.items()]

    lines = [line(pl="Parties", al="Asset Details", nl="Notes"), [],
             line(pl="Issuer", pv="Ridge CLO Ltd.", an="Count", ab="Current", nl="Class", nb="Balance", nc="Coupon",
                  ni="Interest"),
             line(pl="Trustee", pv="Citibank", al="Term Loan", an="293", ab="374.9", nl="Class A-1", nb="256.0",
                  nc="6.82%", ni="8.88"),
             line(pl="Manager", pv="Onex", al="Revolver", an="0", ab="0.0", nl="Class B-1", nb="24.0", nc="7.30%",
                  ni="0.89"),
             line(pl="Agency", pv="S&P", nl="Class C", nb="24.0", nc="7.80%", ni="0.95"),
             line(pl="Admin", pv="Siepe", al="Delayed Draw", an="1", ab="0.1", nl="Class D-1", nb="24.0", nc="9.05%",
                  ni="1.10")]
    page, *rows = load("pdf", aligned_pdf(tmp_path / "deal.pdf", "The deal summary as of the last determination date.",
                                          lines))
    assert "Trustee Citibank" in page.text
    assert [r.text for r in rows if "Notes" in r.text][3] == \
        "table: deal, page 1: Notes\nClass: Class D-1\nBalance: 24.0\nCoupon: 9.05%\nInterest: 1.10"
    assert [r.text for r in rows if "Asset Details" in r.text] == [
        f"table: deal, page 1: Asset Details\ncolumn 1: {label}\nCount: {n}\nCurrent: {v}"
        for label, n, v in (("Term Loan", "293", "374.9"), ("Revolver", "0", "0.0"), ("Delayed Draw", "1", "0.1"))]
    assert len(rows) == 7 and not any("Trustee" in r.text for r in rows)


def test_a_header_line_over_columns_of_labels_and_figures_is_no_panel_titles() -> None:
    """A header's first line names columns of labels ("City" over the towns, "Purpose") and a
    column of figures ("Amount"): it is the header of one table, not the titles of tables side by
    side (a title stands over a column of labels, every one of them)."""
    from ragkit.loaders.pdf_tables import find_grids

    lines = ["Payee              City              Purpose           Amount",
             "                   of residence                        (USD)",
             "Smith, Ann         Boston            Meals             1,200.50",
             "Jones, Bob         Denver            Travel              310.00",
             "Lee, Carl          Austin            Meals                51.24"]
    (table,) = find_grids(lines)
    assert table.grid.rows[:3] == (("Payee", "City", "Purpose", "Amount"), ("", "of residence", "", "(USD)"),
                                   ("Smith, Ann", "Boston", "Meals", "1,200.50"))


def test_a_table_on_a_page_turned_to_landscape_is_read_as_shown(tmp_path: Path) -> None:
    """A wide table printed on a page turned by its /Rotate: its text stands at an angle to the
    page, which pypdf's layout leaves out; it is laid out as the page is shown. A font that sets a
    tab for its word space ("Maple<tab>Leafs") keeps the words of a cell one cell."""
    from pypdf import PdfReader, PdfWriter

    teams = [("Team", "Titles", "Payroll"), ("Maple\tLeafs", "13", "$88,210.50"), ("Canadiens", "24", "$86,400.00"),
             ("Red\tWings", "11", "$79,950.25"), ("Bruins", "6", "$87,120.75")]
    lines = [list(zip((20, 90, 140), row, strict=True)) for row in teams]
    flat = aligned_pdf(tmp_path / "flat.pdf", "Titles and payroll by team, on a page turned to landscape.", lines)
    writer = PdfWriter(clone_from=PdfReader(flat))
    page = writer.pages[0]
    page.rotate(90)
    page.transfer_rotation_to_content()  # the content now stands turned on the page ...
    page.rotate(270)  # ... and the page's /Rotate turns it back upright when shown
    writer.write(tmp_path / "turned.pdf")
    _, *rows = load("pdf", tmp_path / "turned.pdf")
    assert [r.text for r in rows] == [f"table: turned, page 1\nTeam: {team}\nTitles: {n}\nPayroll: {pay}"
                                      for team, n, pay in (("Maple Leafs", "13", "$88,210.50"),
                                                           ("Canadiens", "24", "$86,400.00"),
                                                           ("Red Wings", "11", "$79,950.25"),
                                                           ("Bruins", "6", "$87,120.75"))]


def two_column_pdf(path: Path) -> Path:
    """A page set in two columns: running text on the left, beside it a column of counts, then
    beside more text a small matrix ("T =" and its rows of 0 and 1); under them a real table."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    for text, count in zip(TWO_COLUMN_TEXT, ("1,204", "87", "3,310", "942", "15", "2,706"), strict=True):
        pdf.set_x(15)
        pdf.cell(95, 6, text)
        pdf.set_x(150)
        pdf.cell(20, 6, count)
        pdf.ln(6)
    pdf.ln(6)
    matrix = (("0", "1", "0", "0"), ("0", "0", "1", "1"), ("1", "0", "0", "0"), ("0", "1", "0", "0"))
    for k, (text, row) in enumerate(zip(MATRIX_TEXT, matrix, strict=True)):
        pdf.set_x(15)
        pdf.cell(95, 6, text)
        if k == 1:
            pdf.set_x(120)
            pdf.cell(10, 6, "T =")
        for x, value in zip((135, 145, 155, 165), row, strict=True):
            pdf.set_x(x)
            pdf.cell(8, 6, value)
        pdf.ln(6)
    pdf.ln(6)
    pdf.set_x(15)
    pdf.cell(0, 6, "Table 2: Stanley Cup titles by team")
    pdf.ln(7)
    for values in CUPS[:4]:
        for x, value in zip((20, 90, 140), values, strict=True):
            pdf.set_x(x)
            pdf.cell(40, 7, value)
        pdf.ln(7)
    pdf.output(str(path))
    return path


TWO_COLUMN_TEXT = ["the crawler visited each site once a week and kept",
                   "every page it fetched, so the counts on the right are",
                   "the pages each kind of site held at the end of the",
                   "study, which ran for a year; sites that closed during",
                   "it are counted until the week they went dark, and the",
                   "few sites that moved were followed to their new hosts"]
MATRIX_TEXT = ["the transition matrix of the graph in the figure is",
               "written out on the right, one row for each page and",
               "one column for each page it links to, so that a page",
               "with two links gives each of them one half of its"]


def test_running_text_beside_figures_or_a_matrix_is_no_table_and_a_real_table_still_is(tmp_path: Path) -> None:
    """A research paper's page: the lines of one column beside a column of figures, and a matrix
    displayed beside the text, are the page's text, not tables (no row of lines of prose or of a
    matrix's entries); the real table under them is still read as its rows."""
    page, *rows = load("pdf", two_column_pdf(tmp_path / "paper.pdf"))
    assert [r.text for r in rows] == [
        f"table: Table 2: Stanley Cup titles by team\nTeam: {team}\nTitles: {titles}\nLast won: {year}"
        for team, titles, year in CUPS[1:4]]
    assert TWO_COLUMN_TEXT[0] in " ".join(page.text.split()) and "T =" in page.text


def test_a_table_of_running_text_or_equations_is_not_read_as_rows() -> None:
    """Rows whose cells are lines of running text (a reference list set in two columns, a
    numbered list beside the other column), displayed equations with their numbers, or vectors
    laid out after "t1 =", are no table; a table whose labels are long but not sentences keeps
    its rows."""
    from ragkit.loaders.pdf_tables import find_grids

    refs = ["12.     Smith, J. and Lee, K. learning to rank the pages of the web with     2004",
            "13.     a graph of their links, in the proceedings of the conference on     2006",
            "14.     the web and its search engines, which were held in the spring of     2008"]
    assert find_grids(refs) == []
    equations = ["      L1(C) = sum log P(u | u1, ..., uk)          (1)",
                 "      L2(C) = sum log P(y | x1, ..., xm)          (2)",
                 "      L3(C) = L2(C) + 0.5 * L1(C)                 (3)"]
    assert find_grids(equations) == []
    vectors = ["      t1     =     1     0     1     1", "      t2     =     0     1     1     0"]
    assert find_grids(vectors) == []
    labels = ["                                              Before    After",
              "Knowledge and awareness of different cultures   0.45      0.52",
              "Foreign language competence                      0.31      0.40"]
    [table] = find_grids(labels)
    assert table.grid.rows[1] == ("Knowledge and awareness of different cultures", "0.45", "0.52")


def test_a_table_of_contents_is_left_to_the_page_text() -> None:
    from ragkit.loaders.pdf_tables import PageTable, named_rows

    contents = Grid((("1.", "Introduction", "2"), ("2.", "Tidal harmonics", "4"), ("3.", "Conclusions", "9")), None)
    rates = Grid((("Port", "Range m"), ("Alpha Point", "4.2"), ("Gull Haven", "3.1")), None)
    found = named_rows([PageTable(contents, 0, frozenset(), "Contents"), PageTable(rates, 1, frozenset(), "Tidal ranges")],
                       2, "Tides of the Coast")
    assert [name for name, _ in found] == ["Tides of the Coast, page 2: Tidal ranges"]
