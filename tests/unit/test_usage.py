"""UsageStats, AgentUsage and the model price registry."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ragkit import pricing
from ragkit.embedders.base import EmbeddingUsage
from ragkit.errors import ConfigError
from ragkit.usage import AgentUsage, UsageStats


def test_registry_prices_and_lookups() -> None:
    assert pricing.price_llm("gpt-4o", 1_000_000, 1_000_000) == pytest.approx(12.5)
    assert pricing.price_embedding("text-embedding-3-small", 1_000_000) == pytest.approx(0.02)
    assert pricing.model_info("gpt-4o-mini-2024-07-18").name == "gpt-4o-mini"  # dated variant
    assert pricing.model_info("openai/gpt-4.1").name == "gpt-4.1"  # vendor prefix
    assert pricing.model_info("llama3.1:8b").name == "llama3.1"  # ollama tag of a local model
    assert pricing.model_info("sentence-transformers/all-MiniLM-L6-v2").embedding == 0
    assert pricing.context_window("claude-sonnet-4-0") == 200000
    for name in ("claude-3-5-haiku-latest", "claude-opus-4-1", "command-r", "command-r-plus", "command-a-03-2025",
                 "embed-english-v3.0", "embed-multilingual-v3.0", "rerank-english-v3.0", "local-extractive",
                 "text-embedding-3-large", "gpt-4.1-mini"):
        assert pricing.model_info(name) is not None, name


def test_unknown_model_is_unpriced_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="ragkit.pricing"):
        assert pricing.price_llm("my-private-model", 100, 100) is None
        assert pricing.price_llm("my-private-model", 5, 5) is None
        assert pricing.price_embedding("my-private-model", 100) is None
    assert caplog.text.count("model 'my-private-model' is not in ragkit's model registry") == 1
    assert "pricing: {my-private-model:" in caplog.text and "ragkit.pricing.register('my-private-model'" in caplog.text


def test_env_file_adds_and_replaces_entries_and_malformed_files_are_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = tmp_path / "models.yaml"
    good.write_text("models:\n  house:\n    house-llm: {input: 1.0, output: 2.0, context_window: 4096}\n"
                    "  openai:\n    gpt-4o: {input: 1.0, output: 1.0}\n")
    monkeypatch.setenv(pricing.ENV_VAR, str(good))
    pricing.reload()
    assert pricing.price_llm("house-llm", 1_000_000, 500_000) == pytest.approx(2.0)
    assert pricing.price_llm("gpt-4o", 1_000_000, 0) == pytest.approx(1.0)  # replaced
    assert pricing.price_llm("gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)  # the packaged entries stay
    bad = tmp_path / "bad.yaml"
    bad.write_text("models:\n  house:\n    house-llm: {input: cheap}\n")
    monkeypatch.setenv(pricing.ENV_VAR, str(bad))
    pricing.reload()
    with pytest.raises(ConfigError, match=r"bad.yaml, key 'models.house.house-llm'.input: expected a non-negative number"):
        pricing.price_llm("house-llm", 1, 1)
    bad.write_text("models:\n  house:\n    x: {inptu: 1}\n")
    pricing.reload()
    with pytest.raises(ConfigError, match="unknown key\\(s\\) inptu"):
        pricing.model_info("x")
    bad.write_text("models:\n  house:\n    x: {input: 1, output: 1}\n    x: {input: 2, output: 2}\n")
    pricing.reload()
    with pytest.raises(ConfigError, match=r"duplicate key 'x' on line 4 \(first on line 3\)"):
        pricing.model_info("x")
    bad.write_text("- not a mapping\n")
    pricing.reload()
    with pytest.raises(ConfigError, match="top-level mapping 'models:'"):
        pricing.model_info("x")


def test_usage_stats_priced_from_registry_or_explicit() -> None:
    stats = UsageStats(input_tokens=1_000_000, output_tokens=0, model="gpt-4o-mini")
    assert stats.priced().cost == pytest.approx(0.15)
    unknown = UsageStats(input_tokens=10, model="house-llm").priced()
    assert unknown.cost is None and unknown.unpriced
    assert (unknown + stats).cost is None  # an unknown part makes the total unknown, never $0
    assert UsageStats.from_embedding_usage(EmbeddingUsage(tokens=3, cost=None)).priced().unpriced
    assert UsageStats(embedding_tokens=10, cost=1.0).priced().cost == 1.0
    total = UsageStats(embedding_tokens=1_000_000, embedding_model="text-embedding-3-large") + UsageStats(
        embedding_tokens=5, cost=0.5)
    assert total.embedding_tokens == 1_000_005 and total.cost == pytest.approx(0.63)
    emb = UsageStats.from_embedding_usage(EmbeddingUsage(tokens=42, texts=2, calls=1, cost=0.001))
    assert (emb.embedding_tokens, emb.cost) == (42, 0.001)
    assert UsageStats.from_dict(stats.to_dict()).cost == pytest.approx(0.15)


def test_agent_usage_aggregates_and_serializes() -> None:
    usage = AgentUsage()
    assert usage.add_llm(model="gpt-4o", input_tokens=1000, output_tokens=100) == pytest.approx(0.0035)
    assert usage.add_llm(model="gpt-4o", input_tokens=1000, output_tokens=100, cached=True) == 0
    usage.add_tool("search", UsageStats(embedding_tokens=35, cost=0.0001))
    usage.add_tool("search", None, error=True)
    assert usage.by_tool["search"].calls == 2 and usage.by_tool["search"].errors == 1
    assert usage.embedding_cost == pytest.approx(0.0001) and usage.cache_hits == 1
    assert usage.summary_line() == "LLM 2,000 in / 200 out tokens · embeddings 35 tokens · 1 cached · cost $0.0036"
    again = AgentUsage.from_dict(usage.to_dict())
    assert again == usage and again.to_dict()["total_tokens"] == 2235
    merged = AgentUsage().merge(usage).merge(usage)
    assert merged.input_tokens == 4000 and merged.by_tool["search"].calls == 4


def test_an_unpriced_model_makes_the_cost_null_never_zero() -> None:
    usage = AgentUsage()
    assert usage.add_llm(model="gpt-4o", input_tokens=1000, output_tokens=100, iteration=1) == pytest.approx(0.0035)
    assert usage.add_llm(model="house-llm", input_tokens=500, output_tokens=50, provider="openai", iteration=2) is None
    usage.add_tool("search", UsageStats(embedding_tokens=7, embedding_model="text-embedding-3-small"), iteration=2)
    assert usage.llm_cost is None and usage.total_cost is None and usage.unpriced == ["house-llm"]
    assert usage.summary_line().endswith("cost unpriced (no price for house-llm)")
    data = usage.to_dict()
    assert data["total_cost"] is None and data["llm_cost"] is None and data["unpriced"] == ["house-llm"]
    assert [(i.iteration, i.model, i.llm_cost is None, i.tool_calls) for i in usage.iterations] == [
        (1, "gpt-4o", False, 0), (2, "house-llm", True, 1)]
    assert usage.iterations[0].cost == pytest.approx(0.0035) and usage.iterations[1].embedding_tokens == 7
    again = AgentUsage.from_dict(data)
    assert again == usage and again.total_cost is None
    assert AgentUsage().merge(usage).total_cost is None
