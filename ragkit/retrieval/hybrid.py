"""Hybrid retrieval: a dense and a lexical retriever, fused.

Both retrievers get the same filter and return up to ``candidates`` hits each; the lists are
fused with reciprocal rank fusion (``fusion="rrf"``) or a convex combination of normalized scores
(``"minmax"`` or ``"zscore"``), with ``weight`` the dense share (lexical gets ``1 - weight``).
For RRF the weights are scaled by 2, so the default ``weight=0.5`` is plain, unweighted RRF.
"""

from __future__ import annotations

import logging

from ragkit.errors import ConfigError
from ragkit.registry import retrievers
from ragkit.retrieval.base import Retriever, check_k
from ragkit.retrieval.fusion import convex_combination, reciprocal_rank_fusion
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

log = logging.getLogger(__name__)
FUSIONS = ("rrf", "minmax", "zscore")


@retrievers.register("hybrid")
class HybridRetriever:
    """Dense + lexical retrieval with a choice of fusion."""

    needs = frozenset({"dense", "lexical"})

    def __init__(
        self,
        *,
        dense: Retriever,
        lexical: Retriever,
        fusion: str = "rrf",
        rrf_k: float = 60,
        weight: float = 0.5,
        candidates: int = 100,
    ) -> None:
        if fusion not in FUSIONS:
            raise ConfigError(f"unknown fusion {fusion!r}; allowed: {', '.join(FUSIONS)}")
        if not 0.0 <= weight <= 1.0:
            raise ConfigError(f"weight (the dense share) must be between 0 and 1 (got {weight})")
        if rrf_k < 0:
            raise ConfigError(f"rrf_k must be non-negative (got {rrf_k})")
        self.dense = dense
        self.lexical = lexical
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.weight = float(weight)
        self.candidates = check_k(candidates, name="candidates")

    @property
    def params(self) -> dict[str, object]:
        return {
            "fusion": self.fusion,
            "rrf_k": self.rrf_k,
            "weight": self.weight,
            "candidates": self.candidates,
        }

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        check_k(k)
        n = max(self.candidates, k)
        dense_hits = self.dense.retrieve(query, k=n, filter=filter)
        lexical_hits = self.lexical.retrieve(query, k=n, filter=filter)
        return self.fuse(dense_hits, lexical_hits)[:k]

    def fuse(self, dense_hits: list[SearchHit], lexical_hits: list[SearchHit]) -> list[SearchHit]:
        """Fuse two candidate lists with this retriever's settings (useful for sweeps)."""
        weights = [self.weight, 1.0 - self.weight]
        if self.fusion == "rrf":
            return reciprocal_rank_fusion(
                [dense_hits, lexical_hits], k=self.rrf_k, weights=[2 * w for w in weights]
            )
        return convex_combination([dense_hits, lexical_hits], weights=weights, normalization=self.fusion)
