"""Index a folder with a remote embedder against a local wire-protocol server,
then ask; the index report, the catalog's run row and the answer's usage all show embedding tokens
and a cost computed from the registry's price."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragkit import pricing
from ragkit.config import parse_pipeline
from ragkit.index.catalog import Catalog
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.rag.agent import RAGAgent
from ragkit.testing.servers import FakeCohereServer, FakeOpenAIServer, count_tokens

pytestmark = pytest.mark.network_local

FILES = {
    "ferry.txt": "The ferry to Nordholm sails from the old harbour every Tuesday at seven in the morning.",
    "bakery.txt": "The bakery on Mill Street sells rye bread baked with caraway seeds on Saturdays.",
    "museum.txt": "The maritime museum opens at ten and shows a restored fishing boat from 1893.",
}
QUESTION = "When does the ferry to Nordholm sail?"


def write_corpus(root: Path) -> Path:
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text + "\n", encoding="utf-8")
    return root


def spec_for(index: Path, embedder: dict[str, Any]) -> Any:
    return parse_pipeline(
        {
            "index": str(index),
            "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 400, "chunk_overlap": 0},
            "embedder": embedder,
            "store": {"type": "memory"},
        },
        origin="test.yaml",
    )


def index_then_ask(tmp_path: Path, embedder: dict[str, Any], price: float) -> tuple[Any, Any]:
    spec = spec_for(tmp_path / "index", embedder)
    report = IndexingPipeline(spec).index_paths([write_corpus(tmp_path / "docs")])
    assert report.chunks_added == len(FILES)
    assert report.embedding_tokens > 0
    assert report.embedding_cost == pytest.approx(report.embedding_tokens * price / 1e6)

    catalog = Catalog(tmp_path / "index" / "catalog.duckdb", read_only=True)
    try:
        run = catalog.runs(limit=1)[0]
    finally:
        catalog.close()
    assert run["embedding_tokens"] == report.embedding_tokens
    assert run["embedding_cost"] == pytest.approx(report.embedding_cost)

    with KnowledgeBase(spec) as kb:
        result = RAGAgent(kb, provider="local").ask(QUESTION)
    usage = result.usage
    assert usage.embedding_tokens > 0
    assert usage.embedding_cost == pytest.approx(usage.embedding_tokens * price / 1e6)
    tool = usage.by_tool["search_knowledge_base"]
    assert tool.embedding_tokens == usage.embedding_tokens and tool.cost == pytest.approx(
        usage.embedding_cost
    )
    assert "Tuesday" in result.content
    assert any(c.source == "ferry.txt" for c in result.citations)
    return report, result


def test_cohere_embedder_index_and_ask(tmp_path: Path, cohere_server: FakeCohereServer) -> None:
    price = pricing.model_info("embed-english-v3.0").embedding  # type: ignore[union-attr]
    assert price == pytest.approx(0.10)
    embedder = {
        "type": "cohere",
        "base_url": cohere_server.url,
        "api_key": "test",
        "dimension": cohere_server.dimension,
    }
    report, result = index_then_ask(tmp_path, embedder, price)

    reqs = cohere_server.requests_to("/v2/embed")
    documents = [r for r in reqs if r.body["input_type"] == "search_document"]
    queries = [r for r in reqs if r.body["input_type"] == "search_query"]
    assert sum(len(r.body["texts"]) for r in documents) == len(FILES)
    assert queries and all(r.body["texts"] == [QUESTION] for r in queries)
    assert result.usage.embedding_tokens == count_tokens(QUESTION) * len(queries)  # billed by the API


def test_openai_embedder_index_and_ask(tmp_path: Path, openai_server: FakeOpenAIServer) -> None:
    price = pricing.model_info("text-embedding-3-small").embedding  # type: ignore[union-attr]
    assert price == pytest.approx(0.02)
    embedder = {
        "type": "openai",
        "base_url": openai_server.url,
        "api_key": "test",
        "dimension": openai_server.dimension,
    }
    index_then_ask(tmp_path, embedder, price)
    reqs = openai_server.requests_to("/v1/embeddings")
    assert {r.body["dimensions"] for r in reqs} == {openai_server.dimension}


def test_unchanged_reindex_calls_no_api(tmp_path: Path, cohere_server: FakeCohereServer) -> None:
    embedder = {"type": "cohere", "base_url": cohere_server.url, "api_key": "test"}
    spec = spec_for(tmp_path / "index", embedder)
    docs = write_corpus(tmp_path / "docs")
    IndexingPipeline(spec).index_paths([docs])
    calls = len(cohere_server.requests)
    again = IndexingPipeline(spec).index_paths([docs])
    assert again.embedding_tokens == 0 and again.embedding_cost == 0
    assert len(cohere_server.requests) == calls


def test_pipeline_option_errors_name_the_key(tmp_path: Path) -> None:
    from ragkit.errors import ConfigError, EmbeddingError

    spec = spec_for(tmp_path / "i", {"type": "cohere", "api_key": "k", "model": "mine"})
    with pytest.raises(ConfigError, match=r"test.yaml: embedder: .*set `dimension:`"):
        _ = KnowledgeBase(spec).embedder
    with pytest.raises(ConfigError, match=r"embedder.batchsize: unknown option .*batch_size"):
        spec_for(tmp_path / "i", {"type": "cohere", "api_key": "k", "batchsize": 3})
    spec = spec_for(tmp_path / "i", {"type": "openai"})
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY"):
        _ = KnowledgeBase(spec).embedder
