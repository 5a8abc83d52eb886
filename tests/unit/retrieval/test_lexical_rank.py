"""BM25's best passage ranks at least second (``lexical_rank``) when it is a passage of a longer
file: in a folder of release notes that all name the same commands, the one line that introduces
a command is what BM25 finds and what the dense side, drawn to each file's "Release Notes"
heading, ranks nowhere; a collection of single-passage files ranks as before."""

from __future__ import annotations

import pytest

from ragkit.errors import ConfigError
from ragkit.retrieval.bm25 import BM25Index, BM25Retriever
from ragkit.retrieval.hybrid import HybridRetriever
from ragkit.types import SearchHit

from .helpers import RecordingRetriever

QUERY = "Which release introduced tern splice?"


def _release_notes() -> tuple[BM25Index, list[SearchHit]]:
    """Twelve releases of a tool, three passages each: a heading passage, a passage of features
    (3.4 introduces "tern splice"; later ones fix it) and one of fixes. The dense ranking puts the
    heading passages first (they say "release"), then the fixes; 3.4's features come last."""
    rows: dict[str, tuple[str, str]] = {}
    for n in range(12):
        version, source = f"3.{n}", f"3.{n}.0.adoc"
        rows[f"{version}-head"] = (source, f"Tern v{version} Release Notes\n\nThis release contains the changes below.")
        feature = ('Introduce "tern splice", a tool to recreate a history without a working tree.' if n == 4 else
                   f'"tern splice" learned option number {n}.' if n > 4 else f'"tern graft" learned mode {n}.')
        rows[f"{version}-features"] = (source, f"UI and features\n\n{feature}\n\"tern log\" shows colours by default.")
        rows[f"{version}-fixes"] = (source, f"Fixes since v3.{max(n - 1, 0)}\n\n\"tern push\" no longer hangs on slow links.")
    index = BM25Index()
    index.add(list(rows), [t for _, t in rows.values()], [{"source": s} for s, _ in rows.values()])
    order = ([d for d in rows if d.endswith("-head")] + [d for d in rows if d.endswith("-fixes")]
             + [d for d in rows if d.endswith("-features") and d != "3.4-features"])
    hits = [SearchHit(id=d, score=0.7 - i * 0.005, metadata={"source": rows[d][0], "text": rows[d][1]})
            for i, d in enumerate(order)]
    return index, hits


def _hybrid(index: BM25Index, dense_hits: list[SearchHit], **opts: object) -> HybridRetriever:
    return HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index), **opts)  # type: ignore[arg-type]


def test_the_passage_bm25_finds_in_a_longer_file_ranks_second() -> None:
    index, dense_hits = _release_notes()
    assert index.search(QUERY, k=1)[0].id == "3.4-features"
    top = [h.id for h in _hybrid(index, dense_hits).retrieve(QUERY, k=5)]
    assert top[1] == "3.4-features"
    before = [h.id for h in _hybrid(index, dense_hits, lexical_rank=0).retrieve(QUERY, k=10)]
    assert "3.4-features" not in before
    assert [d for d in top if d != "3.4-features"] == before[:4]  # the others keep their order
    assert [h.id for h in _hybrid(index, dense_hits, lexical_rank=4).retrieve(QUERY, k=5)][3] == "3.4-features"


def test_a_passage_already_ranked_high_enough_stays() -> None:
    index, dense_hits = _release_notes()
    first = [h for h in dense_hits if h.id == "3.4-head"] + [h for h in dense_hits if h.id != "3.4-head"]
    query = "Tern v3.4 Release Notes changes"
    best = index.search(query, k=1)[0].id
    ranked = [SearchHit(id=h.id, score=0.9 - i * 0.01, metadata=h.metadata)
              for i, h in enumerate(sorted(first, key=lambda h: h.id != best))]
    assert [h.id for h in _hybrid(index, ranked).retrieve(query, k=10)] == [
        h.id for h in _hybrid(index, ranked, lexical_rank=0).retrieve(query, k=10)]


def test_single_passage_files_rank_as_before() -> None:
    """Each passage its own file (a passage collection such as the shared retrieval sets)."""
    index, dense_hits = _release_notes()
    alone = BM25Index()
    rows = {h.id: h for h in dense_hits}
    rows["3.4-features"] = SearchHit(id="3.4-features", score=0.0, metadata={
        "text": index.search(QUERY, k=1)[0].metadata["text"]})
    alone.add(list(rows), [h.metadata["text"] for h in rows.values()], [{"source": f"{d}.txt"} for d in rows])
    single = [SearchHit(id=h.id, score=h.score, metadata={**h.metadata, "source": f"{h.id}.txt"}) for h in dense_hits]
    assert [h.id for h in _hybrid(alone, single).retrieve(QUERY, k=10)] == [
        h.id for h in _hybrid(alone, single, lexical_rank=0).retrieve(QUERY, k=10)]


def test_the_filter_applies_to_the_lexical_passage() -> None:
    index, dense_hits = _release_notes()
    flt = {"source": {"$in": ["3.5.0.adoc", "3.6.0.adoc"]}}
    hits = _hybrid(index, dense_hits).retrieve(QUERY, k=5, filter=flt)
    assert hits and all(h.source in ("3.5.0.adoc", "3.6.0.adoc") for h in hits)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_lexical_rank_is_validated(bad: object) -> None:
    index, dense_hits = _release_notes()
    with pytest.raises(ConfigError, match="lexical_rank must be a whole number"):
        _hybrid(index, dense_hits, lexical_rank=bad)


def test_bm25_passage_counts_follow_the_index() -> None:
    index, _ = _release_notes()
    assert index.passage_count("3.4.0.adoc") == 3 and index.passage_count("none.adoc") == 0
    index.delete(["3.4-head"])
    index.persist()
    assert index.passage_count("3.4.0.adoc") == 2


@pytest.mark.parametrize("method", ["lucene", "robertson", "bm25+"])
def test_bm25_best_is_the_first_search_hit(method: str) -> None:
    """``best`` reads the rare terms' rows first; it must find what a full search finds, ties,
    filters, deleted rows and several segments included."""
    import random

    from ragkit.retrieval._bm25_segments import score_rarer, term_hash
    from ragkit.retrieval.bm25 import COMMON_SHARE

    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(400)]
    weights = [1 / (i + 1) for i in range(400)]
    index = BM25Index(method=method, stemmer=None)
    for part in range(3):
        ids = [f"d{part}-{i}" for i in range(300)]
        index.add(ids, [" ".join(rng.choices(vocab, weights, k=rng.randint(3, 30))) for _ in ids],
                  [{"source": f"f{i % 40}.md", "part": part} for i in range(300)])
        index.persist()
    index.delete([f"d0-{i}" for i in range(0, 300, 3)])
    settled = 0  # queries whose best row is found among the rare terms' rows alone
    for n in range(150):
        query = " ".join(rng.choices(vocab, weights, k=rng.randint(1, 8)))
        flt = {"part": {"$gte": 1}} if n % 3 == 0 else None
        want = index.search(query, k=1, filter=flt)
        got = index.best(query, filter=flt)
        assert (got.id, got.score) == (want[0].id, want[0].score) if want else got is None, query
        pruned = score_rarer(index._log.live_segments(), [term_hash(t) for t in query.split()], method=method,
                             k1=index.k1, b=index.b, common_share=COMMON_SHARE)
        if pruned is not None and want and not flt:
            found, bound = pruned
            settled += max((float(s.max()) for _, _, s in found if s.size), default=0.0) > bound
    assert (settled > 20) if method != "bm25+" else settled == 0
