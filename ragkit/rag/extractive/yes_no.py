"""Yes/no questions (``answer_type.asks_yes_no``: "Are there several versions of X?", "If I set
NO_COLOR, will bold text still be shown?"): documentation rarely answers one in a single sentence. It says the one thing and then
corrects or completes it ("There are *not* several versions. There's just one, …"; "NO_COLOR
removes color only. Styles such as bold are preserved."), so two neighbouring sentences of a
paragraph are read, and scored, as one candidate answer. So is a reason ("Why does X …?"): a claim,
then the sentence that explains it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ragkit.rag.extractive.compose import Unit


def sentence_pairs(units: Sequence[Unit]) -> list[Unit]:
    """Each prose sentence joined to the next one of its paragraph, as one unit (its words both
    sentences' words)."""
    out: list[Unit] = []
    for u, v in zip(units, units[1:], strict=False):
        if (u.kind == v.kind == "prose" and u.rank == v.rank and u.block_index == v.block_index
                and v.position == u.position + 1):
            out.append(replace(u, text=f"{u.text} {v.text}", own=u.own | v.own, near=u.near | v.near,
                               run=(u.text, v.text)))
    return out


__all__ = ["sentence_pairs"]
