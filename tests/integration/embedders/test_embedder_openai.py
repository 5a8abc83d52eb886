"""The openai embedder through the real openai SDK against FakeOpenAIServer."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ragkit.embedders.openai import OpenAIEmbedder
from ragkit.embedders.remote import estimate_tokens, plan_batches
from ragkit.errors import ConfigError, EmbeddingError
from ragkit.registry import embedders
from ragkit.retry import RetryPolicy
from ragkit.testing.servers import FakeOpenAIServer, JSONReply, count_tokens, hashed_vector

pytestmark = pytest.mark.network_local
EMBED = "/v1/embeddings"
DIM = 64  # the fake server's size (conftest.py)


def make(server: FakeOpenAIServer, policy: RetryPolicy, **kw: Any) -> OpenAIEmbedder:
    kw.setdefault("dimension", DIM)
    kw.setdefault("api_key", "sk-test")
    return OpenAIEmbedder(base_url=server.url, retry=policy, **kw)


def expected(texts: list[str], dim: int = DIM) -> np.ndarray:
    return np.stack([hashed_vector(t, dim) for t in texts])


def test_registered_and_described() -> None:
    assert embedders.get("openai") is OpenAIEmbedder
    e = OpenAIEmbedder(api_key="k")
    assert e.dimension == 1536 and e.model_id == "openai/text-embedding-3-small"
    assert e.pricing_name == "text-embedding-3-small" and e.price_per_million == pytest.approx(0.02)
    assert OpenAIEmbedder(api_key="k", model="text-embedding-3-large").dimension == 3072


@pytest.mark.parametrize("fmt", ["base64", "float"])
def test_batches_keep_order(openai_server, policy, fmt: str) -> None:
    texts = [f"passage {i} about item{i}" for i in range(5)]
    e = make(openai_server, policy, batch_size=2, encoding_format=fmt)
    vecs = e.embed_documents(texts)
    reqs = openai_server.requests_to(EMBED)
    assert [r.body["input"] for r in reqs] == [texts[0:2], texts[2:4], texts[4:5]]
    assert reqs[0].body["encoding_format"] == fmt and reqs[0].body["dimensions"] == DIM
    assert reqs[0].headers["authorization"] == "Bearer sk-test"
    assert vecs.shape == (5, DIM) and vecs.dtype == np.float32
    np.testing.assert_allclose(vecs, expected(texts), atol=1e-6)


def test_rows_are_put_back_in_index_order(openai_server, policy) -> None:
    texts = ["alpha", "beta"]
    data = [
        {"object": "embedding", "index": 1, "embedding": hashed_vector("beta", DIM).tolist()},
        {"object": "embedding", "index": 0, "embedding": hashed_vector("alpha", DIM).tolist()},
    ]
    body = {"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 2, "total_tokens": 2}}
    openai_server.enqueue(JSONReply(body), path=EMBED)
    np.testing.assert_allclose(make(openai_server, policy).embed_documents(texts), expected(texts), atol=1e-6)


def test_tokens_from_usage_and_cost_from_registry(openai_server, policy) -> None:
    texts = ["one two three", "four five", "six"]
    e = make(openai_server, policy, batch_size=2)
    e.embed_documents(texts)
    e.embed_query("seven eight")
    tokens = sum(count_tokens(t) for t in texts) + 2
    assert e.usage.tokens == tokens == 8 and e.usage.calls == 3 and e.usage.texts == 4
    assert e.usage.cost == pytest.approx(tokens * 0.02 / 1e6)


def test_estimate_when_usage_is_missing(openai_server, policy) -> None:
    data = [{"object": "embedding", "index": 0, "embedding": hashed_vector("a b", DIM).tolist()}]
    openai_server.enqueue(JSONReply({"object": "list", "data": data, "model": "m"}), path=EMBED)
    e = make(openai_server, policy)
    e.embed_documents(["a b"])
    assert e.usage.tokens == estimate_tokens("a b")


def test_local_server_model_with_prefixes(openai_server, policy) -> None:
    e = make(
        openai_server,
        policy,
        model="nomic-embed-text:latest",
        dimension=None,
        api_key="ollama",
        query_prefix="search_query: ",
        document_prefix="search_document: ",
    )
    assert e.dimension == 768 and e.price_per_million == 0.0
    openai_server.enqueue(
        JSONReply(
            {
                "object": "list",
                "model": "m",
                "data": [{"object": "embedding", "index": 0, "embedding": hashed_vector("x", 768).tolist()}],
            }
        ),
        path=EMBED,
    )
    e.embed_documents(["doc"])
    e2 = make(openai_server, policy, model="custom-embedder", api_key="ollama", query_prefix="q: ")
    e2.embed_query("find")
    reqs = openai_server.requests_to(EMBED)
    assert reqs[0].body["input"] == ["search_document: doc"] and "dimensions" not in reqs[0].body
    assert reqs[1].body["input"] == ["q: find"] and "dimensions" not in reqs[1].body
    assert e.model_id.startswith("openai/nomic-embed-text:latest+doc:")


def test_429_then_success_is_retried(openai_server, policy, sleeps) -> None:
    openai_server.enqueue_error(429, "slow down", retry_after="1", path=EMBED)
    e = make(openai_server, policy)
    assert e.embed_query("hello").shape == (DIM,)
    assert sleeps == [1.0] and len(openai_server.requests_to(EMBED)) == 2
    assert e.usage.calls == 1


def test_500s_exhaust_retries(openai_server, policy) -> None:
    for _ in range(3):
        openai_server.enqueue_error(500, "boom", path=EMBED)
    with pytest.raises(EmbeddingError, match=r"openai embed .*failed after 3 attempts \(HTTP 500: boom\)"):
        make(openai_server, policy).embed_query("x")


def test_bad_request_is_not_retried(openai_server, policy, sleeps) -> None:
    openai_server.enqueue_error(400, "input too long", path=EMBED)
    with pytest.raises(EmbeddingError, match=r"HTTP 400: input too long.*check the request parameters"):
        make(openai_server, policy).embed_query("x")
    assert sleeps == []


def test_missing_api_key_names_the_variable() -> None:
    with pytest.raises(EmbeddingError) as err:
        OpenAIEmbedder()
    msg = str(err.value)
    assert "OPENAI_API_KEY" in msg and "export OPENAI_API_KEY=" in msg and "api_key: ollama" in msg


def test_api_key_from_environment(monkeypatch, openai_server, policy) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    OpenAIEmbedder(base_url=openai_server.url, retry=policy, dimension=DIM).embed_query("x")
    assert openai_server.requests[-1].headers["authorization"] == "Bearer sk-env"


def test_dimension_rules(openai_server, policy) -> None:
    with pytest.raises(ConfigError, match=r"model 'mystery'.*set `dimension:`"):
        OpenAIEmbedder(api_key="k", model="mystery")
    with pytest.raises(ConfigError, match="up to 1536"):
        OpenAIEmbedder(api_key="k", dimension=4096)
    with pytest.raises(ConfigError, match="only text-embedding-3-large, text-embedding-3-small"):
        OpenAIEmbedder(api_key="k", model="text-embedding-ada-002", dimension=256)
    assert OpenAIEmbedder(api_key="k", dimension=1536).request_dimension is None
    e = make(openai_server, policy, model="mystery", dimension=32)  # the server answers with 64
    with pytest.raises(EmbeddingError, match=r"64-dimensional .* configured for dimension 32"):
        e.embed_query("x")


@pytest.mark.parametrize(
    ("opts", "pattern"),
    [
        ({"batch_size": 2049}, "between 1 and 2048"),
        ({"encoding_format": "int8"}, "encoding_format"),
        ({"concurrency": 0}, "concurrency"),
        ({"price_per_million": -1}, "price_per_million"),
    ],
)
def test_invalid_options(opts: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        OpenAIEmbedder(api_key="k", **opts)


def test_price_override(openai_server, policy) -> None:
    e = make(openai_server, policy, model="self-hosted", price_per_million=1.0)
    e.embed_query("a b c d")
    assert e.usage.cost == pytest.approx(4 / 1e6)


def test_plan_batches_respects_token_budget() -> None:
    texts = ["x" * 30, "x" * 30, "x" * 30, "x" * 300, "y"]  # 10, 10, 10, 100, 1 estimated tokens
    assert plan_batches(texts, max_items=10, max_tokens=25, count=estimate_tokens) == [
        (0, 2),
        (2, 3),
        (3, 4),
        (4, 5),
    ]
    assert plan_batches(texts, max_items=2, max_tokens=None, count=estimate_tokens) == [
        (0, 2),
        (2, 4),
        (4, 5),
    ]
    assert plan_batches([], max_items=2, max_tokens=5, count=estimate_tokens) == []


def test_estimate_is_conservative() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a b c d e") == 5  # never fewer than words
    assert estimate_tokens("The quick brown fox jumps over the lazy dog.") == 15  # real BPE: about 10
    assert estimate_tokens("日本語のテキスト") == 8  # one per non-ASCII character
