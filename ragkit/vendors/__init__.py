"""The vendor layer: everything ragkit knows about a remote API vendor, in one module each.

- :mod:`ragkit.vendors.openai`: the OpenAI-compatible vendor and its presets (``openai``,
  ``ollama``, ``vllm``, ``llamacpp``, ``gemini``);
- :mod:`ragkit.vendors.anthropic`: the Anthropic Messages API;
- :mod:`ragkit.vendors.cohere`: Cohere (chat, embed, rerank).

Each holds the API-key environment variables, the SDK client factory (sync and async, SDK retries
off), the error classifier for :mod:`ragkit.retry` and the pricing lookup. Providers, embedders and
rerankers use it; nothing else reads an API-key variable or constructs an SDK client. The SDKs are
imported lazily, so importing this package is cheap.
"""

from __future__ import annotations

from ragkit.vendors.base import Vendor

__all__ = ["Vendor"]
