"""The OpenAI-compatible embedder: ``POST /embeddings`` through the ``openai`` SDK.

With ``base_url`` the same code serves OpenAI, Ollama (``http://localhost:11434/v1``), vLLM,
llama.cpp's server and any OpenAI-compatible endpoint. The key comes from the vendor's variable
(:mod:`ragkit.vendors.openai`); a local server ignores it, so any value does (``api_key: ollama``). Up to ``batch_size`` texts
(OpenAI's limit: 2048) and about 240k estimated tokens go in one request (OpenAI's limit: 300k).
The tokens are the API's ``usage.prompt_tokens``, priced from the model registry (``ragkit/models.yaml``)
(text-embedding-3-small: $0.02 per million; through a local provider such as ``ollama``: 0; a model
the registry has no price for is unpriced).

Pipeline YAML::

    embedder:
      type: openai
      model: text-embedding-3-small   # 1536 dimensions; `dimension: 512` asks the API for shorter ones
    # Gemini's embeddings through its OpenAI-compatible endpoint (GEMINI_API_KEY; $0.15 per million):
    embedder:
      type: openai
      provider: gemini
      model: gemini-embedding-001      # 3072 dimensions
    # or a local Ollama model (cost 0: it runs on your machine):
    embedder:
      type: openai
      provider: ollama                 # base_url defaults to http://localhost:11434/v1
      model: nomic-embed-text          # 768 dimensions
      query_prefix: "search_query: "   # nomic-embed-text expects task prefixes
      document_prefix: "search_document: "

For models this module does not know, set ``dimension:``. Chunk sizes in ``unit: tokens`` are
measured with a conservative estimate (:func:`ragkit.tokens.upper_bound_tokens`).
"""

from __future__ import annotations

import base64
from typing import Any, Literal

import numpy as np

from ragkit.embedders.remote import Kind, RemoteEmbedder, prefix_marker, remote_options
from ragkit.errors import ConfigError
from ragkit.registry import did_you_mean, embedders
from ragkit.retry import RetryPolicy
from ragkit.vendors.openai import OPENAI, PRESETS

#: models that accept the ``dimensions`` request parameter (any size up to the native one)
SHORTENABLE = frozenset({"text-embedding-3-small", "text-embedding-3-large"})
MAX_INPUTS = 2048
MAX_BATCH_TOKENS = 240_000  # estimated; OpenAI rejects requests over 300k tokens


def _base_name(model: str) -> str:
    """``nomic-embed-text:latest`` -> ``nomic-embed-text`` (Ollama tags)."""
    return model.lower().split(":", 1)[0]


@embedders.register("openai")
class OpenAIEmbedder(RemoteEmbedder):
    """``OpenAIEmbedder(model="text-embedding-3-small")``; ``api_key`` defaults to the vendor's variable.

    ``provider`` picks the OpenAI-compatible endpoint (:data:`ragkit.vendors.openai.PRESETS`): its
    default base URL, key variable and prices — ``OpenAIEmbedder(provider="gemini",
    model="gemini-embedding-001")`` (``GEMINI_API_KEY``) or ``provider="ollama"`` (local: cost 0)."""

    name = "openai"
    vendor = OPENAI
    key_hint = "; for a local server use its provider (provider: ollama), which needs no key"
    max_batch_size = MAX_INPUTS

    def __init__(
        self,
        *,
        model: str = "text-embedding-3-small",
        provider: str = "openai",
        api_key: str | None = None,
        base_url: str | None = None,
        batch_size: int = 512,
        dimension: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        encoding_format: Literal["base64", "float"] = "base64",
        timeout: float = 60.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        price_per_million: float | None = None,
        concurrency: int = 1,
    ) -> None:
        if encoding_format not in ("base64", "float"):
            raise ConfigError(f"encoding_format must be 'base64' or 'float' (got {encoding_format!r})")
        if provider not in PRESETS:
            raise ConfigError(f"unknown provider {provider!r} for the openai embedder{did_you_mean(provider, PRESETS)}; "
                              f"choose one of {', '.join(PRESETS)}")
        self.vendor = PRESETS[provider]
        self.encoding_format = encoding_format
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        super().__init__(**remote_options(locals()), max_batch_tokens=MAX_BATCH_TOKENS)
        if document_prefix:  # vectors of prefixed text differ: keep them apart in the embedding cache
            self.model_id += f"+doc:{prefix_marker(document_prefix)}"

    def _resolve_dimension(self, dimension: int | None) -> tuple[int, int | None]:
        base = _base_name(self.model)
        native = self.native_dimension(base)  # from the model registry
        if native is None:
            if dimension is None:
                raise self._unknown_dimension()
            return dimension, None  # not sent: many compatible servers reject `dimensions`
        if dimension is None or dimension == native:
            return native, None
        if base in SHORTENABLE and dimension < native:
            return dimension, dimension
        fix = (
            f"a value up to {native}"
            if base in SHORTENABLE
            else f"{native} (or remove dimension); only {', '.join(sorted(SHORTENABLE))} can shorten their vectors"
        )
        raise ConfigError(
            f"model '{self.model}' returns {native}-dimensional vectors (got dimension={dimension}); set dimension to {fix}"
        )

    def _request(self, client: Any, texts: list[str], kind: Kind) -> tuple[Any, int | None]:
        prefix = self.query_prefix if kind == "query" else self.document_prefix
        kwargs: dict[str, Any] = {
            "model": self.model,
            "input": [prefix + t for t in texts],
            "encoding_format": self.encoding_format,
        }
        if self.request_dimension:
            kwargs["dimensions"] = self.request_dimension
        resp = client.embeddings.create(**kwargs)
        rows = sorted(resp.data, key=lambda d: d.index)
        vectors = [_decode(d.embedding) for d in rows]
        usage = getattr(resp, "usage", None)
        tokens = getattr(usage, "prompt_tokens", None) if usage is not None else None
        return vectors, int(tokens) if tokens else None


def _decode(embedding: Any) -> np.ndarray:
    """A base64 string of little-endian float32 (what we ask for), or a float list (servers that
    ignore ``encoding_format``)."""
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding), dtype="<f4")
    return np.asarray(embedding, dtype=np.float32)


__all__ = ["OpenAIEmbedder"]
