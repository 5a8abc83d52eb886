"""Benchmark datasets: vectors, held-apart queries, metadata, and exact ground truth.

A :class:`Dataset` holds L2-normalized float32 vectors (row ``i`` has id ``v{i}``), per-row
metadata for filtered search (``category``: int 0..9 uniform, ``label``: one of
:data:`LABELS`), a query set drawn from the same distribution but not in the data, and the exact
top-``GT_K`` neighbours of every query by brute force (inner product = cosine), unfiltered and
for each benchmark filter (brute force over the rows that match).

Sources:

* :func:`synthetic` — Gaussian blobs: ``clusters`` centers uniform on the sphere; a point is its
  center plus isotropic noise of norm ~``spread``, then normalized. Seeded, so every run and every
  backend sees the same data.
* :func:`from_npy` — real embeddings from a ``.npy`` matrix (e.g. an embedded corpus); a seeded
  random ``queries`` rows are held out of the data and used as queries.
* :func:`from_corpus` — a BEIR-style ``corpus.jsonl`` (e.g. ``../shared/datasets/msmarco-5k``)
  embedded once with a ragkit embedder and cached as ``.npy`` in the user cache dir
  (``$XDG_CACHE_HOME/ragkit/bench``); then as :func:`from_npy` (held-out passages are the queries).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import ConfigError

log = logging.getLogger(__name__)

GT_K = 100
LABELS = ("news", "blog", "paper", "wiki", "forum")
# name -> ragkit filter; evaluated on the dataset's metadata for the filtered ground truth
FILTERS: dict[str, dict[str, Any]] = {
    "category_eq": {"category": 3},
    "category_in": {"category": {"$in": [1, 4, 7]}},
}


@dataclass
class Dataset:
    name: str
    vectors: np.ndarray  # (n, d) float32, normalized
    queries: np.ndarray  # (q, d) float32, normalized
    category: np.ndarray  # (n,) int
    label: np.ndarray  # (n,) int index into LABELS
    gt: np.ndarray = field(default_factory=lambda: np.empty((0, 0), dtype=np.int64))
    filtered_gt: dict[str, np.ndarray] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    def ids(self, rows: np.ndarray | range | None = None) -> list[str]:
        return [f"v{i}" for i in (range(self.n) if rows is None else rows)]

    def metadata(self, rows: np.ndarray | range) -> list[dict[str, Any]]:
        return [{"category": int(self.category[i]), "label": LABELS[int(self.label[i])]} for i in rows]

    def filter_mask(self, name: str) -> np.ndarray:
        """Rows that match benchmark filter ``name``."""
        cond = FILTERS[name]["category"]
        if isinstance(cond, Mapping):
            return np.isin(self.category, np.asarray(cond["$in"]))
        return self.category == cond

    def save(self, folder: Path) -> None:
        """Write every array as ``.npy`` for the benchmark worker processes."""
        folder.mkdir(parents=True, exist_ok=True)
        for key in ("vectors", "queries", "category", "label", "gt"):
            np.save(folder / f"{key}.npy", getattr(self, key))
        for key, arr in self.filtered_gt.items():
            np.save(folder / f"fgt_{key}.npy", arr)

    @classmethod
    def load(cls, folder: Path, *, name: str = "", mmap: bool = False) -> Dataset:
        mode = "r" if mmap else None
        arrays = {
            k: np.load(folder / f"{k}.npy", mmap_mode=mode)
            for k in ("vectors", "queries", "category", "label", "gt")
        }
        fgt = {k: np.load(folder / f"fgt_{k}.npy") for k in FILTERS if (folder / f"fgt_{k}.npy").exists()}
        return cls(name=name, filtered_gt=fgt, **arrays)


def _normalize(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (x / norms).astype(np.float32)


def _metadata(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.integers(0, 10, n).astype(np.int64), rng.integers(0, len(LABELS), n).astype(np.int64)


def synthetic(
    *,
    n: int,
    dimension: int,
    queries: int,
    clusters: int = 100,
    spread: float = 1.0,
    seed: int = 0,
) -> Dataset:
    """Seeded Gaussian blobs on the unit sphere; queries come from the same blobs, not the data."""
    if n < 1 or dimension < 1 or queries < 1 or clusters < 1:
        raise ConfigError(
            f"synthetic dataset: n, dimension, queries and clusters must be at least 1 "
            f"(got n={n}, dimension={dimension}, queries={queries}, clusters={clusters})"
        )
    rng = np.random.default_rng(seed)
    centers = _normalize(rng.standard_normal((clusters, dimension), dtype=np.float32))
    total = n + queries
    x = np.empty((total, dimension), dtype=np.float32)
    step = 20_000
    for start in range(0, total, step):  # chunked: bounded temporary memory at 100k x 384
        stop = min(total, start + step)
        owner = rng.integers(0, clusters, stop - start)
        noise = rng.standard_normal((stop - start, dimension), dtype=np.float32)
        x[start:stop] = _normalize(centers[owner] + noise * (spread / np.sqrt(dimension)))
    category, label = _metadata(rng, n)
    params = {
        "kind": "synthetic",
        "n": n,
        "dimension": dimension,
        "queries": queries,
        "clusters": clusters,
        "spread": spread,
        "seed": seed,
    }
    name = f"synthetic-{n}x{dimension}-c{clusters}-s{seed}"
    return _finish(
        Dataset(name=name, vectors=x[:n], queries=x[n:], category=category, label=label, params=params)
    )


def from_npy(path: Path | str, *, queries: int, n: int | None = None, seed: int = 0) -> Dataset:
    """Real embeddings from a ``.npy`` matrix; ``queries`` random rows are held out as queries."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"dataset file {p} does not exist; give a .npy matrix of shape (rows, dim)")
    arr = np.load(p, mmap_mode="r")
    if arr.ndim != 2 or arr.shape[0] <= queries:
        raise ConfigError(f"dataset {p} must be a 2-d matrix with more than {queries} rows (got {arr.shape})")
    rng = np.random.default_rng(seed)
    order = rng.permutation(arr.shape[0])
    q_rows, d_rows = order[:queries], order[queries:]
    if n is not None:
        d_rows = d_rows[:n]
    vecs = _normalize(np.asarray(arr[np.sort(d_rows)], dtype=np.float32))
    category, label = _metadata(rng, vecs.shape[0])
    params = {
        "kind": "npy",
        "path": str(p),
        "n": int(vecs.shape[0]),
        "dimension": int(arr.shape[1]),
        "queries": queries,
        "seed": seed,
    }
    return _finish(
        Dataset(
            name=f"npy-{p.stem}-{vecs.shape[0]}",
            vectors=vecs,
            queries=_normalize(np.asarray(arr[q_rows], dtype=np.float32)),
            category=category,
            label=label,
            params=params,
        )
    )


