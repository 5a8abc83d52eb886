"""Second-stage reranking: score (query, passage) pairs with a stronger model.

- ``CrossEncoderReranker``: a sentence-transformers ``CrossEncoder`` loaded from a *local*
  directory (never from a model hub); loaded lazily on the first call.
- ``CohereReranker``: the Cohere rerank API (``ClientV2.rerank``); ``base_url`` points it at a
  compatible server (tests use ``ragkit.testing.servers.cohere``).
- ``RerankingRetriever`` (registered as ``rerank``): fetch ``candidates`` hits from a base
  retriever, rerank, keep k. In a pipeline: ``retriever: {type: rerank, base: {type: hybrid},
  model: DIR}`` (``reranker: cohere`` for the Cohere API, ``model`` then its model name).

A reranked hit's ``score`` is the reranker's score; the first-stage score is kept in its
metadata as ``retrieval_score``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ragkit.errors import ConfigError, MissingDependencyError, ProviderError
from ragkit.registry import retrievers
from ragkit.retrieval.base import Retriever, check_k
from ragkit.retry import RetryPolicy, call_with_retry
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

log = logging.getLogger(__name__)


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, query: str, hits: Sequence[SearchHit], top_n: int | None = None) -> list[SearchHit]: ...


def _rescored(
    hits: Sequence[SearchHit], scored: Sequence[tuple[int, float]], top_n: int | None
) -> list[SearchHit]:
    """Hits in the given (index, score) order, cut at ``top_n``; ties keep the first-stage order."""
    order = sorted(scored, key=lambda pair: (-pair[1], pair[0]))
    if top_n is not None:
        order = order[: check_k(top_n, name="top_n")]
    return [
        SearchHit(
            id=hits[i].id, score=float(s), metadata={**hits[i].metadata, "retrieval_score": hits[i].score}
        )
        for i, s in order
    ]


class CrossEncoderReranker:
    """Rerank with a local sentence-transformers cross-encoder (e.g. ms-marco-MiniLM-L-6-v2)."""

    def __init__(
        self, *, model: str | Path, batch_size: int = 32, device: str = "cpu", max_length: int | None = None
    ) -> None:
        path = Path(model).expanduser()
        if not (path / "config.json").is_file():
            what = "does not exist" if not path.exists() else "has no config.json"
            raise ConfigError(
                f"cross-encoder model directory {str(path)!r} {what}; ragkit loads rerankers from a local "
                "directory only (no model hub). On a machine with internet access run "
                "`CrossEncoder('cross-encoder/ms-marco-MiniLM-L-6-v2').save('DIR')`, copy DIR here "
                "and pass model='DIR' (reranker.model in the pipeline YAML)"
            )
        self.path = path
        self.batch_size = check_k(batch_size, name="batch_size")
        self.device = device
        self.max_length = max_length
        self._model: Any = None

    @property
    def model_id(self) -> str:
        return str(self.path)

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import CrossEncoder
            except ImportError as exc:
                raise MissingDependencyError(
                    "sentence-transformers", "local", "cross-encoder reranking"
                ) from exc
            try:
                self._model = CrossEncoder(
                    str(self.path), device=self.device, local_files_only=True, max_length=self.max_length
                )
            except (OSError, ValueError) as exc:
                raise ConfigError(f"could not load the cross-encoder at {str(self.path)!r}: {exc}") from exc
        return self._model

    def rerank(self, query: str, hits: Sequence[SearchHit], top_n: int | None = None) -> list[SearchHit]:
        if not hits:
            return []
        model = self._load()
        scores = model.predict(
            [(query, h.text) for h in hits],
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return _rescored(
            hits, [(i, float(s)) for i, s in enumerate(scores.reshape(len(hits), -1)[:, 0])], top_n
        )


class CohereReranker:
    """Rerank with the Cohere API (v2). Key, client and errors come from :mod:`ragkit.vendors.cohere`;
    retries go through :mod:`ragkit.retry` (the SDK's own are off)."""

    def __init__(
        self,
        *,
        model: str = "rerank-english-v3.0",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        retry: RetryPolicy | None = None,
    ) -> None:
        from ragkit.vendors.cohere import COHERE

        self.vendor = COHERE
        self._key = COHERE.api_key(api_key, what="the Cohere reranker", error_cls=ConfigError)
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.retry_policy = retry if retry is not None else RetryPolicy.from_max_retries(max_retries)
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            self.vendor.require_sdk("Cohere reranking")
            self._client = self.vendor.client(api_key=self._key, base_url=self.base_url, timeout=self.timeout)
        return self._client

    def rerank(self, query: str, hits: Sequence[SearchHit], top_n: int | None = None) -> list[SearchHit]:
        if not hits:
            return []
        client = self._get_client()
        n = min(check_k(top_n, name="top_n"), len(hits)) if top_n is not None else len(hits)
        response = call_with_retry(
            lambda: client.rerank(model=self.model, query=query, documents=[h.text for h in hits], top_n=n),
            classify=lambda exc: self.vendor.classify(exc, timeout=self.timeout, endpoint=self.base_url),
            policy=self.retry_policy, what=f"cohere rerank (model {self.model!r})",
        )
        scored = []
        for result in response.results:
            if not 0 <= result.index < len(hits):
                raise ProviderError(f"Cohere rerank returned index {result.index} for {len(hits)} documents")
            scored.append((int(result.index), float(result.relevance_score)))
        return _rescored(hits, scored, n)


RERANKERS = ("cross-encoder", "cohere")


def make_reranker(
    kind: str, *, model: str | None, device: str = "cpu", batch_size: int = 32,
    api_key: str | None = None, base_url: str | None = None,
) -> Reranker:
    """The reranker a pipeline names: a local cross-encoder directory or the Cohere API."""
    if kind == "cross-encoder":
        if not model:
            raise ConfigError(
                "the rerank retriever needs model: the directory of a local cross-encoder "
                "(retriever: {type: rerank, model: DIR}, or --rerank-model DIR)"
            )
        return CrossEncoderReranker(model=model, device=device, batch_size=batch_size)
    if kind == "cohere":
        return CohereReranker(api_key=api_key, base_url=base_url, **({"model": model} if model else {}))
    raise ConfigError(f"unknown reranker {kind!r}; allowed: {', '.join(RERANKERS)}")


@retrievers.register("rerank")
class RerankingRetriever:
    """Fetch ``candidates`` hits from ``base`` (filter passed down), rerank them, keep k.

    ``reranker`` is a ``Reranker`` or the name of one (see ``make_reranker``)."""

    needs: frozenset[str] = frozenset()  # what its base needs

    def __init__(
        self, *, base: Retriever, reranker: Reranker | str = "cross-encoder", model: str | None = None,
        candidates: int = 50, device: str = "cpu", batch_size: int = 32,
        api_key: str | None = None, base_url: str | None = None,
    ) -> None:
        self.base = base
        self.candidates = check_k(candidates, name="candidates")
        self.reranker = (
            make_reranker(reranker, model=model, device=device, batch_size=batch_size, api_key=api_key,
                          base_url=base_url)
            if isinstance(reranker, str) else reranker
        )

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        check_k(k)
        hits = self.base.retrieve(query, k=max(k, self.candidates), filter=filter)
        return self.reranker.rerank(query, hits, top_n=k)
