"""The Splitter contract and the helpers both built-in splitters share.

A splitter turns one :class:`~ragkit.types.Document` into :class:`~ragkit.types.Chunk` objects.
Every chunk is an exact slice of the document text (``doc.text[chunk.start:chunk.end] ==
chunk.text``), stripped of leading and trailing whitespace, and never longer than the splitter's
``chunk_size`` in its unit (tokens of the embedder, or characters).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

from ragkit import ids
from ragkit.types import Chunk, Document


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


def make_chunks(
    doc: Document, spans: Iterable[tuple[Span, Mapping[str, Any]]]
) -> list[Chunk]:
    """Build chunks from ``(span, extra metadata)`` pairs; whitespace-only spans are skipped.

    Ordinals (``chunk_index``) count the chunks actually produced, so ids are deterministic. A
    document whose pages are parts of one text (a notebook's cells) lists them in its
    ``page_offsets`` metadata (``[offset, page]`` pairs): each chunk gets the page it starts on.
    """
    source, part = doc.source, chunk_part(doc)
    offsets = doc.metadata.get("page_offsets")
    base = {k: v for k, v in doc.metadata.items() if k != "page_offsets"}
    chunks: list[Chunk] = []
    for span, extra in spans:
        start, end = strip_span(doc.text, span.start, span.end)
        if start >= end:
            continue
        text = doc.text[start:end]
        ordinal = len(chunks)
        metadata = {**base, **extra, "chunk_index": ordinal}
        if offsets:
            part = metadata["page"] = page_at(offsets, start)
        chunks.append(
            Chunk(id=ids.chunk_id(source, part, ordinal, text), text=text, start=start, end=end,
                  metadata=metadata)
        )
    return chunks


__all__ = ["Span", "Splitter", "chunk_part", "make_chunks", "page_at", "strip_span"]
