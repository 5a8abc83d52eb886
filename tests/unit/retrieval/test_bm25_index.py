"""BM25Index: incremental upserts and deletes, exact filters, persistence, validation."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from ragkit.errors import MissingDependencyError, StoreError
from ragkit.registry import retrievers
from ragkit.retrieval.base import Retriever
from ragkit.retrieval.bm25 import FILE_NAME, BM25Index, BM25Retriever
from ragkit.stores._segments import MANIFEST

from .helpers import CORPUS as DOCS

pytest.importorskip("bm25s")


def build(path: Path | None = None, **kwargs: object) -> BM25Index:
    index = BM25Index(path=path, **kwargs)  # type: ignore[arg-type]
    index.add(list(DOCS), [t for t, _ in DOCS.values()], [m for _, m in DOCS.values()])
    return index


def test_search_ranks_by_bm25_and_returns_text() -> None:
    hits = build().search("fox", k=10)
    assert [h.id for h in hits] == ["a2", "a1"]  # a2 says "fox" twice (after stemming "foxes")
    assert hits[0].score >= hits[1].score > 0
    assert hits[0].text and hits[0].source == "animals/fox.md"


def test_stemming_matches_inflections() -> None:
    assert {h.id for h in build(stemmer="english").search("foxes", k=10)} == {"a1", "a2"}
    assert {h.id for h in build(stemmer=None).search("foxes", k=10)} == {"a2"}


def test_the_stem_cache_starting_afresh_keeps_the_words_of_the_batch_at_hand() -> None:
    # a 1M-row build crashed with KeyError once the cache passed its bound: words cached by an
    # earlier batch were cleared, then looked up
    from ragkit.retrieval.bm25 import _Analyzer

    analyzer = _Analyzer(stemmer="english", stopwords="en")
    analyzer._CACHE_MAX = 3
    assert analyzer.tokenize(["foxes jumping"]) == [["fox", "jump"]]
    assert analyzer.tokenize(["foxes jumping, sleeping dogs"]) == [["fox", "jump", "sleep", "dog"]]
    assert len(analyzer._stems) == 4  # afresh: just this batch's words


def test_term_frequencies_past_one_byte_are_kept_exactly(tmp_path: Path) -> None:
    """Frequencies are stored in one byte per posting when they fit, in two when one does not."""
    index = BM25Index(path=tmp_path / "bm25", stemmer=None)
    index.add(["many", "fewer"], ["ferry " * 300, "ferry " * 200 + "boat " * 100], [{}, {}])
    index.persist()
    index.add(["few"], ["ferry boat"], [{}])
    index.persist()
    reopened = BM25Index(path=tmp_path / "bm25", stemmer=None)
    assert [h.id for h in reopened.search("ferry", k=3)] == ["many", "fewer", "few"]


def test_documents_without_query_terms_are_not_returned() -> None:
    index = build()
    assert [h.id for h in index.search("bread", k=10)] == ["c1"]
    assert index.search("zeppelin", k=10) == []
    assert index.search("the of and", k=10) == []  # only stopwords


def test_upsert_replaces_text_and_metadata() -> None:
    index = build()
    index.add(["c1"], ["A fox recipe"], [{"source": "food/fox.txt", "page": 9}])
    assert index.count() == 5
    assert index.search("bread", k=5) == []
    hit = next(h for h in index.search("fox", k=5) if h.id == "c1")
    assert hit.metadata["source"] == "food/fox.txt"


def test_delete_removes_from_results_and_counts() -> None:
    index = build()
    index.search("fox", k=5)  # build the matrices, then change the corpus
    index.delete(["a1", "missing-id"])
    assert index.count() == 4
    assert index.ids() == {"a2", "b1", "b2", "c1"}
    assert [h.id for h in index.search("fox", k=5)] == ["a2"]
    index.delete(list(index.ids()))
    assert index.count() == 0 and index.search("fox", k=5) == []


def test_statistics_follow_updates() -> None:
    """A rebuilt index scores exactly like one built from scratch on the same corpus."""
    incremental = build()
    incremental.search("python", k=5)
    incremental.delete(["a1"])
    incremental.add(["d1"], ["python python tutorial"], [{"source": "code/tut.md"}])
    scratch = BM25Index()
    rows = {k: v for k, v in DOCS.items() if k != "a1"}
    scratch.add(list(rows), [t for t, _ in rows.values()], [m for _, m in rows.values()])
    scratch.add(["d1"], ["python python tutorial"], [{"source": "code/tut.md"}])
    got = [(h.id, round(h.score, 5)) for h in incremental.search("python tutorial", k=5)]
    assert got == [(h.id, round(h.score, 5)) for h in scratch.search("python tutorial", k=5)]
    assert got[0][0] == "d1"


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"source": "code/python.md"}, {"b1"}),
        ({"source": {"$glob": "animals/*"}}, {"b2"}),
        ({"source": {"$in": ["animals/snake.md", "food/bake.txt"]}}, {"b2"}),
        ({"page": {"$gte": 2}}, set()),
        ({"missing_field": 1}, set()),
    ],
)
def test_filters_are_evaluated_exactly(flt: dict[str, object], expected: set[str]) -> None:
    assert {h.id for h in build().search("python", k=10, filter=flt)} == expected


def test_filtered_search_returns_top_k_among_matching_documents() -> None:
    index = BM25Index()
    ids = [f"d{i:03d}" for i in range(60)]
    # the 50 "big" docs mention the term three times and outrank the 10 "small" ones
    texts = ["alpha alpha alpha" if i < 50 else "alpha beta gamma delta" for i in range(60)]
    index.add(ids, texts, [{"group": "big" if i < 50 else "small"} for i in range(60)])
    hits = index.search("alpha", k=5, filter={"group": "small"})
    assert len(hits) == 5 and all(h.metadata["group"] == "small" for h in hits)


def test_unknown_filter_operator_is_an_error() -> None:
    with pytest.raises(StoreError, match=r"unknown filter operator '\$regex'"):
        build().search("fox", filter={"source": {"$regex": ".*"}})


def test_persist_and_reopen(tmp_path: Path) -> None:
    index = build(tmp_path / "bm25")
    index.delete(["c1"])
    index.persist()
    assert (tmp_path / "bm25" / MANIFEST).is_file()
    assert not [p.name for p in (tmp_path / "bm25").iterdir() if p.name.startswith(".")]  # no temp files left
    reopened = BM25Index(path=tmp_path / "bm25")
    assert reopened.ids() == {"a1", "a2", "b1", "b2"}
    before = [(h.id, h.score, h.metadata) for h in index.search("python fox", k=5)]
    assert [(h.id, h.score, h.metadata) for h in reopened.search("python fox", k=5)] == before


def _corpus(n: int, seed: int = 3) -> tuple[list[str], list[str], list[dict[str, object]]]:
    rng = random.Random(seed)
    words = "tide gauge keeper lamp ferry harbour storm seal gull rain wind survey magnet python fox".split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 25))) for _ in range(n)]
    return [f"d{i:04d}" for i in range(n)], texts, [{"group": i % 3} for i in range(n)]


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
def test_segments_score_like_one_index_built_from_scratch(tmp_path: Path, method: str) -> None:
    """Many commits (segments, merges, tombstones) score exactly like one index of the live rows."""
    ids, texts, metas = _corpus(700)
    seg = BM25Index(path=tmp_path / "seg", method=method)
    for a in range(0, 600, 50):
        seg.add(ids[a : a + 50], texts[a : a + 50], metas[a : a + 50])
        seg.persist()
    seg.delete(ids[:80])
    seg.add(ids[100:140], [t + " lamp" for t in texts[100:140]], metas[100:140])
    seg.add(ids[600:], texts[600:], metas[600:])
    seg.persist()
    seg.wait_merges()
    assert seg.describe()["segments"] < 14  # merged
    live = {i: (t, m) for i, t, m in zip(ids, texts, metas, strict=True) if i >= ids[80]}
    live.update({i: (t + " lamp", m) for i, t, m in zip(ids[100:140], texts[100:140], metas[100:140], strict=True)})
    scratch = BM25Index(method=method)
    scratch.add(list(live), [t for t, _ in live.values()], [m for _, m in live.values()])
    for store in (seg, BM25Index(path=tmp_path / "seg", method=method)):
        assert store.count() == len(live)
        for q in ("lamp storm", "python fox fox", "gull"):
            got = [(h.id, round(h.score, 6)) for h in store.search(q, k=20)]
            want = [(h.id, round(h.score, 6)) for h in scratch.search(q, k=20)]
            assert sorted(got, key=lambda x: (-x[1], x[0])) == sorted(want, key=lambda x: (-x[1], x[0]))
            flt = {"group": 1}
            assert {h.id for h in store.search(q, k=5, filter=flt)} <= {i for i, (_, m) in live.items() if m["group"] == 1}


def test_older_single_file_index_is_upgraded(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    header = {"format": "ragkit-bm25", "version": 1, "params": {}}
    rows = [{"id": "a", "text": "the lighthouse lamp", "tokens": ["lighthous", "lamp"], "metadata": {"source": "a.md"}},
            {"id": "b", "text": "a ferry", "tokens": ["ferri"], "metadata": {}}]
    (tmp_path / FILE_NAME).write_text("\n".join(json.dumps(r) for r in [header, *rows]) + "\n")
    index = BM25Index(path=tmp_path)
    assert [h.id for h in index.search("lamps")] == ["a"] and index.count() == 2
    assert index.unsaved and not (tmp_path / MANIFEST).exists()  # a reader writes nothing
    index.persist()
    assert "upgraded the BM25 index" in caplog.text
    assert not (tmp_path / FILE_NAME).exists() and (tmp_path / MANIFEST).is_file()


def test_reopen_with_other_tokenizer_settings_retokenizes(tmp_path: Path) -> None:
    build(tmp_path, stemmer=None).persist()
    stemmed = BM25Index(path=tmp_path, stemmer="english")
    assert {h.id for h in stemmed.search("foxes", k=5)} == {"a1", "a2"}


RELEASES = {
    "r34": ("NetworkX-like 3.4 supports Python 3.10 and 3.11.", {"source": "release_3.4.rst"}),
    "r24": ("Release 2.4 supports Python 3.5, 3.6 and 3.7.", {"source": "release_2.4.rst"}),
    "r36": ("Release 3.6 drops Python 3.10 and adds 3.14.", {"source": "release_3.6.rst"}),
}


def test_a_dotted_number_is_a_token_whole() -> None:
    """"3.4" split into single digits kept no token, so a question about release 3.4 matched every
    release's notes by "supports" alone; a dotted number is a token as well as its word parts."""
    index = BM25Index()
    index.add(list(RELEASES), [t for t, _ in RELEASES.values()], [m for _, m in RELEASES.values()])
    assert index.search("Which Python versions does 3.4 support?", k=3)[0].id == "r34"
    assert [h.id for h in index.search("3.14", k=3)] == ["r36"]
    assert {h.id for h in index.search("python 3.10", k=3)} == {"r34", "r36", "r24"}  # "python" in all


