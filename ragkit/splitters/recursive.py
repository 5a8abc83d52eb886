"""Recursive splitting: paragraphs, then lines, sentences, words and finally characters.

The text is cut at the strongest boundary that yields pieces no longer than ``chunk_size``: a
paragraph that fits stays one piece, one that does not is cut into lines, a line that does not
fit into sentences, and so on. The pieces are merged greedily, in order, up to ``chunk_size``,
and each new chunk starts with up to ``chunk_overlap`` units taken (on piece boundaries) from
the end of the previous one. Text no separator can break is cut at the character level at the
longest prefix that fits (a galloping binary search on the length function), with overlap.

With ``context_header`` on, each chunk also records the document's title (its contextual header,
see ``ragkit.splitters.base``), and the header's length is taken from ``chunk_size`` so header and
text together still fit.

The length function (the embedder's tokenizer) is the cost, so each piece is measured once and
chunk lengths are estimated as sums of piece lengths. Every merged chunk is then measured once
more, and one that overflows (token counts are not exactly additive) is split again, so
``chunk_size`` is a guarantee, not an estimate. A text that fits costs exactly one call.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

from ragkit.errors import ConfigError
from ragkit.registry import splitters
from ragkit.splitters.base import Span, fit_header, header_parts, make_chunks, strip_span
from ragkit.types import Chunk, Document

log = logging.getLogger(__name__)

#: Separator meaning "after ``.``, ``!`` or ``?`` (and closing quotes/brackets) plus whitespace".
SENTENCE = "<sentence>"
#: Paragraph -> line -> sentence -> word; the character level is always the last resort.
DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", SENTENCE, " ")
UNITS = ("tokens", "chars")

_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s+")

LengthFunction = Callable[[str], int]


class _Piece(NamedTuple):
    """A range that fits, its measured length, and the separator level it was cut at."""

    start: int
    end: int
    length: int
    level: int


def _compile(separator: str) -> re.Pattern[str]:
    if separator == SENTENCE:
        return _SENTENCE_END
    return re.compile(f"(?:{re.escape(separator)})+")


def _validate(chunk_size: int, chunk_overlap: int, unit: str, length_function: object) -> None:
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ConfigError(f"chunk_size must be an integer of at least 1 (got {chunk_size!r})")
    if not isinstance(chunk_overlap, int) or not 0 <= chunk_overlap < chunk_size:
        raise ConfigError(
            f"chunk_overlap must be an integer with 0 <= chunk_overlap < chunk_size "
            f"(got chunk_overlap={chunk_overlap!r}, chunk_size={chunk_size!r}); "
            f"lower chunk_overlap or raise chunk_size"
        )
    if unit not in UNITS:
        raise ConfigError(f"unit must be 'tokens' or 'chars' (got {unit!r})")
    if unit == "tokens" and length_function is None:
        raise ConfigError(
            "unit='tokens' needs a length_function that counts the embedder's tokens "
            "(got length_function=None); pass the embedder's count_tokens, or use unit='chars'"
        )
    if length_function is not None and not callable(length_function):
        raise ConfigError(f"length_function must be callable (got {length_function!r})")


def _extend(spans: list[Span], new: list[Span]) -> None:
    """Append ``new`` spans, dropping any that adds no text beyond the previous chunk's end
    (a leftover made only of overlap)."""
    for span in new:
        if not spans or span.end > spans[-1].end:
            spans.append(span)


def _fold_blank(text: str, bounds: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join whitespace-only pieces to a neighbour, so pieces stay contiguous and never blank."""
    folded: list[tuple[int, int]] = []
    for start, end in bounds:
        if folded and (text[start:end].isspace() or text[folded[-1][0]:folded[-1][1]].isspace()):
            folded[-1] = (folded[-1][0], end)
        else:
            folded.append((start, end))
    return folded


def _check_separators(separators: Sequence[str] | None) -> tuple[str, ...]:
    if separators is None:
        return DEFAULT_SEPARATORS
    if isinstance(separators, str) or not all(isinstance(s, str) for s in separators):
        raise ConfigError(
            f"separators must be a list of strings (got {separators!r}); "
            f"for example ['\\n\\n', '\\n', '{SENTENCE}', ' ']"
        )
    # "" means "characters", which is always the last resort anyway
    return tuple(s for s in separators if s)


