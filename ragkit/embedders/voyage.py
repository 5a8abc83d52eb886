"""The Voyage AI embedder: Voyage's embeddings API (``POST /v1/embeddings``) through the vendor's
HTTP client (:mod:`ragkit.vendors.voyage`).

Chunks are sent with ``input_type: "document"`` and queries with ``"query"``, as Voyage's
retrieval models expect (Voyage prepends its own retrieval prompt to each). Up to 1,000 texts
(the API's limit) and about 100k estimated tokens go in one request (the API's per-request token
limit is 120k for its largest models). The tokens are the API's ``usage.total_tokens``, priced
from the model registry (``ragkit/models.yaml``; voyage-3.5: $0.06 per million). The key comes
from ``VOYAGE_API_KEY``; ``base_url`` points the client at another host (a proxy, or ragkit's
``FakeVoyageServer`` in tests).

Pipeline YAML::

    embedder:
      type: voyage
      model: voyage-3.5          # 1024 dimensions; dimension: 256/512/2048 asks for other sizes

Chunk sizes in ``unit: tokens`` are measured with a conservative estimate
(:func:`ragkit.tokens.upper_bound_tokens`), since Voyage's tokenizer is not available offline.
"""

from __future__ import annotations

from typing import Any

from ragkit.embedders.remote import Kind, RemoteEmbedder, remote_options
from ragkit.errors import ConfigError
from ragkit.registry import embedders
from ragkit.retry import RetryPolicy
from ragkit.vendors.voyage import VOYAGE

#: models that accept ``output_dimension`` (Matryoshka), and the sizes they accept
FLEXIBLE = ("voyage-4-large", "voyage-4", "voyage-4-lite", "voyage-3.5", "voyage-3.5-lite", "voyage-3-large",
            "voyage-code-3")
OUTPUT_DIMENSIONS: dict[str, tuple[int, ...]] = {m: (256, 512, 1024, 2048) for m in FLEXIBLE}
MAX_INPUTS = 1000
MAX_BATCH_TOKENS = 100_000  # estimated (the estimate over-counts); the API's smallest limit is 120k


@embedders.register("voyage")
class VoyageEmbedder(RemoteEmbedder):
    """``VoyageEmbedder(model="voyage-3.5")``; ``api_key`` defaults to ``VOYAGE_API_KEY``."""

    name = "voyage"
    vendor = VOYAGE
    max_batch_size = MAX_INPUTS

    def __init__(
        self,
        *,
        model: str = "voyage-3.5",
        api_key: str | None = None,
        base_url: str | None = None,
        batch_size: int = 128,
        dimension: int | None = None,
        truncation: bool = True,
        timeout: float = 60.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        price_per_million: float | None = None,
        concurrency: int = 1,
    ) -> None:
        if not isinstance(truncation, bool):
            raise ConfigError(f"truncation must be true or false (got {truncation!r})")
        self.truncation = truncation
        super().__init__(**remote_options(locals()), max_batch_tokens=MAX_BATCH_TOKENS)

    def _resolve_dimension(self, dimension: int | None) -> tuple[int, int | None]:
        return self._shortenable_dimension(dimension, OUTPUT_DIMENSIONS)

    def _request(self, client: Any, texts: list[str], kind: Kind) -> tuple[Any, int | None]:
        resp = client.embed(model=self.model, input=texts, input_type=kind, truncation=self.truncation,
                            output_dimension=self.request_dimension)
        rows = sorted(resp.get("data") or [], key=lambda d: d.get("index", 0))
        tokens = (resp.get("usage") or {}).get("total_tokens")
        return [r.get("embedding") for r in rows], int(tokens) if tokens else None


__all__ = ["VoyageEmbedder"]