def test_an_index_tokenized_before_dotted_numbers_is_retokenized(tmp_path: Path) -> None:
    index = BM25Index(path=tmp_path)
    index.add(list(RELEASES), [t for t, _ in RELEASES.values()], [m for _, m in RELEASES.values()])
    index.persist()
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    manifest["header"]["analyzer"].pop("tokens")  # as an index written before the setting was recorded
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert [h.id for h in BM25Index(path=tmp_path).search("3.14", k=3)] == ["r36"]


def test_damaged_manifest_is_reported(tmp_path: Path) -> None:
    build(tmp_path).persist()
    (tmp_path / MANIFEST).write_text("{not json")
    with pytest.raises(StoreError, match=r"BM25 index at .* is damaged .*ragkit index"):
        BM25Index(path=tmp_path)


def test_corrupt_older_file_is_reported_with_the_line(tmp_path: Path) -> None:
    header = {"format": "ragkit-bm25", "version": 1, "params": {}}
    (tmp_path / FILE_NAME).write_text(json.dumps(header) + '\n{"id" "b1"}\n')
    with pytest.raises(StoreError, match=rf"{FILE_NAME} is damaged \(line 2: .*ragkit index"):
        BM25Index(path=tmp_path)


def test_unknown_format_is_reported(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text(json.dumps({"format": "other", "version": 9}) + "\n")
    with pytest.raises(StoreError, match="unsupported BM25 index format"):
        BM25Index(path=tmp_path)


def test_in_memory_persist_is_a_no_op() -> None:
    build().persist()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "okapi"}, "unknown BM25 method 'okapi'"),
        ({"k1": 0}, "k1 must be positive"),
        ({"b": 1.5}, "b must be between 0 and 1"),
        ({"stemmer": "klingon"}, "unknown stemmer language 'klingon'"),
    ],
)
def test_constructor_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(StoreError, match=message):
        BM25Index(**kwargs)  # type: ignore[arg-type]


