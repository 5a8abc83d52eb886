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
    if name == "dense":
        from ragkit.retrieval.dense import DenseRetriever

        return DenseRetriever(embedder=kb.embedder, store=kb.store)
    opts = dict(kb.spec.retriever.options) if kb.spec.retriever.type == name else {}
    cls = retrievers.get(name)
    return cls(**opts)
