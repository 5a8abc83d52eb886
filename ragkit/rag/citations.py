"""The one citation resolver: an answer's ``[n]`` markers, numbered once for every path.

A search numbers its passages in a run's ``CitationBook`` (``[1]`` … in the order it found them);
the model cites those numbers. :class:`CitationNumbering` renumbers the answer's markers in order
of first appearance (``[1]`` first, then ``[2]`` …), keeps exactly the citations the answer uses
(``used``, numbered to match) and removes markers no search returned (with the space before
them). It reads a whole answer (``text``) or a stream (``feed`` pieces, then ``flush``) and gives
the same text either way, so what is streamed, returned, stored and shown agree by construction:
the turn owner (:mod:`ragkit.agent.conversation`) runs every answer through it, streamed or not.

Brackets inside code are code (``v[100]``, ``x = [2]``), found as CommonMark finds it:

- a fenced block opens on a line that starts (after at most 3 spaces) with ````` ``` ````` or
  ``~~~`` (an info string without backticks or citation markers) and closes on a line that starts
  with at least as many of the same characters followed by nothing but spaces and citation markers
  (the extractive answer writes ````` ``` [2]`` after a quoted block); a fence that never closes is
  not code, so a stray ````` ``` ````` quoted from a passage cannot swallow the markers after it;
- an inline code span is a run of backticks up to the next run of the same length on the same line.

While streaming, text is held back only while it could still change: an unfinished marker, a
fence or backtick run that may still close, a line that may still become a fence.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from ragkit.types import Citation

if TYPE_CHECKING:
    from ragkit.agent.result import AgentResult
    from ragkit.rag.tool import CitationBook

log = logging.getLogger(__name__)

_MARKER = re.compile(r"([ \t]*)\[(\d+)\]")
_OPENER = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_BACKTICKS = re.compile(r"`+")
_CITED = re.compile(r"\[\d+\]")
_PARTIAL_TAIL = re.compile(r"[ \t]*(?:\[\d*)?$")


class CitationNumbering:
    """Renumbers an answer's ``[n]`` markers in order of first appearance (see the module docstring).

    ``used``: the citations the answer cites, numbered as the answer shows them."""

    def __init__(self, book: CitationBook) -> None:
        self.book = book
        self.used: list[Citation] = []
        self._seen = ""  # all text fed so far
        self._sent = 0  # characters of the rendered text already given out
        self._warned: set[int] = set()

    # ------------------------------------------------------------------ reading
    def text(self, text: str) -> str:
        """A whole answer, renumbered (continues after what was fed before)."""
        return self.feed(text) + self.flush()

    def feed(self, delta: str) -> str:
        """A streamed piece in; the renumbered text that can no longer change out."""
        self._seen += delta
        return self._emit(final=False)

    def flush(self) -> str:
        """The rest, at the end of the answer."""
        return self._emit(final=True)

    # ------------------------------------------------------------------ rendering
    def _emit(self, *, final: bool) -> str:
        rendered, used = self._render(final)
        self.used = used
        out = rendered[self._sent:]
        self._sent = max(self._sent, len(rendered))
        return out

    def _render(self, final: bool) -> tuple[str, list[Citation]]:
        """The decided part of everything seen, renumbered from scratch (deterministic, so each
        render extends the previous one), and the citations it uses."""
        text = self._seen
        code, stable = code_spans(text, final=final)
        if not final:
            tail = _PARTIAL_TAIL.search(text[:stable])
            stable = tail.start() if tail else stable
        new: dict[int, int] = {}
        used: list[Citation] = []

        def marker(m: re.Match[str]) -> str:
            number = int(m.group(2))
            if number not in new:
                c = self.book.get(number)
                if c is None:
                    if number not in self._warned:
                        self._warned.add(number)
                        log.warning("the answer cites [%s], which no search returned; marker removed", number)
                    return ""  # with the space before it
                used.append(replace(c, number=len(used) + 1))
                new[number] = len(used)
            return f"{m.group(1)}[{new[number]}]"

        pieces = []
        for start, end, is_code in _regions(code, stable):
            piece = text[start:end]
            pieces.append(piece if is_code else _MARKER.sub(marker, piece))
        return "".join(pieces), used


def _regions(code: list[tuple[int, int]], end: int) -> Iterator[tuple[int, int, bool]]:
    pos = 0
    for start, stop in code:
        if start >= end:
            break
        if start > pos:
            yield pos, start, False
        yield start, min(stop, end), True
        pos = min(stop, end)
    if pos < end:
        yield pos, end, False


def code_spans(text: str, *, final: bool = True) -> tuple[list[tuple[int, int]], int]:
    """The code regions of ``text`` as ``(start, end)`` offsets, and how far they are decided:
    ``len(text)`` when ``final``, else the start of whatever may still change (an open fence, an
    unmatched backtick run on the last line, a last line that may still become a fence)."""
    ignored: set[int] = set()  # opening fences found never to close: text, not code
    while True:
        spans, stable, unclosed = _scan(text, final=final, ignored=ignored)
        if unclosed is None or not final:
            return spans, stable
        ignored.add(unclosed)


def _scan(text: str, *, final: bool, ignored: set[int]) -> tuple[list[tuple[int, int]], int, int | None]:
    spans: list[tuple[int, int]] = []
    stable = len(text)
    fence: tuple[int, str, int] | None = None  # (start, character, length) of the open fence
    pos = 0
    for line in text.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        complete = line.endswith(("\n", "\r"))
        body = line.rstrip("\r\n")
        if fence is not None:
            if not complete and not final:  # "```" may still become "```python": undecided
                return spans, min(stable, fence[0]), None
            if _closes(body, fence[1], fence[2]):
                end = start + len(body) - len(body.lstrip(" ")) + _run(body.lstrip(" "), fence[1])
                spans.append((fence[0], end))
                fence = None
                spans += _inline(text, end, start + len(body), complete or final, lambda s: None)
            continue
        opener = _OPENER.fullmatch(body)
        if opener and start not in ignored and _opens(opener):
            if not complete and not final:  # the info string may still get a backtick: undecided
                return spans, min(stable, start), None
            fence = (start, opener.group(1)[0], len(opener.group(1)))
            continue
        if not complete and not final and re.fullmatch(r" {0,3}(`{1,2}|~{1,2})", body):
            return spans, min(stable, start), None  # may still become a fence
        undecided: list[int] = []
        spans += _inline(text, start, start + len(body), complete or final, undecided.append)
        if undecided:
            stable = min(stable, undecided[0])
    if fence is not None:
        if not final:
            return spans, min(stable, fence[0]), None
        return spans, stable, fence[0]
    return spans, stable, None


def _opens(opener: re.Match[str]) -> bool:
    info = opener.group(2)
    return not (opener.group(1)[0] == "`" and "`" in info) and not _CITED.search(info)


def _closes(body: str, char: str, length: int) -> bool:
    stripped = body.lstrip(" ")
    if len(body) - len(stripped) > 3:
        return False
    n = _run(stripped, char)
    return n >= length and not _MARKER.sub("", stripped[n:]).strip()


def _run(text: str, char: str) -> int:
    return len(text) - len(text.lstrip(char))


def _inline(text: str, start: int, end: int, decided: bool, undecided: object) -> list[tuple[int, int]]:
    """Inline code spans in ``text[start:end]`` (one line): a backtick run up to the next run of the
    same length. An unmatched run on a line that is not complete yet is reported as ``undecided``."""
    spans: list[tuple[int, int]] = []
    runs = [(m.start() + start, len(m.group())) for m in _BACKTICKS.finditer(text, start, end)]
    i = 0
    while i < len(runs):
        at, size = runs[i]
        match = next((j for j in range(i + 1, len(runs)) if runs[j][1] == size), None)
        if match is None:
            if not decided:
                undecided(at)  # type: ignore[operator]
                break
            i += 1
            continue
        if not decided and runs[match][0] + size == end:  # the closing run may still grow
            undecided(at)  # type: ignore[operator]
            break
        spans.append((at, runs[match][0] + size))
        i = match + 1
    return spans


class InlineSources:
    """The citation resolver for clients that drop extension fields (``citations: "inline"``): the
    answer, numbered by ``numbering``, then a short numbered Sources block (``sources_block``) at its
    end, when it cites anything. Given out at ``flush``, so a streamed and a whole answer end alike."""

    def __init__(self, numbering: CitationNumbering) -> None:
        self.numbering = numbering
        self._done = False

    @property
    def used(self) -> list[Citation]:
        return self.numbering.used

    def feed(self, text: str) -> str:
        return self.numbering.feed(text)

    def flush(self) -> str:
        rest = self.numbering.flush()
        if self._done or not self.numbering.used:
            return rest
        self._done = True
        return rest + sources_block(self.numbering.used)


def sources_block(citations: list[Citation]) -> str:
    """``\n\nSources:\n[1] guide.pdf, p. 3\n[2] notes/ferry.md``: one line per citation, as numbered."""
    lines = [f"[{c.number}] {c.source}" + (f", {c.location(short=True)}" if c.page is not None else "")
             for c in citations]
    return "\n\nSources:\n" + "\n".join(lines)


def resolve_citations(result: AgentResult, book: CitationBook) -> AgentResult:
    """``result`` with its answer renumbered and exactly the citations it uses (a whole answer;
    the turn owner does the same for every run, streamed or not)."""
    numbering = CitationNumbering(book)
    content = numbering.text(result.content)
    if content != result.content:
        content = content.strip()
    return replace(result, content=content, citations=numbering.used)


__all__ = ["CitationNumbering", "InlineSources", "code_spans", "resolve_citations", "sources_block"]
