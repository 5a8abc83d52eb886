"""Tables in a PDF's pages, read as rows (``ragkit.loaders.table_rows``).

pypdf lays the page out as fixed-width text (``extraction_mode="layout"``: each glyph at its
place on the page, the page as it is shown: :class:`ShownPages`), so a table's columns, ruled or
only aligned with whitespace, are columns of characters. A table is a run of lines (:func:`find_grids`):

- *data lines*: two or more cells (runs of words further apart than the page's usual space; a
  number and the "- 1.42" after it are one cell, a range), a quarter of them or more numbers (a
  "-" standing for none counts as one), not a numbered heading ("5.2   Results"). Once a table
  has begun, a line of two or more cells with any number goes on with it (a data sheet's row:
  parameter, symbol, conditions, one value, its unit); a line between two such lines stays in (a
  wrapped label), and so do two short labels in a row before one (a wrapped cell's last word,
  then the next group's label);
- its *header*: up to five lines right above, of two or more cells and fewer numbers, or a word
  or two wrapped under a header cell, up to a "Table N" line; placed over the columns by
  :func:`_head`. A short label right above the first data line with a header line above it
  ("Real estate loans" under "Loan type  $000's  %") is the first group's label, a row of the
  table, and the header is the lines above it;
- its *columns*: the runs of character positions the data lines' cells cover; every cell goes to
  the column it overlaps most. Leading cells a row leaves empty (a group label written once for
  several rows) are taken from the row above;
- tables side by side on the same lines are read apart: under titles of their own on one line,
  each title over its table's column of labels (a report's panels: :func:`_panels`), or, on a
  page set in two columns, where a column of labels follows a column of figures
  (:func:`_side_by_side`);
- a first or last column of running text is the page's other column, not the table's: it is
  dropped, and the table with it when no column of labels is left;
- a page's text is not a table (:func:`_prose_rows`): rows a quarter of whose cells or more are
  running text (the other column of a page set in two columns beside a column of figures, a
  reference list set in two columns), or a third of which are displayed equations ("(3)" beside
  a formula), are left to the page's text; so is a matrix or a system of equations laid out in
  columns beside the text (a cell "T =": :func:`_displayed_math`);
- a line of a few words and no number that wraps the row above (a cell continued under itself,
  the label's empty; or a label's end that closes its bracket) joins that row;
- a chart's axes are not a table: lines under a "Figure N" caption, or columns of evenly spaced
  numbers (ticks) with a legend's few words among them (:func:`_chart_axes`); nor is a table of
  contents (half its rows or more lead a title to its page number with dots:
  :func:`_contents_entry`);
- its *caption*: a "Table N" line up to six lines above or three below, read from the page's
  plain text where it is found there (layout text spaces out letters), with the title line after
  a label that stands alone; else its *heading*: the label alone ("Table 1.", when the line after
  it is the header), or the short line right above the table ("Class B" over a statement's
  figures, which have no header of their own) unless it ends a paragraph.

Only pages whose plain text has :data:`MIN_NUMERIC_LINES` lines of two or more numbers, half the
line's words or more (or :data:`MIN_AMOUNT_LINES` lines ending in an amount), are laid out
(:func:`may_hold_table`): the layout costs ~20 times the plain extraction, and a page of prose
never pays it. Each page has a time limit (the ``table_page_timeout_s`` option of the ``pdf``
loader); a page over it keeps its plain text and loses its tables, with a warning. Lines of the
plain text that only repeat a table's cells or header are taken out of the page's text
(:func:`without_tables`), so the table is not indexed twice, once as a run of numbers.

A page read by OCR has no text layer to lay out: its word boxes are set out as lines instead
(:func:`word_tables`, ``ragkit.loaders.ocr_layout``), and its tables read from them the same way.
"""

from __future__ import annotations

import contextlib
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.loaders.ocr_layout import OcrWord, layout_lines
from ragkit.loaders.table_rows import NIL, Grid, grid_rows, is_number

#: seconds a page's tables may take (the ``pdf`` loader's ``table_page_timeout_s``)
TABLE_PAGE_TIMEOUT_S = 10.0
#: plain-text lines with two or more numbers a page needs before it is laid out for tables
MIN_NUMERIC_LINES = 3
#: data lines a table needs
MIN_DATA_LINES = 2
#: body rows a table on an OCR'd page needs
MIN_OCR_ROWS = 3
#: header lines looked for above a table
MAX_HEADER_LINES = 5
#: the share of a data line's cells that are numbers, at least
MIN_NUMBER_SHARE = 0.25
#: plain-text lines ending in an amount ("$51.24", "1,234.5") that also make a page worth laying out
MIN_AMOUNT_LINES = 4
#: distinct values a column needs before it can be read as a chart axis's ticks
MIN_TICKS = 4
#: how far (a share of the step) an axis's steps may differ, rounded as they are printed
TICK_TOLERANCE = 0.05
#: characters a caption keeps
MAX_CAPTION = 200
#: spaces between a number and the "- 1.42" that makes it a range
MAX_RANGE_GAP = 3
#: how far past its columns (times their width) a header line reaches when pypdf set it at
#: another scale than the rows
OFF_SCALE = 1.25
#: words a line that wraps a row's cells (:func:`_join_wrapped`) has at most in a cell: more is a
#: line of running text beside the table
MAX_WRAP_WORDS = 4
#: words a heading line above a table (its name when it has no caption) has at most
MAX_HEADING_WORDS = 8
#: lines above a table looked through for the numbered section heading it stands under
SECTION_REACH = 8
#: lines of a paragraph leading into a table (ending in a colon) that name it
LEAD_IN_LINES = 3
#: words a title over one of several tables set side by side (:func:`_panels`) has at most
MAX_PANEL_TITLE_WORDS = 4
#: characters a panel's title may stand off the start of its table's column of labels
PANEL_SLACK = 2
#: a numbered section heading's line: "2. JAL Group Total Domestic Pax Traffic"
_SECTION_LINE = re.compile(r"\d{1,2}(?:\.\d{1,2})*\.? +[^\W\d_]")
#: a cell of running text (a line of the page's other column): this many words or more ...
MIN_PROSE_WORDS = 6
#: ... and, for a column of them, this many characters a cell on average
MIN_PROSE_CHARS = 40
#: the share of a table's filled cells that are running text (:func:`_sentence`) at which it is the
#: page's text, not a table
MAX_PROSE_CELLS = 1 / 4
#: the share of a table's rows that are displayed equations (:func:`_equation`) at which it is not a table
MAX_PROSE_ROWS = 1 / 3
_WORD = re.compile(r"[^\W\d_]{2,}")
_FORMULA_LEFT = re.compile(r"[^\W\d_]\S{0,3} ?=")  # "T =", "t1 =": a displayed formula's left side, a symbol
_EQUATION_NUMBER = re.compile(r"\(\d{1,3}[a-z]?\)")  # "(3)" set right of a displayed equation
_SPACED_TABLE = re.compile(r"^T ?a ?b ?l ?e ?(?=[\dIVX])")  # "Ta b l e 1": letter-spaced by the typesetter
_SECTION = re.compile(r"\d{1,2}(?:\.\d{1,2})*\.?")
_KEY = re.compile(r"\d{1,3}(?:\.\d{1,3})*\.?(?:\s|$)")  # a row number at a cell's start ("1.1.10 循环寿命")
_GAP = re.compile(r"(?<=\S) +(?=\S)")
_NUMBER_TOKEN = re.compile(r"[-+−(]?[$€£]?\d[\d,.]*%?\)?")
_CAPTION = re.compile(r"^\s*(?:T\s*a\s*b\s*l\s*e|TABLE|Tab\.)\s*[:.]?\s*[\dIVX]+\b")
_RANGE_END = re.compile(r"[-–] ?[$€£]?\d[\d,.]*%?")
_FIGURE = re.compile(r"(?:Figure|FIGURE|Fig\.)\s*\d")
_LABEL_ONLY = re.compile(r"(?:Table|TABLE|Tab\.)\s*[\dIVX]+[.:]?")
_LEADER = re.compile(r"(?:\. ?){5,}|…{2,}")  # the dots that lead a table of contents' title to its page
_UNIT = r"(?:[^\W\d_]|[%℃°Ω/·])"
_BOUND = r"[-+−]?\d[\d,.]*%?"
#: a measured value: a bound ("≥", "<", "~") or none, a number, a tolerance or a range, a unit of a few letters
_QUANTITY = re.compile(r"[≥≤<>~≈±]?\s?" + _BOUND + r"(?:\s?[±~\-–]\s?" + _BOUND + r")?\s?" + _UNIT + r"{0,6}")
#: a time of day: "7:52a", "12:05p", "10:30", "9:05 AM"
_TIME = re.compile(r"\*?\d{1,2}:\d{2}(?::\d{2})?\s?(?:[aApP]\.?[mM]?\.?)?")
_LEADING_FIGURE = re.compile(r"[-+−(]?[$€£]?\d")
_AMOUNT_END = re.compile(r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)\s*$")


