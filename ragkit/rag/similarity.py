"""How near in meaning sentences are to a question, by the knowledge base's own embedding model:
the ``local`` provider's answerer weighs it beside the words a sentence shares with the question
(``extractive.engine.Similarity``)."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from threading import Lock
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ragkit.rag.extractive.engine import Similarity

log = logging.getLogger(__name__)

CACHED = 4096  # sentence vectors kept: the same passages come back turn after turn


def embedding_similarity(embedder: Any, cached: int = CACHED) -> Similarity:
    """``similarity(question, texts)``: the cosine similarity of each text to the question, by
    ``embedder`` (``embed_query`` for the question, ``embed_few`` for the texts: document vectors
    by what the query loaded, so a PyTorch model's answer loads no PyTorch). Vectors of texts seen
    before are reused (at most ``cached``), and the last question's. When the model fails, every
    text is as near as any other: the answer is weighed by its words alone, and the failure is
    logged."""
    vectors: OrderedDict[str, np.ndarray] = OrderedDict()
    asked: dict[str, np.ndarray] = {}  # the last question's vector
    lock = Lock()

    def unit(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float32)
        n = float(np.linalg.norm(v))
        return v / n if n > 0 else v

    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        try:
            return nearness(question, texts)
        except Exception as e:  # noqa: BLE001 - the answer never fails for want of this signal
            log.warning("the answer is weighed without meaning: the embedding model failed (%s)", e)
            return [0.0] * len(texts)

    def nearness(question: str, texts: Sequence[str]) -> list[float]:
        with lock:
            new = list(dict.fromkeys(t for t in texts if t not in vectors))
        if new:
            embedded = embedder.embed_few(new)
            with lock:
                for t, v in zip(new, embedded, strict=True):
                    vectors[t] = unit(v)
                while len(vectors) > cached:
                    vectors.popitem(last=False)
        with lock:
            q = asked.get(question)
        if q is None:  # one turn weighs the same question several times
            q = unit(embedder.embed_query(question))
            with lock:
                asked.clear()
                asked[question] = q
        with lock:
            found = [vectors.get(t) for t in texts]
        missing = [t for t, v in zip(texts, found, strict=True) if v is None]  # evicted meanwhile
        extra = dict(zip(missing, (unit(v) for v in embedder.embed_few(missing)), strict=True)) if missing else {}
        return [float(np.dot(q, v if v is not None else extra[t])) for t, v in zip(texts, found, strict=True)]

    return similarity


__all__ = ["embedding_similarity"]
