"""The sentence-transformers embedder encodes a query on one torch thread (see
``_one_torch_thread``): same vector as a batch encode, and the thread count is restored."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.model
def test_query_on_one_thread_matches_batch_and_restores_the_thread_count() -> None:
    torch = pytest.importorskip("torch")
    from ragkit.embedders.sentence_transformers import SentenceTransformerEmbedder

    emb = SentenceTransformerEmbedder(backend="torch")
    before = torch.get_num_threads()
    query = emb.embed_query("how far is the moon from the earth")
    assert torch.get_num_threads() == before
    batch = emb.embed_documents(["how far is the moon from the earth", "tides"])[0]
    np.testing.assert_allclose(query, batch, atol=1e-5)
