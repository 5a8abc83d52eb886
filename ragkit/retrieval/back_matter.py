"""Back matter weighed down: a paper's reference list (chunks a loader marked ``references``,
``ragkit.loaders.pdf_paper``) names every topic of the paper in a few words per line, so it
matches many questions it cannot answer. Its hits are moved down the ranking, never dropped: a
marked hit at rank r is ranked as if at rank ``DEMOTION`` x r (a reference list that is the only
match still comes first). Hits of collections without such marks keep their order exactly: ``KnowledgeBase.search`` asks
its retriever for more hits only when the top ``k`` hold a marked one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragkit.types import SearchHit

#: a marked hit at (1-based) rank r is placed as if at rank DEMOTION * r (ties: after the others)
DEMOTION = 3
#: extra hits to fetch so that demoted ones can be replaced: k + max(k, OVERFETCH)
OVERFETCH = 10


def is_back_matter(hit: SearchHit) -> bool:
    return bool(hit.metadata.get("references"))


def overfetch(k: int) -> int:
    """How many hits to ask a retriever for, to return ``k`` after demotion."""
    return k + max(k, OVERFETCH)


def demote_back_matter(hits: Sequence[SearchHit], k: int) -> list[SearchHit]:
    """The top ``k`` of ``hits`` (best first) with back matter demoted (module docstring); the
    hits themselves (scores included) are unchanged."""
    if not any(is_back_matter(h) for h in hits):
        return list(hits[:k])
    keyed = sorted(
        enumerate(hits, start=1),
        key=lambda item: (item[0] * DEMOTION if is_back_matter(item[1]) else item[0], is_back_matter(item[1])),
    )
    return [hit for _, hit in keyed[:k]]


__all__ = ["DEMOTION", "demote_back_matter", "is_back_matter", "overfetch"]
