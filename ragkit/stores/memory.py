"""``memory``: exact inner-product search over a NumPy matrix.

The reference store: every filter operator, exact results, no dependencies. With a ``path`` it
saves ``vectors.<gen>.npy`` and ``rows.<gen>.json`` (ids + metadata) there on ``persist()``
and reopens them on construction; without one it lives and dies with the process.
``close()`` does not save: call ``persist()`` first. Deletion moves the last row into the hole,
so it costs O(deleted rows), not O(store size).

Readers run concurrently (also with ``persist``); ``add`` and ``delete`` take an exclusive lock.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ragkit.errors import ConfigError, StoreError
from ragkit.registry import stores
from ragkit.stores import _persist
from ragkit.stores.base import Capabilities, check_query, check_vectors
from ragkit.stores.filters import ALL_OPS, Filter, check_supported, matches
from ragkit.types import SearchHit
from ragkit.wiring import keyword_options

log = logging.getLogger(__name__)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` largest scores, best first (ties keep the lower position first)."""
    if k >= scores.shape[0]:
        return np.argsort(-scores, kind="stable")
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.lexsort((part, -scores[part]))]


def check_batch(ids: Sequence[str], metadata: Sequence[Mapping[str, Any]], store: str) -> list[str]:
    """Shared ``add`` checks: one metadata dict per id, ids are non-empty strings."""
    id_list = list(ids)
    if len(metadata) != len(id_list):
        raise StoreError(f"{store}: got {len(id_list)} ids but {len(metadata)} metadata dicts; pass one per id")
    for i in id_list:
        if not isinstance(i, str) or not i:
            raise StoreError(f"{store}: ids must be non-empty strings (got {i!r})")
    return id_list


def last_wins(ids: list[str]) -> list[int] | None:
    """Positions to keep when a batch repeats an id (the last occurrence wins); None if no repeats."""
    last = {i: n for n, i in enumerate(ids)}
    if len(last) == len(ids):
        return None
    return sorted(last.values())


def unique_batch(ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]], *,
                 dimension: int, store: str) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
    """``add``'s arguments checked (:func:`check_batch`, ``check_vectors``), of an id the batch
    repeats only the last occurrence."""
    id_list = check_batch(ids, metadata, store)
    arr = check_vectors(vectors, dimension, len(id_list), store)
    metas = [dict(m) for m in metadata]
    keep = last_wins(id_list)
    if keep is not None:
        id_list, arr, metas = [id_list[j] for j in keep], arr[keep], [metas[j] for j in keep]
    return id_list, arr, metas


class FilterCache:
    """Row sets of recently used filters, valid until the next write (LRU of ``size`` entries).

    Filters are evaluated in Python, O(rows) per distinct filter; an agent session or a benchmark
    repeats the same few filters, which then cost a dictionary lookup.
    """

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, norm: Mapping[str, Any], compute: Callable[[], np.ndarray]) -> np.ndarray:
        key = json.dumps(norm, sort_keys=True, default=repr)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        value = compute()
        value.setflags(write=False)
        with self._lock:
            self._items[key] = value
            if len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class InProcessStore:
    """What the stores that hold their rows in this process share (``MemoryStore``, the single-file
    FAISS layout): a read-write lock over the rows (searches share it, writes take it alone), one
    saver at a time, the filter cache, a closed flag every call checks, and the last saved
    generation loaded when opened. A subclass sets ``name`` and ``path`` and implements ``_load``
    (one saved generation), ``_live_ids`` and ``_live_count``."""

    name: ClassVar[str]
    dimension: int
    path: Path | None

    def _init_state(self) -> None:
        self._lock = _persist.RWLock()
        self._persist_lock = threading.Lock()
        self._filters = FilterCache()
        self._closed = False

    def _open_saved(self) -> bool:
        """Load the last generation saved under ``path``; False when there is none."""
        manifest = _persist.read_manifest(self.path, store=self.name, dimension=self.dimension)
        if manifest is None or self.path is None:
            return False
        with _persist.damage_guard(self.path, store=self.name):
            self._load(self.path, manifest)
        return True

    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> None:
        id_list, arr, metas = unique_batch(ids, vectors, metadata, dimension=self.dimension, store=self.name)
        if not id_list:
            return
        with self._lock.write():
            self._check_open()
            self._upsert(id_list, arr, metas)

    def persist(self) -> None:
        if self.path is None:
            log.debug("%s store without a path: nothing to persist", self.name)
            return
        with self._persist_lock, self._lock.read():  # searches go on while saving
            self._check_open()
            writers, extra = self._saved_files()
            _persist.save_generation(self.path, store=self.name, dimension=self.dimension, writers=writers,
                                     extra=extra)
            log.debug("%s store: saved %d rows to %s", self.name, self._live_count(), self.path)

    def _upsert(self, ids: list[str], arr: np.ndarray, metas: list[dict[str, Any]]) -> None:
        """Add or replace the rows of ``ids`` (unique, checked), under the write lock."""
        raise NotImplementedError

    def _saved_files(self) -> tuple[dict[str, tuple[str, _persist.Writer]], dict[str, Any] | None]:
        """What ``persist`` writes (``name -> (suffix, writer)``) and the manifest's extra fields."""
        raise NotImplementedError

    def _load(self, path: Path, manifest: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _live_ids(self) -> Iterable[str]:
        raise NotImplementedError

    def _live_count(self) -> int:
        raise NotImplementedError

    def ids(self) -> set[str]:
        with self._lock.read():
            self._check_open()
            return set(self._live_ids())

    def count(self) -> int:
        with self._lock.read():
            self._check_open()
            return self._live_count()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"{self.name} store is closed; create a new store object to use it again")


