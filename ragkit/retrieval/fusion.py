"""Rank fusion: combine several ranked lists of ``SearchHit`` into one. Pure functions.

- ``reciprocal_rank_fusion``: score(d) = sum_i w_i / (k + rank_i(d)), rank starting at 1
  (Cormack et al. 2009); only ranks matter, so it needs no score calibration.
- ``convex_combination``: score(d) = sum_i w_i * norm_i(score_i(d)), where each list's scores are
  normalized ("minmax" to [0, 1], "zscore", or "dbsf": distribution-based score fusion, which maps
  mean - 3 sigma .. mean + 3 sigma to [0, 1] and clips, so one outlying top score does not squash
  the rest as min-max does); a document missing from a list gets that list's minimum normalized
  value (0 for min-max), i.e. it is treated as the worst retrieved candidate.
- ``score_gap_confidence``: how much a list's top score stands out from the second (1 - s2/s1),
  a per-query signal for weighting that list (adaptive fusion).
- ``boost_matches``: keep one list's order (normalized scores) and add ``boost`` times a match
  score in [0, 1] from another list; documents only in the match list enter at the floor plus
  their boost. Used for dense-first retrieval with a boost for exact matches of rare terms.

The fused hit keeps the metadata of the first list that had the id. Ties are broken by the
best (lowest) rank the document had in any list, then by id, so results are deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ragkit.errors import ConfigError
from ragkit.types import Metadata, SearchHit

NORMALIZATIONS = ("minmax", "zscore", "dbsf")


def _weights(n: int, weights: Sequence[float] | None) -> list[float]:
    if weights is None:
        return [1.0] * n
    ws = [float(w) for w in weights]
    if len(ws) != n:
        raise ConfigError(f"fusion needs one weight per result list (got {len(ws)} weights for {n} lists)")
    if any(w < 0 or math.isnan(w) for w in ws):
        raise ConfigError(f"fusion weights must be non-negative numbers (got {ws})")
    return ws


def _collect(result_lists: Sequence[Sequence[SearchHit]]) -> tuple[dict[str, Metadata], dict[str, int]]:
    meta: dict[str, Metadata] = {}
    best_rank: dict[str, int] = {}
    for hits in result_lists:
        for rank, hit in enumerate(hits, start=1):
            meta.setdefault(hit.id, hit.metadata)
            best_rank[hit.id] = min(best_rank.get(hit.id, rank), rank)
    return meta, best_rank


def _ranked(
    scores: dict[str, float], meta: dict[str, Metadata], best_rank: dict[str, int]
) -> list[SearchHit]:
    order = sorted(scores, key=lambda d: (-scores[d], best_rank[d], d))
    return [SearchHit(id=d, score=scores[d], metadata=meta[d]) for d in order]


def reciprocal_rank_fusion(
    result_lists: Sequence[Sequence[SearchHit]],
    *,
    k: float = 60,
    weights: Sequence[float] | None = None,
) -> list[SearchHit]:
    """Weighted reciprocal rank fusion. A duplicate id within one list counts at its first rank."""
    if k < 0:
        raise ConfigError(f"the RRF constant k must be non-negative (got {k})")
    ws = _weights(len(result_lists), weights)
    meta, best_rank = _collect(result_lists)
    scores: dict[str, float] = {}
    for w, hits in zip(ws, result_lists, strict=True):
        seen: set[str] = set()
        for rank, hit in enumerate(hits, start=1):
            if hit.id in seen:
                continue
            seen.add(hit.id)
            scores[hit.id] = scores.get(hit.id, 0.0) + w / (k + rank)
    return _ranked(scores, meta, best_rank)


def normalize_scores(scores: Sequence[float], method: str) -> list[float]:
    """Min-max to [0, 1] (all equal -> 1.0), z-score (all equal -> 0.0), or DBSF: the
    population mean -/+ 3 standard deviations mapped to 0 and 1, clipped (all equal -> 0.5)."""
    if method not in NORMALIZATIONS:
        raise ConfigError(f"unknown score normalization {method!r}; allowed: {', '.join(NORMALIZATIONS)}")
    if not scores:
        return []
    if method == "minmax":
        lo, hi = min(scores), max(scores)
        return [1.0 if hi == lo else (s - lo) / (hi - lo) for s in scores]
    mean = sum(scores) / len(scores)
    std = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
    if method == "zscore":
        return [0.0 if std == 0 else (s - mean) / std for s in scores]
    if std == 0:
        return [0.5] * len(scores)
    lo = mean - 3 * std
    return [min(1.0, max(0.0, (s - lo) / (6 * std))) for s in scores]


def _normalized(hits: Sequence[SearchHit], method: str) -> dict[str, float]:
    """Each id's normalized score (a duplicate id counts at its first occurrence)."""
    first: dict[str, float] = {}
    for hit in hits:
        first.setdefault(hit.id, float(hit.score))
    return dict(zip(first, normalize_scores(list(first.values()), method), strict=True))


