"""The vectors of one indexing run's chunk texts: from the embedding cache, else computed by an
engine's workers, else embedded here.

Texts are embedded in slices of ``EMBED_SLICE`` (longest first, so each slice pads little), and
every slice is committed to the embedding cache before the store changes, so an interrupted run
never computes an embedding twice. The writer asks for the texts of the sources it has collected
*ahead* of its flush (``ahead``) as soon as there are ``EMBED_AHEAD`` of them, so embedding
overlaps the loading and splitting of the next files instead of waiting for a whole flush batch;
``get`` then finds them here and the flush only writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ragkit.embedders.base import Embedder
from ragkit.index.catalog import Catalog
from ragkit.index.report import IndexReport

#: texts embedded (and committed to the cache) at a time
EMBED_SLICE = 256
#: texts collected before the writer embeds them ahead of its flush
EMBED_AHEAD = 128


class RunVectors:
    def __init__(
        self, embedder: Embedder, catalog: Catalog, report: IndexReport, progress: Callable[[str, int], None]
    ) -> None:
        self.embedder, self.catalog, self.report, self.progress = embedder, catalog, report, progress
        #: vectors resolved ahead of the current flush, and which of them were embedded (not cached)
        self._ahead: dict[str, np.ndarray] = {}
        self._embedded_ahead: set[str] = set()

    def ahead(self, todo: Mapping[str, str]) -> None:
        """Resolve ``todo`` (text hash -> text) now: looked up, or embedded and cached."""
        rest = {h: t for h, t in todo.items() if h not in self._ahead}
        found, embedded = self._resolve(rest, {})
        self._ahead.update(found)
        self._embedded_ahead |= embedded

    def get(
        self, hashes: Sequence[str], texts: Sequence[str], computed: Mapping[str, np.ndarray], *, count_hits: bool = True
    ) -> np.ndarray:
        """The vectors of ``hashes`` (their ``texts`` for what must be embedded), in order;
        ``computed``: vectors an engine's workers made for texts the cache lacks."""
        dim = self.embedder.dimension
        if not hashes:
            return np.zeros((0, dim), dtype=np.float32)
        todo = {h: t for h, t in zip(hashes, texts, strict=True) if h not in self._ahead}
        found, embedded = self._resolve(todo, computed)
        if count_hits:
            self.report.cache_hits += sum(1 for h in hashes if h not in embedded and h not in self._embedded_ahead)
        return np.stack([found[h] if h in found else self._ahead[h] for h in hashes]).astype(np.float32)

    def clear(self) -> None:
        """Forget what was resolved ahead (after a flush has stored it)."""
        self._ahead.clear()
        self._embedded_ahead.clear()

    def _resolve(
        self, todo: Mapping[str, str], computed: Mapping[str, np.ndarray]
    ) -> tuple[dict[str, np.ndarray], set[str]]:
        """(vectors of ``todo``, the hashes embedded or taken from ``computed`` because the cache lacked them)."""
        if not todo:
            return {}, set()
        emb = self.embedder
        found = self.catalog.cached_embeddings(emb.model_id, list(todo), emb.dimension)
        missing = {h: t for h, t in todo.items() if h not in found}
        order = sorted(missing, key=lambda h: -len(missing[h]))
        if order:
            self.progress("embed_total", len(order))
        for i in range(0, len(order), EMBED_SLICE):
            part = order[i : i + EMBED_SLICE]
            fresh = dict(zip(part, _embed_missing(emb, {h: missing[h] for h in part}, computed), strict=True))
            self.catalog.put_embeddings(emb.model_id, fresh)
            found.update(fresh)
            self.report.texts_embedded += len(part)
            self.progress("embedded", len(part))
        return found, set(order)


def _embed_missing(emb: Embedder, todo: Mapping[str, str], computed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Vectors for ``todo`` (text hash -> text): those ``computed`` by an engine, the rest embedded now."""
    rest = [h for h in todo if h not in computed]
    fresh = dict(zip(rest, emb.embed_documents([todo[h] for h in rest]), strict=True)) if rest else {}
    return [computed[h] if h in computed else fresh[h] for h in todo]