def cache_dir() -> Path:
    """``$RAGKIT_CACHE_DIR/bench``, else ``$XDG_CACHE_HOME/ragkit/bench``, else ``~/.cache/ragkit/bench``."""
    import os

    root = os.environ.get("RAGKIT_CACHE_DIR")
    if root:
        return Path(root).expanduser() / "bench"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "ragkit" / "bench"


def embed_corpus(
    path: Path | str, *, embedder: str = "sentence-transformers", options: Mapping[str, Any] | None = None
) -> Path:
    """Embed every ``text`` (title + text) of a corpus.jsonl once; return the cached ``.npy`` path."""
    import hashlib
    import json

    p = Path(path)
    corpus = p / "corpus.jsonl" if p.is_dir() else p
    if not corpus.is_file():
        raise ConfigError(f"corpus {corpus} not found; give a corpus.jsonl or a BEIR dataset folder")
    key = hashlib.sha256(
        f"{corpus.resolve()}|{corpus.stat().st_size}|{embedder}|{sorted((options or {}).items())}".encode()
    )
    out = cache_dir() / f"{corpus.parent.name}-{key.hexdigest()[:12]}.npy"
    if out.exists():
        return out
    from ragkit.registry import embedders

    texts = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                texts.append(" ".join(t for t in (row.get("title", ""), row.get("text", "")) if t))
    log.info("embedding %d passages of %s with %s (cached as %s)", len(texts), corpus, embedder, out)
    vectors = embedders.get(embedder)(**dict(options or {})).embed_documents(texts)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.save(out, np.asarray(vectors, dtype=np.float32))
    return out


def _finish(ds: Dataset) -> Dataset:
    log.info("ground truth for %s (%d queries, brute force)", ds.name, ds.queries.shape[0])
    ds.gt = ground_truth(ds.vectors, ds.queries, k=GT_K)
    for fname in FILTERS:
        ds.filtered_gt[fname] = ground_truth(ds.vectors, ds.queries, k=GT_K, mask=ds.filter_mask(fname))
    return ds


def ground_truth(
    vectors: np.ndarray,
    queries: np.ndarray,
    *,
    k: int,
    mask: np.ndarray | None = None,
    batch: int = 256,
) -> np.ndarray:
    """Exact top-``k`` row numbers per query by inner product, best first; ``-1`` pads short rows.

    With ``mask``, only the rows where it is true are candidates (filtered ground truth). Ties are
    broken by the lower row number, so the result is deterministic.
    """
    rows = np.arange(vectors.shape[0]) if mask is None else np.flatnonzero(mask)
    cand = np.asarray(vectors[rows], dtype=np.float32)
    kk = min(k, rows.shape[0])
    out = np.full((queries.shape[0], k), -1, dtype=np.int64)
    for start in range(0, queries.shape[0], batch):
        scores = np.asarray(queries[start : start + batch], dtype=np.float32) @ cand.T
        if kk < rows.shape[0]:
            part = np.argpartition(-scores, kk - 1, axis=1)[:, :kk]
        else:
            part = np.broadcast_to(np.arange(rows.shape[0]), (scores.shape[0], rows.shape[0]))
        part_scores = np.take_along_axis(scores, part, axis=1)
        order = np.lexsort((part, -part_scores), axis=1)
        out[start : start + scores.shape[0], :kk] = rows[np.take_along_axis(part, order, axis=1)]
    return out