@stores.register("memory")
class MemoryStore(InProcessStore):
    """Exact search over an in-process matrix; optionally saved to ``path``."""

    #: its whole state is files under ``path`` (see ``ragkit.stores.base``)
    local = True

    name = "memory"

    @keyword_options("store", "memory")
    def __init__(self, *, dimension: int, path: Path | str | None = None) -> None:
        if not isinstance(dimension, int) or dimension < 1:
            raise ConfigError(f"memory store: dimension must be a positive integer (got {dimension!r})")
        self.dimension = dimension
        self.path = Path(path) if path is not None else None
        self.capabilities = Capabilities(
            filter_ops=ALL_OPS, max_batch=None, persistent=self.path is not None, approximate=False
        )
        self._init_state()
        self._vecs = np.empty((0, dimension), dtype=np.float32)
        self._n = 0
        self._ids: list[str] = []
        self._meta: list[dict[str, Any]] = []
        self._pos: dict[str, int] = {}
        self._open_saved()

    # -- writes ----------------------------------------------------------------------------
    def _upsert(self, ids: list[str], arr: np.ndarray, metas: list[dict[str, Any]]) -> None:
        self._filters.clear()
        pos = np.fromiter((self._pos.get(i, -1) for i in ids), dtype=np.int64, count=len(ids))
        old = pos >= 0
        if old.any():
            self._vecs[pos[old]] = arr[old]
            for j in np.flatnonzero(old):
                self._meta[pos[j]] = metas[j]
        new = np.flatnonzero(~old)
        if new.size:
            self._append([ids[j] for j in new], arr[new], [metas[j] for j in new])

    def _append(self, ids: list[str], arr: np.ndarray, metas: list[dict[str, Any]]) -> None:
        need = self._n + len(ids)
        if need > self._vecs.shape[0]:
            grown = np.empty((max(need, 2 * self._vecs.shape[0], 64), self.dimension), dtype=np.float32)
            grown[: self._n] = self._vecs[: self._n]
            self._vecs = grown
        self._vecs[self._n:need] = arr
        for off, i in enumerate(ids):
            self._pos[i] = self._n + off
        self._ids.extend(ids)
        self._meta.extend(metas)
        self._n = need

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock.write():
            self._check_open()
            self._filters.clear()
            doomed = sorted({self._pos[i] for i in ids if i in self._pos}, reverse=True)
            for p in doomed:  # descending, so the row moved into a hole is never a doomed one
                last = self._n - 1
                del self._pos[self._ids[p]]
                if p != last:
                    self._vecs[p] = self._vecs[last]
                    self._ids[p], self._meta[p] = self._ids[last], self._meta[last]
                    self._pos[self._ids[p]] = p
                self._ids.pop()
                self._meta.pop()
                self._n = last

    def clear(self) -> None:
        with self._lock.write():
            self._check_open()
            self._filters.clear()
            self._vecs = np.empty((0, self.dimension), dtype=np.float32)
            self._ids, self._meta, self._pos, self._n = [], [], {}, 0

    # -- reads -----------------------------------------------------------------------------
    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        q = check_query(vector, self.dimension, k, self.name)
        norm = check_supported(filter, self.capabilities.filter_ops, self.name)
        with self._lock.read():
            self._check_open()
            if norm:
                rows = self._filters.get(norm, lambda: np.array(
                    [j for j in range(self._n) if matches(self._meta[j], norm)], dtype=np.int64))
                scores = self._vecs[rows] @ q if rows.size else np.empty(0, dtype=np.float32)
            else:
                rows = np.arange(self._n)
                scores = self._vecs[: self._n] @ q
            if not scores.size:
                return []
            order = top_k(scores, k)
            best = rows[order]
            return [
                SearchHit(id=self._ids[r], score=float(scores[o]), metadata=dict(self._meta[r]))
                for r, o in zip(best, order, strict=True)
            ]

    def _live_ids(self) -> Iterable[str]:
        return self._ids

    def _live_count(self) -> int:
        return self._n

    # -- lifecycle -------------------------------------------------------------------------
    def _saved_files(self) -> tuple[dict[str, tuple[str, _persist.Writer]], dict[str, Any] | None]:
        rows = {"ids": self._ids, "metadata": self._meta}
        return {
            "vectors": (".npy", _persist.npy_writer(self._vecs[: self._n])),
            "rows": (".json", _persist.json_writer(rows, store=self.name)),
        }, None

    def close(self) -> None:
        with self._lock.write():
            self._closed = True
            self._vecs = np.empty((0, self.dimension), dtype=np.float32)
            self._ids, self._meta, self._pos, self._n = [], [], {}, 0

    def _load(self, path: Path, manifest: Mapping[str, Any]) -> None:
        vecs = _persist.load_npy(path, manifest, "vectors").astype(np.float32, copy=False)
        rows = _persist.load_json(path, manifest, "rows")
        if vecs.shape != (len(rows["ids"]), self.dimension) or len(rows["metadata"]) != len(rows["ids"]):
            raise StoreError(f"memory store at {path} is inconsistent (vectors {vecs.shape}, "
                             f"{len(rows['ids'])} ids); delete {path} and re-index")
        self._vecs = np.ascontiguousarray(vecs)
        self._ids = list(rows["ids"])
        self._meta = list(rows["metadata"])
        self._pos = {i: n for n, i in enumerate(self._ids)}
        self._n = len(self._ids)

    def __repr__(self) -> str:
        return f"MemoryStore(dimension={self.dimension}, path={self.path!s}, count={self._n})"
