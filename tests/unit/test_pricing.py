"""The model registry (ragkit/models.yaml), matching that never guesses a paid model free, typed
constants, registered prices and `ragkit models`."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit import pricing
from ragkit.cli.main import cli
from ragkit.errors import ConfigError
from ragkit.model_info import REQUIRED, read_registry, render_constants

PAID_VENDORS = {"openai", "anthropic", "gemini", "mistral", "groq", "deepseek", "xai", "cohere", "together", "openrouter"}


@pytest.fixture(scope="module")
def registry():
    return read_registry(pricing.REGISTRY_FILE)


def test_every_entry_is_complete_and_unique(registry) -> None:
    problems = []
    for m in registry.models:
        missing = m.missing()
        if m.kind == "chat" and (m.provider, m.name) not in registry.states_cached:
            missing.append("cached_input (a number, or null when the vendor has no cached price)")
        if missing:
            problems.append(f"{m.provider}/{m.name}: {', '.join(missing)}")
        if m.provider not in registry.vendors:
            problems.append(f"{m.provider}/{m.name}: vendor {m.provider!r} is not under vendors:")
        if m.local and (m.input or m.output):
            problems.append(f"{m.provider}/{m.name}: a local model must cost 0")
        if not m.local and m.kind == "chat" and not (m.input and m.output):
            problems.append(f"{m.provider}/{m.name}: a paid chat model needs input and output prices")
    assert not problems, "\n".join(problems)
    keys = [(m.provider, n.lower()) for m in registry.models for n in (m.name, *m.aliases)]
    assert len(keys) == len(set(keys)), "a name is used twice within a vendor"
    for vendor in PAID_VENDORS | {"voyage"}:  # every price is cited: the vendor's page and the date
        assert registry.vendors[vendor].prices.startswith("https://"), vendor
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", registry.as_of)
    assert "AS OF" in pricing.REGISTRY_FILE.read_text()
    assert set(REQUIRED) == {"chat", "embedding", "rerank"}


def test_the_registry_covers_at_least_130_chat_models_and_the_embedders(registry) -> None:
    chat = [m for m in registry.models if m.kind == "chat"]
    paid = [m for m in chat if not m.local]
    assert len(paid) >= 130
    assert {m.provider for m in paid} == PAID_VENDORS
    assert {m.provider for m in chat if m.local} >= {"ollama", "vllm"}
    embedders = {m.provider for m in registry.models if m.kind == "embedding" and not m.local}
    assert embedders >= {"openai", "cohere", "gemini", "voyage", "mistral"}
    assert all(m.dimension for m in registry.models if m.kind == "embedding")


def test_a_duplicate_key_is_refused_with_its_line(tmp_path: Path) -> None:
    f = tmp_path / "models.yaml"
    f.write_text("models:\n  gemini:\n    gemini-2.0-flash: {input: 1, output: 1}\n"
                 "    gemini-2.0-flash: {input: 1, output: 1}\n")
    with pytest.raises(ConfigError, match=r"duplicate key 'gemini-2.0-flash' on line 4 \(first on line 3\)"):
        read_registry(f)
    f.write_text("models:\n  x:\n    a: {input: 1, output: 1, aliases: [b]}\n    b: {input: 2, output: 2}\n")
    with pytest.raises(ConfigError, match=r"the name 'b' is already used by 'models.x.a'"):
        read_registry(f)


@pytest.mark.parametrize(("name", "provider", "expected"), [
    ("gpt-4o-2024-08-06", None, ("openai", "gpt-4o")),  # a dated snapshot is its model
    ("gpt-4o-2024-08-06", "openai", ("openai", "gpt-4o")),
    ("gpt-4o-2024-05-13", None, ("openai", "gpt-4o-2024-05-13")),  # ... unless it has its own price
    ("openai/gpt-4o", None, ("openai", "gpt-4o")),
    ("mistral-large-latest", None, ("mistral", "mistral-large-latest")),
    ("mistral-large-latest", "mistral", ("mistral", "mistral-large-latest")),
    ("mistral-large-2411", "mistral", ("mistral", "mistral-large-2411")),
    ("llama-3.3-70b-versatile", "groq", ("groq", "llama-3.3-70b-versatile")),
    ("llama-3.3-70b-versatile", None, ("groq", "llama-3.3-70b-versatile")),
    ("claude-sonnet-4-5-20250929", "anthropic", ("anthropic", "claude-sonnet-4-5")),
    ("claude-3-opus-20240229", None, ("anthropic", "claude-3-opus")),
    ("gemini-2.0-flash-001", "gemini", ("gemini", "gemini-2.0-flash")),
    ("command-r-08-2024", None, ("cohere", "command-r-08-2024")),
    ("gpt-3.5-turbo-0125", None, ("openai", "gpt-3.5-turbo")),
    ("openai/gpt-oss-120b", "groq", ("groq", "openai/gpt-oss-120b")),
    ("openai/gpt-oss-120b", "together", ("together", "openai/gpt-oss-120b")),
])
def test_exact_names_aliases_and_dated_snapshots_match(name: str, provider: str | None, expected: tuple) -> None:
    match = pricing.lookup(name, provider)
    assert match.status == "priced" and (match.info.provider, match.info.name) == expected


def test_the_models_that_used_to_cost_zero_are_priced() -> None:
    for name in ("gpt-4-turbo", "gpt-3.5-turbo", "o1", "claude-3-opus", "gemini-1.5-pro", "gemini-2.5-pro",
                 "deepseek-chat", "deepseek-reasoner", "llama-3.3-70b-versatile", "mistral-large-latest"):
        cost = pricing.price_llm(name, 1_000_000, 1_000_000)
        assert cost is not None and cost > 0, name
    # Mistral's large model at Mistral's price, never as Ollama's free `mistral`
    assert pricing.price_llm("mistral-large-latest", 1_000_000, 1_000_000) == pytest.approx(0.5 + 1.5)
    assert pricing.price_llm("gpt-4o-2024-08-06", 1_000_000, 1_000_000) == pricing.price_llm("gpt-4o", 1_000_000, 1_000_000)


@pytest.mark.parametrize(("name", "provider"), [
    ("mistral-large", None),  # a prefix of nothing, and never Ollama's `mistral`
    ("mistral-medium-3", "mistral"),
    ("llama3.2", "openai"),  # a local model's name through a paid endpoint: nothing says it is local
    ("gpt-4o-turbo-ultra", "openai"),
    ("gpt-4o:free", None),  # a tag is for local models
    ("my-finetune", None),
])
def test_anything_else_is_unpriced_never_free(name: str, provider: str | None) -> None:
    assert pricing.lookup(name, provider).status == "unpriced"
    assert pricing.price_llm(name, 1000, 1000, provider=provider) is None


def test_a_name_several_vendors_sell_at_different_prices_is_ambiguous(caplog: pytest.LogCaptureFixture) -> None:
    match = pricing.lookup("openai/gpt-oss-120b", "openai")
    assert match.status == "ambiguous" and {i.provider for i in match.candidates} >= {"groq", "together", "openrouter"}
    with caplog.at_level(logging.WARNING, logger="ragkit.pricing"):
        assert pricing.price_llm("openai/gpt-oss-120b", 10, 10, provider="openai") is None
    assert "sold at different prices by groq, openrouter, together" in caplog.text


def test_local_vendors_cost_zero_because_they_are_local() -> None:
    for provider in ("ollama", "vllm", "llamacpp", "local"):
        assert pricing.price_llm("anything-at-all", 10_000, 10_000, provider=provider) == 0.0
    assert pricing.lookup("mistral", "ollama").info.context_window == 32768
    assert pricing.context_window("llama3.1:8b", "ollama") == 131072
    assert pricing.price_llm("ollama/llama3.2", 10, 10) == 0.0  # the prefix names a local vendor
    assert pricing.embedding_rate("nomic-embed-text:latest", "ollama") == 0.0


def test_long_context_rates_apply_above_the_threshold() -> None:
    short = pricing.price_llm("gemini-2.5-pro", 200_000, 1000)
    long = pricing.price_llm("gemini-2.5-pro", 200_001, 1000)
    assert short == pytest.approx((200_000 * 1.25 + 1000 * 10) / 1e6)
    assert long == pytest.approx((200_001 * 2.5 + 1000 * 15) / 1e6)
    cached = pricing.price_llm("gpt-4o", 1000, 0, cached_input_tokens=400)
    assert cached == pytest.approx((600 * 2.5 + 400 * 1.25) / 1e6)


def test_register_and_pipeline_pricing_give_a_price(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert pricing.price_llm("house-llm", 1_000_000, 0) is None
    pricing.register("house-llm", input=0.5, output=1.5, context_window=32_000)
    assert pricing.price_llm("house-llm", 1_000_000, 1_000_000) == pytest.approx(2.0)
    assert pricing.context_window("house-llm", "openai") == 32_000
    pricing.register("gpt-4o", input=1.0, output=1.0, provider="azure")  # only for that provider
    assert pricing.price_llm("gpt-4o", 1_000_000, 0, provider="azure") == pytest.approx(1.0)
    assert pricing.price_llm("gpt-4o", 1_000_000, 0, provider="openai") == pytest.approx(2.5)
    with pytest.raises(ConfigError, match="needs both input and output prices"):
        pricing.register("half", input=1.0)
    from ragkit.config import load_pipeline

    pipe = tmp_path / "p.yaml"
    pipe.write_text("embedder: {type: hashing, model: house-embed}\n"
                    "pricing:\n  house-embed: {input: 0.07, kind: embedding, dimension: 256}\n"
                    "  house-chat: {input: 3, output: 4, provider: openai}\n")
    spec = load_pipeline(pipe)
    spec.register_prices()
    assert pricing.embedding_rate("house-embed") == pytest.approx(0.07)
    assert pricing.price_llm("house-chat", 1_000_000, 0, provider="openai") == pytest.approx(3.0)
    pipe.write_text("pricing:\n  house-chat: {input: 3}\n")
    with pytest.raises(ConfigError, match=r"pricing.house-chat: .*needs an output price"):
        load_pipeline(pipe)


def test_typed_constants_match_the_registry(registry) -> None:
    generated = Path(pricing.REGISTRY_FILE).with_name("models.py").read_text()
    assert generated == render_constants(registry), "run: python -m ragkit.model_info --write-constants"
    from ragkit.models import Anthropic, Groq, Mistral, Ollama, OpenAI

    assert OpenAI.GPT_4O == "gpt-4o" and OpenAI.GPT_4_1_MINI == "gpt-4.1-mini"
    assert Anthropic.CLAUDE_SONNET_4_5 == "claude-sonnet-4-5" and Groq.LLAMA_3_3_70B_VERSATILE == "llama-3.3-70b-versatile"
    assert Mistral.MISTRAL_LARGE_LATEST == "mistral-large-latest" and Ollama.LLAMA3_1 == "llama3.1"
    assert pricing.model_info(OpenAI.TEXT_EMBEDDING_3_SMALL).dimension == 1536


def test_ragkit_models_lists_at_least_130_chat_models_with_prices() -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["models", "--kind", "chat", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    paid = [m for m in data["models"] if not m["local"]]
    assert len(paid) >= 130 and all(m["input"] > 0 and m["output"] > 0 and m["price_page"] for m in paid)
    table = runner.invoke(cli, ["models", "--provider", "groq"])
    assert table.exit_code == 0 and "llama-3.3-70b-versatile" in table.output and "0.59" in table.output
    assert len(runner.invoke(cli, ["models"]).output.splitlines()) >= 2 + 130
    bad = runner.invoke(cli, ["models", "--provider", "grok"])
    assert bad.exit_code == 2 and "did you mean 'groq'" in bad.output
