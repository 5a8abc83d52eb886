"""Passages an answer test gives the extractive answerer: a writer's Markdown split as the
pipeline splits it, each chunk a numbered passage with its source and heading path."""

from __future__ import annotations

from ragkit.rag.passages import Passage
from ragkit.splitters.markdown import MarkdownSplitter
from ragkit.types import Document


def markdown_passages(text: str, source: str, *, chunk_size: int = 400) -> list[Passage]:
    """``text`` (Markdown) cut into chunks of ``chunk_size`` characters, as numbered passages."""
    chunks = MarkdownSplitter(chunk_size=chunk_size, chunk_overlap=0, unit="chars").split(
        Document(text=text, metadata={"source": source, "markup": "markdown"}))
    return [Passage(n, c.text, {"source": source, "heading": c.metadata["heading"]}) for n, c in enumerate(chunks, 1)]
