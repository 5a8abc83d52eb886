"""Heading-aware Markdown splitting.

The document is cut into sections at ATX headings (``#`` to ``######``; a ``#`` line inside a
fenced code block is not a heading, and a fence that no later line closes fences nothing). Each
section, heading line included, is split with the recursive algorithm, so no chunk spans two
sections and every chunk's metadata carries the heading path: ``headings`` (e.g. ``["Guide", "Install", "Linux"]``) and ``heading``
(``"Guide > Install > Linux"``); a heading written wholly in bold or italics (``## **Cause**``) is
its words there. Text before the first heading has an empty path. Setext
headings (underlined with ``===``/``---``) are not recognised. A heading is not a chunk of its
own: a heading with nothing under it opens the section that follows it ("# Chapter 22" then "##
Scheme: An Uncommon Lisp" are one section, with the second's path; so does a run of them), and when a section's text
after its heading does not fit beside it, that text is split with the heading's room kept free
and the heading opens its first chunk.

With ``context_header`` on, each chunk also records its contextual header: the document's title
and the heading path (``ragkit.splitters.base``), embedded and indexed with the chunk, never shown.

Only Markdown is cut at headings: a document whose ``mime`` says it is something else (a ``#``
line in plain text or code is a comment, not a heading) is split by the recursive algorithm
alone, without heading metadata. A document without ``mime`` is taken to be Markdown, and so is
one whose ``markup`` metadata is ``markdown``: a loader that writes another format out as
Markdown-structured text (reStructuredText, notebooks) keeps the file's own ``mime``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ragkit.registry import splitters
from ragkit.splitters.base import HEADING_LINE, Span, header_parts, make_chunks
from ragkit.splitters.recursive import RecursiveSplitter
from ragkit.types import Chunk, Document

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
MARKDOWN_MIMES = frozenset({"text/markdown", "text/x-markdown"})


@dataclass(frozen=True)
class Section:
    """``[start, end)`` of the document text under the heading path ``headings``."""

    start: int
    end: int
    headings: tuple[str, ...]


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line without its newline) for every line of ``text``."""
    pos = 0
    for line in text.splitlines(keepends=True):
        yield pos, line.rstrip("\r\n")
        pos += len(line)


def _headings(text: str) -> Iterator[tuple[int, int, str]]:
    """(offset, level, title) of every ATX heading outside fenced code blocks. A fence that no
    later line closes fences nothing, as Python-Markdown (MkDocs) reads it: one stray fence in a
    long change log would otherwise hide every heading after it, and leave their sections under
    the heading before it."""
    lines = list(_lines(text))
    closable = _closable_fences(lines)
    fence: str | None = None  # the opening fence's characters while inside a code block
    for i, (offset, line) in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence is not None:
            if _closes(fence_match, fence):
                fence = None
            continue
        if fence_match and not (fence_match.group(1)[0] == "`" and "`" in fence_match.group(2)) \
                and len(fence_match.group(1)) <= closable[fence_match.group(1)[0]][i + 1]:
            fence = fence_match.group(1)
            continue
        heading = HEADING_LINE.match(line)
        if heading:
            yield offset, len(heading.group(1)), _unemphasised((heading.group(2) or "").strip())


#: a heading written wholly in bold or italics (``## **Cause**``, ``### _Mitigation_``): its
#: emphasis is styling, and the path says the words alone
_EMPHASISED = re.compile(r"(\*\*|__|\*|_)(?=\S)(.{1,500}?)(?<=\S)\1")


def _unemphasised(title: str) -> str:
    """``title`` without emphasis that wraps all of it ("**Cause**" -> "Cause"); a title that is
    emphasised in part ("**Note:** on proxies") stays as written."""
    whole = _EMPHASISED.fullmatch(title)
    return whole.group(2).strip() if whole and whole.group(1) not in whole.group(2) else title


def _closes(fence_match: re.Match[str] | None, fence: str) -> bool:
    """Whether a line (its ``_FENCE`` match) closes a code block opened with ``fence``."""
    marker = fence_match.group(1) if fence_match else ""
    return bool(marker) and marker[0] == fence[0] and len(marker) >= len(fence) and not fence_match.group(2).strip()


