"""Maximal marginal relevance (Carbonell & Goldstein 1998): relevant *and* diverse results.

Greedy: pick the candidate maximizing
``lambda_mult * sim(query, d) - (1 - lambda_mult) * max(sim(d, s) for s already picked)``,
with cosine similarity. ``lambda_mult=1`` keeps the relevance order; ``0`` maximizes diversity.
Ties go to the earlier candidate, so the result is deterministic. Registered as the ``mmr``
retriever, which wraps another (``base``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ragkit.errors import ConfigError
from ragkit.registry import retrievers
from ragkit.retrieval.base import Retriever, check_k
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

if TYPE_CHECKING:
    from ragkit.embedders.base import Embedder


def _unit_rows(arr: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(arr, axis=-1, keepdims=True)
    return arr / np.where(norms == 0, 1.0, norms)


def mmr_select(
    query_vector: np.ndarray,
    candidate_vectors: np.ndarray,
    *,
    k: int,
    lambda_mult: float = 0.5,
) -> list[int]:
    """Indices of up to ``k`` candidates in MMR order."""
    check_k(k)
    if not 0.0 <= lambda_mult <= 1.0:
        raise ConfigError(f"lambda_mult must be between 0 and 1 (got {lambda_mult})")
    cands = np.asarray(candidate_vectors, dtype=np.float64)
    if cands.size == 0:
        return []
    if cands.ndim != 2:
        raise ConfigError(f"candidate vectors must be a 2-d array (got shape {cands.shape})")
    query = np.asarray(query_vector, dtype=np.float64).reshape(-1)
    if query.shape[0] != cands.shape[1]:
        raise ConfigError(
            f"query vector has {query.shape[0]} dimensions but candidates have {cands.shape[1]}"
        )
    cands = _unit_rows(cands)
    relevance = cands @ _unit_rows(query)
    pairwise = cands @ cands.T
    chosen: list[int] = []
    max_sim = np.full(len(cands), -np.inf)
    available = np.ones(len(cands), dtype=bool)
    for _ in range(min(k, len(cands))):
        redundancy = np.where(np.isfinite(max_sim), max_sim, 0.0)
        score = lambda_mult * relevance - (1.0 - lambda_mult) * redundancy
        score[~available] = -np.inf
        best = int(np.argmax(score))  # first maximum: ties go to the earlier candidate
        chosen.append(best)
        available[best] = False
        max_sim = np.maximum(max_sim, pairwise[best])
    return chosen


def mmr_rerank(
    hits: Sequence[SearchHit],
    *,
    query_vector: np.ndarray,
    hit_vectors: np.ndarray,
    k: int,
    lambda_mult: float = 0.5,
) -> list[SearchHit]:
    """Reorder ``hits`` by MMR; scores are kept from the original retrieval."""
    if len(hits) != len(hit_vectors):
        raise ConfigError(f"got {len(hits)} hits but {len(hit_vectors)} hit vectors")
    order = mmr_select(query_vector, hit_vectors, k=k, lambda_mult=lambda_mult)
    return [hits[i] for i in order]


@retrievers.register("mmr")
class MMRRetriever:
    """Wraps a retriever: fetch ``candidates`` hits, embed their texts, keep k by MMR.

    In a pipeline: ``retriever: {type: mmr, base: {type: hybrid}, lambda_mult: 0.5}``."""

    needs: frozenset[str] = frozenset()  # what its base needs; the embedder is always there

    def __init__(
        self, *, base: Retriever, embedder: Embedder, lambda_mult: float = 0.5, candidates: int = 20
    ) -> None:
        if not 0.0 <= lambda_mult <= 1.0:
            raise ConfigError(f"lambda_mult must be between 0 and 1 (got {lambda_mult})")
        self.base = base
        self.embedder = embedder
        self.lambda_mult = lambda_mult
        self.candidates = check_k(candidates, name="candidates")

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        check_k(k)
        hits = self.base.retrieve(query, k=max(k, self.candidates), filter=filter)
        if not hits:
            return []
        vectors = self.embedder.embed_documents([h.text for h in hits])
        return mmr_rerank(
            hits,
            query_vector=self.embedder.embed_query(query),
            hit_vectors=vectors,
            k=k,
            lambda_mult=self.lambda_mult,
        )
