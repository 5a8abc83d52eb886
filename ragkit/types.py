"""The value types that flow through a pipeline. All frozen: build new ones, never mutate."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ragkit.markdown_tables import TABLE_HEADER

Metadata = dict[str, Any]

#: the chunk metadata key of its contextual header: where the passage sits (the document's title
#: and heading path, "Configuration > Build directories > dev_addr"), set by the splitter when its
#: ``context_header`` option is on
CONTEXT_HEADER = "context_header"


def indexed_text(text: str, metadata: Mapping[str, Any]) -> str:
    """The text of a chunk that is embedded and indexed by BM25: its contextual header (when the
    splitter gave it one), a blank line, then its text. What is shown and cited is the chunk's own
    text (its offsets stay exact); only the vector and the BM25 terms see the header."""
    header = metadata.get(CONTEXT_HEADER)
    return f"{header}\n\n{text}" if header else text


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

    @property
    def indexed_text(self) -> str:
        """What is embedded and indexed by BM25 (see :func:`indexed_text`)."""
        return indexed_text(self.text, self.metadata)


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


def _text_or_none(value: object) -> str | None:
    if isinstance(value, (list, tuple)):  # names kept as a list (an e-book's authors)
        value = ", ".join(str(v) for v in value if v)
    return str(value) if value not in (None, "") else None


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
    page_unit: str = "page"  # what ``page`` counts: "cell" for a notebook (the loader's page_unit)
    title: str | None = None  # the document's title, when its loader found one
    #: the document's byline: a paper's authors (``ragkit.loaders.pdf_paper``), an e-book's author,
    #: a message's sender (a loader's ``authors`` or ``author`` metadata)
    authors: str | None = None
    references: bool = False  # the passage is part of a reference list (weighed down in answers)
    ocr: bool = False  # the passage's text was read by OCR (a scanned page or an image)
    #: the header row of the Markdown table the passage starts in, below that header (the chunk's
    #: ``table_header``, ``ragkit.markdown_tables``): what labels the cells of the rows it opens with
    table_header: str | None = None

    @classmethod
    def from_hit(cls, number: int, hit: SearchHit) -> Citation:
        """The citation [number] of a search hit, from its chunk's metadata."""
        m = hit.metadata
        return cls(
            number=number, source=hit.source, chunk_id=hit.id, page=m.get("page"), start=m.get("start"),
            end=m.get("end"), heading=m.get("heading"), score=round(float(hit.score), 4), text=hit.text,
            page_unit=str(m.get("page_unit") or "page"), title=_text_or_none(m.get("title")),
            authors=_text_or_none(m.get("authors") or m.get("author")), references=bool(m.get("references")),
            ocr=bool(m.get("ocr")), table_header=_text_or_none(m.get(TABLE_HEADER)),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def location(self, *, short: bool = False) -> str:
        """``page 3`` (``p. 3`` when short), ``cell 3`` for a notebook, ``""`` without a page;
        ``page 3 (OCR)`` when its text was read by OCR."""
        if self.page is None:
            return ""
        unit = "p." if short and self.page_unit == "page" else self.page_unit
        return f"{unit} {self.page}" + (" (OCR)" if self.ocr else "")