class TableTimeout(Exception):
    """A page's table detection took longer than its limit."""


@dataclass(frozen=True)
class PageTable:
    """A table found on a page: its grid, how many of its rows are the header, the words of its
    cells (to take them out of the page's plain text) and, for a table without a caption, the
    heading line right above it or its bare "Table N" label (None when there is neither)."""

    grid: Grid
    header_rows: int
    words: frozenset[str]
    heading: str | None = None


def may_hold_table(text: str) -> bool:
    """Whether a page's plain text has :data:`MIN_NUMERIC_LINES` lines with two or more numbers
    that are half its words or more (or that are a data sheet's numbered rows: :func:`_numbered_row`), or :data:`MIN_AMOUNT_LINES` lines ending in an amount."""
    numeric = amounts = 0
    for line in text.splitlines():
        numbers = len(_NUMBER_TOKEN.findall(line))
        words = line.split()
        numeric += numbers >= 2 and (numbers * 2 >= len(words) or _numbered_row(line, words))
        amounts += bool(_AMOUNT_END.search(line))
        if numeric >= MIN_NUMERIC_LINES or amounts >= MIN_AMOUNT_LINES:
            return True
    return False


def _numbered_row(line: str, words: Sequence[str]) -> bool:
    """A data sheet's row in plain text: a row number, then a few words (at most
    :data:`MAX_HEADING_WORDS` + 4) holding another number ("1.1.3 Endurance 2000 cyc 25 C, step
    charge"): its values carry units, so numbers are not half its words."""
    return bool(_KEY.match(line)) and "." in words[0] and len(words) <= MAX_HEADING_WORDS + 4


def page_tables(page: Any, plain: str, timeout_s: float) -> list[PageTable]:
    """The tables of a pypdf page whose plain text is ``plain`` (the page as it is shown:
    :class:`ShownPages`); :class:`TableTimeout` past ``timeout_s`` (where a timer can be set: the
    main thread of a process). A tab in the layout is a word space (fonts that map their space to
    it): a space, so the words of a cell stay one cell."""
    with time_limit(timeout_s):
        layout = page.extract_text(extraction_mode="layout") or ""
    return find_grids(layout.replace("\t", " ").splitlines(), plain)


