"""The Embedder contract: one abstract method, the rest derived (after simonw/llm).

Embedders return L2-normalized float32 vectors and count the tokens they embedded so indexing
and query costs can be reported (``usage``). ``embed_query`` may differ from ``embed_documents``
(instruction prefixes, Cohere's ``input_type``).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class EmbeddingUsage:
    """Running totals of what an embedder did. ``cost`` is in USD (0 for local models; None,
    "unpriced", when the model has no known price: never counted as $0)."""

    tokens: int = 0
    texts: int = 0
    calls: int = 0
    cost: float | None = 0.0

    def add(self, tokens: int, texts: int, cost: float | None = 0.0) -> None:
        self.tokens += tokens
        self.texts += texts
        self.calls += 1
        self.cost = None if cost is None or self.cost is None else self.cost + cost

    def snapshot(self) -> EmbeddingUsage:
        return EmbeddingUsage(self.tokens, self.texts, self.calls, self.cost)

    def since(self, before: EmbeddingUsage) -> EmbeddingUsage:
        return EmbeddingUsage(
            self.tokens - before.tokens, self.texts - before.texts,
            self.calls - before.calls,
            None if self.cost is None or before.cost is None else self.cost - before.cost,
        )


class Embedder(ABC):
    """Turns texts into normalized float32 vectors."""

    #: stable identifier of the model and its settings; part of the embedding-cache key
    model_id: str = ""
    #: price per million input tokens in USD (from the model registry, ragkit/models.yaml; 0 for local
    #: models; None when the model has no known price: its cost is then reported as unpriced)
    price_per_million: float | None = 0.0
    #: whether near vectors mean near meanings (a trained model); a fake that hashes words says
    #: only which words texts share, and the offline answerer then weighs no meaning by it
    semantic: bool = True

    def __init__(self) -> None:
        self.usage = EmbeddingUsage()
        self._usage_lock = threading.Lock()

    @property
    @abstractmethod
    def dimension(self) -> int: ...

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed document texts; returns an array of shape (len(texts), dimension)."""

    def load(self) -> None:  # noqa: B027 - optional hook, a no-op for embedders with nothing to load
        """Load heavy resources now (a model) instead of on the first embed call."""

    def load_for_queries(self) -> None:
        """Load what embedding a query needs now (a search, ask or chat warm-up); by default the
        same as :meth:`load`, less where queries take a lighter path (no PyTorch for a query)."""
        self.load()

    def load_for_documents(self) -> None:
        """Load what embedding many documents needs now (an index run warms it up while it reads
        the first files); by default the same as :meth:`load`."""
        self.load()

    def saved_options(self) -> dict[str, object]:
        """Options that decide the vectors, resolved, for the index's saved pipeline: an index keeps
        what it was built with even when a later ragkit changes a default (e.g. ``backend``)."""
        return {}

    def count_tokens(self, text: str) -> int:
        """Tokens this model sees for ``text`` (default: a whitespace estimate)."""
        return max(1, len(text.split())) if text else 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.embed_batch(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_few(self, texts: Sequence[str]) -> np.ndarray:
        """Document vectors of a few texts by what embedding a query loaded (``load_for_queries``):
        the sentences the offline answerer weighs, never worth loading what bulk indexing needs.
        By default the same as :meth:`embed_documents`."""
        return self.embed_documents(texts)

    def _record(self, tokens: int, texts: int) -> None:
        with self._usage_lock:
            price = self.price_per_million
            self.usage.add(tokens, texts, None if price is None and tokens else tokens * (price or 0.0) / 1e6)


def normalize_rows(arr: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length, as float32. The lengths are summed in float64: a float32 dot
    product or norm goes through BLAS kernels that sum in another order on each processor class
    (OpenBLAS's AVX-512 and AVX2 ``sdot`` differ in the last bit), and the vectors would too."""
    wide = np.asarray(arr, dtype=np.float64)
    norms = np.sqrt(np.square(wide).sum(axis=1, keepdims=True))
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(wide / norms, dtype=np.float32)
