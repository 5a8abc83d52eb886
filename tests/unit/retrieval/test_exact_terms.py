"""Exact matches in the default fusion: an identifier or a quoted phrase that the lexical index
holds in a few passages is not drowned by a longer passage the dense side prefers."""

from __future__ import annotations

import pytest

from ragkit.retrieval.bm25 import BM25Index, BM25Retriever
from ragkit.retrieval.exact_terms import exact_terms
from ragkit.retrieval.hybrid import HybridRetriever
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

from .helpers import RecordingRetriever


@pytest.mark.parametrize(("query", "want"), [
    ("What about RELAY_TIMEOUT_SECONDS?", ["RELAY_TIMEOUT_SECONDS"]),
    ("what does __enter__ return", ["__enter__"]),
    ("how is parseHeaderBlock called", ["parseHeaderBlock"]),
    ("where is harbour.tides.predict defined", ["harbour.tides.predict"]),
    ('the "three rules of tidy tables"', ["three rules of tidy tables"]),
    ("the `--dry-run` flag", ["--dry-run"]),
    ("our scripts pass --relay-timeout to it", ["--relay-timeout"]),  # a long option, unquoted
    ("pass -j0 or --json", []),  # a short option, or a long one of one word: a word search finds it
    ("why did the us enter ww1", []),  # an abbreviation, not an identifier
    ("what is e.g. a tide gauge", []),
    ("what's the 'keeper' of the lamp", []),  # an apostrophe is no quote
    ("fill in the blank: _____", []),
    ("", []),
])
def test_exact_terms_by_shape(query: str, want: list[str]) -> None:
    assert exact_terms(query) == want


def test_exact_terms_is_bounded_on_a_huge_query() -> None:
    assert exact_terms("a_b " * 1_000_000)[:1] == ["a_b"]


def _settings_corpus() -> tuple[dict[str, str], list[SearchHit]]:
    """A settings reference: one short passage per setting, and long passages about the feature
    that a dense model prefers for any question on it."""
    names = ["RELAY_TIMEOUT_SECONDS", "RELAY_RETRY_LIMIT", "RELAY_QUEUE_NAME", "RELAY_HOST", "RELAY_PORT"]
    docs = {f"setting-{n.lower()}": f"{n}: a setting of the relay. Default: {i * 7 + 3}." for i, n in enumerate(names)}
    for i in range(120):
        docs[f"guide-{i}"] = (f"Relays forward messages between stations {i}; the relay waits, retries and queues "
                              "messages, and its timeouts, limits and queues are configured in settings.")
    # the dense ranking: the long guide passages first, the setting's own passage eighth
    dense_order = [f"guide-{i}" for i in range(7)] + ["setting-relay_timeout_seconds"] + [f"guide-{i}" for i in range(7, 60)]
    scores = [0.72 - n * 0.005 for n in range(7)] + [0.60] + [0.50 - n * 0.001 for n in range(53)]
    hits = [SearchHit(id=d, score=s, metadata={"text": docs[d]}) for d, s in zip(dense_order, scores, strict=True)]
    return docs, hits


def _hybrid(**opts: float) -> HybridRetriever:
    docs, dense_hits = _settings_corpus()
    index = BM25Index()
    index.add(list(docs), list(docs.values()), [{} for _ in docs])
    return HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index), **opts)  # type: ignore[arg-type]


def test_an_identifier_lexical_search_finds_is_in_the_default_top_3() -> None:
    query = "What is the default of RELAY_TIMEOUT_SECONDS?"
    top = [h.id for h in _hybrid().retrieve(query, k=3)]
    assert "setting-relay_timeout_seconds" in top
    # without the exact-match share the dense side drowns it (the rare-term boost alone is too small)
    assert "setting-relay_timeout_seconds" not in [h.id for h in _hybrid(exact_boost=0.0).retrieve(query, k=3)]


def test_a_query_without_exact_terms_ranks_as_before() -> None:
    query = "how long does the relay wait before it gives up"
    assert [h.id for h in _hybrid().retrieve(query, k=10)] == [h.id for h in _hybrid(exact_boost=0.0).retrieve(query, k=10)]


def test_exact_boost_is_validated() -> None:
    with pytest.raises(Exception, match="exact_boost must be non-negative"):
        _hybrid(exact_boost=-1)


def test_a_long_option_of_common_words_lexical_search_finds_is_in_the_default_top_3() -> None:
    # "relay" and "timeout" are in every passage; the option written as one, in one passage only
    docs = {f"guide-{i}": (f"Station {i} forwards messages to the next station; when the relay timeout passes "
                           "without an answer it retries, and the operator reads the log.") for i in range(120)}
    docs["notes-2.0"] = "Rename the `--relay-timeout` flag to `--relay-wait` (and its setting with it)."
    dense_order = [f"guide-{i}" for i in range(7)] + ["notes-2.0"] + [f"guide-{i}" for i in range(7, 60)]
    scores = [0.72 - n * 0.005 for n in range(7)] + [0.60] + [0.50 - n * 0.001 for n in range(53)]
    dense_hits = [SearchHit(id=d, score=s, metadata={"text": docs[d]}) for d, s in zip(dense_order, scores, strict=True)]
    index = BM25Index()
    index.add(list(docs), list(docs.values()), [{"text": t} for t in docs.values()])
    hybrid = HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index))  # type: ignore[arg-type]
    query = "Our scripts pass --relay-timeout. What is that flag called from 2.0 on?"
    assert "notes-2.0" in [h.id for h in hybrid.retrieve(query, k=3)]
    # its words alone are no exact match: the option's passage stays where the dense side put it
    assert "notes-2.0" not in [h.id for h in hybrid.retrieve(query.replace("--relay-timeout", "relay timeout"), k=3)]



class _RecordingBM25(BM25Retriever):
    """The real lexical retriever, recording the queries it is asked (a fake, not a mock)."""

    def __init__(self, index: BM25Index) -> None:
        super().__init__(index=index)
        self.queries: list[str] = []

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        self.queries.append(query)
        return super().retrieve(query, k=k, filter=filter)


def test_a_query_of_many_long_options_searches_for_a_few() -> None:
    """Each long option is one lexical search: a query written to hold hundreds of them costs the
    first few, not hundreds."""
    docs, dense_hits = _settings_corpus()
    index = BM25Index()
    index.add(list(docs), list(docs.values()), [{"text": t} for t in docs.values()])
    lexical = _RecordingBM25(index)
    hybrid = HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=lexical)  # type: ignore[arg-type]
    query = " ".join(f"--relay-opt{i}" for i in range(1000))
    assert len(exact_terms(query)) > 100
    hybrid.retrieve(query, k=3)
    assert len([q for q in lexical.queries if q.startswith("--relay-opt")]) == 4