@splitters.register("recursive")
class RecursiveSplitter:
    """Split text at the strongest boundary that fits, measured in tokens or characters.

    ``length_function`` counts tokens (the pipeline passes the embedder's ``count_tokens``); it is
    required for ``unit="tokens"`` and ignored for ``unit="chars"``. ``separators`` are literal
    strings tried in order (runs of a separator count as one), plus :data:`SENTENCE`.
    ``context_header``: record the document's title as each chunk's contextual header (embedded
    and indexed with the chunk, never shown; see ``ragkit.splitters.base``).
    """

    def __init__(
        self,
        *,
        chunk_size: int = 200,
        chunk_overlap: int = 30,
        unit: Literal["tokens", "chars"] = "tokens",
        length_function: LengthFunction | None = None,
        separators: Sequence[str] | None = None,
        context_header: bool = False,
    ) -> None:
        _validate(chunk_size, chunk_overlap, unit, length_function)
        if not isinstance(context_header, bool):
            raise ConfigError(f"context_header must be true or false (got {context_header!r})")
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.context_header = context_header
        self.unit = unit
        self.separators = _check_separators(separators)
        self._patterns = [_compile(s) for s in self.separators]
        self._length: LengthFunction | None = length_function if unit == "tokens" else None

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(chunk_size={self.chunk_size}, chunk_overlap={self.chunk_overlap}, "
                f"unit={self.unit!r}, context_header={self.context_header})")

    # -- public API -------------------------------------------------------------------------

    def split(self, doc: Document) -> list[Chunk]:
        """Split ``doc`` into chunks of at most ``chunk_size`` units with exact offsets (header
        included, with ``context_header``)."""
        if not self.context_header:
            return make_chunks(doc, ((span, {}) for span in self.split_spans(doc.text)))
        parts, room = self.header_room(header_parts(doc))
        spans = self.with_room(room).split_spans(doc.text)
        return make_chunks(doc, ((span, {}) for span in spans), header=parts)

    def header_room(self, parts: Sequence[str]) -> tuple[list[str], int]:
        """The header parts that fit beside the text and the room they take (see ``fit_header``)."""
        return fit_header(parts, self.measure, self.chunk_size) if parts else ([], 0)

    def with_room(self, room: int) -> RecursiveSplitter:
        """This splitter with ``room`` units of ``chunk_size`` kept free (for a header)."""
        if room <= 0:
            return self
        clone = copy.copy(self)
        clone.chunk_size = max(1, self.chunk_size - room)
        clone.chunk_overlap = min(self.chunk_overlap, clone.chunk_size - 1)
        return clone

    def split_spans(self, text: str, start: int = 0, end: int | None = None) -> list[Span]:
        """Chunk spans of ``text[start:end]`` as offsets into ``text`` (stripped, non-empty)."""
        end = len(text) if end is None else end
        start, end = strip_span(text, start, end)
        if start >= end:
            return []
        length = self.measure(text[start:end])
        if length <= self.chunk_size:
            return [Span(start, end)]
        return self._split_range(text, start, end, 0, length)

    def measure(self, text: str) -> int:
        """Length of ``text`` in this splitter's unit."""
        return self._length(text) if self._length is not None else len(text)

    # -- recursion ----------------------------------------------------------------------------

    def _split_range(self, text: str, start: int, end: int, level: int, length: int) -> list[Span]:
        """Split ``[start, end)``, known to measure ``length`` > chunk_size, from ``level`` on."""
        return self._merge(text, self._atoms(text, start, end, level, length))

    def _atoms(self, text: str, start: int, end: int, level: int, length: int) -> list[_Piece | Span]:
        """Pieces that fit, in order, from the strongest separator that makes them fit.

        Text that only the character level can break comes back as finished spans (``Span``).
        """
        if level >= len(self._patterns):
            return list(self._cut_characters(text, start, end))
        bounds = self._piece_bounds(text, start, end, level)
        if len(bounds) == 1:  # separator absent: same text, next level, no new measurement
            return self._atoms(text, start, end, level + 1, length)
        atoms: list[_Piece | Span] = []
        for ps, pe in bounds:
            n = self.measure(text[ps:pe])
            if n <= self.chunk_size:
                atoms.append(_Piece(ps, pe, n, level))
            else:
                atoms += self._atoms(text, ps, pe, level + 1, n)
        return atoms

    def _piece_bounds(self, text: str, start: int, end: int, level: int) -> list[tuple[int, int]]:
        """Contiguous pieces covering ``[start, end)``; each separator stays with the piece before it."""
        bounds: list[tuple[int, int]] = []
        pos = start
        for match in self._patterns[level].finditer(text, start, end):
            if match.end() > pos:
                bounds.append((pos, match.end()))
                pos = match.end()
        if pos < end:
            bounds.append((pos, end))
        return _fold_blank(text, bounds)

    def _merge(self, text: str, atoms: list[_Piece | Span]) -> list[Span]:
        """Greedily pack pieces into chunks, with overlap on piece boundaries; spans pass through."""
        spans: list[Span] = []
        window: list[_Piece] = []
        total = 0
        for atom in atoms:
            if not isinstance(atom, _Piece):  # already cut at the character level
                _extend(spans, self._emit(text, window))
                window, total = [], 0
                _extend(spans, [atom])
                continue
            if window and total + atom.length > self.chunk_size:
                _extend(spans, self._emit(text, window))
                while window and (total > self.chunk_overlap or total + atom.length > self.chunk_size
                                  or (spans and window[0].start <= spans[-1].start)):
                    total -= window.pop(0).length
            window.append(atom)
            total += atom.length
        _extend(spans, self._emit(text, window))
        return spans

    def _emit(self, text: str, group: list[_Piece]) -> list[Span]:
        """Verify a merged group with one measurement; halve it (or split deeper) if it overflows."""
        if not group:
            return []
        span = strip_span(text, group[0].start, group[-1].end)
        if span.start >= span.end:
            return []
        if len(group) == 1 and span == (group[0].start, group[0].end):
            length = group[0].length
        elif self._length is None:
            length = span.end - span.start
        else:
            length = self.measure(text[span.start:span.end])
        if length <= self.chunk_size:
            return [span]
        if len(group) > 1:
            log.debug("merged chunk measured %d > %d; splitting it in two", length, self.chunk_size)
            mid = len(group) // 2
            return self._emit(text, group[:mid]) + self._emit(text, group[mid:])
        return self._split_range(text, span.start, span.end, group[0].level + 1, length)

    # -- character level ---------------------------------------------------------------------

    def _cut_characters(self, text: str, start: int, end: int) -> list[Span]:
        """Cut ``[start, end)`` into windows that fit, each overlapping the previous one."""
        start, end = strip_span(text, start, end)
        spans: list[Span] = []
        pos, last_cut = start, start
        while pos < end:
            cut = self._longest_fit(text, pos, end)
            if cut <= last_cut:  # the overlap left no room for new text: drop it
                pos = last_cut
                continue
            span = strip_span(text, pos, cut)
            if cut >= end:
                return spans + [span] if span.start < span.end else spans
            last_cut = cut
            if span.start >= span.end:  # a blank window: go on after it, nothing to overlap
                pos = cut
                continue
            spans.append(span)
            # the next window starts inside this one's text, never at or before its start
            pos = max(self._overlap_start(text, pos, cut), span.start + 1)
        return spans

    def _longest_fit(self, text: str, pos: int, end: int) -> int:
        """The largest ``cut`` in ``(pos, end]`` with ``measure(text[pos:cut]) <= chunk_size``."""
        if self._length is None:
            return min(end, pos + self.chunk_size)
        good, bad, step = pos, end + 1, max(1, self.chunk_size)
        while True:  # gallop: probe pos+size, pos+2*size, ... until one overflows
            probe = min(pos + step, end)
            if self.measure(text[pos:probe]) > self.chunk_size:
                bad = probe
                break
            good = probe
            if probe == end:
                return end
            step *= 2
        good = _boundary(good, bad, lambda mid: self.measure(text[pos:mid]) <= self.chunk_size)
        if good == pos:
            log.warning("a single character measures more than chunk_size=%d: %r; keeping it as a chunk",
                        self.chunk_size, text[pos])
            return pos + 1
        return good

    def _overlap_start(self, text: str, pos: int, cut: int) -> int:
        """The smallest ``s`` in ``(pos, cut]`` with ``measure(text[s:cut]) <= chunk_overlap``."""
        if self.chunk_overlap == 0:
            return cut
        if self._length is None:
            return max(pos + 1, cut - self.chunk_overlap)
        return _boundary(cut, pos, lambda mid: self.measure(text[mid:cut]) <= self.chunk_overlap)


def _boundary(good: int, bad: int, fits: Callable[[int], bool]) -> int:
    """Binary search between ``good`` (where ``fits`` holds) and ``bad`` (where it does not), in
    either order: the position next to ``bad`` that still fits, assuming ``fits`` holds on one side
    of a single boundary."""
    while abs(bad - good) > 1:
        mid = (good + bad) // 2
        if fits(mid):
            good = mid
        else:
            bad = mid
    return good


__all__ = ["DEFAULT_SEPARATORS", "SENTENCE", "RecursiveSplitter"]
