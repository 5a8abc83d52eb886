"""The Splitter contract and the helpers both built-in splitters share.

A splitter turns one :class:`~ragkit.types.Document` into :class:`~ragkit.types.Chunk` objects.
Every chunk is an exact slice of the document text (``doc.text[chunk.start:chunk.end] ==
chunk.text``), stripped of leading and trailing whitespace, and never longer than the splitter's
``chunk_size`` in its unit (tokens of the embedder, or characters).

*Contextual chunk headers* (the splitters' ``context_header`` option): a chunk also records where
it sits, the document's title and its heading path ("Configuration > Build directories >
dev_addr"), in its ``context_header`` metadata. The header is prepended to the text that is
embedded and indexed by BM25 (:func:`ragkit.types.indexed_text`), never to the text shown or
cited. A part the chunk's first line opens or ends with (a section's own heading line, an
encyclopedia entry that starts with its title) is not repeated, and the splitter keeps header and text together
within ``chunk_size``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import takewhile
from typing import Any, NamedTuple, Protocol, runtime_checkable

from ragkit import ids
from ragkit.markdown_tables import TABLE_HEADER, table_bodies
from ragkit.types import CONTEXT_HEADER, Chunk, Document, indexed_text


class Span(NamedTuple):
    """A half-open character range ``[start, end)`` of a document's text."""

    start: int
    end: int


@runtime_checkable
class Splitter(Protocol):
    """Anything with ``split(doc) -> list[Chunk]`` is a splitter."""

    def split(self, doc: Document) -> list[Chunk]: ...


def strip_span(text: str, start: int, end: int) -> Span:
    """Shrink ``[start, end)`` so it neither starts nor ends with whitespace (may become empty)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)


def page_at(offsets: Sequence[Sequence[int]], start: int) -> int:
    """The page of the character at ``start``, given ``[offset, page]`` pairs in text order."""
    i = bisect.bisect_right([o for o, _ in offsets], start) - 1
    return int(offsets[max(i, 0)][1])


def chunk_part(doc: Document) -> str | int:
    """The page/row key of a document, part of its chunks' ids (see :func:`ragkit.ids.chunk_id`)."""
    part = doc.metadata.get("page", doc.metadata.get("row", ""))
    return part if isinstance(part, int) else str(part)


HEADER_SEPARATOR = " > "
#: a header may take at most this share of ``chunk_size``; a longer one is shortened (title and
#: innermost heading, then the innermost heading alone, then none)
HEADER_SHARE = 0.25


def header_parts(doc: Document, headings: Sequence[str] = ()) -> list[str]:
    """The document's title, then the heading path, with empty parts and a heading that repeats
    the part before it (a title that is also the first heading) left out."""
    parts: list[str] = []
    for raw in (str(doc.metadata.get("title") or ""), *headings):
        part = " ".join(raw.split())
        if part and (not parts or part.lower() != parts[-1].lower()):
            parts.append(part)
    return parts


def fit_header(parts: Sequence[str], measure: Callable[[str], int], chunk_size: int) -> tuple[list[str], int]:
    """The header parts that fit in ``HEADER_SHARE`` of ``chunk_size`` (see above) and the room
    they take (the header and the blank line after it)."""
    budget = int(chunk_size * HEADER_SHARE)
    for choice in (list(parts), [parts[0], parts[-1]] if len(parts) > 2 else [], parts[-1:]):
        if choice:
            room = measure(HEADER_SEPARATOR.join(choice) + "\n\n")
            if room <= budget:
                return choice, room
    return [], 0


def chunk_header(parts: Sequence[str], text: str) -> str:
    """The header of one chunk: ``parts`` joined, without one its first line opens or ends with,
    compared word for word (the section's own heading line, an entry that starts with its title,
    a table row's "table: president heights" under the title ``president_heights``), or one of
    the Markdown heading lines it opens with says ("## Build directories", "### dev_addr")."""
    lines = [line for line in text.lstrip().split("\n") if line.strip()]
    opening = lines[:1]
    if lines and HEADING_LINE.match(lines[0]):
        opening = list(takewhile(HEADING_LINE.match, lines))
    said = [_words(line) for line in opening]
    return HEADER_SEPARATOR.join(p for p in parts if not any(_says(line, _words(p)) for line in said))


#: a Markdown ATX heading line (``#`` to ``######``): its level marks and its title
HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def _says(line: list[str], part: list[str]) -> bool:
    n = len(part)
    return bool(part) and (line[:n] == part or line[-n:] == part)


def make_chunks(
    doc: Document, spans: Iterable[tuple[Span, Mapping[str, Any]]], *, header: Sequence[str] | None = None
) -> list[Chunk]:
    """Build chunks from ``(span, extra metadata)`` pairs; whitespace-only spans are skipped.

    Ordinals (``chunk_index``) count the chunks actually produced, so ids are deterministic. A
    document whose pages are parts of one text (a notebook's cells) lists them in its
    ``page_offsets`` metadata (``[offset, page]`` pairs): each chunk gets the page it starts on.
    ``header``: the parts of the document's contextual header (see the module docstring); an
    extra ``header`` key of a span's metadata gives that span's own parts. The id covers the text
    that is embedded (header included), so a chunk whose heading changed is embedded again. A chunk
    that starts among a Markdown table's rows, below its header, records that header row in its
    ``table_header`` metadata (shown to no one, not embedded: the answerer labels the rows with it).
    """
    source, part = doc.source, chunk_part(doc)
    offsets = doc.metadata.get("page_offsets")
    base = {k: v for k, v in doc.metadata.items() if k != "page_offsets"}
    tables = table_bodies(doc.text)
    table_starts = [t.start for t in tables]
    chunks: list[Chunk] = []
    for span, extra in spans:
        start, end = strip_span(doc.text, span.start, span.end)
        if start >= end:
            continue
        text = doc.text[start:end]
        ordinal = len(chunks)
        metadata = {**base, **{k: v for k, v in extra.items() if k != "header"}, "chunk_index": ordinal}
        if (k := bisect.bisect_right(table_starts, start) - 1) >= 0 and start < tables[k].end:
            metadata[TABLE_HEADER] = tables[k].header
        if offsets:
            part = metadata["page"] = page_at(offsets, start)
        parts = extra.get("header", header)
        if parts is not None and (line := chunk_header(parts, text)):
            metadata[CONTEXT_HEADER] = line
        chunks.append(
            Chunk(id=ids.chunk_id(source, part, ordinal, indexed_text(text, metadata)), text=text, start=start,
                  end=end, metadata=metadata)
        )
    return chunks


__all__ = [
    "HEADER_SEPARATOR", "Span", "Splitter", "chunk_header", "chunk_part", "fit_header", "header_parts",
    "make_chunks", "page_at", "strip_span",
]
