"""Rerankers: Cohere against the loopback Cohere server, cross-encoder loading, the wrapper."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from ragkit.errors import ConfigError, ProviderError
from ragkit.retrieval.rerank import CohereReranker, CrossEncoderReranker, RerankingRetriever
from ragkit.types import SearchHit

from .helpers import RecordingRetriever, corpus_hits
from .helpers import tiny_cross_encoder as _tiny_cross_encoder

TEXTS = ["cats and dogs", "the cat sat on the mat", "nothing relevant here"]


def text_hits() -> list[SearchHit]:
    return [SearchHit(id=f"h{i}", score=10.0 - i, metadata={"text": t}) for i, t in enumerate(TEXTS)]


@pytest.mark.network_local
def test_cohere_rerank_through_the_sdk() -> None:
    pytest.importorskip("cohere")
    from ragkit.testing.servers.cohere import RERANK_PATH, FakeCohereServer

    with FakeCohereServer() as server:
        reranker = CohereReranker(api_key="test-key", base_url=server.url, model="rerank-v3.5")
        got = reranker.rerank("cat mat", text_hits(), top_n=2)
        body = server.requests_to(RERANK_PATH)[0].body
    assert body == {"model": "rerank-v3.5", "query": "cat mat", "documents": TEXTS, "top_n": 2}
    assert [h.id for h in got] == ["h1", "h0"]
    assert got[0].score == pytest.approx(1.0)  # the fake scores the share of query words present
    assert got[0].metadata == {"text": TEXTS[1], "retrieval_score": 9.0}


@pytest.mark.network_local
def test_cohere_http_error_becomes_provider_error() -> None:
    pytest.importorskip("cohere")
    from ragkit.testing.servers.cohere import RERANK_PATH, FakeCohereServer

    with FakeCohereServer() as server:
        server.enqueue_error(400, "model 'nope' not found", path=RERANK_PATH)
        reranker = CohereReranker(api_key="k", base_url=server.url, model="nope", max_retries=0)
        with pytest.raises(ProviderError, match="HTTP 400.*model 'nope' not found"):
            reranker.rerank("cat", text_hits())


def test_cohere_needs_an_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set the environment variable CO_API_KEY"):
        CohereReranker()
    monkeypatch.setenv("COHERE_API_KEY", "from-env")
    assert CohereReranker()._key == "from-env"


def test_empty_hits_need_no_request() -> None:
    assert CohereReranker(api_key="k", base_url="http://127.0.0.1:9").rerank("q", []) == []


def test_cross_encoder_missing_model_explains_how_to_provide_one(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"does not exist; ragkit loads rerankers from a local directory only"
    ):
        CrossEncoderReranker(model=tmp_path / "no-such-model")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"has no config.json.*CrossEncoder\('cross-encoder/ms-marco"):
        CrossEncoderReranker(model=tmp_path / "empty")


@pytest.mark.slow
def test_cross_encoder_from_a_local_directory_orders_by_model_score(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    import torch
    import transformers

    model_dir = _tiny_cross_encoder(tmp_path / "tiny-ce")
    got = CrossEncoderReranker(model=model_dir).rerank("cat mat", text_hits(), top_n=3)
    # independent scores: the raw transformers model's logits (the reranker's activation is monotonic)
    tok = transformers.AutoTokenizer.from_pretrained(model_dir)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    with torch.no_grad():
        logits = model(**tok(["cat mat"] * 3, TEXTS, return_tensors="pt", padding=True)).logits[:, 0]
    want = [f"h{i}" for i in sorted(range(3), key=lambda i: -float(logits[i]))]
    assert [h.id for h in got] == want
    assert got[0].score >= got[1].score >= got[2].score
    assert len(CrossEncoderReranker(model=model_dir).rerank("cat", text_hits(), top_n=1)) == 1


class ReverseReranker:
    """A fake reranker: reverses the candidates and scores them by new position."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def rerank(self, query: str, hits: Sequence[SearchHit], top_n: int | None = None) -> list[SearchHit]:
        self.seen.append(len(hits))
        out = [SearchHit(id=h.id, score=float(i), metadata=h.metadata) for i, h in enumerate(hits)][::-1]
        return out[:top_n]


def test_reranking_retriever_fetches_candidates_and_passes_the_filter() -> None:
    base = RecordingRetriever(corpus_hits("a1", "a2", "b2", "b1", "c1"))
    reranker = ReverseReranker()
    retriever = RerankingRetriever(base=base, reranker=reranker, candidates=4)
    got = retriever.retrieve("q", k=2, filter={"source": {"$glob": "animals/*"}})
    assert base.calls == [("q", 4, {"source": {"$glob": "animals/*"}})]
    assert reranker.seen == [3]
    assert [h.id for h in got] == ["b2", "a2"]
    with pytest.raises(ConfigError, match="candidates must be an integer of at least 1"):
        RerankingRetriever(base=base, reranker=reranker, candidates=0)
