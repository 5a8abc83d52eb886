"""What the remote (SDK-backed) embedders share: keys, batching, retries, usage, dimension checks.

A subclass names its vendor (:mod:`ragkit.vendors`: key variables, SDK client, error
classifier, prices; the vector length of known models comes from the model registry) and implements the hook
``_request(client, texts, kind)`` (one API call for one batch; ``kind`` is ``"document"`` or ``"query"``) returning the raw
vectors and the tokens the API billed (``None`` when it said nothing). This base then

- resolves the API key at construction (a missing key is an ``EmbeddingError`` naming the
  variable), checks the SDK is installed, and fixes ``dimension`` before anything runs: the store
  needs it before the first embed, so an unknown model without ``dimension:`` is a ``ConfigError``;
- splits the input into batches under the API's limits (texts per request and an estimated token
  budget) and, with ``concurrency > 1``, sends them in parallel, keeping the input order;
- runs every request through :mod:`ragkit.retry` (429 and 5xx are retried; ``retry=RetryPolicy(...)``
  injects the policy, e.g. a fake sleep in tests), turning the final failure into an
  ``EmbeddingError`` with the HTTP status and the fix;
- records usage per request: the tokens the API reports, priced from the model registry (``ragkit/models.yaml``)
  (:mod:`ragkit.pricing`), or :func:`ragkit.tokens.upper_bound_tokens` where the API reports none;
- L2-normalizes the vectors and checks their length against ``dimension``.

Token counts before embedding (the splitter's ``unit: tokens``) use :func:`ragkit.tokens.upper_bound_tokens`: the
remote tokenizers are not available offline, so chunk sizes for remote models are measured with a
deliberately conservative estimate (it over-counts English by about a third), which keeps chunks
under the model's input limit.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, Literal

import numpy as np

from ragkit.embedders.base import Embedder, normalize_rows
from ragkit.errors import ConfigError, EmbeddingError
from ragkit.retry import ErrorInfo, RetryPolicy, call_with_retry
from ragkit.tokens import upper_bound_tokens
from ragkit.vendors.base import Vendor

log = logging.getLogger(__name__)
Kind = Literal["document", "query"]

#: the options every remote embedder takes and hands to :class:`RemoteEmbedder` unchanged
REMOTE_OPTIONS = ("model", "api_key", "base_url", "batch_size", "dimension", "timeout", "max_retries", "retry",
                  "price_per_million", "concurrency")


def remote_options(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`REMOTE_OPTIONS` out of a subclass's ``__init__`` arguments (its ``locals()``).

    A subclass spells its signature out (the API reference and the pipeline's option check read
    it) and forwards the shared options with ``super().__init__(**remote_options(locals()))``."""
    return {name: arguments[name] for name in REMOTE_OPTIONS}


def plan_batches(
    texts: Sequence[str], *, max_items: int, max_tokens: int | None, count: Callable[[str], int]
) -> list[tuple[int, int]]:
    """``[start, end)`` ranges of ``texts``: at most ``max_items`` texts and (when a text alone
    does not already exceed it) at most ``max_tokens`` estimated tokens per range."""
    ranges: list[tuple[int, int]] = []
    start, budget = 0, 0
    for i, text in enumerate(texts):
        tokens = count(text) if max_tokens else 0
        full = i - start >= max_items or (
            max_tokens is not None and i > start and budget + tokens > max_tokens
        )
        if full:
            ranges.append((start, i))
            start, budget = i, 0
        budget += tokens
    if start < len(texts):
        ranges.append((start, len(texts)))
    return ranges


