"""Dense retrieval: embed the query, search the vector store."""

from __future__ import annotations

from ragkit.embedders.base import Embedder
from ragkit.registry import retrievers
from ragkit.stores.base import VectorStore
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit


@retrievers.register("dense")
class DenseRetriever:
    needs = frozenset({"dense"})

    def __init__(self, *, embedder: Embedder, store: VectorStore) -> None:
        self.embedder = embedder
        self.store = store

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        vec = self.embedder.embed_query(query)
        return self.store.search(vec, k=k, filter=filter)
