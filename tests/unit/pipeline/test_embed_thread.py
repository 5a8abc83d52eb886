"""The indexing run's embedding thread: texts are embedded on a thread of their own
while the writer works, in slices; an embedding error reaches the run, and what was embedded
before it stays in the embedding cache."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ragkit.errors import EmbeddingError
from ragkit.index.catalog import Catalog
from ragkit.index.embed_worker import EmbedWorker
from ragkit.index.writer import EMBED_SLICE, IndexingPipeline
from ragkit.registry import embedders
from ragkit.testing.hashing import HashingEmbedder
from tests.unit.pipeline.helpers import make_spec, write_tree


@embedders.register("failing-hashing")
class FailingHashing(HashingEmbedder):
    """A hashing embedder whose call number ``fail_at`` (1-based) fails; notes each call's thread."""

    def __init__(self, *, fail_at: int = 0, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.fail_at, self.threads = fail_at, []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.threads.append(threading.current_thread().name)
        if len(self.threads) == self.fail_at:
            raise EmbeddingError("the model server went away (test)")
        return super().embed_batch(texts)


def texts(n: int) -> dict[str, str]:
    return {f"h{i}": f"passage {i} about tide gauge number {i * 7}" for i in range(n)}


def test_the_worker_embeds_on_its_own_thread_in_slices_and_returns_every_vector() -> None:
    emb = FailingHashing(dimension=32)
    worker = EmbedWorker(emb, slice_size=100)
    todo = texts(250)
    worker.submit(dict(list(todo.items())[:120]))
    worker.submit(dict(list(todo.items())[120:]))
    got = {h: v for hashes, vectors in worker.results(wait=True) for h, v in zip(hashes, vectors, strict=True)}
    worker.close()
    assert set(got) == set(todo)
    want = HashingEmbedder(dimension=32).embed_documents(list(todo.values()))
    np.testing.assert_array_equal(np.stack([got[h] for h in todo]), want)
    assert max(emb.calls) <= 100 and sum(emb.calls) == 250
    assert set(emb.threads) == {"ragkit-embed"}


def test_an_error_is_raised_once_after_the_calls_finished_before_it() -> None:
    worker = EmbedWorker(FailingHashing(dimension=32, fail_at=2), slice_size=50)
    worker.submit(texts(150))
    first = worker.results(wait=True)  # the first call's vectors come back before the error
    assert [len(h) for h, _ in first] == [50]
    with pytest.raises(EmbeddingError, match="went away"):
        worker.results(wait=True)
    assert worker.results(wait=True) == []
    worker.close()


def test_an_embedding_error_stops_the_run_and_keeps_what_was_embedded(tmp_path: Path) -> None:
    paras = [f"Paragraph {i}: the tide gauge reads {i} centimetres." for i in range(3 * EMBED_SLICE)]
    docs = write_tree(tmp_path / "docs", {"long.txt": "\n\n".join(paras)})
    splitter = {"type": "recursive", "unit": "chars", "chunk_size": 60, "chunk_overlap": 0}
    failing = make_spec(tmp_path / "index", splitter=splitter,
                        embedder={"type": "failing-hashing", "dimension": 32, "fail_at": 2})
    with pytest.raises(EmbeddingError, match="went away"):
        IndexingPipeline(failing).index_paths([docs])
    catalog = Catalog(tmp_path / "index" / "catalog.duckdb")
    try:
        assert catalog.chunk_count() == 0  # nothing half-indexed
    finally:
        catalog.close()
    working = make_spec(tmp_path / "index", splitter=splitter,
                        embedder={"type": "failing-hashing", "dimension": 32})
    report = IndexingPipeline(working).index_paths([docs])
    assert report.cache_hits == EMBED_SLICE  # the slice embedded before the error is not embedded again
    assert report.cache_hits + report.texts_embedded == report.chunks_total == 3 * EMBED_SLICE