def test_add_validation() -> None:
    index = BM25Index()
    with pytest.raises(StoreError, match="needs as many texts"):
        index.add(["a", "b"], ["only one"], [{}, {}])
    with pytest.raises(StoreError, match="not JSON-serializable"):
        index.add(["a"], ["text"], [{"when": object()}])
    with pytest.raises(StoreError, match="ids must be non-empty strings"):
        index.add([""], ["text"], [{}])
    with pytest.raises(StoreError, match="k must be at least 1"):
        index.search("x", k=0)


def test_retriever_is_registered_and_passes_filters() -> None:
    assert retrievers.get("bm25") is BM25Retriever
    retriever = BM25Retriever(index=build())
    assert isinstance(retriever, Retriever)
    assert [h.id for h in retriever.retrieve("python", k=3, filter={"source": {"$glob": "code/*"}})] == ["b1"]


@pytest.mark.parametrize(("module", "package"), [("bm25s", "bm25s"), ("Stemmer", "PyStemmer")])
def test_missing_optional_packages_name_the_extra(
    monkeypatch: pytest.MonkeyPatch, module: str, package: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` raise ImportError
    with pytest.raises(MissingDependencyError, match=rf"'{package}'.*pip install 'ragkit\[bm25\]'"):
        BM25Index(stemmer="english")
