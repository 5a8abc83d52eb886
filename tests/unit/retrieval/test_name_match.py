"""Files a query names by their path: the passage of ``field-notes/foreword.md`` for "who wrote
the foreword of Field Notes", of ``3.14.2.adoc`` for "Tern v3.14.2", is not drowned by passages
the dense side prefers, and a query that names no file ranks as before."""

from __future__ import annotations

import pytest

from ragkit.errors import ConfigError
from ragkit.retrieval.bm25 import BM25Index, BM25Retriever
from ragkit.retrieval.hybrid import HybridRetriever
from ragkit.retrieval.name_match import named_sources, path_score
from ragkit.types import SearchHit

from .helpers import RecordingRetriever


def _words(query: str) -> list[str]:
    from ragkit.retrieval.name_match import name_words

    return name_words(query)


@pytest.mark.parametrize(("query", "source", "want"), [
    ("Who wrote the foreword of Field Notes?", "field-notes/foreword.md", 1.0),
    ("Who wrote the foreword of Field Notes?", "tide-tables/foreword.md", 0.0),  # one ordinary word
    ("Who wrote the foreword of Field Notes?", "field-notes/ch1.md", 0.0),  # the file name is not held
    ("Who wrote the foreword of Field Notes?", "books/field-notes/foreword.md", 0.75),
    ("Which fixes are in Tern v3.14.2?", "3.14.2.adoc", 1.0),  # a version is one word
    ("Which fixes are in Tern v3.14.2?", "3.14.1.adoc", 0.0),
    ("Which fixes are in Tern v3.14.2?", "3.14.adoc", 0.0),
    ("What do streaming responses send?", "responses.md", 0.0),  # one ordinary word names nothing
    ("What do the release notes say about tides?", "release-notes.md", 1.0),
    ("What do the notes of the release say about tides?", "release-notes.md", 1.0),  # function words between
    ("What do the notes for this new release say about tides?", "release-notes.md", 0.0),
    # the words of a name stand together: these are two ordinary words far apart
    ("Can I tie knots in my field kit like the notes of the old guide say?", "field/notes.md", 0.0),
    ("", "release-notes.md", 0.0),
    # a file named for a release is named by its release alone, however the folder writes it
    ("Which logger does Tern use by default starting with v3.5?", "CHANGELOG-3.5.md", 1.0),
    ("What is the oldest redis-py Tern 5.5 accepts?", "docs/history/whatsnew-5.5.rst", 0.5),
    ("Who wrote the tracks layer of Tern 0.4.0?", "release/release_0_4_0.md", 1.0),
    ("Who wrote the tracks layer of Tern 0.4.0?", "release/release_0_4_7.md", 0.0),
    ("Which distributions came in Tern 1.17.0?", "1.17.0-notes.rst", 1.0),
    ("What changed in Tern 8.29?", "minutes/2025_08_29.md", 0.0),  # a date is no release
    # zero parts after the second leave the release as it is: "Tern 0.12" names ``0.12.0.rst``
    ("Which colormap did Tern 0.12 make the default?", "0.12.0.rst", 1.0),
    ("Which colormaps came in Tern 0.8?", "v0.8.0.rst", 1.0),
    ("Which colormaps came in Tern 0.8?", "v0.8.1.rst", 0.0),
    ("What changed in Tern 0.10?", "0.1.0.rst", 0.0),
    ("What are the top 2 reasons?", "2.0.0.rst", 0.0),  # a number alone names no release
    # a date that opens a file name need not be written; the share still counts it
    ("Which teacher did Ada Quill quote in her address?", "1977-ada-quill.txt", 2 / 3),
    ("Which teacher did Ada Quill quote in her address?", "addresses/1977-ada-quill.txt", 0.5),
    ("Which teacher did Quill quote in her address?", "1977-ada-quill.txt", 0.0),  # one ordinary word
    ("What did the weekly update of 2019-06-01 say?", "2019-06-01-weekly-update.md", 1.0),
    ("Who chaired the 2025-08-29 meeting?", "minutes/2025-08-29.md", 0.75),  # a date alone is the name
    ("What changed in Tern 1977?", "1977-notes.md", 0.0),  # one word after the date: still required
])
def test_path_score(query: str, source: str, want: float) -> None:
    assert path_score(_words(query), source) == pytest.approx(want)


