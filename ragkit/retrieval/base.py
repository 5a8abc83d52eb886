"""The Retriever contract: a query in, ranked ``SearchHit`` s out.

Every retriever (dense, bm25, hybrid, reranking wrappers) takes the same metadata ``filter``
(``ragkit.stores.filters``) and passes it down to whatever it searches; a retriever never drops a
filter silently. ``score`` is retriever-specific (cosine, BM25, fused); higher is better.
``min_score`` (a retriever spec's key, or per search) drops the hits scoring below it, in the
units of the score the retriever gives (``MinScore``; the meaning per kind: docs/guides/retrieval.md).

A registered retriever class declares what it ``needs`` of the index: ``"dense"`` (the embedder
and the vector store) and/or ``"lexical"`` (the BM25 index). A wrapper (``rerank``, ``mmr``)
takes a ``base`` retriever spec and needs what its base needs. ``retriever_needs`` (defined in
:mod:`ragkit.wiring`, with what the pipeline wires into a retriever) reads
this from a spec, so whether an index keeps a BM25 index is decided in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ragkit import wiring
from ragkit.errors import ConfigError
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit
from ragkit.wiring import check_min_score

#: keys of a retriever spec that the pipeline consumes itself (not constructor arguments)
PIPELINE_KEYS = frozenset({"type"}) | wiring.PIPELINE_KEYS["retriever"]


@runtime_checkable
class Retriever(Protocol):
    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]: ...


def check_k(k: int, *, name: str = "k") -> int:
    """Validate a result count: ``k must be at least 1 (got 0)``."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"{name} must be an integer of at least 1 (got {k!r})")
    return k


def above(hits: Sequence[SearchHit], min_score: float | None) -> list[SearchHit]:
    """The hits scoring at least ``min_score`` (all of them when it is ``None``), in their order."""
    return list(hits) if min_score is None else [h for h in hits if h.score >= min_score]


class MinScore:
    """A retriever whose hits scoring below ``min_score`` are dropped (so fewer than ``k`` may come
    back); everything else is the wrapped retriever's."""

    def __init__(self, retriever: Retriever, min_score: float) -> None:
        self.retriever = retriever
        self.min_score = check_min_score(min_score)

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        return above(self.retriever.retrieve(query, k=k, filter=filter), self.min_score)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.retriever, name)


__all__ = ["PIPELINE_KEYS", "MinScore", "Retriever", "above", "check_k"]
