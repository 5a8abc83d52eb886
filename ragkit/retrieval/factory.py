"""Build the retriever a pipeline names, wired to an opened knowledge base."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragkit.errors import ConfigError
from ragkit.registry import did_you_mean, retrievers

if TYPE_CHECKING:
    from ragkit.knowledge import KnowledgeBase


def build_retriever(kb: KnowledgeBase, name: str) -> Any:
    if name not in retrievers:
        raise ConfigError(f"unknown retriever '{name}'{did_you_mean(name, retrievers.names())}")
    from ragkit.retrieval.dense import DenseRetriever

    dense = DenseRetriever(embedder=kb.embedder, store=kb.store)
    if name == "dense":
        return dense
    from ragkit.retrieval.bm25 import BM25Retriever

    lexical = BM25Retriever(index=kb.lexical)
    if name == "bm25":
        return lexical
    opts = dict(kb.spec.retriever.options) if kb.spec.retriever.type == name else {}
    cls = retrievers.get(name)
    try:
        return cls(dense=dense, lexical=lexical, **opts)
    except TypeError as exc:
        raise ConfigError(f"{kb.spec.origin}: retriever: invalid options for '{name}': {exc}") from None