def test_named_sources_keeps_the_best_named_files() -> None:
    sources = [f"{book}/{part}.md" for book in ("field-notes", "tide-tables") for part in ("foreword", "ch1")]
    assert named_sources("Who wrote the foreword of Field Notes?", sources) == {"field-notes/foreword.md": 1.0}
    assert named_sources("how do tides turn", sources) == {}


BOOKS = ("field-notes", "tide-tables", "harbour-lights", "salt-roads")


def _series() -> tuple[BM25Index, list[SearchHit]]:
    """A book series: each book's foreword names its writer; each book has chapters that talk about
    the series, its books and their forewords, and these are what a dense model prefers."""
    rows: dict[str, tuple[str, str]] = {}
    for n, book in enumerate(BOOKS):
        rows[f"{book}-foreword"] = (f"{book}/foreword.md", f"Foreword\n\nWritten by Author Number{n} for this book.")
        for c in range(6):
            rows[f"{book}-ch{c}"] = (f"{book}/ch{c}.md", f"Chapter {c}: notes on the series; every book of the series "
                                     f"has a foreword, a preface and field notes of its own ({book}).")
    index = BM25Index()
    index.add(list(rows), [t for _, t in rows.values()], [{"source": s} for s, _ in rows.values()])
    # the dense ranking: chapters first; the asked book's foreword is not among the candidates
    order = [d for d in rows if "-ch" in d] + [f"{b}-foreword" for b in BOOKS if b != "field-notes"]
    hits = [SearchHit(id=d, score=0.8 - i * 0.01, metadata={"source": rows[d][0], "text": rows[d][1]})
            for i, d in enumerate(order)]
    return index, hits


def _hybrid(**opts: float) -> HybridRetriever:
    index, dense_hits = _series()
    return HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index), **opts)  # type: ignore[arg-type]


def test_the_file_a_query_names_comes_first_even_when_no_side_ranked_it() -> None:
    query = "Who wrote the foreword of Field Notes?"
    top = [h.source for h in _hybrid().retrieve(query, k=3)]
    assert top[0] == "field-notes/foreword.md"
    assert "field-notes/foreword.md" not in [h.source for h in _hybrid(name_boost=0.0).retrieve(query, k=10)]


def test_a_named_file_among_the_candidates_is_raised_once() -> None:
    query = "Who wrote the foreword of Tide Tables?"
    hits = _hybrid().retrieve(query, k=10)
    assert hits[0].source == "tide-tables/foreword.md"
    before = [h.id for h in _hybrid(name_boost=0.0).retrieve(query, k=10)]
    assert [h.id for h in hits[1:]] == [d for d in before if d != hits[0].id][:9]  # the rest keep their order


def test_a_query_that_names_no_file_ranks_as_before() -> None:
    query = "what does every book of the series have"
    assert [h.id for h in _hybrid().retrieve(query, k=10)] == [h.id for h in _hybrid(name_boost=0.0).retrieve(query, k=10)]


def test_a_filter_keeps_a_named_file_out() -> None:
    flt = {"source": {"$in": [f"tide-tables/ch{c}.md" for c in range(6)]}}
    hits = _hybrid().retrieve("Who wrote the foreword of Field Notes?", k=5, filter=flt)
    assert hits and all(h.source.startswith("tide-tables/ch") for h in hits)


def test_name_boost_is_validated() -> None:
    with pytest.raises(ConfigError, match="name_boost must be non-negative"):
        _hybrid(name_boost=-1)


def test_bm25_sources_are_the_live_rows_sources() -> None:
    index, _ = _series()
    assert "field-notes/foreword.md" in index.sources() and len(index.sources()) == 4 * 7
    wanted = ["field-notes/foreword.md", "salt-roads/ch2.md"]
    flt = {"source": {"$in": wanted}}  # read from the kept source column
    assert {h.source for h in index.search("foreword book", k=20, filter=flt)} == set(wanted)
    index.delete(["field-notes-foreword"])
    index.persist()
    assert "field-notes/foreword.md" not in index.sources()
    assert [h.source for h in index.search("foreword book", k=20, filter=flt)] == ["salt-roads/ch2.md"]


