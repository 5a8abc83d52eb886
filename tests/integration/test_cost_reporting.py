"""Cost reporting with an unpriced model: `ragkit ask`'s usage line and --json, the pipeline's
`pricing:`, the server's usage and a Groq run through its preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.testing.servers.openai import FakeOpenAIServer

from ..unit.pipeline.helpers import make_spec, write_tree

pytestmark = pytest.mark.network_local


def _index(tmp_path: Path, **over) -> str:
    spec = make_spec(tmp_path / "index", **over)
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    with KnowledgeBase(spec) as kb:
        return str(kb.index_dir)


def _ask(index: str, server: FakeOpenAIServer, *extra: str) -> tuple[int, str, str]:
    server.enqueue_tool_call("search_knowledge_base", {"query": "ferry"})
    server.enqueue_text("The ferry sails on Tuesdays [1].")
    res = CliRunner().invoke(cli, ["ask", "When does the ferry sail?", "--index", index, "--base-url", server.url,
                                   *extra], catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def test_an_unpriced_model_is_reported_as_unpriced_never_zero(tmp_path: Path, monkeypatch, caplog) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    index = _index(tmp_path)
    with FakeOpenAIServer() as server:
        code, out, err = _ask(index, server, "--provider", "openai", "--model", "house-llm")
    assert code == 0, out + err
    usage_line = out.strip().splitlines()[-1]
    assert usage_line.endswith("cost unpriced (no price for house-llm)") and "$0.0000" not in out
    warned = [r.getMessage() for r in caplog.records if r.name == "ragkit.pricing"]
    assert len(warned) == 1 and "model 'house-llm' through provider 'openai' is not in ragkit's model registry" in warned[0]
    assert "pricing: {house-llm:" in warned[0]
    with FakeOpenAIServer() as server:
        code, out, _ = _ask(index, server, "--provider", "openai", "--model", "house-llm", "--json")
    usage = json.loads(out)["usage"]
    assert usage["total_cost"] is None and usage["llm_cost"] is None and usage["unpriced"] == ["house-llm"]
    assert usage["embedding_cost"] is not None  # the hashing embedder is local: 0 by design
    assert [i["llm_cost"] for i in usage["iterations"]] == [None, None]


def test_the_pipelines_pricing_prices_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    index = _index(tmp_path, pricing={"house-llm": {"input": 2.0, "output": 4.0}})
    with FakeOpenAIServer() as server:
        code, out, _ = _ask(index, server, "--provider", "openai", "--model", "house-llm", "--json")
    usage = json.loads(out)["usage"]
    assert code == 0 and usage["unpriced"] == []
    assert usage["llm_cost"] == pytest.approx((usage["input_tokens"] * 2.0 + usage["output_tokens"] * 4.0) / 1e6)


def test_a_groq_run_through_the_cli_preset_is_priced(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-test")
    index = _index(tmp_path)
    with FakeOpenAIServer() as server:
        code, out, _ = _ask(index, server, "--provider", "groq", "--json")
    usage = json.loads(out)["usage"]
    assert code == 0 and usage["unpriced"] == []
    assert usage["llm_cost"] == pytest.approx((usage["input_tokens"] * 0.59 + usage["output_tokens"] * 0.79) / 1e6)


def test_the_servers_usage_says_null_for_an_unpriced_model() -> None:
    from ragkit.agent.observe.trace import AgentTrace
    from ragkit.agent.result import AgentResult
    from ragkit.server.engine import usage_of
    from ragkit.usage import AgentUsage

    usage = AgentUsage()
    usage.add_llm(model="house-llm", input_tokens=100, output_tokens=10, provider="openai")
    result = AgentResult(content="hi", usage=usage, trace=AgentTrace(run_id="r"))
    shown = usage_of(result)  # what the API returns and a session stores
    assert shown["cost"] is None and shown["unpriced"] == ["house-llm"]
    assert result.usage.to_dict()["total_cost"] is None  # what a trace records
