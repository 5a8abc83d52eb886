"""``min_score``: a score threshold on every retriever, from the pipeline YAML (the retriever spec
and a wrapper's base), per search (``KnowledgeBase.search``, ``search_knowledge_base``, ``ragkit
search --min-score``); invalid values are refused naming the key."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.config import parse_pipeline
from ragkit.errors import ConfigError
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.rag.agent import RAGAgent
from ragkit.rag.tool import NO_RESULTS, make_search_tool

from .helpers import make_spec, write_cli_pipeline, write_tree

QUERY = "ferry harbour Tuesdays lighthouse rain"
KINDS: list[dict[str, Any]] = [
    {"type": "dense"},
    {"type": "bm25"},
    {"type": "hybrid", "fusion": "rrf"},
    {"type": "hybrid", "fusion": "minmax"},
    {"type": "mmr", "base": {"type": "dense"}},
]


def indexed(tmp_path: Path, retriever: dict[str, Any]) -> KnowledgeBase:
    spec = make_spec(tmp_path / "index", retriever=retriever, lexical={"enabled": True})
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    return KnowledgeBase(spec)


@pytest.mark.parametrize("conf", KINDS, ids=lambda c: "-".join(str(v) for v in c.values() if isinstance(v, str)))
def test_every_retriever_drops_hits_below_its_min_score(tmp_path: Path, conf: dict[str, Any]) -> None:
    with indexed(tmp_path / "all", conf) as kb:
        every = kb.search(QUERY, k=10)
    scores = sorted({h.score for h in every}, reverse=True)
    assert len(scores) >= 2, "the corpus must give distinct scores"
    threshold = (scores[0] + scores[1]) / 2
    with indexed(tmp_path / "cut", {**conf, "min_score": threshold}) as kb:
        kept = kb.search(QUERY, k=10)
        assert kept and [h.id for h in kept] == [h.id for h in every if h.score >= threshold]
        assert len(kept) < len(every)
        # a per-search threshold replaces the spec's: lower gives more, higher gives none
        assert [h.id for h in kb.search(QUERY, k=10, min_score=scores[-1])] == [h.id for h in every]
        assert kb.search(QUERY, k=10, min_score=scores[0] + 1) == []


def test_a_dense_score_is_the_cosine_similarity(tmp_path: Path) -> None:
    with indexed(tmp_path, {"type": "dense", "min_score": 0.0}) as kb:
        hits = kb.search(QUERY, k=3)
        query = kb.embedder.embed_query(QUERY)
        for h in hits:
            doc = kb.embedder.embed_documents([h.metadata["text"]])[0]
            cosine = float(np.dot(query, doc) / (np.linalg.norm(query) * np.linalg.norm(doc)))
            assert h.score == pytest.approx(cosine, abs=1e-4)
            assert h.score >= 0.0


def test_a_wrapper_base_keeps_its_own_threshold(tmp_path: Path) -> None:
    with indexed(tmp_path / "a", {"type": "dense"}) as kb:
        top = kb.search(QUERY, k=10)[0].score
    with indexed(tmp_path / "b", {"type": "mmr", "base": {"type": "dense", "min_score": top}}) as kb:
        assert len(kb.search(QUERY, k=10)) == 1  # mmr reorders the base's hits, which the base cut


@pytest.mark.parametrize("value", ["high", math.nan, math.inf, True, [0.5]])
def test_an_invalid_min_score_is_refused_naming_the_key(value: Any) -> None:
    with pytest.raises(ConfigError, match=r"retriever\.min_score: .*finite number"):
        parse_pipeline({"retriever": {"type": "dense", "min_score": value}}, origin="p.yaml")
    with pytest.raises(ConfigError, match=r"p\.yaml: retriever\.base\.min_score must be a finite number"):
        parse_pipeline({"retriever": {"type": "mmr", "base": {"type": "dense", "min_score": value}}},
                       origin="p.yaml")


def test_an_invalid_per_search_min_score_is_refused(tmp_path: Path) -> None:
    with indexed(tmp_path, {"type": "dense"}) as kb, pytest.raises(ConfigError, match="min_score must be a finite"):
        kb.search(QUERY, min_score=math.nan)


def test_search_knowledge_base_takes_min_score(tmp_path: Path) -> None:
    with indexed(tmp_path, {"type": "dense"}) as kb:
        tool = make_search_tool(kb)
        assert "min_score" in tool.parameters["properties"]
        every = tool.invoke({"query": QUERY, "top_k": 10}).output
        assert every is not None and every.citations
        best = max(h["score"] for h in every.data)
        assert len(tool.invoke({"query": QUERY, "top_k": 10, "min_score": best}).output.citations) == 1
        assert tool.invoke({"query": QUERY, "min_score": best + 1}).content == NO_RESULTS
        # a default for calls that give none (an agent's own threshold)
        strict = make_search_tool(kb, default_min_score=best + 1)
        assert strict.invoke({"query": QUERY}).content == NO_RESULTS


def test_search_cli_min_score(tmp_path: Path) -> None:
    docs, pipe = write_cli_pipeline(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(docs), "--pipeline", str(pipe)]).exit_code == 0
    index = str(tmp_path / "index")
    every = json.loads(runner.invoke(cli, ["search", QUERY, "--index", index, "--json", "-k", "10"]).stdout)
    best = every[0]["score"]
    res = runner.invoke(cli, ["search", QUERY, "--index", index, "--json", "-k", "10", "--min-score", str(best)])
    assert [h["id"] for h in json.loads(res.stdout)] == [every[0]["id"]]
    res = runner.invoke(cli, ["search", QUERY, "--index", index, "--min-score", "nan"])
    assert res.exit_code != 0 and "min_score must be a finite number" in res.stderr


def test_a_rag_agent_with_a_threshold_finds_nothing_below_it(tmp_path: Path) -> None:
    with indexed(tmp_path, {"type": "dense"}) as kb:
        best = kb.search(QUERY, k=1)[0].score
        assert RAGAgent(kb, provider="local").ask("When does the ferry sail?").citations
        strict = RAGAgent(kb, provider="local", min_score=best + 1).ask("When does the ferry sail?")
        assert strict.citations == [] and strict.tool_calls[0].output == NO_RESULTS
        with pytest.raises(ConfigError, match="min_score must be a finite number"):
            RAGAgent(kb, provider="local", min_score=math.inf)