def _linear_named(query: str, sources: list[str]) -> dict[str, float]:
    """Every source scored, as the name lookup did before it had an inverted map."""
    words = _words(query)
    best = sorted((-path_score(words, s), s) for s in sources if path_score(words, s) > 0)[:10]
    return {s: -neg for neg, s in best}


def test_the_name_index_finds_what_scoring_every_source_finds() -> None:
    import random

    from ragkit.retrieval.name_match import NameIndex

    rng = random.Random(7)
    vocab = ["release", "notes", "index", "foreword", "api", "guide", "field", "tides", "v2", "2.30.7", "2.30.8",
             "intro", "ch1", "setup", "the", "x", "config-reference", "faq"]
    sources = sorted({"/".join("-".join(rng.sample(vocab, rng.randint(1, 2))) for _ in range(rng.randint(1, 4)))
                      + rng.choice([".md", ".adoc", ".txt", ""]) for _ in range(3000)})
    names = NameIndex(sources)
    assert len(names) > 0
    for _ in range(300):
        query = " ".join(rng.sample(vocab, rng.randint(1, 6)))
        assert names.named(query) == _linear_named(query, sources), query
    assert names.named("") == {}


def test_bm25_sources_are_one_set_until_the_index_changes() -> None:
    index, _ = _series()
    first = index.sources()
    assert index.sources() is first  # the same rows: the same set, so what is derived from it is kept
    index.add(["new"], ["Foreword to a new book"], [{"source": "new-book/foreword.md"}])
    assert "new-book/foreword.md" in index.sources() and index.sources() is not first
    index.persist()
    kept = index.sources()
    index.delete(["new"])
    assert "new-book/foreword.md" not in index.sources() and kept is not index.sources()


def test_a_file_added_after_a_search_can_be_named() -> None:
    index, dense_hits = _series()
    hybrid = HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index))  # type: ignore[arg-type]
    query = "Who wrote the foreword of Night Ferries?"
    assert all(h.source != "night-ferries/foreword.md" for h in hybrid.retrieve(query, k=10))
    index.add(["night"], ["Foreword\n\nWritten by Author Number9."], [{"source": "night-ferries/foreword.md"}])
    index.persist()
    assert hybrid.retrieve(query, k=3)[0].source == "night-ferries/foreword.md"


def test_a_passage_of_headings_only_is_not_raised_for_its_name() -> None:
    """A generated reference page (``# harbour.lights`` and nothing else) names the query's words
    but holds nothing to read: the named file's passage with text is raised, the bare one is not."""
    from ragkit.retrieval.name_match import boost_named, has_body

    hits = [SearchHit(id="guide", score=0.9, metadata={"source": "lights.md", "text": "Harbour lights blink twice."}),
            SearchHit(id="stub", score=0.5, metadata={"source": "reference/harbour_lights.rst",
                                                      "text": "# harbour.lights"}),
            SearchHit(id="stub-body", score=0.4, metadata={"source": "reference/harbour_lights.rst",
                                                           "text": "# harbour.lights\n\nThe lights module."})]
    assert not has_body("# harbour.lights\n\n## Members") and has_body("# Lights\n\nThey blink.")
    assert not has_body("harbour.lights\n---") and not has_body("Lights\n======\n\n***")  # setext titles, a rule
    assert has_body("Lights\n---\nThey blink.") and has_body("They blink.\n\n---")
    ranked = boost_named(hits, {"reference/harbour_lights.rst": 1.0}, boost=1.0)
    assert [h.id for h in ranked] == ["stub-body", "guide", "stub"]


