"""What the index writer keeps in step with the catalog: a list of ``IndexSink`` s.

A sink holds chunk rows by id. The vector store (through ``StoreSink``) and the BM25 index
(``ragkit.retrieval.bm25.BM25Index``) are both sinks; the writer applies the same crash-safe order
to each (delete stale ids, upsert new rows, persist) without knowing what kind it is.

A sink whose whole state is files under ``path`` declares ``local = True``; the writer then
fingerprints those files to skip reconciling after a clean run (a server-side store always
reconciles).

``SinkRecord`` and the ``IndexSink`` protocol live in :mod:`ragkit.stores.base` (the BM25 index,
a retriever, implements the protocol without importing the index layer).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from ragkit.errors import RagkitError
from ragkit.stores.base import IndexSink, SinkRecord, VectorStore

log = logging.getLogger(__name__)


def sink_ids(sink: IndexSink) -> Iterator[str]:
    """The ids ``sink`` holds, streamed when it can (``iter_ids``), else from ``ids()``."""
    it = getattr(sink, "iter_ids", None)
    return iter(it()) if callable(it) else iter(sink.ids())


def settle(sink: object) -> None:
    """Let a sink finish its background work (a segmented store's merges), so its files stay as
    they are until the next write; a no-op for sinks without any."""
    wait = getattr(sink, "wait_merges", None)
    if callable(wait):
        try:
            wait()
        except RagkitError as exc:  # a failed merge loses nothing: its inputs stay in place
            log.warning("%s", exc)


class StoreSink:
    """A ``VectorStore`` as a sink: rows need vectors; the text goes into the metadata."""

    def __init__(self, store: VectorStore, *, path: Path | None) -> None:
        self.store = store
        self.path = path
        self.local = bool(getattr(type(store), "local", False)) and path is not None

    def upsert(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            return
        vectors = []
        for r in records:
            if r.vector is None:
                raise ValueError(f"the vector store needs a vector for chunk {r.id}")
            vectors.append(r.vector)
        metas = [{**r.metadata, "text": r.text} for r in records]
        self.store.add([r.id for r in records], np.stack(vectors).astype(np.float32), metas)

    def delete(self, ids: Sequence[str]) -> None:
        self.store.delete(ids)

    def ids(self) -> set[str]:
        return self.store.ids()

    def persist(self) -> None:
        self.store.persist()

    def wait_merges(self) -> None:
        settle(self.store)

    def iter_ids(self) -> Iterator[str]:
        return sink_ids(self.store)  # type: ignore[arg-type]

    @property
    def unsaved(self) -> bool:
        """Rows read from an older file layout that the next ``persist`` saves in the new one."""
        return bool(getattr(self.store, "unsaved", False))

    def close(self) -> None:
        self.store.close()


__all__ = ["StoreSink", "settle", "sink_ids"]
