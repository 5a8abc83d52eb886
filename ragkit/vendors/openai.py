"""The OpenAI-compatible vendor (``openai`` SDK) and its presets.

One wire format, many endpoints: OpenAI itself and the servers users name, each a preset with
its default base URL and key variable:

============  ==================================================================  ==================
preset        default base URL                                                    key variable
============  ==================================================================  ==================
openai        https://api.openai.com/v1 (the SDK's default)                       OPENAI_API_KEY
ollama        http://localhost:11434/v1                                           OLLAMA_API_KEY (optional)
vllm          http://localhost:8000/v1                                            VLLM_API_KEY (optional)
llamacpp      http://localhost:8080/v1                                            LLAMACPP_API_KEY (optional)
gemini        https://generativelanguage.googleapis.com/v1beta/openai/            GEMINI_API_KEY
============  ==================================================================  ==================
"""

from __future__ import annotations

from dataclasses import dataclass

from ragkit.vendors.base import StainlessVendor


@dataclass(frozen=True, kw_only=True)
class OpenAICompatible(StainlessVendor):
    """An endpoint that speaks the OpenAI wire format, through the ``openai`` SDK."""

    sdk_module: str = "openai"
    extra: str = "openai"
    client_class: str = "OpenAI"
    async_client_class: str = "AsyncOpenAI"


def _local(name: str, port: int, key_var: str, command: str, default_model: str = "") -> OpenAICompatible:
    """A local server: the key is optional (the name is sent when none is set)."""
    url = f"http://localhost:{port}/v1"
    return OpenAICompatible(
        name=name, key_vars=(key_var,), host=url,
        base_url=url, requires_key=False, placeholder_key=name, default_model=default_model,
        connect_hint=f"is `{command}` running? pass --base-url (base_url=) if it listens elsewhere",
    )


OPENAI = OpenAICompatible(name="openai", key_vars=("OPENAI_API_KEY",),
                          host="api.openai.com", default_model="gpt-4o-mini", url_vars=("OPENAI_BASE_URL",))
OLLAMA = _local("ollama", 11434, "OLLAMA_API_KEY", "ollama serve", "llama3.2")
VLLM = _local("vllm", 8000, "VLLM_API_KEY", "vllm serve MODEL")
LLAMACPP = _local("llamacpp", 8080, "LLAMACPP_API_KEY", "llama-server -m MODEL.gguf", "local")
GEMINI = OpenAICompatible(
    name="gemini", key_vars=("GEMINI_API_KEY",),
    host="generativelanguage.googleapis.com",
    base_url="https://generativelanguage.googleapis.com/v1beta/openai/", default_model="gemini-2.0-flash",
)
PRESETS: dict[str, OpenAICompatible] = {v.name: v for v in (OPENAI, OLLAMA, VLLM, LLAMACPP, GEMINI)}

__all__ = ["GEMINI", "LLAMACPP", "OLLAMA", "OPENAI", "OpenAICompatible", "PRESETS", "VLLM"]