def test_the_collections_own_name_names_no_page() -> None:
    """A tool's manual: ``git-tide.adoc`` beside ``git-tide-fetch.adoc``, ``git-tide-completion.adoc`` and
    more. "git tide" in a question names the tool, not its overview page, so the page the question
    is about keeps its place; the words still name the other pages ("git tide fetch")."""
    from ragkit.retrieval.name_match import NameIndex

    commands = ("fetch", "prune", "completion", "lock", "unlock", "status")
    sources = ["man/git-tide.adoc"] + [f"man/git-tide-{c}.adoc" for c in commands]
    assert NameIndex(sources).named("Which shells can git tide generate tab-completion scripts for?") == {}
    assert list(NameIndex(sources).named("Does git tide fetch download objects again?")) == ["man/git-tide-fetch.adoc"]
    assert list(named_sources("What does git tide do?", sources[:3])) == ["man/git-tide.adoc"]  # too few files to share a name
    rows = {"git-tide": ("man/git-tide.adoc", "git tide - tide tables from the command line.\n\nCommands: "
                        + ", ".join(f"git-tide-{c}: {c} tide tables" for c in commands))}
    rows.update({c: (f"man/git-tide-{c}.adoc", f"git-tide-{c}\n\nThe {c} command of git tide; prints bash, zsh "
                     f"and fish scripts." if c == "completion" else f"git-tide-{c}\n\nThe {c} command.") for c in commands})
    index = BM25Index()
    index.add(list(rows), [t for _, t in rows.values()], [{"source": s} for s, _ in rows.values()])
    order = ["completion", "git-tide", *[c for c in commands if c != "completion"]]
    dense_hits = [SearchHit(id=d, score=0.8 - i * 0.05, metadata={"source": rows[d][0], "text": rows[d][1]})
                  for i, d in enumerate(order)]
    hybrid = HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index))  # type: ignore[arg-type]
    top = hybrid.retrieve("Which shells can git tide generate tab-completion scripts for?", k=3)
    assert top[0].source == "man/git-tide-completion.adoc"


def test_a_query_need_not_write_the_words_every_file_name_shares() -> None:
    """Release notes named ``rl-3.0.md``, ``rl-3.1.md``, …: "Tern 3.0" names ``rl-3.0.md`` though it
    never writes "rl"; the words it holds must still be specific (a lone ordinary word names nothing)."""
    from ragkit.retrieval.name_match import NameIndex

    notes = [f"release-notes/rl-{v}.md" for v in ("2.9", "3.0", "3.1", "3.2", "3.10")]
    assert list(NameIndex(notes).named("On what date was Tern 3.0 published?")) == ["release-notes/rl-3.0.md"]
    assert NameIndex(notes).named("What changed in Tern 3.3?") == {}
    pages = [f"man/git-tide-{c}.adoc" for c in ("fetch", "prune", "completion", "lock", "unlock", "status")]
    assert NameIndex(pages).named("How do I fetch objects?") == {}  # "fetch" alone is one ordinary word
    assert list(NameIndex(pages).named("Does tide fetch download objects again?")) == ["man/git-tide-fetch.adoc"]


def test_a_numbered_part_is_named_by_its_number_or_its_ordinal() -> None:
    """A collection of numbered parts (``001.md`` … ``085.md``, ``pep-0008.rst``): "paper 51", "PEP 8"
    and "the second paper" name their file, leading zeros or not; an ordinal that numbers no part
    ("the first step") names nothing."""
    sources = [f"{n:03d}.md" for n in range(1, 86)] + ["peps/pep-0008.rst", "peps/pep-0020.rst"]
    assert named_sources("What does Tern paper No. 51 say about factions?", sources) == {"051.md": 1.0}
    assert named_sources("According to the second paper, what do the people share?", sources) == {"002.md": 1.0}
    assert named_sources("In the twelfth essay, which revenue is meant?", sources) == {"012.md": 1.0}
    assert named_sources("What does PEP 8 say about tabs?", ["peps/pep-0008.rst", "peps/pep-0020.rst"]) == {
        "peps/pep-0008.rst": 1.0}
    assert named_sources("What is the first step to take?", sources) == {}
    # an ordinal a file name writes as a word still names it ("the first week" of ``the-first-week.md``)
    assert named_sources("What happens in the first week of a project?", ["the-first-week-of-a-project.md"]) == {
        "the-first-week-of-a-project.md": 1.0}
