"""Splitters: Document -> chunks no longer than ``chunk_size`` (tokens or characters).

``recursive`` cuts at paragraph, line, sentence, word and character boundaries; ``markdown``
first cuts at headings and records the heading path of every chunk.
"""

from __future__ import annotations

from ragkit.splitters.base import Span, Splitter
from ragkit.splitters.markdown import MarkdownSplitter
from ragkit.splitters.recursive import SENTENCE, RecursiveSplitter

__all__ = ["SENTENCE", "MarkdownSplitter", "RecursiveSplitter", "Span", "Splitter"]
