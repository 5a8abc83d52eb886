"""The wire-protocol servers themselves, driven through the real SDKs (the remote embedders rely on them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ragkit.testing.servers import (
    FakeCohereServer,
    FakeOpenAIServer,
    JSONReply,
    hashed_vector,
    overlap_score,
)

pytestmark = pytest.mark.network_local


def test_hashed_vectors_are_deterministic_and_normalized() -> None:
    a, b = hashed_vector("The quick brown fox", 32), hashed_vector("the QUICK brown fox", 32)
    assert a.dtype == np.float32 and np.allclose(a, b)
    assert np.linalg.norm(a) == pytest.approx(1.0, abs=1e-6)
    assert not np.allclose(a, hashed_vector("something else entirely", 32))
    assert np.linalg.norm(hashed_vector("", 8)) == pytest.approx(1.0)


def test_overlap_score() -> None:
    assert overlap_score("red apple", "a red apple pie") == 1.0
    assert overlap_score("red apple", "a red car") == 0.5
    assert overlap_score("", "anything") == 0.0


def test_openai_embeddings_default_base64_and_float() -> None:
    import openai

    with FakeOpenAIServer(dimension=16) as server:
        client = openai.OpenAI(api_key="k", base_url=server.url, max_retries=0)
        default = client.embeddings.create(model="text-embedding-3-small", input=["alpha beta", "gamma"])
        assert server.requests[-1].body["encoding_format"] == "base64"  # the SDK's default request
        explicit = client.embeddings.create(model="m", input="alpha beta", encoding_format="float")
        assert server.requests[-1].body["encoding_format"] == "float"
    assert len(default.data) == 2 and len(default.data[0].embedding) == 16
    assert np.allclose(default.data[0].embedding, hashed_vector("alpha beta", 16))
    assert np.allclose(explicit.data[0].embedding, default.data[0].embedding)
    assert default.usage.prompt_tokens == 3


def test_openai_embeddings_dimensions_and_scripted_error() -> None:
    import openai

    with FakeOpenAIServer() as server:
        server.enqueue_error(429, "slow down", retry_after="1", path=server.embeddings_path)
        client = openai.OpenAI(api_key="k", base_url=server.url, max_retries=0)
        with pytest.raises(openai.RateLimitError):
            client.embeddings.create(model="m", input=["x"])
        out = client.embeddings.create(model="m", input=["x"], dimensions=8)
        assert len(out.data[0].embedding) == 8
        assert server.pending(server.embeddings_path) == 0
        assert [r.path for r in server.requests] == ["/v1/embeddings", "/v1/embeddings"]


def test_cohere_embed_input_type_and_billed_tokens() -> None:
    import cohere

    with FakeCohereServer(dimension=12) as server:
        client = cohere.ClientV2(api_key="k", base_url=server.url, max_retries=0)
        docs = client.embed(
            model="embed-english-v3.0",
            texts=["one two three", "four"],
            input_type="search_document",
            embedding_types=["float", "int8"],
        )
        client.embed(
            model="embed-english-v3.0", texts=["one"], input_type="search_query", embedding_types=["float"]
        )
        assert [r.body["input_type"] for r in server.requests_to("/v2/embed")] == [
            "search_document",
            "search_query",
        ]
        with pytest.raises(cohere.BadRequestError):
            client.embed(model="m", texts=["x"], input_type="nonsense", embedding_types=["float"])
    assert len(docs.embeddings.float_) == 2 and len(docs.embeddings.float_[0]) == 12
    assert np.allclose(docs.embeddings.float_[0], hashed_vector("one two three", 12))
    assert len(docs.embeddings.int8[0]) == 12
    assert docs.meta.billed_units.input_tokens == 4


def test_cohere_rerank_by_word_overlap() -> None:
    import cohere

    with FakeCohereServer() as server:
        client = cohere.ClientV2(api_key="k", base_url=server.url, max_retries=0)
        out = client.rerank(
            model="rerank-v3.5",
            query="capital of france",
            documents=["Berlin is in Germany", "Paris is the capital of France", "capital letters"],
            top_n=2,
        )
    assert [(r.index, round(r.relevance_score, 3)) for r in out.results] == [(1, 1.0), (2, 0.333)]


def test_raw_json_reply_and_request_log() -> None:
    import httpx

    with FakeOpenAIServer() as server:
        server.enqueue(JSONReply({"hello": "world"}, status=418, headers={"X-Test": "1"}))
        resp = httpx.post(
            f"{server.url}/chat/completions", json={"model": "m"}, headers={"Authorization": "Bearer z"}
        )
        assert resp.status_code == 418 and resp.json() == {"hello": "world"} and resp.headers["x-test"] == "1"
        unknown = httpx.post(f"{server.url}/nope", json={})
        assert unknown.status_code == 404
    first = server.requests[0]
    assert (
        first.method == "POST"
        and first.body == {"model": "m"}
        and first.headers["authorization"] == "Bearer z"
    )


def test_port_is_unavailable_when_stopped() -> None:
    server = FakeOpenAIServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url


def test_importing_providers_and_servers_imports_no_sdk() -> None:
    code = (
        "import sys, ragkit, ragkit.retry, ragkit.providers.openai, ragkit.providers.anthropic, "
        "ragkit.providers.cohere, ragkit.providers.fallback, ragkit.testing.servers; "
        "print(sorted(m for m in ('openai', 'anthropic', 'cohere') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert out.stdout.strip() == "[]"


def test_embedder_style_retry_with_the_shared_classifiers() -> None:
    """What the remote embedders do: retry.call_with_retry + the vendor layer's classifiers."""
    from ragkit.errors import EmbeddingError
    from ragkit.retry import RetryPolicy, call_with_retry
    from ragkit.vendors.cohere import COHERE
    from ragkit.vendors.openai import OPENAI

    waits: list[float] = []
    policy = RetryPolicy(max_attempts=2, sleep=waits.append, random=lambda: 0.5)
    with FakeCohereServer() as co_server, FakeOpenAIServer() as oa_server:
        co = COHERE.client(api_key="k", base_url=co_server.url, timeout=10)
        co_server.enqueue_error(429, "trial key limit", retry_after="2", path=co_server.embed_path)
        out = call_with_retry(
            lambda: co.embed(model="m", texts=["a"], input_type="search_query", embedding_types=["float"]),
            classify=COHERE.classify,
            policy=policy,
            error_cls=EmbeddingError,
        )
        assert out.meta.billed_units.input_tokens == 1 and waits == [2.0]

        oa = OPENAI.client(api_key="k", base_url=oa_server.url, timeout=10)
        oa_server.enqueue_error(500, "boom", path=oa_server.embeddings_path)
        oa_server.enqueue_error(500, "boom again", path=oa_server.embeddings_path)
        with pytest.raises(EmbeddingError, match=r"after 2 attempts \(HTTP 500: boom again\)"):
            call_with_retry(
                lambda: oa.embeddings.create(model="m", input=["a"]),
                classify=OPENAI.classify,
                policy=policy,
                error_cls=EmbeddingError,
                what="openai embeddings",
            )
