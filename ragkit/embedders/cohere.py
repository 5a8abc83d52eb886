"""The Cohere embedder: the Embed API v2 through the ``cohere`` SDK (``ClientV2.embed``).

Chunks are sent with ``input_type="search_document"`` and queries with ``"search_query"``, as
Cohere's retrieval models expect. Up to 96 texts go in one request (the API's limit). The tokens
are the API's ``meta.billed_units.input_tokens``, priced from the model registry (``ragkit/models.yaml``)
(embed-english-v3.0: $0.10 per million). The key comes from the vendor's variables
(:mod:`ragkit.vendors.cohere`); ``base_url`` points the client at another host (a proxy, a
private deployment, or ragkit's ``FakeCohereServer`` in tests).

Pipeline YAML::

    embedder:
      type: cohere
      model: embed-english-v3.0     # 1024 dimensions; embed-v4.0 also accepts dimension: 256/512/1024
      batch_size: 96

Chunk sizes in ``unit: tokens`` are measured with a conservative estimate
(:func:`ragkit.tokens.upper_bound_tokens`), since Cohere's tokenizer is not available
offline; v3 models read at most 512 tokens per text and truncate the rest (``truncate:``).
"""

from __future__ import annotations

from typing import Any, Literal

from ragkit.embedders.remote import Kind, RemoteEmbedder, remote_options
from ragkit.errors import ConfigError
from ragkit.registry import embedders
from ragkit.retry import RetryPolicy
from ragkit.vendors.cohere import COHERE

#: models that accept ``output_dimension`` (Matryoshka), and the sizes they accept
OUTPUT_DIMENSIONS: dict[str, tuple[int, ...]] = {"embed-v4.0": (256, 512, 1024, 1536)}
_INPUT_TYPE: dict[str, str] = {"document": "search_document", "query": "search_query"}


@embedders.register("cohere")
class CohereEmbedder(RemoteEmbedder):
    """``CohereEmbedder(model="embed-english-v3.0")``; ``api_key`` defaults to the vendor's variables."""

    name = "cohere"
    vendor = COHERE
    max_batch_size = 96

    def __init__(
        self,
        *,
        model: str = "embed-english-v3.0",
        api_key: str | None = None,
        base_url: str | None = None,
        batch_size: int = 96,
        dimension: int | None = None,
        truncate: Literal["NONE", "START", "END"] | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        price_per_million: float | None = None,
        concurrency: int = 1,
    ) -> None:
        if truncate is not None and truncate not in ("NONE", "START", "END"):
            raise ConfigError(f"truncate must be one of NONE, START, END (got {truncate!r})")
        self.truncate = truncate
        super().__init__(**remote_options(locals()))
        self._http: Any = None

    def _resolve_dimension(self, dimension: int | None) -> tuple[int, int | None]:
        return self._shortenable_dimension(dimension, OUTPUT_DIMENSIONS)

    def _make_client(self) -> Any:
        import httpx

        self._http = httpx.Client(timeout=self.timeout)
        return self.vendor.client(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                  httpx_client=self._http)

    def _close_client(self, client: Any) -> None:
        http, self._http = self._http, None
        if http is not None:
            http.close()

    def _request(self, client: Any, texts: list[str], kind: Kind) -> tuple[Any, int | None]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "texts": texts,
            "input_type": _INPUT_TYPE[kind],
            "embedding_types": ["float"],
        }
        if self.request_dimension:
            kwargs["output_dimension"] = self.request_dimension
        if self.truncate:
            kwargs["truncate"] = self.truncate
        resp = client.embed(**kwargs)
        vectors = getattr(resp.embeddings, "float_", None)
        if vectors is None:
            vectors = getattr(resp.embeddings, "float", None)
        billed = getattr(resp.meta, "billed_units", None) if resp.meta is not None else None
        tokens = getattr(billed, "input_tokens", None) if billed is not None else None
        return vectors if vectors is not None else [], int(tokens) if tokens else None


__all__ = ["CohereEmbedder"]
