"""The vectors of one indexing run's chunk texts: from the embedding cache, else computed by an
engine's workers, else embedded here.

The texts the cache lacks are embedded by an ``EmbedWorker`` on a thread of its own, in calls of
at most ``EMBED_SLICE`` texts, while the writer goes on with its own work (loading the next
sources' rows, looking up the cache, writing the stores and the catalog): the model no longer
waits for the writer between calls. The writer hands in the texts of the sources it has collected
*ahead* of its flush (``ahead``) as soon as there are ``EMBED_AHEAD`` of them, commits each
finished call's vectors to the embedding cache as it sees them (``ahead``, ``get``), and all of a
batch's before its store changes (``get``, ``clear``), so an interrupted run never computes an
embedding twice (``close`` commits what finished before the interrupt).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ragkit.embedders.base import Embedder
from ragkit.index.catalog import Catalog
from ragkit.index.embed_worker import EmbedWorker
from ragkit.index.report import IndexReport

log = logging.getLogger(__name__)
#: texts embedded (and committed to the cache) at a time
EMBED_SLICE = 256
#: texts collected before the writer hands them to the embedding worker ahead of its flush
EMBED_AHEAD = 128


class RunVectors:
    def __init__(
        self, embedder: Embedder, catalog: Catalog, report: IndexReport, progress: Callable[[str, int], None]
    ) -> None:
        self.embedder, self.catalog, self.report, self.progress = embedder, catalog, report, progress
        self.worker = EmbedWorker(embedder, EMBED_SLICE)
        #: vectors resolved for the current flush batch, and which of them were embedded (not cached)
        self._found: dict[str, np.ndarray] = {}
        self._embedded: set[str] = set()
        #: hashes handed to the worker whose vectors have not come back
        self._inflight: set[str] = set()

    def warm(self) -> None:
        """Load the model in the worker's thread now: the run has texts to embed."""
        self.worker.warm()

    def ahead(self, todo: Mapping[str, str]) -> None:
        """Resolve ``todo`` (text hash -> text) ahead of the flush: looked up now, the rest handed
        to the worker; commits the vectors of the calls finished meanwhile."""
        self._resolve(todo, {})
        self._collect(wait=False)

    def get(
        self, hashes: Sequence[str], texts: Sequence[str], computed: Mapping[str, np.ndarray], *, count_hits: bool = True
    ) -> np.ndarray:
        """The vectors of ``hashes`` (their ``texts`` for what must be embedded), in order;
        ``computed``: vectors an engine's workers made for texts the cache lacks."""
        dim = self.embedder.dimension
        if not hashes:
            return np.zeros((0, dim), dtype=np.float32)
        self._resolve(dict(zip(hashes, texts, strict=True)), computed)
        self._collect(wait=True)
        if count_hits:
            self.report.cache_hits += sum(1 for h in hashes if h not in self._embedded)
        out = np.stack([self._found[h] for h in hashes]).astype(np.float32)
        for h in hashes:  # handed out: a reconcile's many calls never hold a whole store
            self._found.pop(h, None)
            self._embedded.discard(h)
        return out

    def clear(self) -> None:
        """Forget what was resolved ahead and not asked for (after a flush has stored its batch)."""
        self._collect(wait=True)
        self._found.clear()
        self._embedded.clear()

    def close(self) -> None:
        """Stop the worker (the call it is running ends first) and commit what it finished, also
        after an error or an interrupt; an error of its own is logged, the run's is raised."""
        self.worker.close()
        try:
            self._collect(wait=False)
        except Exception as exc:  # noqa: BLE001 - the run is ending with its own error, or none
            log.debug("embeddings finished at the end of the run were not kept: %s", exc)

    def _resolve(self, todo: Mapping[str, str], computed: Mapping[str, np.ndarray]) -> None:
        """Look ``todo`` up in the cache, take what ``computed`` has, hand the rest to the worker."""
        rest = {h: t for h, t in todo.items() if h not in self._found and h not in self._inflight}
        if not rest:
            return
        emb = self.embedder
        self._found.update(self.catalog.cached_embeddings(emb.model_id, list(rest), emb.dimension))
        missing = {h: t for h, t in rest.items() if h not in self._found}
        if not missing:
            return
        self.progress("embed_total", len(missing))
        given = {h: computed[h] for h in missing if h in computed}
        if given:
            self._commit(list(given), np.stack(list(given.values())))
        send = {h: t for h, t in missing.items() if h not in given}
        # longest first, as the worker takes them: its calls hold texts of similar length
        self._inflight.update(send)
        self.worker.submit(dict(sorted(send.items(), key=lambda kv: -len(kv[1]))))

    def _collect(self, *, wait: bool) -> None:
        """Commit the worker's finished calls; with ``wait``, until nothing is in flight (an
        embedding error is raised after the calls finished before it are committed)."""
        while True:
            done = self.worker.results(wait=wait and bool(self._inflight))
            for hashes, vectors in done:
                self._inflight.difference_update(hashes)
                self._commit(hashes, vectors)
            if not done or not (wait and self._inflight):
                return

    def _commit(self, hashes: list[str], vectors: np.ndarray) -> None:
        fresh = dict(zip(hashes, vectors, strict=True))
        self.catalog.put_embeddings(self.embedder.model_id, fresh)
        self._found.update(fresh)
        self._embedded.update(hashes)
        self.report.texts_embedded += len(hashes)
        self.progress("embedded", len(hashes))
