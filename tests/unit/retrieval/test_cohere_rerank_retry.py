"""The Cohere reranker retries through ragkit.retry (the SDK's own retries are off)."""

from __future__ import annotations

import pytest

from ragkit.errors import ProviderError
from ragkit.retrieval.rerank import CohereReranker
from ragkit.retry import RetryPolicy
from ragkit.types import SearchHit

pytestmark = pytest.mark.network_local
HITS = [SearchHit(id=f"h{i}", score=1.0, metadata={"text": t}) for i, t in enumerate(["a cat", "a dog"])]


def test_429_is_retried_by_ragkit_with_retry_after_and_5xx_exhaust_with_the_status() -> None:
    from ragkit.testing.servers.cohere import RERANK_PATH, FakeCohereServer

    sleeps: list[float] = []
    policy = RetryPolicy(max_attempts=3, sleep=sleeps.append, random=lambda: 0.5)
    with FakeCohereServer() as server:
        server.enqueue_error(429, "trial key limit", retry_after="3", path=RERANK_PATH)
        reranker = CohereReranker(api_key="k", base_url=server.url, retry=policy)
        assert [h.id for h in reranker.rerank("cat", HITS)] == ["h0", "h1"]
        assert sleeps == [3.0] and len(server.requests_to(RERANK_PATH)) == 2
        for _ in range(3):
            server.enqueue_error(503, "busy", path=RERANK_PATH)
        with pytest.raises(ProviderError, match=r"cohere rerank .*after 3 attempts \(HTTP 503: busy\)"):
            reranker.rerank("cat", HITS)
        assert len(server.requests_to(RERANK_PATH)) == 5  # 2 + 3: the SDK retried nothing itself


def test_max_retries_sets_the_attempts() -> None:
    assert CohereReranker(api_key="k", max_retries=0).retry_policy.max_attempts == 1
