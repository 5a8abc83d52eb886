"""The OpenAI-compatible vendor presets people use (Groq, Mistral, DeepSeek, OpenRouter, Together,
xAI): endpoint and key variable, priced through the model registry; a Groq run through its preset
against the local OpenAI wire server is priced at Groq's rates."""

from __future__ import annotations

import pytest

from ragkit import pricing
from ragkit.agent import Agent
from ragkit.errors import ProviderError
from ragkit.provider_names import cli_choices, presets
from ragkit.providers.openai import PRESET_PROVIDERS, GroqProvider
from ragkit.registry import providers
from ragkit.testing.servers import FakeOpenAIServer

pytestmark = pytest.mark.network_local

EXPECTED = {
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    "deepseek": ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    "xai": ("https://api.x.ai/v1", "XAI_API_KEY"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_preset_has_its_endpoint_key_variable_and_a_priced_default(name: str, monkeypatch) -> None:
    url, key_var = EXPECTED[name]
    cls = providers.get(name)
    assert cls is PRESET_PROVIDERS[name] and name in cli_choices()
    with pytest.raises(ProviderError, match=f"set the environment variable {key_var}"):
        cls()
    monkeypatch.setenv(key_var, "sk-test")
    provider = cls()
    assert provider.base_url == url and provider.api_key == "sk-test" and provider.name == name
    cost = pricing.price_llm(provider.model, 1_000_000, 1_000_000, provider=name)
    assert cost is not None and cost > 0, f"{name}'s default model {provider.model!r} has no price"


def test_the_registry_and_the_provider_list_agree_on_vendors() -> None:
    vendors = pricing.vendors()
    for preset in presets():
        assert preset.name in vendors, f"preset {preset.name!r} has no vendors: entry in ragkit/models.yaml"
        assert vendors[preset.name].local == bool(preset.local_command), preset.name
        if not preset.local_command:
            assert vendors[preset.name].prices.startswith("https://"), preset.name
        if preset.default_model and not preset.local_command:
            assert pricing.lookup(preset.default_model, preset.name).status == "priced", preset.name


def test_a_groq_run_through_the_preset_is_priced_at_groqs_rates(monkeypatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-test")
    with FakeOpenAIServer() as server:
        server.enqueue_text("Paris is the capital of France.")
        agent = Agent(GroqProvider(base_url=server.url))
        result = agent.run("What is the capital of France?")
        request = server.requests_to(server.chat_path)[0]
    assert request.body["model"] == "llama-3.3-70b-versatile"
    assert request.headers["authorization"] == "Bearer gsk-test"
    u = result.usage
    assert u.input_tokens > 0 and u.output_tokens > 0 and u.unpriced == []
    expected = (u.input_tokens * 0.59 + u.output_tokens * 0.79) / 1e6  # Groq's list price, models.yaml
    assert u.llm_cost == pytest.approx(expected) and u.total_cost == pytest.approx(expected)
    assert result.trace.of_type("llm_call")[0].cost == pytest.approx(expected)
    assert "unpriced" not in u.summary_line() and u.summary_line().endswith(f"cost ${expected:.4f}")


def test_an_openrouter_name_for_a_first_party_model_is_priced_as_its_vendor(monkeypatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-test")
    with FakeOpenAIServer() as server:
        server.enqueue_text("ok")
        result = Agent(PRESET_PROVIDERS["openrouter"](base_url=server.url, model="openai/gpt-4o-mini")).run("hi")
    u = result.usage
    assert u.llm_cost == pytest.approx((u.input_tokens * 0.15 + u.output_tokens * 0.60) / 1e6)