def _closable_fences(lines: list[tuple[int, str]]) -> dict[str, list[int]]:
    """For each fence character, the longest closing fence at or after each line (0: none), so
    an opening fence is known to be closed without reading ahead from every opener."""
    longest = {"`": [0] * (len(lines) + 1), "~": [0] * (len(lines) + 1)}
    for i in range(len(lines) - 1, -1, -1):
        for after in longest.values():
            after[i] = after[i + 1]
        match = _FENCE.match(lines[i][1])
        if match and not match.group(2).strip():
            after = longest[match.group(1)[0]]
            after[i] = max(after[i], len(match.group(1)))
    return longest


def is_markdown(doc: Document) -> bool:
    """True unless the document's ``mime`` names another format (``markup: markdown`` says the
    text is Markdown whatever the file was)."""
    if doc.metadata.get("markup") == "markdown":
        return True
    mime = doc.metadata.get("mime")
    return not mime or str(mime).split(";")[0].strip().lower() in MARKDOWN_MIMES


def sections(text: str) -> list[Section]:
    """Cut ``text`` into sections at headings; each carries its path from the root heading."""
    result: list[Section] = []
    stack: list[tuple[int, str]] = []  # (level, title) from the root down
    start, path = 0, ()
    for offset, level, title in _headings(text):
        if offset > start and not (path and _heading_only(text[start:offset])):
            result.append(Section(start, offset, path))
            start = offset
        # a heading with nothing under it opens the next section ("# Chapter 22" over "## Scheme:
        # An Uncommon Lisp"): alone it would be a chunk that answers nothing
        stack = [h for h in stack if h[0] < level] + [(level, title)]
        path = tuple(t for _, t in stack)
    if start < len(text) or not result:
        result.append(Section(start, len(text), path))
    return result


def _heading_lines(text: str) -> bool:
    """Whether ``text`` is heading lines only (one, or a heading with nothing under it and the
    one it opens)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return bool(lines) and all(HEADING_LINE.match(line) for line in lines)


def _heading_only(text: str) -> bool:
    """Whether a section's text is heading lines and nothing else: its heading, or a run of
    headings with nothing under them ("# Fastify", "## Logging" over "### Enable Logging")."""
    return all(not line.strip() or HEADING_LINE.match(line) for line in text.strip().splitlines())


@splitters.register("markdown")
class MarkdownSplitter(RecursiveSplitter):
    """Split Markdown by heading sections, then each section recursively (the recursive
    splitter's options)."""

    def split(self, doc: Document) -> list[Chunk]:
        """Chunks of ``doc`` that never span two sections, with ``headings``/``heading`` metadata
        (and the contextual header, with ``context_header``)."""
        if not is_markdown(doc):
            return super().split(doc)
        return make_chunks(doc, self._spans(doc))

    def _spans(self, doc: Document) -> Iterator[tuple[Span, dict[str, Any]]]:
        text = doc.text
        for section in sections(text):
            extra: dict[str, Any] = {"headings": list(section.headings), "heading": " > ".join(section.headings)}
            splitter: RecursiveSplitter = self
            if self.context_header:
                extra["header"], room = splitter.header_room(header_parts(doc, section.headings))
                splitter = splitter.with_room(room)
            for span in _heading_joined(splitter, text, section):
                yield span, extra


def _heading_joined(splitter: RecursiveSplitter, text: str, section: Section) -> list[Span]:
    """The section's spans; when the first would hold only the heading (the text after it does
    not fit beside it), the text after it split with the heading's room kept free and the heading
    joined to its first span: a heading alone is no passage (it answers nothing, yet a query
    naming its words ranks it first). Where even that does not fit, the spans as they were."""
    spans = splitter.split_spans(text, section.start, section.end)
    if len(spans) < 2 or not _heading_lines(text[spans[0].start : spans[0].end]):
        return spans
    room = splitter.measure(text[spans[0].start : spans[1].start])
    body = splitter.with_room(room).split_spans(text, spans[0].end, section.end)
    if not body or splitter.measure(text[spans[0].start : body[0].end]) > splitter.chunk_size:
        return spans
    return [Span(spans[0].start, body[0].end), *body[1:]]


__all__ = ["MARKDOWN_MIMES", "MarkdownSplitter", "Section", "is_markdown", "sections"]
