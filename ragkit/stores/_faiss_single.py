"""The single-file layout of the ``faiss`` store, for ``index: hnsw | ivf_flat | ivf_pq``
(``index: auto`` and ``flat`` are segmented: ``ragkit.stores.faiss``). One FAISS index plus
metadata, rewritten whole at every ``persist``.

Options (pipeline YAML ``store:`` keys)::

    type: faiss
    index: hnsw                 # hnsw | ivf_flat | ivf_pq
    build:                      # shape of the index; fixed once built
      M: 32                     #   hnsw: graph degree
      ef_construction: 200      #   hnsw: candidate list while inserting
      nlist: auto               #   ivf_*: inverted lists; auto = ~4*sqrt(n), <= n/39
      train_min: 1000           #   ivf_*: live rows needed before training (exact search below)
      pq_m: auto                #   ivf_pq: sub-quantizers; auto = largest divisor of d <= d/8
      pq_nbits: 8               #   ivf_pq: bits per sub-quantizer code
    search:                     # query-time knobs; may change between runs
      ef_search: 64             #   hnsw (raised to k when k is larger)
      nprobe: 16                #   ivf_*: lists visited per query
      refine: 10                #   ivf_pq: re-rank k*refine candidates with the exact vectors

Unknown keys raise ``ConfigError`` naming the key and the allowed ones. Scores are inner
products (cosine on the embedders' normalized vectors).

How it works:

* Each string id gets an int64 *label* (its row number since the last rebuild). Deleting or
  replacing a row *tombstones* its label (HNSW cannot remove points); searches exclude
  tombstones with an ``IDSelectorBitmap``, and the index is rebuilt from the live rows once
  tombstones exceed 25% of the labels.
* Filters are evaluated in Python over the metadata to the set of allowed labels, passed to FAISS
  as a selector. When at most 2,000 rows match (or the index returns fewer hits than the rows
  that match, as HNSW and IVF can under selective filters) the store searches those rows
  exactly instead, so a filtered search returns ``min(k, matching rows)`` hits.
* IVF indexes stay exact (brute force over the kept vectors) until ``train_min`` live rows exist
  (and ``39*nlist`` when ``nlist`` is set), then train on all live rows. With ``nlist: auto`` the
  index is retrained when the live rows have grown 4x since the last training.
* Flat and HNSW vectors are read back from the index itself; IVF stores keep a float32 copy of
  every vector (needed to train, rebuild and re-rank), so IVF-PQ here buys speed, not memory.
* ``persist()`` writes ``index.<gen>.faiss`` (``faiss.write_index``), ``rows.<gen>.json`` (ids and
  metadata by label) and, for IVF, ``vectors.<gen>.npy``, then switches ``manifest.json``
  atomically (see ``ragkit.stores._persist``).
* Searches run concurrently (also while ``persist`` writes); ``add`` and ``delete`` take an
  exclusive lock.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import StoreDamagedError, StoreError
from ragkit.stores import _faiss_index as fx
from ragkit.stores import _persist
from ragkit.stores.base import Capabilities, check_query
from ragkit.stores.filters import ALL_OPS, Filter, check_supported, matches
from ragkit.stores.memory import InProcessStore, top_k
from ragkit.types import SearchHit
from ragkit.wiring import keyword_options

log = logging.getLogger(__name__)

EXACT_FILTER_ROWS = 2000  # filtered searches over at most this many rows are exact
REBUILD_TOMBSTONE_RATIO = 0.25
RETRAIN_GROWTH = 4


class SingleFileFaiss(InProcessStore):
    """A FAISS index plus ids and metadata; see the module docstring for the options. Built by
    ``FaissStore`` for the index kinds it does not segment."""

    #: its whole state is files under ``path`` (see ``ragkit.stores.base``)
    local = True

    name = "faiss"

    @keyword_options("store", "faiss")
    def __init__(
        self, *, dimension: int, path: Path | str | None = None, index: str = "hnsw",
        build: Mapping[str, Any] | None = None, search: Mapping[str, Any] | None = None,
    ) -> None:
        self.options = fx.parse_options(dimension, index, build, search)
        self._faiss = fx.import_faiss()
        self.dimension = dimension
        self.path = Path(path) if path is not None else None
        self.capabilities = Capabilities(
            filter_ops=ALL_OPS, max_batch=None, persistent=self.path is not None,
            approximate=index != "flat",
        )
        self._init_state()
        self._reset([], [])
        self._index: Any = None
        self._nlist = 0
        self._trained_on = 0
        if not self._open_saved() and not self.options.is_ivf:
            self._index, _ = fx.build_index(self._faiss, self.options, dimension)

    # -- bookkeeping -------------------------------------------------------------------------
    def _reset(self, ids: list[str | None], metas: list[dict[str, Any] | None]) -> None:
        """Label tables for ``ids`` (None marks a tombstone)."""
        self._ids = ids
        self._meta = metas
        self._alive = np.array([i is not None for i in ids], dtype=bool)
        self._labels = {i: n for n, i in enumerate(ids) if i is not None}
        self._n_live = len(self._labels)
        self._live_sel: tuple[Any, np.ndarray] | None = None
        if hasattr(self, "_filters"):
            self._filters.clear()
        if self.options.is_ivf and not hasattr(self, "_raw"):
            self._raw = np.empty((0, self.dimension), dtype=np.float32)

    @property
    def _n_dead(self) -> int:
        return len(self._ids) - self._n_live

    def _tombstone(self, labels: list[int]) -> None:
        if not labels:
            return
        self._alive[labels] = False
        for lab in labels:
            self._ids[lab] = None
            self._meta[lab] = None
        self._n_live -= len(labels)
        self._live_sel = None
        self._filters.clear()

    def _all_vectors(self) -> np.ndarray:
        """(labels, d) vectors by label, tombstones included; a view, valid until the next write."""
        if self.options.is_ivf:
            return self._raw[: len(self._ids)]
        return fx.flat_vectors(self._faiss, self._index, self.dimension)

    # -- writes ------------------------------------------------------------------------------
    def _upsert(self, ids: list[str], arr: np.ndarray, metas: list[dict[str, Any]]) -> None:
        self._tombstone([self._labels[i] for i in ids if i in self._labels])
        self._maybe_rebuild()  # compact first, so a full re-add does not index twice
        self._append(list(ids), arr, metas)
        self._maybe_rebuild()

    def _append(self, ids: list[str], arr: np.ndarray, metas: Sequence[dict[str, Any] | None]) -> None:
        start, n = len(self._ids), len(ids)
        self._ids.extend(ids)
        self._meta.extend(metas)
        self._labels.update(zip(ids, range(start, start + n), strict=True))
        self._alive = np.concatenate([self._alive, np.ones(n, dtype=bool)])
        self._n_live += n
        self._live_sel = None
        self._filters.clear()
        if self.options.is_ivf:
            self._raw = _grow(self._raw, start + n)
            self._raw[start:start + n] = arr
            if self._index is not None:
                self._index.add_with_ids(arr, np.arange(start, start + n, dtype=np.int64))
        else:
            self._index.add(arr)  # flat/HNSW labels are their insertion order

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock.write():
            self._check_open()
            doomed = {self._labels.pop(i) for i in set(ids) if i in self._labels}
            self._tombstone(sorted(doomed))
            self._maybe_rebuild()

    def clear(self) -> None:
        self.delete(list(self.ids()))

    def _maybe_rebuild(self) -> None:
        n = len(self._ids)
        reason = ""
        if self._n_dead and self._n_dead > REBUILD_TOMBSTONE_RATIO * n:
            reason = f"{self._n_dead} of {n} labels are tombstones"
        elif self.options.is_ivf and self._index is None and self._n_live >= self.options.train_threshold():
            reason = f"{self._n_live} rows are enough to train the IVF index"
        elif (self.options.is_ivf and self._index is not None and not self.options.build["nlist"]
              and self._n_live >= RETRAIN_GROWTH * self._trained_on):
            reason = f"rows grew from {self._trained_on} to {self._n_live} since training"
        if reason:
            log.info("faiss store: rebuilding the %s index (%s)", self.options.kind, reason)
            self._rebuild()

    def _rebuild(self) -> None:
        live = np.flatnonzero(self._alive)
        vecs = np.ascontiguousarray(self._all_vectors()[live])
        ids = [self._ids[lab] for lab in live]
        metas = [self._meta[lab] for lab in live]
        if self.options.is_ivf:
            self._raw = vecs
        self._reset(list(ids), metas)
        self._index, self._nlist, self._trained_on = None, 0, 0
        if self.options.is_ivf and len(ids) < self.options.train_threshold():
            return  # exact search over self._raw until there is enough data to train
        self._index, self._nlist = fx.build_index(self._faiss, self.options, self.dimension, len(ids))
        if self.options.is_ivf:
            self._index.train(vecs)
            self._trained_on = len(ids)
            self._index.add_with_ids(vecs, np.arange(len(ids), dtype=np.int64))
        elif len(ids):
            self._index.add(vecs)

    # -- reads -------------------------------------------------------------------------------
    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        q = check_query(vector, self.dimension, k, self.name)
        norm = check_supported(filter, self.capabilities.filter_ops, self.name)
        with self._lock.read():
            self._check_open()
            if not self._n_live:
                return []
            allowed = None
            if norm:
                allowed = self._filters.get(norm, lambda: np.array(
                    [lab for lab, m in enumerate(self._meta) if m is not None and matches(m, norm)],
                    dtype=np.int64))
                if not allowed.size:
                    return []
            n_match = self._n_live if allowed is None else int(allowed.size)
            want = min(k, n_match)
            labels = scores = None
            small = allowed is not None and allowed.size <= EXACT_FILTER_ROWS
            if self._index is not None and not small:
                labels, scores = self._search_index(q, want, allowed)
                if labels.size < want:
                    log.debug("faiss store: index returned %d of %d hits; searching exactly",
                              labels.size, want)
                    labels = None
            if labels is None:
                labels, scores = self._search_exact(q, want, allowed)
            return [
                SearchHit(id=str(self._ids[lab]), score=float(s), metadata=dict(self._meta[lab] or {}))
                for lab, s in zip(labels.tolist(), scores.tolist(), strict=True)
            ]

    def _search_index(self, q: np.ndarray, k: int, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        sel: Any = None
        if allowed is not None:
            mask = np.zeros(len(self._ids), dtype=bool)
            mask[allowed] = True
            sel, _bits = fx.bitmap_selector(self._faiss, mask)  # _bits must outlive the search
        elif self._n_dead:
            if self._live_sel is None:
                self._live_sel = fx.bitmap_selector(self._faiss, self._alive)
            sel = self._live_sel[0]
        refine = self.options.search.get("refine", 1)
        fetch = k * refine if refine > 1 else k
        params = fx.search_params(self._faiss, self.options, fetch, self._nlist, sel)
        dist, idx = self._index.search(q.reshape(1, -1), fetch, params=params)
        found = idx[0] >= 0
        labels, scores = idx[0][found], dist[0][found]
        if refine > 1:  # re-rank the PQ candidates with the exact vectors
            scores = self._raw[labels] @ q
            order = top_k(scores, k)
            labels, scores = labels[order], scores[order]
        return labels[:k], scores[:k]

    def _search_exact(self, q: np.ndarray, k: int, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        vecs = self._all_vectors()
        if allowed is not None and allowed.size * 4 < vecs.shape[0]:
            labels, scores = allowed, vecs[allowed] @ q
        else:
            labels = np.flatnonzero(self._alive) if allowed is None else allowed
            scores = (vecs @ q)[labels]
        order = top_k(scores, k)
        return labels[order], scores[order]

    def _live_ids(self) -> Iterable[str]:
        return self._labels

    def _live_count(self) -> int:
        return self._n_live

    def describe(self) -> dict[str, Any]:
        """Index kind and parameters in effect (for benchmark reports and ``ragkit status``)."""
        with self._lock.read():
            return {
                "store": self.name, "index": self.options.kind, "build": dict(self.options.build),
                "search": dict(self.options.search), "nlist": self._nlist,
                "trained": self._index is not None, "rows": self._n_live, "tombstones": self._n_dead,
            }

    # -- lifecycle ---------------------------------------------------------------------------
    def _saved_files(self) -> tuple[dict[str, tuple[str, _persist.Writer]], dict[str, Any] | None]:
        writers: dict[str, tuple[str, _persist.Writer]] = {
            "rows": (".json", _persist.json_writer({"ids": self._ids, "metadata": self._meta}, store=self.name)),
        }
        if self._index is not None:
            index, faiss = self._index, self._faiss
            writers["index"] = (".faiss", lambda p: faiss.write_index(index, str(p)))
        if self.options.is_ivf:
            writers["vectors"] = (".npy", _persist.npy_writer(self._raw[: len(self._ids)]))
        extra = {"index_type": self.options.kind, "build": self.options.build,
                 "nlist": self._nlist, "trained_on": self._trained_on}
        return writers, extra

    def _load(self, path: Path, manifest: Mapping[str, Any]) -> None:
        saved = manifest.get("index_type")
        if saved != self.options.kind:
            raise StoreError(
                f"faiss store at {path} was built as index '{saved}' but '{self.options.kind}' was "
                f"requested; set index: {saved}, or run `ragkit index` with the new pipeline, which rebuilds "
                "the store from the catalog and the embedding cache (nothing is re-embedded)"
            )
        if manifest.get("build") != self.options.build:
            log.info("faiss store: %s was built with %s; %s applies only when it is rebuilt",
                     path, manifest.get("build"), self.options.build)
        rows = _persist.load_json(path, manifest, "rows")
        if self.options.is_ivf:
            self._raw = np.ascontiguousarray(_persist.load_npy(path, manifest, "vectors"), dtype=np.float32)
        self._reset(list(rows["ids"]), list(rows["metadata"]))
        if "index" in manifest["files"]:
            self._index = self._faiss.read_index(str(path / manifest["files"]["index"]))
        elif not self.options.is_ivf:
            raise StoreDamagedError(f"the faiss store at {path} is damaged (no index file); {StoreDamagedError.HINT}")
        self._nlist = int(manifest.get("nlist", 0))
        self._trained_on = int(manifest.get("trained_on", 0))
        held = self._raw.shape[0] if self.options.is_ivf else int(self._index.ntotal)
        if held != len(self._ids) or len(self._meta) != len(self._ids):
            raise StoreDamagedError(f"the faiss store at {path} is damaged ({held} vectors, {len(self._ids)} "
                                    f"labels); {StoreDamagedError.HINT}")

    def close(self) -> None:
        with self._lock.write():
            self._closed = True
            self._index = None
            self._reset([], [])
            if self.options.is_ivf:
                self._raw = np.empty((0, self.dimension), dtype=np.float32)

    def __repr__(self) -> str:
        return f"SingleFileFaiss(index={self.options.kind!r}, dimension={self.dimension}, path={self.path!s})"


def _grow(arr: np.ndarray, need: int) -> np.ndarray:
    """``arr`` with room for ``need`` rows (amortized doubling); rows beyond the old ones are garbage."""
    if need <= arr.shape[0]:
        return arr
    grown = np.empty((max(need, 2 * arr.shape[0], 64), arr.shape[1]), dtype=np.float32)
    grown[: arr.shape[0]] = arr
    return grown
