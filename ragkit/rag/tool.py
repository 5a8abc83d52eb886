"""``search_knowledge_base``: the retrieval tool the RAG agent calls.

It returns numbered passages (source path, page, heading, score, text) as the model-facing text,
structured ``Citation``s for the agent to keep, and the embedding usage of the query so the
agent's usage shows what retrieval cost. Numbers are unique within one ``ask``: a ``CitationBook``
(injected per run, invisible to the model) gives each distinct chunk one number, so two searches
never reuse a number and every [n] in the answer resolves.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ragkit.rag.passages import format_passage
from ragkit.rag.prompts import NO_RESULTS, PASSAGES_HEADER
from ragkit.tools import Tool, ToolOutput, tool
from ragkit.types import Citation, SearchHit
from ragkit.usage import UsageStats

if TYPE_CHECKING:
    from ragkit.index.reader import KnowledgeBase

MAX_TOP_K = 20


class CitationBook:
    """Numbers the passages of one question: the same chunk always gets the same number."""

    def __init__(self) -> None:
        self._by_chunk: dict[str, Citation] = {}
        self._lock = threading.Lock()

    def number(self, hit: SearchHit) -> Citation:
        with self._lock:
            if hit.id not in self._by_chunk:
                self._by_chunk[hit.id] = Citation.from_hit(len(self._by_chunk) + 1, hit)
            return self._by_chunk[hit.id]

    def get(self, number: int) -> Citation | None:
        return next((c for c in self._by_chunk.values() if c.number == number), None)

    def all(self) -> list[Citation]:
        return sorted(self._by_chunk.values(), key=lambda c: c.number)


def following(anchor: Citation, k: int = 1) -> dict[str, Any] | None:
    """The filter of the ``k`` or so passages that follow ``anchor`` in its file: those that start
    inside it (a chunk overlaps the one before it) or within ``k`` of its lengths after it; None
    when the anchor has no offsets (nothing to read on from)."""
    if anchor.start is None or anchor.end is None:
        return None
    return {"source": anchor.source, "start": {"$gt": anchor.start, "$lte": anchor.end + k * (anchor.end - anchor.start)}}


def make_search_tool(
    kb: KnowledgeBase, *, default_top_k: int = 5, retriever: str | Mapping[str, Any] | None = None,
    default_min_score: float | None = None,
) -> Tool:
    """Bind ``search_knowledge_base`` to an opened ``KnowledgeBase``; ``retriever`` overrides the
    pipeline's (a registry name such as ``rerank``/``mmr``, or a retriever spec mapping);
    ``default_min_score``: the threshold of a call that gives none (else the retriever's own)."""
    lock = threading.Lock()  # keeps the per-call embedding usage exact under parallel calls
    pricing_name = getattr(kb.embedder, "pricing_name", kb.embedder.model_id)

    @tool(inject=["book"])
    def search_knowledge_base(query: str, top_k: int = default_top_k, source: str | None = None,
                              min_score: float | None = default_min_score, after: int | None = None,
                              book: CitationBook | None = None) -> ToolOutput:
        """Search the knowledge base (the user's documents) for passages relevant to a query.

        Args:
            query: What to look for, in natural language (a question or key words).
            top_k: How many passages to return, 1 to 20.
            source: Optional glob limiting the search to matching source paths, e.g. "*.pdf".
            min_score: Optional lowest relevance score a passage may have (in the retriever's units).
            after: Optional number [n] of a passage an earlier search returned: returns the
                passages that follow it in its file, in order (to read on where it stops, e.g. a
                list that continues).
        """
        if not query.strip():
            raise ValueError("query must not be empty; pass the words to search for")
        k = max(1, min(int(top_k), MAX_TOP_K))
        flt: dict[str, Any] | None = {"source": {"$glob": source}} if source else None
        if after is not None:
            anchor = book.get(int(after)) if book is not None else None
            if anchor is None:
                raise ValueError(f"after={after}: no passage [{after}] was returned earlier in this conversation; "
                                 "pass the number of a passage an earlier search returned")
            flt = following(anchor, k)
        with lock:
            before = kb.embedder.usage.snapshot()
            nothing_after = after is not None and flt is None
            hits = [] if nothing_after else kb.search(query, k=k, filter=flt, kind=retriever, min_score=min_score)
            used = kb.embedder.usage.since(before)
        if after is not None:
            hits = sorted(hits, key=lambda h: int(h.metadata.get("start") or 0))
        usage = UsageStats(embedding_tokens=used.tokens, cost=used.cost, embedding_model=pricing_name)
        book = book if book is not None else CitationBook()
        cites = [book.number(h) for h in hits]
        if not cites:
            return ToolOutput(content=NO_RESULTS, usage=usage, citations=[], data=[])
        content = PASSAGES_HEADER + "\n\n" + "\n\n".join(format_passage(c) for c in cites)
        return ToolOutput(content=content, usage=usage, citations=cites, data=[h.to_dict() for h in hits])

    return search_knowledge_base
