"""The vendor layer: everything ragkit knows about a remote API vendor, in one module each.

- :mod:`ragkit.vendors.openai`: the OpenAI-compatible vendor and its presets (``openai``,
  ``ollama``, ``vllm``, ``llamacpp``, ``gemini``);
- :mod:`ragkit.vendors.anthropic`: the Anthropic Messages API;
- :mod:`ragkit.vendors.cohere`: Cohere (chat, embed, rerank);
- :mod:`ragkit.vendors.voyage`: Voyage AI (embeddings, over plain HTTP).

Each holds the API-key environment variables, the SDK client factory (sync and async, SDK retries
off), the error classifier for :mod:`ragkit.retry` and the pricing lookup. Providers, embedders and
rerankers use it; nothing else reads an API-key variable or constructs an SDK client. The SDKs are
imported lazily, so importing this package is cheap.
"""

from __future__ import annotations

from ragkit.vendors.base import Vendor


def all_vendors() -> list[Vendor]:
    """Every vendor and preset ragkit knows (imports no SDK)."""
    from ragkit.vendors.anthropic import ANTHROPIC
    from ragkit.vendors.cohere import COHERE
    from ragkit.vendors.openai import PRESETS
    from ragkit.vendors.voyage import VOYAGE

    return [*PRESETS.values(), ANTHROPIC, COHERE, VOYAGE]


def environment_variables() -> list[str]:
    """The API-key and base-URL variables any vendor reads (tests clear them)."""
    names: list[str] = []
    for vendor in all_vendors():
        names += [v for v in (*vendor.key_vars, *vendor.url_vars) if v not in names]
    return names


__all__ = ["Vendor", "all_vendors", "environment_variables"]
