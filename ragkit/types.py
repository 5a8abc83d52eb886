"""The value types that flow through a pipeline. All frozen: build new ones, never mutate."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

Metadata = dict[str, Any]


@dataclass(frozen=True)
class Document:
    """Text read from one source (a file, a PDF page, a JSONL row).

    ``metadata`` carries at least ``source`` (path relative to the indexed root) and ``mime``;
    loaders add ``page``, ``title``, ``row`` or ``headings`` where they apply.
    """

    text: str
    metadata: Metadata = field(default_factory=dict)

    @property
    def source(self) -> str:
        return str(self.metadata.get("source", ""))


@dataclass(frozen=True)
class Chunk:
    """A piece of a document, the unit that is embedded and stored.

    ``start``/``end`` are character offsets into the document's text so citations can point
    at the exact span. ``id`` is deterministic (see ``ragkit.ids``).
    """

    id: str
    text: str
    start: int
    end: int
    metadata: Metadata = field(default_factory=dict)

    @property
    def source(self) -> str:
        return str(self.metadata.get("source", ""))


@dataclass(frozen=True)
class SearchHit:
    """One result of a vector or lexical search. Higher ``score`` is better."""

    id: str
    score: float
    metadata: Metadata = field(default_factory=dict)

    @property
    def text(self) -> str:
        return str(self.metadata.get("text", ""))

    @property
    def source(self) -> str:
        return str(self.metadata.get("source", ""))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Citation:
    """Where a numbered passage [n] in an answer came from."""

    number: int
    source: str
    chunk_id: str
    page: int | None = None
    start: int | None = None
    end: int | None = None
    heading: str | None = None
    score: float | None = None
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
