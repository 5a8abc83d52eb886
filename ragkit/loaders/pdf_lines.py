"""Pages whose text layer gives one word to a line, rebuilt as lines from where the words are.

Some PDF writers (an office suite's export, an agreement's template) place every word with its own
text matrix, and pypdf's text then has a line break after each word: "built-in\\ncounter\\nfor\\nhow".
Sentences, headings and paragraphs are lost, and so is every answer in them. Such a page
(``one_word_lines``) is read again from its text fragments' positions (``positioned_text``): the
fragments at one height are one line, left to right, a wider gap between lines than the text's
size starts a paragraph, and a page in two columns (a gap at the same place on many lines) is
read column by column."""

from __future__ import annotations

from collections import Counter
from typing import Any

ONE_WORD_LINES = 12  # a page needs at least this many lines to be judged
ONE_WORD_SHARE = 0.8  # ... and this share of them a single word
_SAME_LINE = 0.4  # fragments whose heights differ by less than this share of the text size share a line
_PARAGRAPH_GAP = 1.7  # a gap between lines above this many times the text size starts a paragraph
_CHAR_WIDTH = 0.5  # a character's width as a share of the text size, to estimate where a fragment ends
_COLUMN_GAP = 2.5  # a gap after a fragment's estimated end above this many sizes may part two columns
_COLUMN_LINES = 0.3  # ... when this share of the page's lines has one at the same place
_COLUMN_SLOT = 10.0  # points: gaps this close are at the same place


def one_word_lines(text: str) -> bool:
    """Whether ``text`` (a page's) has many lines and nearly all of them a single word."""
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) >= ONE_WORD_LINES and sum(len(line.split()) == 1 for line in lines) >= ONE_WORD_SHARE * len(lines)


def positioned_text(page: Any) -> str:
    """``page``'s text rebuilt from its fragments' positions (see the module docstring); "" when
    it has none."""
    fragments: list[tuple[float, float, float, str]] = []  # (top, left, size, text)

    def visit(text: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
        if not text.strip():
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = abs((tm[3] or 1) * (cm[3] or 1))
        fragments.append((-y, x, abs(float(size or 0)) * scale or 10.0, " ".join(text.split())))

    page.extract_text(visitor_text=visit)
    lines = _lines(fragments)
    split = _column_split(lines)
    if split is not None:
        left = [[f for f in line if f[1] < split] for line in lines]
        right = [[f for f in line if f[1] >= split] for line in lines]
        return f"{_written([line for line in left if line])}\n\n{_written([line for line in right if line])}".strip()
    return _written(lines)


def _lines(fragments: list[tuple[float, float, float, str]]) -> list[list[tuple[float, float, float, str]]]:
    """The fragments grouped by height, top to bottom, each line left to right."""
    lines: list[list[tuple[float, float, float, str]]] = []
    for fragment in sorted(fragments):
        if lines and fragment[0] - lines[-1][0][0] <= _SAME_LINE * max(fragment[2], lines[-1][0][2]):
            lines[-1].append(fragment)
        else:
            lines.append([fragment])
    return [sorted(line, key=lambda f: f[1]) for line in lines]


def _gaps(line: list[tuple[float, float, float, str]]) -> list[float]:
    """Where the fragments that follow a wide gap in ``line`` start."""
    return [b[1] for a, b in zip(line, line[1:], strict=False)
            if b[1] - (a[1] + _CHAR_WIDTH * a[2] * len(a[3])) > _COLUMN_GAP * a[2]]


def _column_split(lines: list[list[tuple[float, float, float, str]]]) -> float | None:
    """Where a second column starts, when many lines have a wide gap at the same place."""
    slots = Counter(round(x / _COLUMN_SLOT) for line in lines for x in set(_gaps(line)))
    if not slots:
        return None
    slot, count = slots.most_common(1)[0]
    return (slot - 0.5) * _COLUMN_SLOT if count >= _COLUMN_LINES * len(lines) else None


def _written(lines: list[list[tuple[float, float, float, str]]]) -> str:
    """The lines as text, a blank line where the gap above a line is a paragraph's."""
    out: list[str] = []
    for k, line in enumerate(lines):
        if k and line[0][0] - lines[k - 1][0][0] > _PARAGRAPH_GAP * max(lines[k - 1][0][2], 1.0):
            out.append("")
        out.append(" ".join(f[3] for f in line))
    return "\n".join(out)


__all__ = ["ONE_WORD_LINES", "ONE_WORD_SHARE", "one_word_lines", "positioned_text"]
