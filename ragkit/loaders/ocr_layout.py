"""An OCR'd page as layout lines: fixed-width text built from Tesseract's word boxes, the way
pypdf's layout mode sets a born-digital page, so the PDF table reader (``ragkit.loaders.pdf_tables``)
finds the tables of scanned pages too.

Tesseract reads a table's columns as separate blocks, so its plain text has no rows; its word
boxes (the ``tsv`` output, :func:`parse_tsv`) still do. Words whose boxes share their height stand
on one physical line, whatever block Tesseract gave them (:func:`physical_lines`). Each line is
then set on a character grid (:func:`layout_lines`): a character is the page's median glyph width
and a cell starts at the character its left edge falls on, so a column's cells line up from line
to line. Words of one phrase (the same Tesseract line, at most :data:`PHRASE_GAP` characters
apart) are one space apart; the next cell is at least :data:`CELL_SPACES` spaces away, wider than
any gap inside a cell, which is what the table reader splits cells on.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: a gap between two words of one Tesseract line wider than this many characters (the line's
#: median character width; a word space is about half of one) starts a new cell
PHRASE_GAP = 1.5
#: spaces set between two cells of a line, at least
CELL_SPACES = 4
#: a gap between two lines this many times the page's usual one sets a blank line between them
PARAGRAPH_GAP = 1.6
#: words Tesseract is less sure of than this (0-100) are left out of the lines: the marks it
#: reads in a chart's lines, dots and shading (a printed word scores 90 and more)
MIN_CONF = 50
#: the share of the smaller height two boxes must share to stand on one line
LINE_OVERLAP = 0.5
#: the physical lines a word is compared with (the last ones: words come top to bottom)
_OPEN_LINES = 4
_TSV_COLUMNS = ("level", "page_num", "block_num", "par_num", "line_num", "word_num", "left", "top", "width",
                "height", "conf", "text")
_WORD_LEVEL = "5"


@dataclass(frozen=True)
class OcrWord:
    """A word Tesseract read: its box in pixels and the Tesseract line it belongs to (block,
    paragraph, line), which tells a phrase from two cells side by side."""

    left: int
    top: int
    width: int
    height: int
    line: tuple[int, int, int]
    #: Tesseract's confidence in the word, 0-100
    conf: int
    text: str

    @property
    def right(self) -> int:
        return self.left + self.width

    @property
    def bottom(self) -> int:
        return self.top + self.height

    def to_row(self) -> list[int | str]:
        """The word as a JSON row (the OCR cache): left, top, width, height, block, par, line,
        conf, text."""
        return [self.left, self.top, self.width, self.height, *self.line, self.conf, self.text]

    @classmethod
    def from_row(cls, row: object) -> OcrWord:
        """The word of a :meth:`to_row` row; ValueError for anything else."""
        if not isinstance(row, list) or len(row) != 9 or not isinstance(row[8], str) \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in row[:8]):
            raise ValueError(f"not an OCR word row: {str(row)[:80]}")
        left, top, width, height, block, par, line, conf, text = row
        return cls(left, top, width, height, (block, par, line), conf, text)


def parse_tsv(tsv: str) -> list[OcrWord]:
    """The words of Tesseract's ``tsv`` output (its word-level rows with text), in its order."""
    rows = tsv.splitlines()
    if not rows or tuple(rows[0].split("\t")) != _TSV_COLUMNS:
        return []
    words: list[OcrWord] = []
    for row in rows[1:]:
        cells = row.split("\t")
        if len(cells) != len(_TSV_COLUMNS) or cells[0] != _WORD_LEVEL or not cells[11].strip():
            continue
        try:
            block, par, line, left, top, width, height = (int(cells[k]) for k in (2, 3, 4, 6, 7, 8, 9))
            conf = round(float(cells[10]))
        except ValueError:
            continue
        words.append(OcrWord(left, top, width, height, (block, par, line), conf, cells[11].strip()))
    return words


def physical_lines(words: Iterable[OcrWord]) -> list[list[OcrWord]]:
    """The words grouped into the page's lines, top to bottom, each left to right: a word joins a
    line (one of the last few) whose words' median box it shares :data:`LINE_OVERLAP` of the
    smaller height with; Tesseract's blocks and lines are not looked at."""
    lines: list[list[OcrWord]] = []
    for word in sorted(words, key=lambda w: (w.top + w.bottom, w.left)):
        for line in reversed(lines[-_OPEN_LINES:]):
            if _shares_height(word, line):
                line.append(word)
                break
        else:
            lines.append([word])
    return [sorted(line, key=lambda w: w.left) for line in lines]


def _shares_height(word: OcrWord, line: Sequence[OcrWord]) -> bool:
    top = statistics.median(w.top for w in line)
    bottom = statistics.median(w.bottom for w in line)
    shared = min(word.bottom, bottom) - max(word.top, top)
    return shared >= LINE_OVERLAP * min(word.height, bottom - top)


def layout_lines(words: Sequence[OcrWord]) -> list[str]:
    """The page as fixed-width lines (module docstring), a blank line where the gap to the line
    above is :data:`PARAGRAPH_GAP` times the page's usual gap between lines or more. Words read
    with a confidence under :data:`MIN_CONF` (what Tesseract makes of a chart's lines and dots)
    are left out."""
    words = [w for w in words if w.width > 0 and w.height > 0 and w.conf >= MIN_CONF]
    if not words:
        return []
    glyph = _glyph(words)
    margin = min(w.left for w in words)
    lines = physical_lines(words)
    gaps = [_gap(a, b) for a, b in zip(lines, lines[1:], strict=False)]
    usual = statistics.median(gaps) if gaps else 0.0
    out: list[str] = []
    for i, line in enumerate(lines):
        if i and gaps[i - 1] >= PARAGRAPH_GAP * max(usual, 1.0):
            out.append("")
        out.append(_set_line(line, glyph, margin))
    return out


def _gap(above: Sequence[OcrWord], below: Sequence[OcrWord]) -> float:
    """The white between two lines (pixels, their median boxes)."""
    return statistics.median(w.top for w in below) - statistics.median(w.bottom for w in above)


def _glyph(words: Sequence[OcrWord]) -> float:
    """The median width of a character of ``words`` (pixels)."""
    return statistics.median(w.width / len(w.text) for w in words)


def _set_line(line: Sequence[OcrWord], glyph: float, margin: int) -> str:
    """The line on the page's grid of ``glyph`` pixels a character; phrases are told by the
    line's own character width (a heading's type is larger)."""
    text = ""
    previous: OcrWord | None = None
    own = _glyph(line)
    for word in line:
        at = round((word.left - margin) / glyph)
        if previous is not None:
            phrase = word.line == previous.line and word.left - previous.right <= PHRASE_GAP * own
            at = len(text) + 1 if phrase else max(at, len(text) + CELL_SPACES)
        text += " " * (at - len(text)) + word.text
        previous = word
    return text


__all__ = ["CELL_SPACES", "LINE_OVERLAP", "MIN_CONF", "OcrWord", "PARAGRAPH_GAP", "PHRASE_GAP", "layout_lines", "parse_tsv", "physical_lines"]
