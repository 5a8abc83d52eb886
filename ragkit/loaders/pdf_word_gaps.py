"""Pages whose words run together, read again with the gaps between them.

TeX and other writers draw the gap between two words as a shift in a ``TJ`` array, not as a space
character. pypdf writes a space for a shift wider than about half the font's space, which it takes
from the glyph at code 32 when no glyph of the font maps to a space; in a subset composite font
that glyph is a letter, often as wide as two spaces, so the gaps of tightly set lines are lost:
"matchedcirclesinthecosmicmicrowavebackground" (a pypdf bug: py-pdf/pypdf#3978). Such a page
(``glued``: a share of its letters in runs of more than twenty lower-case letters, which English
words are not) is read again with every shift of ``WORD_GAP`` thousandths of an em or more split
in two (``_widened``): one wide enough for any font's space, then its excess given back, so the
shift in total and every position pypdf tracks stay as the page has them. The new text is kept
when fewer of its letters run together (``respaced``). A page still glued after that, whose
writer set each word (or each glyph) at a position of its own, is read by those positions
(``_laid_out``), kept on the same terms."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

GLUED_SHARE = 0.02  # a page whose letters are this share or more in glued runs is read again
WORD_GAP = 150.0  # a shift in a TJ array of this many thousandths of an em or more parts two words
_LETTER = 2  # bytes: the median run of text between wide shifts of a letter-spaced TJ array is no longer
_WIDE = 10_000.0  # thousandths of an em: wider than any font's space, so pypdf writes one
_GLUED = re.compile(r"(?<![\w/.@-])[A-Z]?[a-z]{21,}(?![\w/@-])")  # "Invokedbycandidatestogathervotes"


def glued_share(text: str) -> float:
    """The share of ``text``'s letters in runs of more than twenty lower-case letters."""
    letters = sum(c.isalpha() for c in text)
    return sum(len(m.group()) for m in _GLUED.finditer(text)) / letters if letters else 0.0


def _widened(array: type, number: type) -> Any:
    """A pypdf ``visitor_operand_before`` that splits each word gap of a ``TJ`` array as the module
    says (``array`` and ``number``: pypdf's ``ArrayObject`` and ``FloatObject``, imported once)."""

    def visit(operator: bytes, operands: list[Any], cm: Any, tm: Any) -> None:
        if operator != b"TJ" or not operands or not isinstance(operands[0], list) or _letter_spaced(operands[0]):
            return
        items: list[Any] = []
        for item in operands[0]:
            if _gap(item):
                items += [number(-_WIDE), number(_WIDE + float(item))]
            else:
                items.append(item)
        operands[0] = array(items)

    return visit


def _gap(item: Any) -> bool:
    return isinstance(item, (int, float)) and not isinstance(item, bool) and -float(item) >= WORD_GAP


def _letter_spaced(items: list[Any]) -> bool:
    """Whether the wide shifts of a TJ array part letters, not words: a code listing set in fixed
    columns shifts after nearly every glyph ("p a r a l l e l"), so the median run of text between
    two of them is a single glyph (one or two bytes) where a line of prose has words."""
    runs, run = [], 0
    for item in items:
        if _gap(item):
            runs.append(run)
            run = 0
        elif isinstance(item, (str, bytes)):
            run += len(item)
    runs.append(run)
    return len(runs) > 2 and sorted(runs)[len(runs) // 2] <= _LETTER


def respaced(page: Any, text: str) -> str:
    """``text`` (``page``'s, NFKC-normalized), or the page read again with its word gaps when
    ``text`` is ``glued`` and the new reading is less so."""
    share = glued_share(text)
    if share < GLUED_SHARE:
        return text
    from pypdf.generic import ArrayObject, FloatObject

    spaced = page.extract_text(visitor_operand_before=_widened(ArrayObject, FloatObject))
    again = unicodedata.normalize("NFKC", spaced or "").strip()
    if again and (share_again := glued_share(again)) < share:
        text, share = again, share_again
    if share < GLUED_SHARE:
        return text
    laid = _laid_out(page)  # each word placed on its own: the gaps are in the positions alone
    return laid if laid and glued_share(laid) < share else text


def _laid_out(page: Any) -> str:
    """``page`` read by the positions of its glyphs (pypdf's layout mode, which parts two glyphs
    a gap apart), its padding of runs of spaces and blank lines taken out: a writer that sets each
    word, or each glyph, at a position of its own draws no gap a ``TJ`` array holds ("By thisway,
    theamountofdatatransmitted" in a vendor's application note)."""
    try:
        laid = page.extract_text(extraction_mode="layout") or ""
    except Exception:  # pypdf's layout reader fails on content its plain reader reads: keep that text
        return ""
    lines = [_SPACES.sub(" ", line).strip() for line in unicodedata.normalize("NFKC", laid).splitlines()]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


_SPACES = re.compile(r"[ \t]{2,}")
_BLANK_LINES = re.compile(r"\n{3,}")


__all__ = ["GLUED_SHARE", "WORD_GAP", "glued_share", "respaced"]
