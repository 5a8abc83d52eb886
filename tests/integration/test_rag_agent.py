"""RAGAgent inside the agent loop: multi-step runs, usage (LLM + embeddings), citations, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit import pricing
from ragkit.cli.main import cli
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.messages import Response, Usage
from ragkit.rag.agent import RAGAgent
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.testing.servers.openai import FakeOpenAIServer

from ..unit.pipeline.helpers import make_spec, write_tree

EMB_MODEL = "text-embedding-3-small"


@pytest.fixture()
def kb(tmp_path: Path):
    spec = make_spec(tmp_path / "index", embedder={"type": "hashing", "dimension": 64, "model": EMB_MODEL})
    report = IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    assert report.embedding_tokens > 0
    assert report.embedding_cost == pytest.approx(pricing.price_embedding(EMB_MODEL, report.embedding_tokens))
    with KnowledgeBase(spec) as kb:
        yield kb


def test_two_searches_then_answer_usage_and_citations(kb) -> None:
    provider = ScriptedProvider(
        responses=[
            tool_call_response(("search_knowledge_base", {"query": "ferry days", "top_k": 2}), usage=Usage(120, 15)),
            tool_call_response(("search_knowledge_base", {"query": "lighthouse builder", "top_k": 2}),
                               usage=Usage(300, 18)),
            Response(content="The ferry sails on Tuesdays [1] and Thomas Reid built the lighthouse [99] [3].",
                     usage=Usage(520, 30)),
        ],
        model="gpt-4o-mini",
    )
    agent = RAGAgent(kb, provider=provider)
    result = agent.ask("When does the ferry sail and who built the lighthouse?")
    u = result.usage
    assert (u.input_tokens, u.output_tokens) == (940, 63)
    assert u.llm_calls == 3 and result.iterations == 3
    tool = u.by_tool["search_knowledge_base"]
    assert tool.calls == 2
    expected_emb_tokens = kb.embedder.count_tokens("ferry days") + kb.embedder.count_tokens("lighthouse builder")
    assert u.embedding_tokens == tool.embedding_tokens == expected_emb_tokens
    assert u.embedding_cost == pytest.approx(pricing.price_embedding(EMB_MODEL, expected_emb_tokens))
    assert u.llm_cost == pytest.approx(pricing.price_llm("gpt-4o-mini", u.input_tokens, u.output_tokens))
    assert u.total_cost == pytest.approx(u.llm_cost + u.embedding_cost) and u.llm_cost > 0 and u.embedding_cost > 0
    # [99] was never returned by a search: removed; [1] and [3] resolve to real passages, renumbered
    # in order of first appearance: [3] becomes [2]
    assert "[99]" not in result.content and result.content.endswith("lighthouse [2].")
    assert [c.number for c in result.citations] == [1, 2]
    c1 = result.citations[0]
    assert c1.source == "notes/gamma.txt" and "Tuesdays" in c1.text
    text = (Path(kb.index_dir).parent / "docs" / c1.source).read_text(encoding="utf-8")
    assert text[c1.start:c1.end] == c1.text
    # the second search numbered its new passages after the first search's two
    outputs = [s.output for s in result.trace.steps if getattr(s, "type", "") == "tool_call"]
    assert "[1] source:" in outputs[0] and "[2] source:" in outputs[0]
    assert "[3] source:" in outputs[1] and "[1] source:" not in outputs[1]


def test_local_provider_answers_offline_with_citation(kb) -> None:
    result = RAGAgent(kb, provider="local").ask("On which days does the ferry sail from the old harbour?")
    assert "Tuesdays" in result.content and result.citations
    assert result.citations[0].source == "notes/gamma.txt"
    assert "[1]" in result.content


@pytest.mark.network_local
def test_ask_cli_against_openai_compatible_server(kb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    index = str(kb.index_dir)
    with FakeOpenAIServer() as server:
        for stream in (False, True):
            server.enqueue_tool_call("search_knowledge_base", {"query": "ferry sailing days"})
            server.enqueue_text("The ferry sails on Tuesdays and Fridays [1].")
            args = ["ask", "When does the ferry sail?", "--index", index, "--provider", "openai",
                    "--model", "gpt-4o-mini", "--base-url", server.url]
            res = CliRunner().invoke(cli, args + (["--stream"] if stream else ["--json"]), catch_exceptions=False)
            assert res.exit_code == 0, res.output
            if stream:
                assert "Tuesdays and Fridays [1]" in res.stdout
                assert "[1] notes/gamma.txt" in res.stdout and "embeddings" in res.stdout
            else:
                data = json.loads(res.stdout)
                assert data["citations"][0]["source"] == "notes/gamma.txt"
                assert data["usage"]["embedding_tokens"] > 0 and data["usage"]["input_tokens"] > 0
                assert data["usage"]["by_tool"]["search_knowledge_base"]["calls"] == 1
        chat_reqs = server.requests_to("/v1/chat/completions")
    assert len(chat_reqs) == 4
    tool_msg = [m for m in chat_reqs[1].body["messages"] if m["role"] == "tool"][0]
    assert "[1] source: notes/gamma.txt" in tool_msg["content"]
    assert chat_reqs[0].body["tools"][0]["function"]["name"] == "search_knowledge_base"


def test_chat_piped_conversation(kb) -> None:
    script = "When does the ferry sail from the harbour?\n/sources\n/usage\n/trace\n/reset\n/bogus\n/help\n/exit\nignored\n"
    res = CliRunner().invoke(cli, ["chat", "--index", str(kb.index_dir)], input=script, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "Tuesdays" in out and "[1] notes/gamma.txt" in out
    assert "LLM" in out and "embeddings" in out
    assert "tool_call" in out and "conversation forgotten" in out
    assert "unknown command /bogus" in out and "/exit" in out
    assert "ignored" not in out


def test_ask_json_reports_refusal_for_unknown_topic(kb) -> None:
    res = CliRunner().invoke(cli, ["ask", "What is the airspeed velocity of an unladen swallow?", "--index",
                                   str(kb.index_dir), "--json"], catch_exceptions=False)
    data = json.loads(res.stdout)
    assert "does not contain" in data["content"]


def test_missing_api_key_is_a_clear_error(kb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    res = CliRunner().invoke(cli, ["ask", "x", "--index", str(kb.index_dir), "--provider", "openai"])
    assert res.exit_code != 0 and "OPENAI_API_KEY" in res.stderr




def test_unreachable_local_server_fails_fast_with_a_cli_hint(kb) -> None:
    from ragkit.testing.servers import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"
    res = CliRunner().invoke(cli, ["ask", "x", "--index", str(kb.index_dir), "--provider", "ollama", "--base-url", url])
    assert res.exit_code != 0
    assert "is `ollama serve` running? pass --base-url" in res.stderr and "max_retries" not in res.stderr
    assert "attempts" not in res.stderr  # connection refused is not retried


def test_missing_api_key_says_which_variable_to_export(kb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    res = CliRunner().invoke(cli, ["ask", "x", "--index", str(kb.index_dir), "--provider", "gemini"])
    assert res.exit_code != 0 and "export GEMINI_API_KEY=" in res.stderr


def test_streamed_answer_is_renumbered_like_the_result(kb) -> None:
    """Citations are numbered in order of first appearance ([2] before [1]
    in the model's text becomes [1] before [2]), in the stream as in the final result."""
    provider = ScriptedProvider(
        responses=[
            tool_call_response(("search_knowledge_base", {"query": "ferry days", "top_k": 2})),
            Response(content="Second passage first [2], then the first [1] and `v[1]` in code [7].",
                     usage=Usage(10, 5)),
        ],
    )
    agent = RAGAgent(kb, provider=provider)
    events = list(agent.stream("When does the ferry sail?"))
    result = events[-1].result
    assert result.content == "Second passage first [1], then the first [2] and `v[1]` in code."
    assert "".join(e.text for e in events if e.type == "text") == result.content
    assert [c.number for c in result.citations] == [1, 2]
    assert result.citations[0].chunk_id != result.citations[1].chunk_id
