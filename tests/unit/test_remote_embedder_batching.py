"""The pure helpers of the remote embedders: batch planning and the conservative token estimate."""

from __future__ import annotations

from ragkit.embedders.remote import plan_batches
from ragkit.tokens import upper_bound_tokens


def test_plan_batches_respects_token_budget() -> None:
    texts = ["x" * 30, "x" * 30, "x" * 30, "x" * 300, "y"]  # 10, 10, 10, 100, 1 estimated tokens
    assert plan_batches(texts, max_items=10, max_tokens=25, count=upper_bound_tokens) == [(0, 2), (2, 3), (3, 4), (4, 5)]
    assert plan_batches(texts, max_items=2, max_tokens=None, count=upper_bound_tokens) == [(0, 2), (2, 4), (4, 5)]
    assert plan_batches([], max_items=2, max_tokens=5, count=upper_bound_tokens) == []


def test_estimate_is_conservative() -> None:
    assert upper_bound_tokens("") == 0
    assert upper_bound_tokens("a b c d e") == 5  # never fewer than words
    assert upper_bound_tokens("The quick brown fox jumps over the lazy dog.") == 15  # real BPE: about 10
    assert upper_bound_tokens("日本語のテキスト") == 8  # one per non-ASCII character
