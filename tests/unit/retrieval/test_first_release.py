"""A question about a collection's first release ("When did the very first Tern release come
out?") is about the file of its lowest release, ``v0.1.rst`` among ``v0.1.rst`` … ``v1.3.rst``:
which release came first is written in the files' names, not in a passage, and the dense side
prefers the later notes that say "first" of something else."""

from __future__ import annotations

import pytest

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.releases import first_release_numbered
from ragkit.rag.passages import Passage
from ragkit.retrieval.bm25 import BM25Index, BM25Retriever
from ragkit.retrieval.hybrid import HybridRetriever
from ragkit.retrieval.name_match import NameIndex, asks_first_release
from ragkit.types import SearchHit

from .helpers import RecordingRetriever


@pytest.mark.parametrize(("question", "asks"), [
    ("When did the very first Tern release come out?", True),
    ("When did the first public version of Tern come out?", True),
    ("When did Tern make its first official release?", True),
    ("What was the initial release of Tern?", True),
    ("What was the first Tern release to support Python 3.13?", False),  # a first release with something
    ("Which compiler release shipped the first version of the stack guard?", False),  # the first of a feature
    ("What came in the first stable release?", False),
    ("Which release first added cookies?", False),
    ("What changed in the first release after 2.0.1?", False),  # it numbers a release
])
def test_a_question_asks_for_the_first_release(question: str, asks: bool) -> None:
    assert asks_first_release(question) is asks


RELEASES = ("0.10", "0.9", "1.3", "0.2", "1.0", "0.1")


def _notes() -> tuple[BM25Index, list[SearchHit]]:
    """Release notes, one file a release; each file opens with its release and date, then lists
    its pull requests. The later notes say "first" of their own changes, and the dense ranking
    holds them, not ``v0.1.rst``."""
    rows: dict[str, tuple[str, str, int]] = {}
    for n, release in enumerate(RELEASES):
        source = f"notes/v{release}.rst"
        rows[f"{release}-open"] = (source, f"# {release} (Aug {n + 10}, 201{n})\n\n## Summary\n\n- Released Aug {n + 10}, 201{n}", 0)
        rows[f"{release}-prs"] = (source, f"## Pull requests\n\n- Tern release {release}: first step of a new "
                                  "data model, the very first of its kind", 300)
    index = BM25Index()
    index.add(list(rows), [t for _, t, _ in rows.values()], [{"source": s, "start": str(p)} for s, _, p in rows.values()])
    order = [d for d in rows if d.endswith("-prs") and not d.startswith("0.1-")]
    hits = [SearchHit(id=d, score=0.8 - i * 0.01, metadata={"source": rows[d][0], "text": rows[d][1], "start": str(rows[d][2])})
            for i, d in enumerate(order)]
    return index, hits


def test_the_lowest_release_file_is_the_first() -> None:
    index = NameIndex(f"notes/v{r}.rst" for r in RELEASES)
    assert index.first_release("When did the very first Tern release come out?") == ["notes/v0.1.rst"]
    assert index.first_release("What changed in Tern 1.3?") == []
    # too few files named for a release: which came first is not known from their names
    assert NameIndex(["notes/v0.9.rst", "notes/v1.0.rst", "guide.md"]).first_release("the first release") == []


def test_the_first_releases_opening_passage_comes_first() -> None:
    index, dense_hits = _notes()
    hybrid = HybridRetriever(dense=RecordingRetriever(dense_hits), lexical=BM25Retriever(index=index))  # type: ignore[arg-type]
    top = hybrid.retrieve("When did the very first Tern release come out?", k=3)
    assert top[0].id == "0.1-open"  # the file's opening, where it says which release it is and when
    other = hybrid.retrieve("When did the data model change?", k=10)
    assert all(not h.source.endswith("v0.1.rst") or h.id == "0.1-prs" for h in other)


def test_the_answer_is_the_first_releases_date() -> None:
    passages = [
        Passage(1, "# 1.3 (June 13th 2023)\n\nA first step in the separation of the data model is introduced in this release.",
                {"source": "notes/v1.3.rst", "heading": "1.3 (June 13th 2023)", "start": "0"}),
        Passage(2, "# 0.1 (Aug 25, 2014)\n\n## Summary\n\n- Released Aug 25, 2014\n- 5 contributors",
                {"source": "notes/v0.1.rst", "heading": "0.1 (Aug 25, 2014) > Summary", "start": "0"}),
        Passage(3, "# 0.9 (May 2, 2018)\n\nTern v0.9 comes two months after v0.8.",
                {"source": "notes/v0.9.rst", "heading": "0.9 (May 2, 2018)", "start": "0"}),
    ]
    question = "When did the very first Tern release come out?"
    assert first_release_numbered(question, [str(p.meta["source"]) for p in passages]) == \
        "When did the Tern 0.1 come out?"
    answer = extractive_answer(question, passages, max_sentences=2)
    assert "Aug 25, 2014" in answer and "[2]" in answer
    # one release file among the passages: nothing to order, the question is read as it is
    assert first_release_numbered(question, ["notes/v0.1.rst", "guide.md"]) == question


def test_a_heading_said_as_a_sentences_context_is_not_quoted_again() -> None:
    passages = [
        Passage(1, "# v0.1.0 (April 20, 2015)\n\nThis is the first official release of the Tern project.",
                {"source": "whatsnew/v0.1.0.txt", "heading": "v0.1.0 (April 20, 2015)", "start": "0"}),
        Passage(2, "# v0.3.1 (April 19, 2016)\n\nThis is a minor release from 0.3.0.",
                {"source": "whatsnew/v0.3.1.txt", "heading": "v0.3.1 (April 19, 2016)", "start": "0"}),
    ]
    answer = extractive_answer("When did Tern make its first official release?", passages, max_sentences=2)
    assert "April 20, 2015" in answer and answer.count("April 20, 2015") == 1


def test_releases_order_by_their_numbers_whatever_their_length() -> None:
    from ragkit.retrieval.name_match import release_key

    assert sorted(["0.10", "0.9", "1.0", "0.1", "00.2"], key=release_key) == ["0.1", "00.2", "0.9", "0.10", "1.0"]
    hostile = "1." + "7" * 5000  # a name no int() may read (Python refuses over 4,300 digits)
    index = NameIndex([f"{hostile}.rst", "0.1.rst", "0.2.rst", "0.3.rst"])
    assert index.first_release("When did the very first release come out?") == ["0.1.rst"]
    assert first_release_numbered("When did the very first release come out?", [f"{hostile}.rst", "0.2.rst"]) \
        == "When did the 0.2 come out?"