class ShownPages:
    """A PDF's pages as they are shown, to lay out: a page turned by its ``/Rotate`` (a wide table
    set on a page turned to landscape) is taken from a copy of the file with the turn moved into
    the page's content, since pypdf's layout leaves out text set at an angle to its page. The
    copy is made at the first turned page asked for."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._copy: Any = None

    def __getitem__(self, index: int) -> Any:
        page = self._reader.pages[index]
        if not page.rotation % 360:
            return page
        if self._copy is None:
            from pypdf import PdfWriter

            self._copy = PdfWriter(clone_from=self._reader)
        shown = self._copy.pages[index]
        if shown.rotation % 360:
            shown.transfer_rotation_to_content()
        return shown


def word_tables(words: Sequence[OcrWord], plain: str, timeout_s: float) -> list[PageTable]:
    """The tables of a page read by OCR, from its word boxes set out as layout lines
    (``ragkit.loaders.ocr_layout``), whose plain text is ``plain``; :class:`TableTimeout` past
    ``timeout_s``. Setting the lines costs little beside OCR, so every such page is looked at
    (:func:`may_hold_table` spares born-digital pages pypdf's costly layout). A table must also
    read as one (:func:`_reads_as_table`): what Tesseract makes of a chart (its axes, columns of
    numbers; its legend and titles) is laid out in columns too."""
    with time_limit(timeout_s):
        return [t for t in find_grids(layout_lines(words), plain) if _reads_as_table(t)]


def _reads_as_table(table: PageTable) -> bool:
    """Whether a table found on an OCR'd page has a header, :data:`MIN_OCR_ROWS` body rows or
    more, and a label of its own (a cell of words: a word of two letters or more, not a number)
    in two thirds of them or more: a table's rows name what they hold; the tick marks of two
    charts side by side ("100   100") or an axis title beside them ("Accuracy 92") do not."""
    body = table.grid.rows[table.header_rows:]
    labels = {next((c for c in row if _WORD.search(c) and not is_number(c)), "") for row in body} - {""}
    return table.header_rows >= 1 and len(body) >= MIN_OCR_ROWS and 3 * len(labels) >= 2 * len(body)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TableTimeout` in the block after ``seconds`` (a real-time timer). Outside the
    main thread there is no limit (the loader process's own limit still holds); a timer already
    running (a test runner's) is put back afterwards with what it had left."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer") or seconds <= 0:
        yield
        return
    outer = signal.getitimer(signal.ITIMER_REAL)[0]
    if outer and outer <= seconds:  # the running timer ends first
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise TableTimeout(f"took longer than {seconds:g} s")

    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 0.001))


def find_grids(lines: Sequence[str], plain: str = "") -> list[PageTable]:
    """The tables in a page's layout ``lines`` (module docstring), top to bottom."""
    cell = _cell_pattern(lines)
    cells = [_join_ranges([(m.start(), m.end(), m.group()) for m in cell.finditer(line)]) for line in lines]
    found: list[PageTable] = []
    i = 0
    while i < len(lines):
        if not _is_data(cells[i]):
            i += 1
            continue
        end = _block_end(cells, i)
        data = [j for j in range(i, end) if cells[j]]
        if sum(1 for j in data if _is_data(cells[j])) >= MIN_DATA_LINES:
            start = i - 1 if _group_label(cells, i) else i
            header = _header_lines(cells, start)
            rows = list(range(start, i)) + data
            if any(_displayed_math(cells[j]) for j in header + rows):
                i = end
                continue  # a matrix or an equation set beside the text ("T =" before its rows): the page keeps it
            title, cuts = _panels(cells, header, rows)
            if title is not None:
                header = [j for j in header if j > title]  # the titles name the tables (their headings)
            elif (cut := _side_by_side(cells, rows)) is not None:
                cuts = [cut]
            parts = [_band(cells, lines, a, b) for a, b in zip([0, *cuts], [*cuts, None], strict=True)]
            found += [t for part, text in parts if (t := _table(part, *_own_lines(part, header, rows, not cuts),
                                                                text, plain)) is not None]
        i = end
    return found


def _side_by_side(cells: Sequence[Sequence[tuple[int, int, str]]], rows: Sequence[int]) -> int | None:
    """Where a second table begins beside the first (a page set in two columns, "Table 6" and
    "Table 7" side by side), as a character position; None for one table. That is the start of a
    column of labels (words, not numbers) in half the rows or more, right after a column of
    numbers, with a column of numbers after it and the rows' own labels on the left; and some rows
    fill only one side (the two tables' rows do not pair up)."""
    lines = [cells[j] for j in rows if _is_row(cells[j])]
    width = Counter(map(len, lines)).most_common(1)[0][0] if lines else 0
    typical = [j for j in rows if _is_row(cells[j]) and len(cells[j]) == width]  # not a caption across columns
    spans = _columns(cells, typical)
    kinds = [_column_kind([cells[j] for j in typical], span) for span in spans]
    for k in range(2, len(spans) - 1):
        if kinds[k] == "label" and kinds[k - 1] == "number" and kinds[0] == "label" \
                and kinds[1:k].count("number") >= 2 and kinds[k + 1:].count("number") >= 2:
            x = spans[k][0]
            if any(all(c[0] >= x for c in line) or all(c[0] < x for c in line) for line in lines):
                return x
    return None


def _own_lines(cells: Sequence[Sequence[tuple[int, int, str]]], header: Sequence[int], rows: Sequence[int],
               whole: bool) -> tuple[list[int], list[int]]:
    """(header lines, rows) of one side of a page cut in two (:func:`_side_by_side`; ``whole``:
    not cut, as they are): the lines this side holds, its header also the leading lines that are
    no row on this side (a header line beside the other table's first row), its rows to its last
    row (the lines under it were rows only on the other side; this side's caption stands there)."""
    if whole:
        return list(header), list(rows)
    own = [j for j in rows if cells[j]]
    first = next((n for n, j in enumerate(own) if _is_data(cells[j])), len(own))
    last = max((j for j in own if _is_row(cells[j])), default=-1)
    return [j for j in header if cells[j]] + own[:first], [j for j in own[first:] if j <= last]


def _column_kind(lines: Sequence[Sequence[tuple[int, int, str]]], span: tuple[int, int]) -> str:
    """"label" when half the lines or more hold a cell of words there and no cell there starts
    with a figure (a price run into its source's name, "1.27 - 1.35 Iowa Ethanol"), "number"
    when most of the cells there are numbers, else ""."""
    here = [c[2] for line in lines for c in line if _overlap(c, span) > 0]
    words = sum(1 for c in here if _WORD.search(c) and not _measured(c))
    if 2 * words >= len(lines) and not any(_LEADING_FIGURE.match(c) for c in here):
        return "label"
    return "number" if here and 2 * sum(map(_measured, here)) > len(here) else ""


def _band(cells: Sequence[Sequence[tuple[int, int, str]]], lines: Sequence[str], start: int,
          stop: int | None) -> tuple[list[list[tuple[int, int, str]]], list[str]]:
    """The cells and layout lines from character position ``start`` to ``stop`` (None: to the
    lines' ends), at their places."""
    return ([[c for c in line if start <= c[0] and (stop is None or c[0] < stop)] for line in cells],
            [" " * start + line[start:stop] for line in lines])


def _panels(cells: Sequence[Sequence[tuple[int, int, str]]], header: Sequence[int],
            rows: Sequence[int]) -> tuple[int | None, list[int]]:
    """Tables set side by side, each under a title of its own on one line above their headers (a
    report's page of panels: "Parties", "Asset Details", "Notes"): (that title line, where each
    table after the first starts); (None, []) for one table. The title line is a header line with
    another under it, of two or more cells of a few words (:data:`MAX_PANEL_TITLE_WORDS`, no
    figure), the first at the rows' left edge, each other one where a column of labels starts
    (within :data:`PANEL_SLACK` characters): each table begins with its rows' labels. A group
    line over a table's columns is centred over numbers, not set at a column of labels."""
    body = [j for j in rows if _is_row(cells[j])]
    spans = _columns(cells, body)
    kinds = [_column_kind([cells[j] for j in body], span) for span in spans]
    labels = [span[0] for k, span in enumerate(spans) if k and kinds[k] == "label"]
    for j in header[:-1]:
        line = cells[j]
        if len(line) < 2 or not spans or abs(line[0][0] - spans[0][0]) > PANEL_SLACK \
                or any(len(c[2].split()) > MAX_PANEL_TITLE_WORDS or any(ch.isdigit() for ch in c[2]) for c in line):
            continue
        starts = [next((min(x, c[0]) for x in labels if abs(x - c[0]) <= PANEL_SLACK), None) for c in line[1:]]
        if None not in starts and len(set(starts)) == len(starts):
            return j, sorted(x for x in starts if x is not None)  # a table starts at its title or its labels
    return None, []


def _cell_pattern(lines: Sequence[str]) -> re.Pattern[str]:
    """A cell: words apart by at most the page's usual space between words (the commonest run of
    spaces: one on most pages, two where the layout widens a font's spaces)."""
    gaps = Counter(len(m.group()) for line in lines for m in _GAP.finditer(line))
    word_gap = min(gaps.most_common(1)[0][0], 3) if gaps else 1
    return re.compile(r"\S+(?: {1," + str(word_gap) + r"}\S+)*")


def _join_ranges(row: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``row`` with a number and a cell after it that goes on as a range ("1.35", "- 1.42", at
    most :data:`MAX_RANGE_GAP` spaces apart) joined into one cell."""
    out: list[tuple[int, int, str]] = []
    for start, stop, text in row:
        if out and _RANGE_END.fullmatch(text) and start - out[-1][1] <= MAX_RANGE_GAP and is_number(out[-1][2]):
            out[-1] = (out[-1][0], stop, f"{out[-1][2]} {text}")
        else:
            out.append((start, stop, text))
    return out


def _is_data(cells: Sequence[tuple[int, int, str]]) -> bool:
    return len(cells) >= 2 and _number_share(cells) >= MIN_NUMBER_SHARE and not _section_heading(cells)


def _section_heading(cells: Sequence[tuple[int, int, str]]) -> bool:
    """A numbered heading ("5.2   Quantitative Results", "1.2  标准充电条件  Standard Charge
    Condition": one title in two languages): a section number, then two words or more, none of
    its cells a number or a measured value."""
    rest = [c[2] for c in cells[1:]]
    return len(cells) >= 2 and bool(_SECTION.fullmatch(cells[0][2])) and sum(len(c.split()) for c in rest) >= 2 \
        and not any(_measured(c) for c in rest)


def _number_share(cells: Sequence[tuple[int, int, str]]) -> float:
    return sum(1 for _, _, c in cells if _measured(c)) / len(cells) if cells else 0.0


def _measured(cell: str) -> bool:
    """A number (:func:`_numeric`) or a measured value: a number with its unit and a bound or a
    tolerance ("≥196 Ah", "3.305±0.004V", "2.0 ~ 3.65 V", "≤0.45mΩ", "80%SOH"), or a time of
    day ("7:52a", "12:05 PM": a timetable's)."""
    return _numeric(cell) or bool(_QUANTITY.fullmatch(cell)) or bool(_TIME.fullmatch(cell))


def _numeric(cell: str) -> bool:
    """A number, or a dash standing for none (a nil amount)."""
    return is_number(cell) or cell in NIL


def _is_row(cells: Sequence[tuple[int, int, str]]) -> bool:
    """A data line, or a line that continues a block of them."""
    return _is_data(cells) or _continues(cells)


def _continues(cells: Sequence[tuple[int, int, str]]) -> bool:
    """Whether a line inside a block of data lines is a row of it though fewer of its cells are
    numbers (a data sheet's row: parameter, symbol, conditions, one value, its unit): two or
    more cells, a number among them, not a numbered heading."""
    return len(cells) >= 2 and any(_measured(c) for _, _, c in cells) and not _section_heading(cells)


def _block_end(cells: Sequence[Sequence[tuple[int, int, str]]], start: int) -> int:
    """The index after the last line of the block of data lines starting at ``start``: lines
    that continue it (:func:`_continues`), blank lines, a line between data lines and two short
    labels in a row before one (a wrapped cell's last word, then the next group's label) stay
    in. A blank line the layout sets between a wrapped cell's last line, right under its row,
    and the next row ("Cell weight", blank, "1.1.15 ...") does not part them; a label with blank
    lines on both sides ("Class B" between two statements) does."""
    end = start + 1
    j = start + 1
    while j < len(cells):
        if _is_row(cells[j]):
            end = j = j + 1
            continue
        after = _next_line(cells, j) if cells[j - 1] else j + 1
        if not cells[j] or (after < len(cells) and _is_row(cells[after])) \
                or (after + 1 < len(cells) and _short_label(cells[j]) and _short_label(cells[after])
                    and _is_row(cells[_next_line(cells, after)])):
            j += 1
            continue
        break
    if end < len(cells) and _short_label(cells[end]) and (end + 1 == len(cells) or not cells[end + 1]) \
            and cells[end][0][0] > min(c[0][0] for c in cells[start:end] if c):
        end += 1  # the last record's wrapped line ("Cell weight", indented under "1.1.14  电池重量")
    return end


def _next_line(cells: Sequence[Sequence[tuple[int, int, str]]], j: int) -> int:
    """The index of the line after ``j``, one blank line skipped (``len(cells)`` past the end)."""
    return j + 2 if j + 2 < len(cells) and not cells[j + 1] else min(j + 1, len(cells))


def _short_label(cells: Sequence[tuple[int, int, str]]) -> bool:
    """One cell of a few words (at most :data:`MAX_HEADING_WORDS`), not a caption."""
    return len(cells) == 1 and len(cells[0][2].split()) <= MAX_HEADING_WORDS and not _CAPTION.match(cells[0][2])


def _group_label(cells: Sequence[Sequence[tuple[int, int, str]]], first: int) -> bool:
    """Whether the line right above the data line ``first`` labels the first group of rows under a
    header ("Real estate loans" over its loans, under "Loan type   $000's   %"): one short cell
    (:func:`_short_label`) with a header line above it. It is the table's first row (a section
    row, which names the rows under it), and the header is looked for above it."""
    if first < 1 or not cells[first - 1] or not _short_label(cells[first - 1]) or cells[first - 1][0][2][0].islower() \
            or _wrapped(cells, first - 1):
        return False  # a label in lower case ends a label wrapped from the line above; a header cell's end
    k = first - 2
    while k >= 0 and not cells[k]:
        k -= 1
    return k >= 0 and _header_like(cells[k])


def _header_lines(cells: Sequence[Sequence[tuple[int, int, str]]], first: int) -> list[int]:
    """The header lines right above the data line ``first`` (blank lines skipped), up to a
    caption line ("Table 1."), which is not header."""
    out: list[int] = []
    j = first - 1
    while j >= 0 and len(out) < MAX_HEADER_LINES:
        if not cells[j]:
            j -= 1
            continue
        if _CAPTION.match(cells[j][0][2]) or (not _header_like(cells[j]) and not (len(cells[j]) == 1 and _wrapped(cells, j))):
            break
        out.insert(0, j)
        j -= 1
    return out


def _header_like(line: Sequence[tuple[int, int, str]]) -> bool:
    """Two or more cells, few of them numbers, not a caption."""
    return len(line) >= 2 and _number_share(line) < MIN_NUMBER_SHARE and not _CAPTION.match(line[0][2])


def _wrapped(cells: Sequence[Sequence[tuple[int, int, str]]], j: int) -> bool:
    """Whether the one cell of line ``j`` is the wrapped end of a header cell above it ("Charge"
    under "Standing"), or its second language ("Current, A" under "电流，A"): a word or two
    within the width of a cell of a header line right above, or centred under it."""
    k = j - 1
    while k >= 0 and not cells[k]:
        k -= 1
    cell = cells[j][0]
    middle = (cell[0] + cell[1]) / 2
    return k >= 0 and len(cell[2].split()) <= 2 and not is_number(cell[2]) and _header_like(cells[k]) \
        and any(c[0] - 1 <= cell[0] and cell[1] <= c[1] + 1 or c[0] - 2 <= middle <= c[1] + 2 for c in cells[k])


def _columns(cells: Sequence[Sequence[tuple[int, int, str]]], data: Sequence[int]) -> list[tuple[int, int]]:
    """The runs of character positions the data lines' cells cover."""
    width = max((c[1] for j in data for c in cells[j]), default=0)
    covered = [False] * (width + 1)
    for j in data:
        for start, stop, text in cells[j]:
            if _numbers_run(text):
                continue  # numbers set as one run of text: their place says nothing of the columns
            for p in range(start, stop):
                covered[p] = True
    spans: list[tuple[int, int]] = []
    p = 0
    while p < width:
        if covered[p]:
            q = p
            while q < width and covered[q]:
                q += 1
            spans.append((p, q))
            p = q
        else:
            p += 1
    return spans


def _place(row: Sequence[tuple[int, int, str]], spans: Sequence[tuple[int, int]]) -> list[str]:
    out = [""] * len(spans)
    for cell in row:
        best = _best_span(cell, spans)
        out[best] = " ".join(f"{out[best]} {cell[2]}".split())
    return out


def _best_span(cell: tuple[int, int, str], spans: Sequence[tuple[int, int]]) -> int:
    """The column a cell overlaps most (the nearest, when it overlaps none)."""
    return max(range(len(spans)), key=lambda k: (_overlap(cell, spans[k]), -abs(cell[0] + cell[1] - sum(spans[k]))))


def _table(cells: Sequence[Sequence[tuple[int, int, str]]], header: Sequence[int], data: Sequence[int],
           lines: Sequence[str], plain: str) -> PageTable | None:
    spans = _columns(cells, [j for j in data if _is_row(cells[j])])
    if len(spans) < 2:
        return None
    rows = {j: _split_runs(cells[j]) for j in data}
    spans = _by_order(rows, spans) or spans
    body = _records([_place(rows[j], spans) for j in data], [rows[j] for j in data], data)
    head = _head([cells[j] for j in header], spans)
    prose = _prose_columns(body)
    if prose:
        head, body = _without_columns(head, prose), _without_columns(body, prose)
        if 0 in prose and not any(any(ch.isalpha() for ch in c) for row in body for c in row):
            return None  # the rows' labels (a table's left column) ran into the text on its left
    if _prose_rows(body):
        return None  # the lines of a page's text (its other column, a reference list) set side by side
    if _chart_axes(body) or any(_FIGURE.match(c[2]) for j in header for c in cells[j]):
        return None  # a chart's tick labels, legend or figure caption, not a table: the page keeps them as text
    if 2 * sum(map(_contents_entry, body)) >= len(body):
        return None  # a table of contents (titles, dot leaders, page numbers): the page keeps it as text
    ids = _id_rows(body)
    head, body = head + body[:ids], body[ids:]
    body = _fill_down(_join_wrapped(body))
    words = frozenset(w for row in head + body for c in row for w in c.split())
    top = header[0] if header else data[0]
    caption = _caption(lines, top, data[-1], plain, words)
    if caption is not None and _LABEL_ONLY.fullmatch(caption):
        caption, heading = None, caption  # a bare "Table 1." names the table after the document's title and page
    else:
        heading = None if caption else _name(cells, lines, top)
    return PageTable(Grid(tuple(tuple(r) for r in head + body), caption), len(head), words, heading)


def _records(body: list[list[str]], lines: Sequence[Sequence[tuple[int, int, str]]],
             at: Sequence[int]) -> list[list[str]]:
    """``body`` with the lines of each multi-line record joined into one row, where the table
    is a run of records (a data sheet's: "1.1.10  循环寿命  ≥2000  25℃, Step charge/1C," over
    "Cycle life  80%SOH"): each record's key (a row number, :data:`_KEY`) stands at the table's
    left edge on one of its lines, and every other line is indented past it (a cell's wrapped or
    second-language line). A key set on its record's first line takes the lines down to the next
    key; a key centred in its record (lines stand above the first key) takes the lines around it,
    the lines between two keys parted in the middle (the upper record takes the odd one). A
    blank line between two lines parts them. ``lines`` are the body's cells as laid out,
    ``at`` their line numbers."""
    starts = [line[0][0] for line in lines]
    left = min(starts, default=0)
    keyed = [i for i, line in enumerate(lines) if starts[i] <= left + 1 and _KEY.match(line[0][2])]
    numbers = [tuple(int(n) for n in re.findall(r"\d+", _KEY.match(lines[i][0][2]).group())) for i in keyed]
    if len(keyed) < 2 or len(keyed) == len(lines) or any(a >= b for a, b in zip(numbers, numbers[1:], strict=False)) \
            or any(starts[i] <= left + 1 for i in range(len(lines)) if i not in keyed):
        return body  # not records: row numbers count up ("1.1.9", "1.1.10"), a chart's ticks ("5.05", "5.04") need not
    owner = dict.fromkeys(range(keyed[0]), keyed[0])
    for a, b in zip(keyed, keyed[1:] + [len(lines)], strict=True):
        gap = list(range(a + 1, b))
        upper = len(gap) if b == len(lines) or keyed[0] == 0 else (len(gap) + 1) // 2
        blank = next((n for n, i in enumerate(gap) if at[i] - at[i - 1] > 1), None)
        if blank is not None or (gap and at[b if b < len(lines) else gap[-1]] - at[gap[-1]] > 1 and b < len(lines)):
            upper = blank if blank is not None else len(gap)
        owner |= {i: (a if n < upper else b) for n, i in enumerate(gap)}
    owner |= {k: k for k in keyed}
    out: dict[int, list[str]] = {}
    for i, row in enumerate(body):
        merged = out.setdefault(owner[i], [""] * len(row))
        out[owner[i]] = [f"{m} {c}".strip() for m, c in zip(merged, row, strict=True)]
    return [out[k] for k in sorted(out)]


def _head(lines: Sequence[Sequence[tuple[int, int, str]]], spans: Sequence[tuple[int, int]]) -> list[list[str]]:
    """The header lines placed over the columns. A cell goes to the column it stands over (the
    nearest); a line with a cell per column whose cells do not each get a column of their own
    that way is placed by order. pypdf's layout sets text drawn as one run (a row, often) at one
    scale and text drawn piece by piece (a header's cells, often) at another, so a header line
    can stand off its columns, reaching well past the last (:func:`_off_scale`). Such a line
    (the fullest first) whose every cell stands over a cell of a line already placed goes where
    those cells went (a wrapped "Charge" under "Standing"); else it is placed by order over the
    last columns (a header leaves the leftmost, the rows' labels, blank). The top line of a
    header of two or more standing off its columns (it or the line below), with fewer cells than
    the line below, is
    a group line: each of its cells names the columns it is centred over."""
    own = [_own_place(line, spans) for line in lines]
    placed: list[list[int] | None] = [cols if cols is not None or len(line) != len(spans) else list(range(len(spans)))
                                      for line, cols in zip(lines, own, strict=True)]
    anchors = [_anchor(line, cols) for line, cols in zip(lines, placed, strict=True) if cols is not None]
    anchors.append([(a, b, k) for k, (a, b) in enumerate(spans)])
    off = [placed[i] is None and _off_scale(line, spans) for i, line in enumerate(lines)]
    group = len(lines) >= 2 and 2 <= len(lines[0]) < len(lines[1]) and own[0] is None and (off[0] or off[1])
    for i in sorted(range(len(lines)), key=lambda i: -len(lines[i])):
        if not off[i] or (group and i == 0) or len(lines[i]) > len(spans):
            continue
        under = next((a for a in anchors if all(any(_overlap(c, p) > 0 for p in a) for c in lines[i])), None)
        placed[i] = ([round(_position((c[0] + c[1]) / 2, under)) for c in lines[i]] if under is not None
                     else list(range(len(spans) - len(lines[i]), len(spans))))
        anchors.insert(0, _anchor(lines[i], placed[i]))
    out: list[list[str]] = []
    for i, line in enumerate(lines):
        if group and i == 0:
            best = max(anchors, key=lambda a: sum(max(0, _overlap(c, p)) for c in line for p in a))
            columns = _group_columns([_position((c[0] + c[1]) / 2, best) for c in line], len(spans))
        else:
            columns = [[k] for k in (placed[i] or [_best_span(c, spans) for c in line])]
        row = [""] * len(spans)
        for (_, _, text), ks in zip(line, columns, strict=True):
            for k in ks:
                if 0 <= k < len(spans):
                    row[k] = f"{row[k]} {text}".strip()
        out.append(row)
    return out


def _off_scale(line: Sequence[tuple[int, int, str]], spans: Sequence[tuple[int, int]]) -> bool:
    """Whether a header line reaches past the columns by more than :data:`OFF_SCALE` of their
    width, a cell of it starting after the last column ends."""
    left, right = spans[0][0], spans[-1][1]
    return line[-1][0] >= right and line[-1][1] - left > OFF_SCALE * (right - left)


def _anchor(line: Sequence[tuple[int, int, str]], columns: Sequence[int]) -> list[tuple[int, int, int]]:
    """(start, stop, column) of each cell of a placed header line."""
    return [(a, b, k) for (a, b, _), k in zip(line, columns, strict=True)]


def _own_place(line: Sequence[tuple[int, int, str]], spans: Sequence[tuple[int, int]]) -> list[int] | None:
    """Each cell's column by where it stands, when that gives every cell a column of its own and
    none stands past the last column; else None."""
    if not spans:
        return None
    columns = [_best_span(c, spans) for c in line]
    if len(set(columns)) < len(columns) or any(c[0] >= spans[-1][1] for c in line):
        return None
    return columns


def _position(x: float, anchor: Sequence[tuple[int, int, int]]) -> float:
    """The column (fractional) at character position ``x``, interpolated between the anchor's
    cells (start, stop, column); clamped to its first and last."""
    points = sorted(((a + b) / 2, k) for a, b, k in anchor)
    if x <= points[0][0]:
        return float(points[0][1])
    for (x0, k0), (x1, k1) in zip(points, points[1:], strict=False):
        if x <= x1:
            return k0 + (k1 - k0) * (x - x0) / (x1 - x0) if x1 > x0 else float(k1)
    return float(points[-1][1])


def _group_columns(where: Sequence[float], width: int) -> list[list[int]]:
    """The columns each cell of a group line covers: from half-way to its left neighbour to
    half-way to its right one (the outer cells as far out as in)."""
    bounds = [(a + b) / 2 for a, b in zip(where, where[1:], strict=False)]
    out = []
    for i, w in enumerate(where):
        right = bounds[i] if i < len(bounds) else w + (w - bounds[-1])
        left = bounds[i - 1] if i > 0 else w - (bounds[0] - w)
        out.append([k for k in range(width) if left <= k < right])
    return out


def _name(cells: Sequence[Sequence[tuple[int, int, str]]], lines: Sequence[str], top: int) -> str | None:
    """What names a table without a caption: the numbered section heading it stands under
    (:func:`_section_above`), then the heading line right above it (:func:`_heading`) or else
    the sentence that leads into it (:func:`_lead_in`); None when there is none of these."""
    parts = [_section_above(lines, top), _heading(cells, top) or _lead_in(lines, top)]
    named = [p for k, p in enumerate(parts) if p and p not in parts[:k]]
    return ": ".join(named)[:MAX_CAPTION] if named else None


def _section_above(lines: Sequence[str], top: int) -> str | None:
    """The nearest numbered section heading ("2. JAL Group Total Domestic Pax Traffic") within
    :data:`SECTION_REACH` lines above a table's first line: a section number, then a few words
    (at most :data:`MAX_HEADING_WORDS` and no number among them)."""
    for j in range(top - 1, max(top - 1 - SECTION_REACH, -1), -1):
        text = " ".join(lines[j].split())
        words = text.split()
        if _SECTION_LINE.match(text) and len(words) <= MAX_HEADING_WORDS + 1 \
                and not any(_measured(w) for w in words[1:]) and not text.endswith((".", ",", ";", ":")):
            return text
    return None


def _lead_in(lines: Sequence[str], top: int) -> str | None:
    """The sentence right above a table that introduces it ("The following is a summary of BNY
    Mellon's loan portfolio ... Call Reports:"): the last sentence of the paragraph ending in a
    colon (blank lines skipped, at most :data:`LEAD_IN_LINES` of its lines), without the colon."""
    j = top - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0 or not lines[j].rstrip().endswith(":"):
        return None
    taken: list[str] = []
    while j >= 0 and lines[j].strip() and len(taken) < LEAD_IN_LINES:
        taken.insert(0, " ".join(lines[j].split()))
        j -= 1
    sentences = re.split(r"(?<=[.!?]) +(?=[A-Z])", " ".join(taken).rstrip(":"))
    return sentences[-1]


def _heading(cells: Sequence[Sequence[tuple[int, int, str]]], top: int) -> str | None:
    """The line right above a table's first line (blank lines skipped), when it is a heading: one
    cell of words, at most :data:`MAX_HEADING_WORDS`, not a sentence, nor the last line of a
    paragraph (:func:`_runs_on`)."""
    j = top - 1
    while j >= 0 and not cells[j]:
        j -= 1
    if j < 0 or len(cells[j]) != 1 or (j > 0 and _runs_on(cells[j - 1])):
        return None
    text = cells[j][0][2]
    words = text.split()
    if len(words) > MAX_HEADING_WORDS or text.endswith((".", ",", ";")) or not any(ch.isalpha() for ch in text) \
            or sum(is_number(w) for w in words) * 2 > len(words):
        return None
    return text


def _runs_on(line: Sequence[tuple[int, int, str]]) -> bool:
    """Whether a line is running text that goes on into the next line: :data:`MIN_PROSE_WORDS`
    words or more, the last a lowercase word ("... December 31, 2010 and"), no stop after it. A
    heading set on two lines ("Employee's Wages for Calculating Income Tax") does not run on."""
    words = " ".join(c[2] for c in line).split()
    return len(words) >= MIN_PROSE_WORDS and words[-1][0].islower() and words[-1][-1].isalpha()


def _prose_columns(body: Sequence[Sequence[str]]) -> set[int]:
    """The first or last column when it is a column of running text beside the table (a page set
    in two columns lays a table out next to the other column's lines): most of its cells are
    lines of prose, :data:`MIN_PROSE_WORDS` words or more, half of them lowercase, and long."""
    width = len(body[0]) if body else 0
    out: set[int] = set()
    for k in {0, width - 1} if width > 2 else set():
        filled = [row[k] for row in body if row[k]]
        if filled and 2 * sum(map(_is_prose, filled)) >= len(filled) \
                and sum(map(len, filled)) >= MIN_PROSE_CHARS * len(filled):
            out.add(k)
    return out


def _is_prose(cell: str) -> bool:
    words = cell.split()
    return len(words) >= MIN_PROSE_WORDS and 2 * sum(w[0].islower() for w in words) >= len(words)


def _sentence(cell: str) -> bool:
    """A piece of running text: a line of prose (:func:`_is_prose`) of :data:`MIN_PROSE_CHARS`
    characters or more, or a sentence's words leading into what follows ("The transition matrix
    is:": three words or more, half of them lowercase, ending in a colon). A table's labels are
    shorter ("The last preposition is for")."""
    words = cell.split()
    lower = 2 * sum(w[0].islower() for w in words) >= len(words)
    return (_is_prose(cell) and len(cell) >= MIN_PROSE_CHARS) \
        or (len(words) >= 3 and cell.endswith(":") and lower)


def _displayed_math(line: Sequence[tuple[int, int, str]]) -> bool:
    """Whether a layout line holds a displayed formula's left side, a cell of a symbol and "="
    ("T =", or "t1" and "=" apart: a matrix, a vector or a system of equations laid out in columns). A table's cell that
    ends in "=" names its value in words ("Corruption rate =" before "10%") or numbers its column
    by a sum of others ("6=" over "(3 to 6)+14")."""
    texts = [c[2] for c in line]
    return any(_FORMULA_LEFT.fullmatch(t) or (t == "=" and k > 0 and _FORMULA_LEFT.fullmatch(f"{texts[k - 1]} ="))
               for k, t in enumerate(texts))


def _prose_rows(body: Sequence[Sequence[str]]) -> bool:
    """Whether the rows are not a table's: :data:`MAX_PROSE_CELLS` of their filled cells or more
    are running text (:func:`_sentence`: lines of the page's other column, a reference list), or
    :data:`MAX_PROSE_ROWS` of the rows or more are displayed equations (:func:`_equation`)."""
    filled = [c for row in body for c in row if c]
    return bool(filled) and (sum(map(_sentence, filled)) >= MAX_PROSE_CELLS * len(filled)
                             or sum(map(_equation, body)) >= MAX_PROSE_ROWS * len(body))


def _equation(row: Sequence[str]) -> bool:
    """A displayed equation or a step of an algorithm: its number ("(3)") first or last, an "="
    in another cell."""
    filled = [c for c in row if c]
    if len(filled) < 2:
        return False
    return any(_EQUATION_NUMBER.fullmatch(filled[k]) and any("=" in c for c in filled[:k] + filled[k + 1:])
               for k in (0, len(filled) - 1))


def _without_columns(rows: Sequence[Sequence[str]], drop: set[int]) -> list[list[str]]:
    """``rows`` without the columns ``drop``, and without the rows left empty."""
    kept = [[c for k, c in enumerate(row) if k not in drop] for row in rows]
    return [row for row in kept if any(row)]


def _contents_entry(row: Sequence[str]) -> bool:
    """A table of contents' line: a title led by dots to its page number, at most two numbers (a
    section number and the page). A statistics table's labels can be led by dots to their
    figures too ("Male . . . . .  17.9   0.4   17.6 ..."): more numbers than that."""
    return any(_LEADER.search(c) for c in row) and sum(len(_NUMBER_TOKEN.findall(c)) for c in row) <= 2


def _chart_axes(body: Sequence[Sequence[str]]) -> bool:
    """Whether rows are a chart's axes read off the page: every column of numbers is a run of
    evenly spaced values (an axis's ticks, read in order), and words stand among them (a legend's
    labels) but no column of them fills half the rows. A table of numbers alone stays a table."""
    ticks = 0
    for k in range(len(body[0]) if body else 0):
        filled = [row[k] for row in body if row[k]]
        values = [v for v in map(_value, filled) if v is not None]
        if 2 * len(values) < len(filled):
            if 2 * len(filled) >= len(body):
                return False  # a column of labels
            continue
        if len(set(values)) < MIN_TICKS:
            continue
        if not _evenly_spaced(values):
            return False
        ticks += 1
    return ticks > 0 and any(ch.isalpha() for row in body for cell in row for ch in cell)


def _value(cell: str) -> float | None:
    """The number a cell holds ("−0.1" and "–0.1" with a typeset minus), else None."""
    try:
        return float(cell.strip().replace("−", "-").replace("–", "-").replace(",", ""))
    except ValueError:
        return None


def _evenly_spaced(values: Sequence[float]) -> bool:
    """Rising or falling by one step (a repeat of a value, two axes' ticks at one height, aside)."""
    steps = [b - a for a, b in zip(values, values[1:], strict=False) if b != a]
    return bool(steps) and all(abs(d - steps[0]) <= TICK_TOLERANCE * abs(steps[0]) for d in steps)


def _numbers_run(text: str) -> bool:
    """Whether ``text`` is two or more numbers one space apart ("0,2885 0,3974 0,3904")."""
    parts = text.split()
    return len(parts) >= 2 and all(is_number(p) for p in parts)


def _split_runs(row: Sequence[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``row`` with each run of numbers split into its numbers (at their character offsets)."""
    out: list[tuple[int, int, str]] = []
    for start, stop, text in row:
        if _numbers_run(text):
            out += [(start + m.start(), start + m.end(), m.group()) for m in re.finditer(r"\S+", text)]
        else:
            out.append((start, stop, text))
    return out


def _by_order(rows: dict[int, list[tuple[int, int, str]]], spans: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Numbers by their order, not their place, where places mislead (the layout set some cells
    as one run of text, or starts each line's run somewhere else): when most rows have the same
    count k of numbers, the i-th number of each such row goes to the i-th number column. Those
    are the columns numbers stand in when there are k of them, else k columns set where the rows'
    i-th numbers stand on average (and the columns returned). The rows are moved in place; None
    when the counts differ too much to tell."""
    counts = Counter(sum(1 for c in r if _figure(c[2])) for r in rows.values())
    k, most = counts.most_common(1)[0] if counts else (0, 0)
    if k < 1 or most * 5 < len(rows) * 3:
        return None
    numeric = [s for s in spans if any(_figure(c[2]) and _overlap(c, s) > 0 for r in rows.values() for c in r)]
    columns = numeric if len(numeric) == k else _average_columns(rows, k)
    for j, r in rows.items():
        numbers = [i for i, c in enumerate(r) if _figure(c[2])]
        if len(numbers) == k:
            for i, at in enumerate(numbers):
                rows[j][at] = (*columns[i], r[at][2])
    if columns is numeric:
        return spans
    labels = [s for s in spans if s not in numeric and not any(_overlap(s, c) > 0 for c in columns)]
    first = min(c[0] for c in columns)
    if not any(s[0] < first for s in labels):  # the rows' labels ran into the first figures' span: theirs
        words = [c for r in rows.values() for c in r if not _figure(c[2]) and c[0] < first]
        labels += [(min(c[0] for c in words), first - 1)] if words else []
    return sorted(labels + columns)


def _id_rows(body: Sequence[Sequence[str]]) -> int:
    """How many of the leading rows name the columns with whole numbers (a timetable's train
    numbers over their times, years over amounts written "1,234.5"): every cell after the first
    a whole number, and the rows under them holding no whole number, only figures of another
    form (times, decimals, amounts with separators). At most :data:`MAX_HEADER_LINES`."""
    n = 0
    while n < min(len(body) - 1, MAX_HEADER_LINES):
        cells = [c.lstrip("*") for c in body[n][1:] if c]
        if len(cells) < 2 or not all(c.isdigit() for c in cells):
            break
        n += 1
    under = [c.lstrip("*") for row in body[n:] for c in row[1:] if c]
    if not n or not under or any(c.isdigit() for c in under) or 2 * sum(map(_figure, under)) < len(under):
        return 0
    return n


def _figure(cell: str) -> bool:
    """A number or a time of day: what :func:`_by_order` places by order."""
    return is_number(cell) or bool(_TIME.fullmatch(cell))


def _average_columns(rows: dict[int, list[tuple[int, int, str]]], k: int) -> list[tuple[int, int]]:
    """k columns, each where the rows with k numbers have their i-th number (the median start)."""
    places: list[list[tuple[int, int]]] = [[] for _ in range(k)]
    for r in rows.values():
        numbers = [c for c in r if _figure(c[2])]
        if len(numbers) == k:
            for i, c in enumerate(numbers):
                places[i].append((c[0], c[1]))
    return [(sorted(p)[len(p) // 2][0], sorted(p)[len(p) // 2][0] + max(b - a for a, b in p)) for p in places]


def _overlap(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return min(a[1], b[1]) - max(a[0], b[0])


def _join_wrapped(rows: list[list[str]]) -> list[list[str]]:
    """Rows with the lines that wrap their cells joined to them: a line of words only (no number)
    under a row with a number, each of its cells a few words (:data:`MAX_WRAP_WORDS`) under a
    filled cell of that row, that leaves the
    row's label empty ("Only Rate" under "Standard Variable Interest") or closes a bracket the
    label left open ("Introductory Rate)*" under "Extra Home Loan (2 Year"). A label of its own
    ("Other loans" over its rows) opens no bracket and stays a row."""
    out: list[list[str]] = []
    for row in rows:
        above = out[-1] if out else None
        if above is not None and _wraps(row, above):
            out[-1] = [f"{a} {c}".strip() for a, c in zip(above, row, strict=True)]
        else:
            out.append(row)
    return out


def _wraps(row: Sequence[str], above: Sequence[str]) -> bool:
    filled = [k for k, c in enumerate(row) if c]
    if not filled or any(_measured(c) for c in row) or not any(_numeric(c) for c in above) \
            or any(not above[k] or len(row[k].split()) > MAX_WRAP_WORDS for k in filled):
        return False
    return not row[0] or above[0].count("(") > above[0].count(")") and row[0].count(")") > row[0].count("(")


def _fill_down(rows: list[list[str]]) -> list[list[str]]:
    """Leading cells a row leaves empty take the row above's (a group label written once). A
    label written once in the middle of the rows it spans (a merged cell, centred: "25℃≤T<45℃"
    beside the seven steps of its charge profile) is the only label of its table's first column:
    the rows above it take it too."""
    labels = [k for k, row in enumerate(rows) if row and row[0]]
    if len(labels) == 1 and labels[0] > 0 and len(rows[0]) > 2:
        for row in rows[:labels[0]]:
            if any(_measured(c) for c in row[1:]):
                row[0] = rows[labels[0]][0]
    for above, row in zip(rows, rows[1:], strict=False):
        lead = next((k for k, c in enumerate(row) if c), len(row))
        if 0 < lead < len(row) - 1:
            row[:lead] = above[:lead]
    return rows


def _caption(lines: Sequence[str], top: int, bottom: int, plain: str, words: frozenset[str]) -> str | None:
    near = list(range(top - 1, max(top - 7, -1), -1)) + list(range(bottom + 1, min(bottom + 4, len(lines))))
    for j in near:
        if _CAPTION.match(lines[j]):
            return _plain_caption(lines[j], plain, words)
    return None


def _plain_caption(layout_line: str, plain: str, words: frozenset[str]) -> str:
    """The caption as the plain text writes it (the layout spaces letters out), else the layout
    line with its spaces collapsed. A label on a line of its own ("Table 1") takes the line after
    it, its title, unless that line only repeats the table's cells (its header)."""
    key = re.sub(r"\s+", "", layout_line)[:24]
    plain_lines = [line for line in plain.splitlines() if line.strip()]
    at = next((i for i, line in enumerate(plain_lines) if key and re.sub(r"\s+", "", line).startswith(key)), None)
    found = plain_lines[at] if at is not None else layout_line
    caption = _SPACED_TABLE.sub("Table ", " ".join(found.split()))
    if at is not None and at + 1 < len(plain_lines) and _LABEL_ONLY.fullmatch(caption):
        title = " ".join(plain_lines[at + 1].split())
        if not _repeats(title, words):
            caption = f"{caption} {title}"
    return caption[:MAX_CAPTION]


#: the heading of a document's table of contents, which the table reader sees as a table
_CONTENTS = re.compile(r"^\s*(?:table\s+of\s+)?contents\s*:?\s*$|^\s*index\s*$", re.IGNORECASE)


def named_rows(page_tables: Sequence[PageTable], number: int, title: str) -> list[tuple[str, list[tuple[int, str]]]]:
    """Each table's name (its caption, else ``TITLE, page N: HEADING`` with the heading line above
    it, else ``TITLE, page N``, numbered when the page has several) and rows; a table of contents
    (under a "Contents" heading) is left to the page's text."""
    out = []
    for k, table in enumerate(page_tables, start=1):
        if _CONTENTS.match(table.grid.caption or table.heading or ""):
            continue  # a table of contents: sections and page numbers, which the page's text has already
        place = f"{title}, page {number}"
        name = table.grid.caption or (f"{place}: {table.heading}" if table.heading else
                                      place + (f", table {k}" if len(page_tables) > 1 else ""))
        rows = grid_rows(table.grid, name, header_rows=table.header_rows)
        if rows:
            out.append((name, rows))
    return out


def without_tables(plain: str, tables: Sequence[PageTable]) -> str:
    """``plain`` without its lines that only repeat a table's cells, its header's included (every
    word one of the table's, and a number or two words or more): the table is indexed as rows, not
    again as a run of numbers under a run of column names."""
    if not tables:
        return plain
    words = frozenset().union(*(t.words for t in tables))
    kept = [line for line in plain.splitlines() if not _repeats(line, words)]
    return "\n".join(kept).strip()


def _repeats(line: str, words: frozenset[str]) -> bool:
    tokens = line.split()
    return bool(tokens) and all(t in words for t in tokens) and (len(tokens) >= 2 or is_number(tokens[0]))


__all__ = ["MIN_NUMERIC_LINES", "TABLE_PAGE_TIMEOUT_S", "PageTable", "ShownPages", "TableTimeout", "find_grids",
           "may_hold_table", "named_rows", "page_tables", "time_limit", "without_tables", "word_tables"]