def convex_combination(
    result_lists: Sequence[Sequence[SearchHit]],
    *,
    weights: Sequence[float],
    normalization: str = "minmax",
) -> list[SearchHit]:
    """Weighted sum of per-list normalized scores; see the module docstring for missing ids."""
    ws = _weights(len(result_lists), weights)
    meta, best_rank = _collect(result_lists)
    normalized = [_normalized(hits, normalization) for hits in result_lists]
    floors = [min(norm.values()) if norm else 0.0 for norm in normalized]
    scores = {
        doc: sum(
            w * norm.get(doc, floor) for w, norm, floor in zip(ws, normalized, floors, strict=True) if norm
        )
        for doc in meta
    }
    return _ranked(scores, meta, best_rank)


def score_gap_confidence(hits: Sequence[SearchHit]) -> float:
    """1 - s2/s1 for the two best scores (in [0, 1]): 0 when the top is tied, near 1 when the
    first hit stands out; 1 for a single hit, 0 for none or a non-positive top score. For
    non-negative scores such as BM25's."""
    scores = sorted((float(h.score) for h in hits), reverse=True)[:2]
    if not scores or scores[0] <= 0:
        return 0.0
    if len(scores) == 1:
        return 1.0
    return min(1.0, max(0.0, 1.0 - scores[1] / scores[0]))


def boost_matches(
    primary: Sequence[SearchHit],
    matches: Sequence[SearchHit],
    *,
    boost: float,
    normalization: str = "dbsf",
) -> list[SearchHit]:
    """score(d) = norm(primary score of d) + boost * match score of d (clipped to [0, 1]).

    A document missing from ``primary`` gets the floor of its normalized scores (0 when
    ``primary`` is empty); one missing from ``matches`` gets no boost. With no matches the
    order is exactly ``primary``'s.
    """
    if boost < 0 or math.isnan(boost):
        raise ConfigError(f"the boost must be a non-negative number (got {boost})")
    meta, _ = _collect([primary, matches])
    # ties keep the primary order; documents only in ``matches`` follow in their match order
    _, order = _collect([primary])
    for rank, hit in enumerate(matches, start=len(primary) + 1):
        order.setdefault(hit.id, rank)
    base = _normalized(primary, normalization)
    floor = min(base.values()) if base else 0.0
    bonus: dict[str, float] = {}
    for hit in matches:
        bonus.setdefault(hit.id, min(1.0, max(0.0, float(hit.score))))
    scores = {doc: base.get(doc, floor) + boost * bonus.get(doc, 0.0) for doc in meta}
    return _ranked(scores, meta, order)


__all__ = [
    "NORMALIZATIONS",
    "boost_matches",
    "convex_combination",
    "normalize_scores",
    "reciprocal_rank_fusion",
    "score_gap_confidence",
]
