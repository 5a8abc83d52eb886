"""Every remote embedder runs ``EmbedderContract`` against its wire server; below each suite, what
only that vendor's API says (input types, encodings, dimensions, prefixes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ragkit.embedders.cohere import CohereEmbedder
from ragkit.embedders.openai import OpenAIEmbedder
from ragkit.embedders.voyage import VoyageEmbedder
from ragkit.errors import ConfigError, EmbeddingError
from ragkit.testing.embedder_contract import EmbedderContract
from ragkit.testing.servers import (
    FakeCohereServer,
    FakeOpenAIServer,
    FakeVoyageServer,
    JSONReply,
    hashed_vector,
)
from ragkit.tokens import upper_bound_tokens

pytestmark = pytest.mark.network_local


class TestOpenAIEmbedder(EmbedderContract):
    embedder_class = OpenAIEmbedder
    server_class = FakeOpenAIServer
    embed_path = "/v1/embeddings"
    dimension = 64
    max_batch_size = 2048
    options = {"dimension": 64}

    def texts(self, body: dict[str, Any]) -> list[str]:
        return list(body["input"])

    def auth(self, request: Any) -> str:
        return str(request.headers["authorization"])

    def test_described(self) -> None:
        e = OpenAIEmbedder(api_key="k")
        assert e.dimension == 1536 and e.model_id == "openai/text-embedding-3-small"
        assert e.pricing_name == "text-embedding-3-small" and e.price_per_million == pytest.approx(0.02)
        assert OpenAIEmbedder(api_key="k", model="text-embedding-3-large").dimension == 3072

    @pytest.mark.parametrize("fmt", ["base64", "float"])
    def test_encoding_formats_and_dimensions_are_sent(self, server, policy, fmt: str) -> None:
        texts = ["alpha beta", "gamma"]
        vecs = self.make(server, policy, encoding_format=fmt).embed_documents(texts)
        body = server.requests_to(self.embed_path)[0].body
        assert body["encoding_format"] == fmt and body["dimensions"] == 64
        np.testing.assert_allclose(vecs, self.expected(texts), atol=1e-6)

    def test_rows_are_put_back_in_index_order(self, server, policy) -> None:
        data = [{"object": "embedding", "index": 1, "embedding": hashed_vector("beta", 64).tolist()},
                {"object": "embedding", "index": 0, "embedding": hashed_vector("alpha", 64).tolist()}]
        body = {"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 2, "total_tokens": 2}}
        server.enqueue(JSONReply(body), path=self.embed_path)
        vecs = self.make(server, policy).embed_documents(["alpha", "beta"])
        np.testing.assert_allclose(vecs, self.expected(["alpha", "beta"]), atol=1e-6)

    def test_estimate_when_usage_is_missing(self, server, policy) -> None:
        data = [{"object": "embedding", "index": 0, "embedding": hashed_vector("a b", 64).tolist()}]
        server.enqueue(JSONReply({"object": "list", "data": data, "model": "m"}), path=self.embed_path)
        e = self.make(server, policy)
        e.embed_documents(["a b"])
        assert e.usage.tokens == upper_bound_tokens("a b")

    def test_missing_key_hint_mentions_local_servers(self) -> None:
        with pytest.raises(EmbeddingError, match="provider: ollama"):
            OpenAIEmbedder()

    def test_local_server_model_with_prefixes(self, server, policy) -> None:
        e = self.make(server, policy, model="nomic-embed-text:latest", dimension=None, provider="ollama",
                      query_prefix="search_query: ", document_prefix="search_document: ")
        assert e.dimension == 768 and e.price_per_million == 0.0  # local: 0 by design
        row = {"object": "embedding", "index": 0, "embedding": hashed_vector("x", 768).tolist()}
        server.enqueue(JSONReply({"object": "list", "model": "m", "data": [row]}), path=self.embed_path)
        e.embed_documents(["doc"])
        e2 = self.make(server, policy, model="custom-embedder", api_key="ollama", query_prefix="q: ")
        e2.embed_query("find")
        reqs = server.requests_to(self.embed_path)
        assert reqs[0].body["input"] == ["search_document: doc"] and "dimensions" not in reqs[0].body
        assert reqs[1].body["input"] == ["q: find"] and "dimensions" not in reqs[1].body
        assert e.model_id.startswith("ollama/nomic-embed-text:latest+doc:")

    def test_a_local_model_name_through_a_generic_endpoint_is_unpriced(self, server, policy, caplog) -> None:
        e = self.make(server, policy, model="nomic-embed-text", dimension=None, api_key="ollama")
        assert e.dimension == 768 and e.price_per_million is None  # nothing says the endpoint is local
        row = {"object": "embedding", "index": 0, "embedding": hashed_vector("x", 768).tolist()}
        server.enqueue(JSONReply({"object": "list", "model": "m", "data": [row]}), path=self.embed_path)
        e.embed_query("a b c")
        assert e.usage.tokens > 0 and e.usage.cost is None
        assert "use the 'ollama' provider" in caplog.text
        priced = self.make(server, policy, model="nomic-embed-text", dimension=None, price_per_million=0.0)
        assert priced.price_per_million == 0.0

    def test_gemini_embeddings_are_a_priced_preset(self, server, policy, monkeypatch) -> None:
        monkeypatch.setenv("GEMINI_API_KEY", "gemini-key")
        e = self.make(server, policy, provider="gemini", model="gemini-embedding-001", api_key=None, dimension=None)
        assert e.vendor.name == "gemini" and e.dimension == 3072 and e.price_per_million == pytest.approx(0.15)
        assert e.model_id == "gemini/gemini-embedding-001"
        row = {"object": "embedding", "index": 0, "embedding": hashed_vector("x", 3072).tolist()}
        usage = {"prompt_tokens": 1000, "total_tokens": 1000}
        server.enqueue(JSONReply({"object": "list", "model": "gemini-embedding-001", "data": [row], "usage": usage}),
                       path=self.embed_path)
        e.embed_query("x")
        assert e.usage.cost == pytest.approx(1000 * 0.15 / 1e6)
        assert server.requests_to(self.embed_path)[0].headers["authorization"] == "Bearer gemini-key"
        assert OpenAIEmbedder(provider="gemini", model="gemini-embedding-001").base_url is None  # the preset's URL
        with pytest.raises(ConfigError, match="unknown provider 'gemnii' for the openai embedder; did you mean 'gemini'"):
            OpenAIEmbedder(provider="gemnii", api_key="k")

    def test_dimension_rules(self, server, policy) -> None:
        with pytest.raises(ConfigError, match=r"model 'mystery'.*set `dimension:`"):
            OpenAIEmbedder(api_key="k", model="mystery")
        with pytest.raises(ConfigError, match="up to 1536"):
            OpenAIEmbedder(api_key="k", dimension=4096)
        with pytest.raises(ConfigError, match="only text-embedding-3-large, text-embedding-3-small"):
            OpenAIEmbedder(api_key="k", model="text-embedding-ada-002", dimension=256)
        assert OpenAIEmbedder(api_key="k", dimension=1536).request_dimension is None
        e = self.make(server, policy, model="mystery", dimension=32)  # the server answers with 64
        with pytest.raises(EmbeddingError, match=r"64-dimensional .* configured for dimension 32"):
            e.embed_query("x")

    def test_encoding_format_is_checked(self) -> None:
        with pytest.raises(ConfigError, match="encoding_format"):
            OpenAIEmbedder(api_key="k", encoding_format="int8")  # type: ignore[arg-type]

    def test_price_override(self, server, policy) -> None:
        e = self.make(server, policy, model="self-hosted", price_per_million=1.0)
        e.embed_query("a b c d")
        assert e.usage.cost == pytest.approx(4 / 1e6)


class TestCohereEmbedder(EmbedderContract):
    embedder_class = CohereEmbedder
    server_class = FakeCohereServer
    embed_path = "/v2/embed"
    dimension = 1024  # embed-english-v3.0's real size, so the default model needs no dimension option
    max_batch_size = 96

    def texts(self, body: dict[str, Any]) -> list[str]:
        return list(body["texts"])

    def auth(self, request: Any) -> str:
        return str(request.headers["authorization"])

    def test_described(self) -> None:
        e = CohereEmbedder(api_key="k")
        assert e.dimension == 1024 and e.model_id == "cohere/embed-english-v3.0"
        assert e.pricing_name == "embed-english-v3.0" and e.price_per_million == pytest.approx(0.10)

    def test_input_types_model_and_embedding_types(self, server, policy) -> None:
        e = self.make(server, policy, batch_size=3)
        e.embed_documents(["a", "b", "c", "d"])
        e.embed_query("where is the harbour")
        reqs = server.requests_to(self.embed_path)
        assert [r.body["input_type"] for r in reqs] == ["search_document", "search_document", "search_query"]
        assert reqs[0].body["model"] == "embed-english-v3.0" and reqs[0].body["embedding_types"] == ["float"]

    def test_estimate_when_api_reports_no_tokens(self, server, policy) -> None:
        body = {"id": "e", "response_type": "embeddings_by_type", "texts": ["a b c"],
                "embeddings": {"float": [hashed_vector("a b c", 1024).tolist()]}, "meta": {}}
        server.enqueue(JSONReply(body), path=self.embed_path)
        e = self.make(server, policy)
        e.embed_documents(["a b c"])
        assert e.usage.tokens == upper_bound_tokens("a b c") > 0

    def test_unknown_model_needs_dimension(self, server, policy) -> None:
        with pytest.raises(ConfigError, match=r"set `dimension:`"):
            CohereEmbedder(model="my-finetune", api_key="k")
        e = self.make(server, policy, model="my-finetune", dimension=1024)
        assert e.embed_query("x").shape == (1024,)

    def test_wrong_dimension_is_caught(self, server, policy) -> None:
        with pytest.raises(ConfigError, match=r"returns 1024-dimensional vectors \(got dimension=64\)"):
            CohereEmbedder(api_key="k", dimension=64)
        e = self.make(server, policy, model="my-finetune", dimension=32)  # the server returns 1024
        with pytest.raises(EmbeddingError, match=r"set `dimension: 1024`"):
            e.embed_query("x")

    def test_v4_output_dimension_is_sent(self, server, policy) -> None:
        e = self.make(server, policy, model="embed-v4.0", dimension=256)
        assert e.embed_query("x").shape == (256,) and e.model_id == "cohere/embed-v4.0@256"
        assert server.requests_to(self.embed_path)[-1].body["output_dimension"] == 256
        with pytest.raises(ConfigError, match="one of 256, 512, 1024, 1536"):
            CohereEmbedder(api_key="k", model="embed-v4.0", dimension=300)

    def test_truncate_is_checked(self) -> None:
        with pytest.raises(ConfigError, match="truncate"):
            CohereEmbedder(api_key="k", truncate="MIDDLE")  # type: ignore[arg-type]


class TestVoyageEmbedder(EmbedderContract):
    embedder_class = VoyageEmbedder
    server_class = FakeVoyageServer
    embed_path = "/v1/embeddings"
    dimension = 1024  # voyage-3.5's real size, so the default model needs no dimension option
    max_batch_size = 1000

    def texts(self, body: dict[str, Any]) -> list[str]:
        return list(body["input"])

    def auth(self, request: Any) -> str:
        return str(request.headers["authorization"])

    def test_described_and_priced_from_the_registry(self) -> None:
        e = VoyageEmbedder(api_key="k")
        assert e.dimension == 1024 and e.model_id == "voyage/voyage-3.5"
        assert e.pricing_name == "voyage-3.5" and e.price_per_million == pytest.approx(0.06)
        assert VoyageEmbedder(api_key="k", model="voyage-3-lite").dimension == 512

    def test_input_types_model_and_truncation(self, server, policy) -> None:
        e = self.make(server, policy, batch_size=3)
        e.embed_documents(["a", "b", "c", "d"])
        e.embed_query("where is the harbour")
        reqs = server.requests_to(self.embed_path)
        assert [r.body["input_type"] for r in reqs] == ["document", "document", "query"]
        assert reqs[0].body["model"] == "voyage-3.5" and reqs[0].body["truncation"] is True
        assert "output_dimension" not in reqs[0].body
        assert reqs[0].headers["authorization"] == "Bearer key-test"

    def test_usage_total_tokens_are_billed(self, server, policy) -> None:
        e = self.make(server, policy)
        e.embed_documents(["one two three four"])
        assert e.usage.tokens == 4 and e.usage.cost == pytest.approx(4 * 0.06 / 1e6)

    def test_output_dimension_is_sent(self, server, policy) -> None:
        e = self.make(server, policy, dimension=256)
        assert e.embed_query("x").shape == (256,) and e.model_id == "voyage/voyage-3.5@256"
        assert server.requests_to(self.embed_path)[-1].body["output_dimension"] == 256
        with pytest.raises(ConfigError, match="one of 256, 512, 1024, 2048"):
            VoyageEmbedder(api_key="k", dimension=300)
        with pytest.raises(ConfigError, match=r"returns 512-dimensional vectors"):
            VoyageEmbedder(api_key="k", model="voyage-3-lite", dimension=256)

    def test_unknown_model_needs_dimension(self, server, policy) -> None:
        with pytest.raises(ConfigError, match=r"set `dimension:`"):
            VoyageEmbedder(model="voyage-custom", api_key="k")
        e = self.make(server, policy, model="voyage-custom", dimension=1024)
        assert e.embed_query("x").shape == (1024,)

    def test_from_a_pipeline(self, server, tmp_path, monkeypatch) -> None:
        from ragkit.config import parse_pipeline
        from ragkit.index.reader import KnowledgeBase
        from ragkit.index.writer import IndexingPipeline

        monkeypatch.setenv("VOYAGE_API_KEY", "from-env")
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "ferry.txt").write_text("The ferry sails on Tuesdays from the old harbour.\n", encoding="utf-8")
        (docs / "lamp.txt").write_text("The lighthouse lamp burns paraffin.\n", encoding="utf-8")
        spec = parse_pipeline({"index": str(tmp_path / "index"), "store": {"type": "memory"},
                               "retriever": {"type": "dense"},
                               "embedder": {"type": "voyage", "base_url": server.url}})
        IndexingPipeline(spec).index_paths([docs])
        with KnowledgeBase(spec) as kb:
            assert kb.search("ferry Tuesdays", k=1)[0].source == "ferry.txt"
        assert {r.body["input_type"] for r in server.requests_to(self.embed_path)} == {"document", "query"}
