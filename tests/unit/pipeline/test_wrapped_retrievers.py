"""rerank and mmr are registered retrievers wrapping another one: from YAML, the CLI, RAGAgent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.config import parse_pipeline
from ragkit.errors import ConfigError
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.rag.agent import RAGAgent
from ragkit.retrieval.hybrid import HybridRetriever
from ragkit.retrieval.mmr import MMRRetriever
from ragkit.retrieval.rerank import RerankingRetriever

from ..retrieval.helpers import tiny_cross_encoder
from .helpers import make_spec, write_tree


def test_mmr_pipeline_end_to_end(tmp_path: Path) -> None:
    spec = make_spec(tmp_path / "index", retriever={"type": "mmr", "base": {"type": "hybrid"}, "lambda_mult": 0.7})
    assert spec.uses_lexical  # the base (hybrid) needs the BM25 index, so the index keeps one
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    assert (tmp_path / "index" / "bm25").is_dir()
    with KnowledgeBase(spec) as kb:
        retriever = kb.retriever()
        assert isinstance(retriever, MMRRetriever) and isinstance(retriever.base, HybridRetriever)
        assert retriever.lambda_mult == 0.7
        assert kb.retriever() is retriever  # built once, reused by every search
        hits = kb.search("ferry Tuesdays harbour", k=2)
        assert hits[0].source == "notes/gamma.txt" and len(hits) == 2
        # a plain retriever named inside the pipeline's keeps its options
        assert isinstance(kb.retriever("hybrid"), HybridRetriever)
        result = RAGAgent(kb, provider="local", retriever="mmr").ask("On which days does the ferry sail?")
    assert "Tuesdays" in result.content and result.citations[0].source == "notes/gamma.txt"


def test_wrapper_without_a_base_wraps_dense_and_a_bad_base_is_caught_before_anything_runs(tmp_path: Path) -> None:
    assert not make_spec(tmp_path / "i", retriever={"type": "mmr"}).uses_lexical
    with pytest.raises(ConfigError, match=r"retriever\.base\.fusio: unknown option for retriever 'hybrid'; did you mean 'fusion'"):
        parse_pipeline({"retriever": {"type": "rerank", "base": {"type": "hybrid", "fusio": "rrf"}, "model": "m"}})
    with pytest.raises(ConfigError, match=r"retriever\.base\.type: unknown retriever 'hybird'"):
        parse_pipeline({"retriever": {"type": "mmr", "base": {"type": "hybird"}}})
    with pytest.raises(ConfigError, match=r"retriever\.modle: unknown option for retriever 'rerank'"):
        parse_pipeline({"retriever": {"type": "rerank", "modle": "m"}})


@pytest.mark.slow
def test_rerank_from_yaml_and_from_search_cli(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    model = tiny_cross_encoder(tmp_path / "tiny-ce")
    docs = write_tree(tmp_path / "docs")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": str(tmp_path / "index"),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 120, "chunk_overlap": 10},
        "embedder": {"type": "hashing", "dimension": 64},
        "store": {"type": "memory"},
        "retriever": {"type": "hybrid"},
    }), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(docs), "--pipeline", str(pipe)]).exit_code == 0
    index = str(tmp_path / "index")
    res = runner.invoke(cli, ["search", "ferry Tuesdays harbour", "--index", index, "--retriever", "rerank",
                              "--rerank-model", str(model), "--json", "-k", "3"])
    assert res.exit_code == 0, res.output
    hits = json.loads(res.stdout)
    assert len(hits) == 3 and all("retrieval_score" in h for h in hits)  # reranked hybrid candidates
    res = runner.invoke(cli, ["search", "ferry", "--index", index, "--retriever", "rerank"])
    assert res.exit_code == 2 and "needs model" in res.output
    spec = make_spec(tmp_path / "index", retriever={"type": "rerank", "base": {"type": "hybrid"}, "model": str(model)})
    with KnowledgeBase(spec) as kb:
        retriever = kb.retriever()
        assert isinstance(retriever, RerankingRetriever) and isinstance(retriever.base, HybridRetriever)
        assert len(kb.search("ferry Tuesdays harbour", k=2)) == 2
