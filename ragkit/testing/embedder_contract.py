"""``EmbedderContract``: the conformance suite every remote embedder passes against its wire server.

A pytest mixin (no ``Test`` prefix). A vendor's test module subclasses it and names the embedder
class, the server class (:mod:`ragkit.testing.servers`), its embeddings path and the server's
vector size, and says how to read the texts and the key out of a recorded request::

    class TestCohereEmbedder(EmbedderContract):
        embedder_class = CohereEmbedder
        server_class = FakeCohereServer
        embed_path = "/v2/embed"
        dimension = 1024
        max_batch_size = 96

        def texts(self, body): return body["texts"]
        def auth(self, request): return request.headers["authorization"]

The suite covers batching in order (sequential and concurrent), vectors and their L2 norm, tokens
and cost from the API's usage, retries of 429 (``Retry-After``) and 5xx, errors that are not
retried, a missing key naming its variables, keys from each variable, an unreachable server,
option validation, and that importing the module imports no SDK.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import numpy as np
import pytest

from ragkit.errors import ConfigError, EmbeddingError
from ragkit.retry import RetryPolicy
from ragkit.testing.remote_fixtures import RemoteFixtures
from ragkit.testing.servers import FakeServer, count_tokens, free_port, hashed_vector


class EmbedderContract(RemoteFixtures):
    embedder_class: ClassVar[type[Any]]
    embed_path: ClassVar[str]
    dimension: ClassVar[int]  # the vector size the server answers with
    max_batch_size: ClassVar[int]
    model: ClassVar[str | None] = None  # None: the embedder's default model (its size must be `dimension`)
    options: ClassVar[dict[str, Any]] = {}  # extra options for every embedder the suite builds

    # -- vendor hooks ----------------------------------------------------------------------------
    def texts(self, body: dict[str, Any]) -> list[str]:
        """The texts one recorded embeddings request carried."""
        raise NotImplementedError

    def auth(self, request: Any) -> str:
        raise NotImplementedError

    # -- fixtures: RemoteFixtures' (server, sleeps, policy, no ambient keys) ------------------
    @property
    def server_options(self) -> dict[str, Any]:  # type: ignore[override]
        return {"dimension": self.dimension}

    def make(self, server: FakeServer | None, policy: RetryPolicy | None = None, **kw: Any) -> Any:
        kw = {**self.options, **kw}
        kw.setdefault("api_key", "key-test")
        if self.model is not None:
            kw.setdefault("model", self.model)
        if server is not None:
            kw.setdefault("base_url", server.url)
        return self.embedder_class(retry=policy, **kw)

    def expected(self, texts: list[str]) -> np.ndarray:
        return np.stack([hashed_vector(t, self.dimension) for t in texts])

    # -- embedding -------------------------------------------------------------------------------
    def test_registered_under_its_name(self) -> None:
        from ragkit.registry import embedders

        assert embedders.get(self.embedder_class.name) is self.embedder_class

    def test_batches_keep_order_with_auth(self, server, policy) -> None:
        texts = [f"passage number {i} about topic {i % 3}" for i in range(5)]
        vecs = self.make(server, policy, batch_size=2).embed_documents(texts)
        requests = server.requests_to(self.embed_path)
        assert [self.texts(r.body) for r in requests] == [texts[0:2], texts[2:4], texts[4:5]]
        assert "key-test" in self.auth(requests[0])
        assert vecs.shape == (5, self.dimension) and vecs.dtype == np.float32
        np.testing.assert_allclose(vecs, self.expected(texts), atol=1e-6)
        np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)

    def test_concurrent_batches_keep_order(self, server, policy) -> None:
        texts = [f"text {i} word{i}" for i in range(10)]
        vecs = self.make(server, policy, batch_size=2, concurrency=3).embed_documents(texts)
        assert len(server.requests_to(self.embed_path)) == 5
        np.testing.assert_allclose(vecs, self.expected(texts), atol=1e-6)

    def test_query_is_one_vector(self, server, policy) -> None:
        assert self.make(server, policy).embed_query("where is the harbour").shape == (self.dimension,)

    def test_tokens_from_the_api_and_cost_from_the_registry(self, server, policy) -> None:
        texts = ["one two three", "four five", "six"]
        e = self.make(server, policy, batch_size=2)
        e.embed_documents(texts)
        e.embed_query("seven eight")
        tokens = sum(count_tokens(t) for t in texts) + 2  # what the fakes bill: one token per word
        assert e.usage.tokens == tokens == 8 and e.usage.calls == 3 and e.usage.texts == 4
        assert e.price_per_million > 0 and e.usage.cost == pytest.approx(tokens * e.price_per_million / 1e6)

    # -- retries ---------------------------------------------------------------------------------
    def test_429_then_503_then_success(self, server, policy, sleeps) -> None:
        server.enqueue_error(429, "too many requests", retry_after="2", path=self.embed_path)
        server.enqueue_error(503, "overloaded", path=self.embed_path)
        e = self.make(server, policy)
        assert e.embed_documents(["hello world"]).shape == (1, self.dimension)
        assert len(server.requests_to(self.embed_path)) == 3
        assert sleeps[0] == 2.0 and len(sleeps) == 2  # Retry-After honoured, then backoff
        assert e.usage.calls == 1 and e.usage.tokens == 2  # failed attempts are not billed

    def test_exhausted_retries_name_status_and_fix(self, server, policy) -> None:
        for _ in range(3):
            server.enqueue_error(500, "boom", path=self.embed_path)
        pattern = rf"{self.embedder_class.name} embed .*failed after 3 attempts \(HTTP 500: boom\).*max_retries"
        with pytest.raises(EmbeddingError, match=pattern):
            self.make(server, policy).embed_query("x")

    def test_client_errors_are_not_retried(self, server, policy, sleeps) -> None:
        server.enqueue_error(400, "input too long", path=self.embed_path)
        with pytest.raises(EmbeddingError, match=r"HTTP 400: input too long.*check the request parameters"):
            self.make(server, policy).embed_query("x")
        server.enqueue_error(401, "invalid api token", path=self.embed_path)
        with pytest.raises(EmbeddingError, match=r"HTTP 401.*check the API key"):
            self.make(server, policy).embed_documents(["x"])
        assert sleeps == [] and len(server.requests_to(self.embed_path)) == 2

    def test_unreachable_server_is_an_embedding_error_at_once(self, policy, sleeps) -> None:
        e = self.make(None, policy, base_url=f"http://127.0.0.1:{free_port()}", dimension=self.dimension)
        with pytest.raises(EmbeddingError, match="cannot connect"):
            e.embed_query("x")
        assert sleeps == []

    # -- keys and options ------------------------------------------------------------------------
    def test_missing_api_key_names_every_variable(self) -> None:
        with pytest.raises(EmbeddingError) as err:
            self.embedder_class(**self.options)
        variables = self.embedder_class.vendor.key_vars
        assert all(v in str(err.value) for v in variables) and f"export {variables[0]}=" in str(err.value)

    def test_api_key_from_each_environment_variable(self, server, policy, monkeypatch) -> None:
        for var in self.embedder_class.vendor.key_vars:
            monkeypatch.setenv(var, f"from-{var}")
            self.make(server, policy, api_key=None).embed_query("x")
            assert f"from-{var}" in self.auth(server.requests[-1])
            monkeypatch.delenv(var)

    @pytest.mark.parametrize(("opts", "pattern"), [
        ({"batch_size": 0}, "between 1 and"), ({"timeout": 0}, "timeout"), ({"max_retries": -1}, "max_retries"),
        ({"concurrency": 0}, "concurrency"), ({"price_per_million": -1}, "price_per_million"),
        ({"retry": {"max_attempts": 2}}, "retry must be a ragkit.retry.RetryPolicy"),
    ])
    def test_invalid_options(self, opts: dict[str, Any], pattern: str) -> None:
        with pytest.raises(ConfigError, match=pattern):
            self.embedder_class(api_key="k", **{**self.options, **opts})

    def test_batch_size_over_the_api_limit(self) -> None:
        with pytest.raises(ConfigError, match=f"between 1 and {self.max_batch_size}"):
            self.make(None, None, batch_size=self.max_batch_size + 1)

    def test_importing_the_module_imports_no_sdk(self) -> None:
        code = (f"import sys, {self.embedder_class.__module__}\n"
                "bad = [m for m in ('cohere', 'openai', 'anthropic', 'httpx') if m in sys.modules]\n"
                "assert not bad, bad\n")
        subprocess.run([sys.executable, "-c", code], check=True)


__all__ = ["EmbedderContract"]
