"""The VectorStore contract every backend implements.

Vectors are float32 and L2-normalized by the embedders, so inner product is cosine similarity;
``SearchHit.score`` is that similarity (higher is better). ``add`` is an upsert: adding an id
that exists replaces its vector and metadata. Stores batch internally under their own limits
(``Capabilities.max_batch``), so callers may pass any number of rows.

A store class whose whole state is files under its ``path`` (no server) declares ``local = True``;
the index writer then fingerprints those files instead of reconciling after a clean run. Stores
that do not declare it count as not local.

Every backend passes ``ragkit.testing.VectorStoreContract``.

``SinkRecord`` and ``IndexSink`` are the contract between the index writer and whatever it keeps
in step with its catalog: the vector store (through ``ragkit.index.sinks.StoreSink``) and the BM25
index (``ragkit.retrieval.bm25.BM25Index``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ragkit.stores.filters import Filter
from ragkit.types import SearchHit


@dataclass(frozen=True)
class Capabilities:
    filter_ops: frozenset[str]
    max_batch: int | None = None
    persistent: bool = True
    approximate: bool = False


@runtime_checkable
class VectorStore(Protocol):
    """A collection of (id, vector, metadata) rows with nearest-neighbour search."""

    capabilities: Capabilities
    dimension: int

    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> None: ...

    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def clear(self) -> None:
        """Remove every row; the store stays open, empty and of the same dimension (like ``delete``,
        durable after ``persist`` for a store that needs one)."""
        ...

    def ids(self) -> set[str]: ...

    def count(self) -> int: ...

    def persist(self) -> None: ...

    def close(self) -> None: ...


def check_vectors(vectors: np.ndarray, dimension: int, n_ids: int, store: str) -> np.ndarray:
    """Shared argument check for ``add``: shape, dimension, dtype. Returns float32 C-array."""
    from ragkit.errors import StoreError

    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1 and n_ids == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[0] != n_ids:
        raise StoreError(f"{store}: got {n_ids} ids but vectors of shape {arr.shape}")
    if n_ids and arr.shape[1] != dimension:
        raise StoreError(
            f"{store}: vector dimension mismatch: the store holds {dimension}-d vectors, got "
            f"{arr.shape[1]}-d; re-create the index (delete its directory) when changing the embedder"
        )
    return np.ascontiguousarray(arr)


def dump_metadata(meta: Mapping[str, Any], store: str) -> str:
    """``meta`` as JSON text, or a ``StoreError`` naming what cannot be stored (a value JSON has no
    form for, NaN or infinity)."""
    import json

    from ragkit.errors import StoreError

    try:
        return json.dumps(dict(meta), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{store}: metadata must be JSON-serializable ({exc}); got {meta!r}") from exc


def check_query(vector: np.ndarray, dimension: int, k: int, store: str) -> np.ndarray:
    from ragkit.errors import StoreError

    if k < 1:
        raise StoreError(f"k must be at least 1 (got {k})")
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    if q.shape[0] != dimension:
        raise StoreError(
            f"{store}: query dimension mismatch: the store holds {dimension}-d vectors, got {q.shape[0]}-d"
        )
    return q


@dataclass(frozen=True)
class SinkRecord:
    """One chunk row: its id, text, vector (when the sink needs one) and metadata."""

    id: str
    text: str
    vector: np.ndarray | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class IndexSink(Protocol):
    #: whether the sink's whole state is files under ``path`` (see the module docstring)
    local: bool
    #: (optional, default True) whether ``upsert`` needs the rows' vectors; a sink that does not
    #: (BM25) is written while the writer's last texts are still embedding
    path: Path | None

    def upsert(self, records: Sequence[SinkRecord]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def ids(self) -> set[str]: ...

    def persist(self) -> None: ...

    def close(self) -> None: ...
