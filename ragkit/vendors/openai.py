"""The OpenAI-compatible vendor (``openai`` SDK) and its presets.

One wire format, many endpoints: OpenAI itself and the servers users name (Ollama, vLLM,
llama.cpp, Gemini...), each a preset with its default base URL, key variable and model. The presets
are the :class:`ragkit.provider_names.Preset` entries of the one provider list; adding an endpoint
is one entry there.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragkit.provider_names import Preset, presets
from ragkit.vendors.base import StainlessVendor


@dataclass(frozen=True, kw_only=True)
class OpenAICompatible(StainlessVendor):
    """An endpoint that speaks the OpenAI wire format, through the ``openai`` SDK."""

    sdk_module: str = "openai"
    extra: str = "openai"
    client_class: str = "OpenAI"
    async_client_class: str = "AsyncOpenAI"


def _vendor(preset: Preset) -> OpenAICompatible:
    """The vendor of one preset; a server users run themselves needs no key (its name is sent)."""
    common = {"name": preset.name, "key_vars": (preset.key_var,), "host": preset.endpoint_host,
              "base_url": preset.base_url, "default_model": preset.default_model, "url_vars": preset.url_vars}
    if preset.local_command:
        return OpenAICompatible(
            **common, requires_key=False, placeholder_key=preset.name,
            connect_hint=f"is `{preset.local_command}` running? pass --base-url (base_url=) if it listens elsewhere",
        )
    return OpenAICompatible(**common)


PRESETS: dict[str, OpenAICompatible] = {p.name: _vendor(p) for p in presets()}
OPENAI = PRESETS["openai"]
OLLAMA = PRESETS["ollama"]
VLLM = PRESETS["vllm"]
LLAMACPP = PRESETS["llamacpp"]
GEMINI = PRESETS["gemini"]

__all__ = ["GEMINI", "LLAMACPP", "OLLAMA", "OPENAI", "OpenAICompatible", "PRESETS", "VLLM"]
