"""The cohere embedder through the real cohere SDK against FakeCohereServer."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from ragkit.embedders.cohere import CohereEmbedder
from ragkit.errors import ConfigError, EmbeddingError
from ragkit.registry import embedders
from ragkit.retry import RetryPolicy
from ragkit.testing.servers import FakeCohereServer, count_tokens, hashed_vector

COHERE_DIM = 1024  # the fake server size set in conftest.py (embed-english-v3.0 real size)

pytestmark = pytest.mark.network_local
EMBED = "/v2/embed"


def make(server: FakeCohereServer, policy: RetryPolicy, **kw: Any) -> CohereEmbedder:
    return CohereEmbedder(api_key="co-test", base_url=server.url, retry=policy, **kw)


def test_registered_and_described() -> None:
    assert embedders.get("cohere") is CohereEmbedder
    e = CohereEmbedder(api_key="k")
    assert e.dimension == 1024 and e.model_id == "cohere/embed-english-v3.0"
    assert e.pricing_name == "embed-english-v3.0" and e.price_per_million == pytest.approx(0.10)


def test_batches_keep_order_and_use_document_input_type(cohere_server, policy) -> None:
    texts = [f"passage number {i} about topic {i % 3}" for i in range(7)]
    e = make(cohere_server, policy, batch_size=3)
    vecs = e.embed_documents(texts)
    reqs = cohere_server.requests_to(EMBED)
    assert [len(r.body["texts"]) for r in reqs] == [3, 3, 1]
    assert [t for r in reqs for t in r.body["texts"]] == texts
    assert {r.body["input_type"] for r in reqs} == {"search_document"}
    assert reqs[0].body["model"] == "embed-english-v3.0" and reqs[0].body["embedding_types"] == ["float"]
    assert reqs[0].headers["authorization"] == "Bearer co-test"
    assert vecs.shape == (7, COHERE_DIM) and vecs.dtype == np.float32
    expected = np.stack([hashed_vector(t, COHERE_DIM) for t in texts])
    np.testing.assert_allclose(vecs, expected, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_concurrent_batches_keep_order(cohere_server, policy) -> None:
    texts = [f"text {i} word{i}" for i in range(10)]
    vecs = make(cohere_server, policy, batch_size=2, concurrency=3).embed_documents(texts)
    assert len(cohere_server.requests_to(EMBED)) == 5
    np.testing.assert_allclose(vecs, np.stack([hashed_vector(t, COHERE_DIM) for t in texts]), atol=1e-6)


def test_query_uses_search_query_input_type(cohere_server, policy) -> None:
    e = make(cohere_server, policy)
    v = e.embed_query("where is the harbour")
    assert v.shape == (COHERE_DIM,)
    assert cohere_server.requests_to(EMBED)[-1].body["input_type"] == "search_query"


def test_tokens_come_from_billed_units_and_cost_from_registry(cohere_server, policy) -> None:
    texts = ["one two three", "four five", "six"]
    e = make(cohere_server, policy, batch_size=2)
    e.embed_documents(texts)
    tokens = sum(count_tokens(t) for t in texts)  # what the fake bills: one token per word
    assert e.usage.tokens == tokens == 6 and e.usage.texts == 3 and e.usage.calls == 2
    assert e.usage.cost == pytest.approx(tokens * 0.10 / 1e6)


def test_estimate_when_api_reports_no_tokens(cohere_server, policy) -> None:
    from ragkit.embedders.remote import estimate_tokens
    from ragkit.testing.servers import JSONReply

    body = {
        "id": "e",
        "response_type": "embeddings_by_type",
        "texts": ["a b c"],
        "embeddings": {"float": [hashed_vector("a b c", COHERE_DIM).tolist()]},
        "meta": {},
    }
    cohere_server.enqueue(JSONReply(body), path=EMBED)
    e = make(cohere_server, policy)
    e.embed_documents(["a b c"])
    assert e.usage.tokens == estimate_tokens("a b c") > 0


def test_429_then_success_is_retried(cohere_server, policy, sleeps) -> None:
    cohere_server.enqueue_error(429, "too many requests", retry_after="2", path=EMBED)
    cohere_server.enqueue_error(503, "overloaded", path=EMBED)
    e = make(cohere_server, policy)
    vecs = e.embed_documents(["hello world"])
    assert vecs.shape == (1, COHERE_DIM)
    assert len(cohere_server.requests_to(EMBED)) == 3
    assert sleeps[0] == 2.0 and len(sleeps) == 2  # Retry-After honoured, then backoff
    assert e.usage.calls == 1 and e.usage.tokens == 2  # failed attempts are not billed


def test_retries_exhausted_names_status_and_fix(cohere_server, policy) -> None:
    for _ in range(3):
        cohere_server.enqueue_error(429, "rate limited", path=EMBED)
    with pytest.raises(EmbeddingError) as err:
        make(cohere_server, policy).embed_documents(["x"])
    msg = str(err.value)
    assert "HTTP 429" in msg and "3 attempts" in msg and "max_retries" in msg and "rate limited" in msg


def test_auth_error_is_not_retried(cohere_server, policy, sleeps) -> None:
    cohere_server.enqueue_error(401, "invalid api token", path=EMBED)
    with pytest.raises(EmbeddingError, match=r"HTTP 401.*check the API key"):
        make(cohere_server, policy).embed_documents(["x"])
    assert sleeps == [] and len(cohere_server.requests_to(EMBED)) == 1


def test_missing_api_key_names_the_variable() -> None:
    with pytest.raises(EmbeddingError) as err:
        CohereEmbedder()
    assert "CO_API_KEY" in str(err.value) and "COHERE_API_KEY" in str(err.value)
    assert "export CO_API_KEY=" in str(err.value)


def test_api_key_from_either_variable(monkeypatch, cohere_server, policy) -> None:
    monkeypatch.setenv("COHERE_API_KEY", "from-env")
    e = CohereEmbedder(base_url=cohere_server.url, retry=policy)
    e.embed_query("x")
    assert cohere_server.requests[-1].headers["authorization"] == "Bearer from-env"


def test_unknown_model_needs_dimension(cohere_server, policy) -> None:
    with pytest.raises(ConfigError, match=r"set `dimension:`"):
        CohereEmbedder(model="my-finetune", api_key="k")
    e = make(cohere_server, policy, model="my-finetune", dimension=COHERE_DIM)
    assert e.embed_query("x").shape == (COHERE_DIM,)


def test_wrong_dimension_is_caught(cohere_server, policy) -> None:
    with pytest.raises(ConfigError, match=r"returns 1024-dimensional vectors \(got dimension=64\)"):
        CohereEmbedder(api_key="k", dimension=64)
    e = make(cohere_server, policy, model="my-finetune", dimension=32)  # the server returns 1024
    with pytest.raises(EmbeddingError, match=r"set `dimension: 1024`"):
        e.embed_query("x")


def test_v4_output_dimension_is_sent(cohere_server, policy) -> None:
    e = make(cohere_server, policy, model="embed-v4.0", dimension=256)
    assert e.embed_query("x").shape == (256,) and e.model_id == "cohere/embed-v4.0@256"
    assert cohere_server.requests_to(EMBED)[-1].body["output_dimension"] == 256
    with pytest.raises(ConfigError, match="one of 256, 512, 1024, 1536"):
        CohereEmbedder(api_key="k", model="embed-v4.0", dimension=300)


@pytest.mark.parametrize(
    ("opts", "pattern"),
    [
        ({"batch_size": 97}, "between 1 and 96"),
        ({"batch_size": 0}, "between 1 and 96"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"truncate": "MIDDLE"}, "truncate"),
        ({"retry": {"max_attempts": 2}}, "retry must be a ragkit.retry.RetryPolicy"),
    ],
)
def test_invalid_options(opts: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        CohereEmbedder(api_key="k", **opts)


def test_connection_error_is_an_embedding_error(policy) -> None:
    from ragkit.testing.servers import free_port

    e = CohereEmbedder(api_key="k", base_url=f"http://127.0.0.1:{free_port()}", retry=policy)
    with pytest.raises(EmbeddingError, match="cannot connect"):
        e.embed_query("x")


def test_importing_the_module_imports_no_sdk() -> None:
    code = (
        "import sys, ragkit.embedders.cohere, ragkit.embedders.openai\n"
        "bad = [m for m in ('cohere', 'openai', 'httpx') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
