"""Every provider name ragkit ships, in one list.

The provider registry's built-in names (:data:`ragkit.registry.providers`), the presets of the
OpenAI-compatible vendor (:mod:`ragkit.vendors.openai`) and their provider classes
(:mod:`ragkit.providers.openai`), and the choices of ``--provider`` (``ragkit ask``/``chat``) are
all built from :data:`PROVIDERS`. Adding an OpenAI-compatible endpoint is one :class:`Preset`
entry here: its name, key variable, default base URL and model; the registry, the vendor, the
provider class, the key variables tests clear, ``--provider`` and ``--help`` follow.

Plain data at the bottom of the layers: importing it imports nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True, kw_only=True)
class ProviderName:
    """A built-in provider: its registry name and the module that registers it (imported on first use)."""

    name: str
    module: str
    #: offered by ``--provider`` (fakes and the fallback chain, which needs a list, are not)
    cli: bool = True


@dataclass(frozen=True, kw_only=True)
class Preset(ProviderName):
    """An OpenAI-compatible endpoint: the ``openai`` provider with its own defaults.

    ``key_var``: the API-key variable (named in the error when it is missing); ``local_command``:
    set for a server users run themselves (the key is then optional and the command is the hint
    when nothing listens); ``url_vars``: variables the SDK itself reads a base URL from."""

    module: str = "ragkit.providers.openai"
    class_name: str
    key_var: str
    doc: str = ""
    base_url: str | None = None
    default_model: str = ""
    local_command: str = ""
    host: str = ""
    url_vars: tuple[str, ...] = ()

    @property
    def endpoint_host(self) -> str:
        """Named in connection errors when no base URL is given."""
        return self.host or urlsplit(self.base_url or "").netloc or self.name


PROVIDERS: tuple[ProviderName, ...] = (
    ProviderName(name="local", module="ragkit.rag.local"),
    Preset(name="openai", class_name="OpenAIProvider", key_var="OPENAI_API_KEY", host="api.openai.com",
           default_model="gpt-4o-mini", url_vars=("OPENAI_BASE_URL",)),
    Preset(name="ollama", class_name="OllamaProvider", key_var="OLLAMA_API_KEY",
           base_url="http://localhost:11434/v1", local_command="ollama serve", default_model="llama3.2",
           doc="A local Ollama server (``ollama serve``; no API key needed)."),
    Preset(name="vllm", class_name="VLLMProvider", key_var="VLLM_API_KEY",
           base_url="http://localhost:8000/v1", local_command="vllm serve MODEL",
           doc="A vLLM server (``vllm serve MODEL``); pass the served model's name."),
    Preset(name="llamacpp", class_name="LlamaCppProvider", key_var="LLAMACPP_API_KEY",
           base_url="http://localhost:8080/v1", local_command="llama-server -m MODEL.gguf", default_model="local",
           doc="llama.cpp's ``llama-server`` (answers with its model)."),
    Preset(name="gemini", class_name="GeminiProvider", key_var="GEMINI_API_KEY",
           base_url="https://generativelanguage.googleapis.com/v1beta/openai/", default_model="gemini-2.5-flash",
           doc="Google Gemini through its OpenAI-compatible endpoint."),
    Preset(name="groq", class_name="GroqProvider", key_var="GROQ_API_KEY",
           base_url="https://api.groq.com/openai/v1", default_model="llama-3.3-70b-versatile",
           doc="Groq's OpenAI-compatible endpoint (Llama, Qwen, gpt-oss... on Groq's LPUs)."),
    Preset(name="mistral", class_name="MistralProvider", key_var="MISTRAL_API_KEY",
           base_url="https://api.mistral.ai/v1", default_model="mistral-small-latest",
           doc="Mistral AI's API (La Plateforme), OpenAI-compatible chat completions."),
    Preset(name="deepseek", class_name="DeepSeekProvider", key_var="DEEPSEEK_API_KEY",
           base_url="https://api.deepseek.com/v1", default_model="deepseek-chat",
           doc="DeepSeek's OpenAI-compatible API."),
    Preset(name="openrouter", class_name="OpenRouterProvider", key_var="OPENROUTER_API_KEY",
           base_url="https://openrouter.ai/api/v1", default_model="meta-llama/llama-3.3-70b-instruct",
           doc="OpenRouter: many vendors' models behind one OpenAI-compatible endpoint (``vendor/model`` names)."),
    Preset(name="together", class_name="TogetherProvider", key_var="TOGETHER_API_KEY",
           base_url="https://api.together.xyz/v1", default_model="meta-llama/Llama-3.3-70B-Instruct-Turbo",
           doc="Together AI's OpenAI-compatible endpoint for open models."),
    Preset(name="xai", class_name="XAIProvider", key_var="XAI_API_KEY",
           base_url="https://api.x.ai/v1", default_model="grok-4-1-fast-non-reasoning",
           doc="xAI's Grok models through their OpenAI-compatible API."),
    ProviderName(name="anthropic", module="ragkit.providers.anthropic"),
    ProviderName(name="cohere", module="ragkit.providers.cohere"),
    ProviderName(name="fallback", module="ragkit.providers.fallback", cli=False),
    ProviderName(name="scripted", module="ragkit.testing.scripted", cli=False),
    ProviderName(name="echo", module="ragkit.testing.echo", cli=False),
)


def builtin_modules() -> dict[str, str]:
    """Registry name -> the module that registers it."""
    return {p.name: p.module for p in PROVIDERS}


def presets() -> tuple[Preset, ...]:
    """The OpenAI-compatible endpoints, ``openai`` first."""
    return tuple(p for p in PROVIDERS if isinstance(p, Preset))


def cli_choices() -> list[str]:
    """The names ``--provider`` offers, in the list's order."""
    return [p.name for p in PROVIDERS if p.cli]


__all__ = ["PROVIDERS", "Preset", "ProviderName", "builtin_modules", "cli_choices", "presets"]
