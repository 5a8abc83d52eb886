"""An index directory opened for search: its pipeline spec, components and retrievers.

``KnowledgeBase`` is the reader side of an index (``ragkit.index.writer`` is the writer); both
get their components from ``ragkit.index.components`` and their paths from
``ragkit.index.layout``. Heavy resources (the embedding model, faiss) load on first use; each
retriever is built once and reused by every search.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.config import PipelineSpec, default_index, load_pipeline, resolved_options
from ragkit.embedders.base import Embedder
from ragkit.errors import ConfigError, RagkitError
from ragkit.index.components import Components
from ragkit.index.layout import IndexLayout
from ragkit.retrieval.back_matter import demote_back_matter, is_back_matter, overfetch
from ragkit.retrieval.base import Retriever, above, check_min_score
from ragkit.splitters.base import Splitter
from ragkit.stores.base import IndexSink, VectorStore
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

if TYPE_CHECKING:
    from ragkit.retrieval.bm25 import BM25Index

log = logging.getLogger(__name__)


def resolve_spec(pipeline: str | Path | None, index: str | Path | None) -> tuple[PipelineSpec, Path]:
    """Pick the pipeline (explicit file > the index's saved copy > defaults) and the index dir."""
    if pipeline is not None:
        spec = load_pipeline(pipeline)
        return spec, Path(index) if index is not None else Path(spec.index)
    index_dir = Path(index) if index is not None else default_index()
    saved = IndexLayout(index_dir).pipeline_file
    spec = load_pipeline(saved, saved=True) if saved.is_file() else load_pipeline(None)
    return spec, index_dir


def _describe(component: Any) -> str:
    return ", ".join(f"{k}: {v}" for k, v in {"type": component.type, **component.options}.items())


def _as_built(spec: PipelineSpec, built: PipelineSpec, index_dir: Path, pipeline: str | Path) -> PipelineSpec:
    """``spec`` with the store and the embedder the index was built with: its vectors are in that
    store and queries must be embedded like them (same backend and int8 recipe); `ragkit index
    --pipeline FILE` rebuilds the store from the embedding cache, or re-embeds for another backend."""
    fix = {"store": "rebuild it from the embedding cache", "embedder": "embed the index again with it"}
    for section in ("store", "embedder"):
        if resolved_options(built, section) != resolved_options(spec, section):
            log.warning(
                "the index at %s was built with %s %s; %s asks for %s: searching the %s as built "
                "(run `ragkit index --pipeline %s` to %s)", index_dir, section, _describe(getattr(built, section)),
                pipeline, _describe(getattr(spec, section)), section, pipeline, fix[section],
            )
            spec = spec.model_copy(update={section: getattr(built, section)})
    return spec


class KnowledgeBase:
    def __init__(self, spec: PipelineSpec, index_dir: str | Path | None = None) -> None:
        self.spec = spec
        self.layout = IndexLayout(index_dir if index_dir is not None else spec.index)
        self.components = Components(spec, self.layout)

    @property
    def index_dir(self) -> Path:
        return self.layout.root

    @classmethod
    def open(cls, *, pipeline: str | Path | None = None, index: str | Path | None = None) -> KnowledgeBase:
        spec, index_dir = resolve_spec(pipeline, index)
        saved = IndexLayout(index_dir).pipeline_file
        if pipeline is not None and saved.is_file():
            spec = _as_built(spec, load_pipeline(saved, saved=True), index_dir, pipeline)
        kb = cls(spec, index_dir)
        if not kb.layout.exists():
            raise RagkitError(
                f"no index at {kb.index_dir}; build one first with: ragkit index PATH"
                + (f" --index {kb.index_dir}" if index is not None else "")
            )
        return kb

    # ------------------------------------------------------------------ components
    @property
    def embedder(self) -> Embedder:
        return self.components.embedder

    @property
    def splitter(self) -> Splitter:
        return self.components.splitter

    @property
    def store(self) -> VectorStore:
        return self.components.store

    @property
    def lexical(self) -> BM25Index:
        """The BM25 index kept in step with the store."""
        return self.components.lexical

    def sinks(self) -> list[IndexSink]:
        return self.components.sinks()

    def retriever(self, kind: str | Mapping[str, Any] | None = None) -> Retriever:
        """The retriever named in the pipeline, or ``kind``: a registry name (dense, bm25, hybrid,
        or rerank/mmr wrapping the pipeline's retriever) or a retriever spec mapping."""
        return self.components.retriever(kind)

    def search(
        self, query: str, k: int | None = None, filter: Filter | None = None, *,
        kind: str | Mapping[str, Any] | None = None, min_score: float | None = None,
    ) -> list[SearchHit]:
        """The ``k`` best hits of the retriever (the pipeline's, or ``kind``); ``min_score`` drops
        those scoring below it (in the retriever's units), in place of its spec's ``min_score``."""
        if not query.strip():
            raise ConfigError("the search query is empty; pass some text to search for")
        k = k if k is not None else self.spec.retriever.top_k
        if k < 1:
            raise ConfigError(f"k must be at least 1 (got {k})")
        threshold = check_min_score(min_score)
        if threshold is not None:  # the caller's threshold instead of the spec's
            kind = {key: v for key, v in self.components.retriever_conf(kind).items() if key != "min_score"}
        retriever = self.retriever(kind)
        hits = retriever.retrieve(query, k=k, filter=filter)
        if any(is_back_matter(h) for h in hits):  # a paper's reference list ranks below its body
            hits = demote_back_matter(retriever.retrieve(query, k=overfetch(k), filter=filter), k)
        return above(hits, threshold)

    def close(self) -> None:
        self.components.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
