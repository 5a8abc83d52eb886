"""Shared fakes for retrieval tests: a tiny corpus, a recording retriever, a real dense stack."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.stores.filters import Filter, matches, normalize
from ragkit.types import SearchHit

CORPUS = {
    "a1": ("The quick brown fox jumps over the lazy dog", {"source": "animals/fox.md", "page": 1}),
    "a2": (
        "Foxes are small omnivorous mammals; a fox hunts at night",
        {"source": "animals/fox.md", "page": 2},
    ),
    "b1": ("Python is a programming language with dynamic typing", {"source": "code/python.md", "page": 1}),
    "b2": ("The python snake is not venomous", {"source": "animals/snake.md", "page": 1}),
    "c1": ("Recipes for bread and cake", {"source": "food/bake.txt", "page": 3}),
}


class RecordingRetriever:
    """Returns its fixed hits that match the filter, and records every call (a fake, not a mock)."""

    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        self.calls: list[tuple[str, int, Filter | None]] = []

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        self.calls.append((query, k, filter))
        norm = normalize(filter)
        return [h for h in self.hits if matches(h.metadata, norm)][:k]


def corpus_hits(*ids: str) -> list[SearchHit]:
    return [
        SearchHit(id=i, score=1.0 - n / 10, metadata={**CORPUS[i][1], "text": CORPUS[i][0]})
        for n, i in enumerate(ids)
    ]


def dense_retriever():  # type: ignore[no-untyped-def]
    """A real DenseRetriever over the hashing embedder and the memory store."""
    from ragkit.retrieval.dense import DenseRetriever
    from ragkit.stores.memory import MemoryStore
    from ragkit.testing.hashing import HashingEmbedder

    embedder = HashingEmbedder(dimension=64)
    store = MemoryStore(dimension=64)
    texts = [t for t, _ in CORPUS.values()]
    store.add(list(CORPUS), embedder.embed_documents(texts), [{**m, "text": t} for t, m in CORPUS.values()])
    return DenseRetriever(embedder=embedder, store=store)


def bm25_retriever():  # type: ignore[no-untyped-def]
    from ragkit.retrieval.bm25 import BM25Index, BM25Retriever

    index = BM25Index()
    index.add(list(CORPUS), [t for t, _ in CORPUS.values()], [m for _, m in CORPUS.values()])
    return BM25Retriever(index=index)


def tiny_cross_encoder(directory: Path) -> Path:
    """A randomly initialised 1-layer BERT cross-encoder saved locally (no hub, seeded)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    words = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "the",
        "cat",
        "sat",
        "on",
        "mat",
        "dogs",
        "and",
        "cats",
        "nothing",
        "relevant",
        "here",
    ]
    directory.mkdir()
    (directory / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    config = transformers.BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        num_labels=1,
        max_position_embeddings=64,
    )
    transformers.BertForSequenceClassification(config).save_pretrained(directory)
    transformers.BertTokenizerFast(vocab_file=str(directory / "vocab.txt")).save_pretrained(directory)
    return directory
