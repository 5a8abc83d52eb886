"""An index directory opened for use: its pipeline spec, embedder, store and retrievers.

Layout of an index directory::

    pipeline.yaml     the resolved pipeline it was built with (search/ask reuse it)
    catalog.duckdb    sources, chunks, runs, embedding cache (ragkit.catalog)
    store/            the vector store's own files
    bm25/             the lexical index, when the retriever uses one
    index.lock        held by the one process writing the index

Heavy resources (the embedding model, faiss) load on first use.
"""

from __future__ import annotations

import logging
from functools import cached_property
from pathlib import Path
from typing import Any

from ragkit import registry
from ragkit.config import PipelineSpec, build_component, load_pipeline
from ragkit.embedders.base import Embedder
from ragkit.errors import ConfigError, RagkitError
from ragkit.stores.base import VectorStore
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

log = logging.getLogger(__name__)
PIPELINE_FILE = "pipeline.yaml"
DEFAULT_INDEX = Path(".ragkit/index")


def resolve_spec(pipeline: str | Path | None, index: str | Path | None) -> tuple[PipelineSpec, Path]:
    """Pick the pipeline (explicit file > the index's saved copy > defaults) and the index dir."""
    if pipeline is not None:
        spec = load_pipeline(pipeline)
        return spec, Path(index) if index is not None else Path(spec.index)
    index_dir = Path(index) if index is not None else DEFAULT_INDEX
    saved = index_dir / PIPELINE_FILE
    spec = load_pipeline(saved) if saved.is_file() else load_pipeline(None)
    return spec, index_dir


class KnowledgeBase:
    def __init__(self, spec: PipelineSpec, index_dir: str | Path | None = None) -> None:
        self.spec = spec
        self.index_dir = Path(index_dir if index_dir is not None else spec.index)
        self._store: VectorStore | None = None
        self._lexical: Any = None

    @classmethod
    def open(cls, *, pipeline: str | Path | None = None, index: str | Path | None = None) -> KnowledgeBase:
        spec, index_dir = resolve_spec(pipeline, index)
        kb = cls(spec, index_dir)
        if not (kb.index_dir / "catalog.duckdb").exists():
            raise RagkitError(
                f"no index at {kb.index_dir}; build one first with: ragkit index PATH"
                + (f" --index {kb.index_dir}" if index is not None else "")
            )
        return kb

    # ------------------------------------------------------------------ components
    @cached_property
    def embedder(self) -> Embedder:
        return build_component(registry.embedders, self.spec, "embedder")  # type: ignore[no-any-return]

    @cached_property
    def splitter(self) -> Any:
        length = self.embedder.count_tokens if self.spec.splitter.unit == "tokens" else None
        return build_component(registry.splitters, self.spec, "splitter", length_function=length)

    @property
    def store(self) -> VectorStore:
        if self._store is None:
            self._store = build_component(
                registry.stores, self.spec, "store",
                dimension=self.embedder.dimension, path=self.index_dir / "store",
            )
        return self._store

    @property
    def lexical(self) -> Any:
        """The BM25 index (``ragkit.retrieval.bm25.BM25Index``) kept in step with the store."""
        if self._lexical is None:
            if not self.spec.uses_lexical:
                raise ConfigError(
                    f"the index at {self.index_dir} has no lexical (BM25) index; set `retriever: {{type: hybrid}}` "
                    "or `lexical: {enabled: true}` in the pipeline and run `ragkit index` again"
                )
            from ragkit.retrieval.bm25 import BM25Index

            lx = self.spec.lexical
            self._lexical = BM25Index(
                path=self.index_dir / "bm25", k1=lx.k1, b=lx.b, stemmer=lx.stemmer, stopwords=lx.stopwords
            )
        return self._lexical

    def sinks(self) -> list[Any]:
        """Everything the pipeline keeps in step with the catalog: the store, and BM25 if used."""
        return [self.store, self.lexical] if self.spec.uses_lexical else [self.store]

    def retriever(self, kind: str | None = None) -> Any:
        """The retriever named in the pipeline (or ``kind``: dense, bm25, hybrid)."""
        name = kind or self.spec.retriever.type
        from ragkit.retrieval.factory import build_retriever

        return build_retriever(self, name)

    def search(self, query: str, k: int | None = None, filter: Filter | None = None, *, kind: str | None = None) -> list[SearchHit]:
        if not query.strip():
            raise ConfigError("the search query is empty; pass some text to search for")
        k = k if k is not None else self.spec.retriever.top_k
        if k < 1:
            raise ConfigError(f"k must be at least 1 (got {k})")
        return list(self.retriever(kind).retrieve(query, k=k, filter=filter))

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._lexical is not None:
            self._lexical.close()
            self._lexical = None

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
