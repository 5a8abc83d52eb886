"""The Retriever contract: a query in, ranked ``SearchHit`` s out.

Every retriever (dense, bm25, hybrid, reranking wrappers) takes the same metadata ``filter``
(``ragkit.stores.filters``) and passes it down to whatever it searches; a retriever never drops a
filter silently. ``score`` is retriever-specific (cosine, BM25, fused); higher is better.

A registered retriever class declares what it ``needs`` of the index: ``"dense"`` (the embedder
and the vector store) and/or ``"lexical"`` (the BM25 index). A wrapper (``rerank``, ``mmr``)
takes a ``base`` retriever spec and needs what its base needs. ``retriever_needs`` (defined in
:mod:`ragkit.wiring`, with what the pipeline wires into a retriever) reads
this from a spec, so whether an index keeps a BM25 index is decided in one place.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ragkit import wiring
from ragkit.errors import ConfigError
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

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


__all__ = ["PIPELINE_KEYS", "Retriever", "check_k"]