class RemoteEmbedder(Embedder):
    """Base of the SDK-backed embedders; see the module docstring for what it does."""

    name: ClassVar[str] = "remote"
    vendor: ClassVar[Vendor]
    key_hint: ClassVar[str] = ""  # appended to the missing-key error
    max_batch_size: ClassVar[int] = 96  # the API's limit of texts per request

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None,
        batch_size: int,
        dimension: int | None,
        timeout: float,
        max_retries: int,
        retry: RetryPolicy | None,
        price_per_million: float | None,
        concurrency: int,
        max_batch_tokens: int | None = None,
    ) -> None:
        super().__init__()
        if not model:
            raise ConfigError(f"the '{self.name}' embedder needs a model name; pass model='...'")
        if not 1 <= batch_size <= self.max_batch_size:
            raise ConfigError(
                f"batch_size must be between 1 and {self.max_batch_size} (the {self.name} API's limit of "
                f"texts per request) (got {batch_size})"
            )
        if dimension is not None and dimension < 1:
            raise ConfigError(f"dimension must be at least 1 (got {dimension})")
        if timeout <= 0:
            raise ConfigError(f"timeout must be > 0 seconds (got {timeout})")
        if max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0 (got {max_retries}); use 0 to disable retries")
        if concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1 (got {concurrency})")
        if retry is not None and not isinstance(retry, RetryPolicy):
            raise ConfigError(
                f"retry must be a ragkit.retry.RetryPolicy (got {type(retry).__name__}); in YAML set max_retries"
            )
        if price_per_million is not None and price_per_million < 0:
            raise ConfigError(f"price_per_million must be >= 0 USD (got {price_per_million})")
        self.vendor.require_sdk(f"the '{self.name}' embedder")
        self.model = model
        self.api_key = self.vendor.api_key(api_key, what=f"the '{self.name}' embedder", error_cls=EmbeddingError,
                                           hint=self.key_hint)
        self.base_url = base_url or None
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.timeout = float(timeout)
        self.concurrency = concurrency
        self.retry_policy = retry if retry is not None else RetryPolicy.from_max_retries(max_retries)
        self._dim, self.request_dimension = self._resolve_dimension(dimension)
        self.price_per_million = (
            price_per_million if price_per_million is not None else self._registry_price()
        )
        suffix = f"@{self.request_dimension}" if self.request_dimension else ""
        self.model_id = f"{self.vendor.name}/{model}{suffix}"
        self._client: Any = None
        self._client_lock = threading.Lock()

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}(model={self.model!r}, dimension={self._dim}{where})"

    # ------------------------------------------------------------ subclass hooks
    def _resolve_dimension(self, dimension: int | None) -> tuple[int, int | None]:
        """``(vector length, value to send as the API's dimension parameter or None)``."""
        raise NotImplementedError

    def _make_client(self) -> Any:
        return self.vendor.client(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout)

    def _request(self, client: Any, texts: list[str], kind: Kind) -> tuple[Any, int | None]:
        """One API call: (vectors as an array-like of rows, billed tokens or None)."""
        raise NotImplementedError

    def classify(self, exc: BaseException) -> ErrorInfo | None:
        return self.vendor.classify(exc, timeout=self.timeout, endpoint=self.base_url)

    # ------------------------------------------------------------ configuration helpers
    @property
    def pricing_name(self) -> str:
        """The name :mod:`ragkit.pricing` knows the model by (the rag tool prices usage with it)."""
        return self.model

    def _registry_price(self) -> float | None:
        """The registry's price of the model as this vendor serves it; None (one warning naming
        how to add a price, or ``price_per_million``) when it has none: its cost is unpriced."""
        return self.vendor.embedding_rate(self.model)

    def native_dimension(self, model: str) -> int | None:
        """The vector length of ``model`` in the model registry (``dimension:``), or None."""
        info = self.vendor.model_info(model)
        return info.dimension if info is not None and info.kind == "embedding" else None

    def _shortenable_dimension(self, dimension: int | None,
                               sizes: Mapping[str, tuple[int, ...]]) -> tuple[int, int | None]:
        """``_resolve_dimension`` of a vendor whose models in ``sizes`` can return shorter vectors
        (Matryoshka: ``{model: accepted sizes}``); other known models only their registry size, and
        an unknown model the ``dimension`` given (checked against the first response)."""
        native = self.native_dimension(self.model)  # from the model registry
        if native is None:
            if dimension is None:
                raise self._unknown_dimension()
            return dimension, None
        if dimension is None or dimension == native:
            return native, None
        allowed = sizes.get(self.model.lower(), ())
        if dimension in allowed:
            return dimension, dimension
        shorter = ", ".join(f"{m} ({', '.join(map(str, d))})" for m, d in sizes.items())
        choice = f"one of {', '.join(map(str, allowed))}" if allowed else f"{native} (or remove dimension)"
        raise ConfigError(
            f"model '{self.model}' returns {native}-dimensional vectors (got dimension={dimension}); "
            f"set dimension to {choice}; models that can shorten their vectors: {shorter}"
        )

    def _unknown_dimension(self) -> ConfigError:
        from ragkit import pricing

        known = [m for m in pricing.models(kind="embedding") if m.provider == self.vendor.name and m.dimension]
        examples = ", ".join(f"{m.name} {m.dimension}" for m in known[:4]) or "none for this vendor"
        return ConfigError(
            f"the '{self.name}' embedder does not know the vector length of model '{self.model}', and the "
            f"vector store needs it before the first embedding; set `dimension:` in the embedder options "
            f"to the model's output size (known models: {examples})"
        )

    @property
    def dimension(self) -> int:
        return self._dim

    def count_tokens(self, text: str) -> int:
        """An estimate (:func:`ragkit.tokens.upper_bound_tokens`): the remote tokenizer is not available offline."""
        return upper_bound_tokens(text)

    # ------------------------------------------------------------ client
    @property
    def client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = self._make_client()
            return self._client

    def load(self) -> None:
        """Create the SDK client now (no request is sent)."""
        _ = self.client

    def close(self) -> None:
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            self._close_client(client)

    def _close_client(self, client: Any) -> None:
        closer = getattr(client, "close", None)
        if callable(closer):
            closer()

    # ------------------------------------------------------------ embedding
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(list(texts), "document")

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], "query")[0]

    def _embed(self, texts: list[str], kind: Kind) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        ranges = plan_batches(
            texts, max_items=self.batch_size, max_tokens=self.max_batch_tokens, count=upper_bound_tokens
        )
        parts: list[np.ndarray]
        if self.concurrency > 1 and len(ranges) > 1:
            with ThreadPoolExecutor(
                min(self.concurrency, len(ranges)), thread_name_prefix="ragkit-embed"
            ) as ex:
                parts = list(ex.map(lambda r: self._embed_one(texts[r[0] : r[1]], kind), ranges))
        else:
            parts = [self._embed_one(texts[a:b], kind) for a, b in ranges]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _embed_one(self, texts: list[str], kind: Kind) -> np.ndarray:
        client = self.client
        raw, tokens = call_with_retry(
            lambda: self._request(client, texts, kind),
            classify=self.classify,
            policy=self.retry_policy,
            what=f"{self.name} embed (model {self.model!r})",
            error_cls=EmbeddingError,
        )
        vectors = self._check_shape(raw, len(texts))
        if not tokens:  # the API said nothing (or 0 for non-empty text): estimate
            tokens = sum(upper_bound_tokens(t) for t in texts)
        self._record(int(tokens), len(texts))
        return normalize_rows(vectors)

    def _check_shape(self, raw: Any, n: int) -> np.ndarray:
        try:
            vectors = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbeddingError(
                f"the {self.name} API returned embeddings of uneven or non-numeric shape for model "
                f"'{self.model}' ({exc}); check that base_url points at an embeddings endpoint"
            ) from exc
        if vectors.ndim != 2 or vectors.shape[0] != n:
            raise EmbeddingError(
                f"the {self.name} API returned {vectors.shape[0] if vectors.ndim else 0} embeddings for {n} "
                f"texts (model '{self.model}'); check that base_url points at an embeddings endpoint"
            )
        if vectors.shape[1] != self._dim:
            raise EmbeddingError(
                f"the {self.name} API returned {vectors.shape[1]}-dimensional vectors for model "
                f"'{self.model}', but the embedder is configured for dimension {self._dim}; set "
                f"`dimension: {vectors.shape[1]}` in the embedder options (and rebuild the index)"
            )
        return vectors


def prefix_marker(prefix: str) -> str:
    """A short, stable tag of an instruction prefix for ``model_id`` (the embedding-cache key)."""
    return hashlib.sha256(prefix.encode()).hexdigest()[:8]


__all__ = ["REMOTE_OPTIONS", "Kind", "RemoteEmbedder", "plan_batches", "prefix_marker", "remote_options"]
