"""The offline answerer weighs how near in meaning a sentence is to the question, beside the words
it shares with it, for questions whose answer has no kind to check (a how-to, a reason, a
place); the knowledge base's embedding model gives the nearness (``rag.similarity``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.rag.agent import RAGAgent
from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.text import clean_line, parse_blocks
from ragkit.rag.passages import Passage
from ragkit.rag.similarity import embedding_similarity
from ragkit.testing.hashing import HashingEmbedder

from .pipeline.helpers import make_spec, write_tree

UPLOADS = [Passage(1, "## Interrupted uploads\n\nAn upload that stops halfway leaves its parts on the server until "
                      "the next upload. Run the upload command again and only the missing parts are sent, so the "
                      "upload picks up where it stopped. An upload holds at most 40 parts.",
                   {"source": "uploads.md", "heading": "Interrupted uploads", "start": "0"})]
RESUMES = "picks up where it stopped"


class Nearness:
    """A stand-in for the embedding model's nearness: the sentence that says ``near`` is near."""

    def __init__(self, near: str) -> None:
        self.near, self.calls = near, []

    def __call__(self, question: str, texts: Sequence[str]) -> list[float]:
        self.calls.append(list(texts))
        return [0.8 if self.near in t else 0.3 for t in texts]


def test_a_sentence_near_in_meaning_passes_one_that_repeats_the_question() -> None:
    question = "How do I carry on an upload that stopped halfway?"
    by_words = extractive_answer(question, UPLOADS, max_sentences=1)
    assert RESUMES not in by_words  # the words alone pick the sentence that restates the question
    near = Nearness(RESUMES)
    by_meaning = extractive_answer(question, UPLOADS, max_sentences=1, similarity=near)
    assert RESUMES in by_meaning and by_meaning.endswith("[1]")
    assert near.calls and all(len(texts) >= 2 for texts in near.calls)


@pytest.mark.parametrize("question", [
    "How many parts can an upload hold?",  # a number: found by what the sentence holds
    "Can I carry on an upload that stopped halfway?",  # a yes or no
    "Which command do I run again after an upload stopped halfway?",  # a "Which …?" thing
])
def test_meaning_is_not_weighed_for_an_answer_of_a_kind(question: str) -> None:
    near = Nearness(RESUMES)
    assert extractive_answer(question, UPLOADS, similarity=near) == extractive_answer(question, UPLOADS)
    assert near.calls == []


class _Counting(HashingEmbedder):
    semantic = True  # stands in for a model: counts what it embeds

    def __init__(self) -> None:
        super().__init__(dimension=64)
        self.embedded: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += list(texts)
        return super().embed_batch(texts)


def test_embedding_similarity_is_the_cosine_and_reuses_vectors() -> None:
    model = _Counting()
    near = embedding_similarity(model)
    texts = ["the upload picks up where it stopped", "glazes are glass"]
    first = near("where does the upload pick up", texts)
    assert first[0] > first[1] and all(-1.0 <= s <= 1.0001 for s in first)
    sentences_embedded = [t for t in model.embedded if t in texts]
    assert near("where does the upload pick up", texts) == pytest.approx(first)
    assert [t for t in model.embedded if t in texts] == sentences_embedded  # cached: embedded once each
    assert model.embedded.count("where does the upload pick up") == 1  # so is the question, asked twice


def test_a_failing_model_leaves_the_answer_to_the_words(caplog: pytest.LogCaptureFixture) -> None:
    class Down(_Counting):
        def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
            raise RuntimeError("connection refused")

    near = embedding_similarity(Down())
    with caplog.at_level(logging.WARNING, logger="ragkit.rag.similarity"):
        assert near("question", ["a", "b"]) == [0.0, 0.0]
    assert "connection refused" in caplog.text
    question = "How do I carry on an upload that stopped halfway?"
    assert extractive_answer(question, UPLOADS, similarity=near) == extractive_answer(question, UPLOADS)


def test_rag_agent_gives_the_local_provider_its_models_meaning_only(tmp_path: Path) -> None:
    spec = make_spec(tmp_path / "index")
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs", {"uploads.md": UPLOADS[0].text})])
    with KnowledgeBase(spec) as kb:
        assert not kb.embedder.semantic  # the tests' hashing fake: shared words, no meaning
        assert RAGAgent(kb, provider="local").provider.similarity is None
        kb.embedder.semantic = True  # as a trained model
        kb.embedder.price_per_million = 0.01  # behind a paid API: not called at answer time
        assert RAGAgent(kb, provider="local").provider.similarity is None
        kb.embedder.price_per_million = 0.0  # a local model
        agent = RAGAgent(kb, provider="local")
        assert agent.provider.similarity is not None
        assert agent.ask("How do I carry on an upload that stopped halfway?").citations


def test_the_nearest_sentence_of_the_kind_asked_for_answers_when_the_words_find_none() -> None:
    meetings = [Passage(1, "### Meeting agenda\n\nThe main agenda for the meeting must be made publicly available in "
                           "the shared agenda document at least 2 days before the meeting. Every member may comment "
                           "on it.", {"source": "meetings.md", "heading": "Meeting agenda", "start": "0"}),
                Passage(2, "### Minutes\n\nThe minutes of each sync meeting are published in the minutes folder.",
                        {"source": "meetings.md", "heading": "Minutes", "start": "900"})]
    question = "How far ahead of a council sync meeting does its agenda have to be published?"
    assert extractive_answer(question, meetings) == REFUSAL  # "publicly available" is not "published"
    answer = extractive_answer(question, meetings, similarity=Nearness("2 days"))
    assert "at least 2 days before the meeting" in answer and "[1]" in answer
    # not near enough in meaning: still refused
    assert extractive_answer(question, meetings, similarity=lambda q, texts: [0.3] * len(texts)) == REFUSAL


def test_arithmetic_is_not_read_as_emphasis() -> None:
    assert clean_line("3**3**3 is evaluated as (3**3)**3, not 3**(3**3).") == (
        "3**3**3 is evaluated as (3**3)**3, not 3**(3**3).")
    assert clean_line("This is **bold** and (*it*) works.") == "This is bold and (it) works."


def test_inline_code_keeps_its_underscores_in_a_paragraph_of_several_lines() -> None:
    # the lines of a paragraph are joined before emphasis that runs over the break is read: the
    # code spans keep their marks ("`/_healthcheck_<app-name>`", "`__init__`"), emphasis goes
    text = ("Each application has a dedicated\ntarget group, with a health check path following the format "
            "`/_healthcheck_<app-name>`, set in *each*\napp's `__init__` method.")
    [block] = parse_blocks(text, "", "")
    assert block.text == ("Each application has a dedicated target group, with a health check path following the "
                          "format `/_healthcheck_<app-name>`, set in each app's `__init__` method.")


def test_a_markdown_escape_is_shown_as_its_character() -> None:
    assert clean_line(r"**\*Note:** If you travel by both air and rail, call the desk at \(877\) 555\-0100.") == (
        "*Note: If you travel by both air and rail, call the desk at (877) 555-0100.")
    assert clean_line(r"Set `C:\temp\*` as the path, not \_build.") == r"Set `C:\temp\*` as the path, not _build."
    assert clean_line("If your compiler targets [x86][] machine code, it won't run on an [ARM][arm] device.") == (
        "If your compiler targets x86 machine code, it won't run on an ARM device.")


def test_a_question_of_no_kind_is_answered_by_a_sentence_near_enough_in_meaning() -> None:
    faq = [Passage(1, "## Will the tool resume an interrupted backup?\n\nYes, the tool resumes interrupted backups "
                      "when they are re-run.", {"source": "faq.md", "heading": "FAQ", "start": "0"}),
           Passage(2, "## Log\n\n```\nerror: power failure halfway through the first run, cut at 4096\n```",
                   {"source": "backup.md", "heading": "Space", "start": "0"})]
    question = "My first backup was cut off halfway by a power failure. Will it carry on if I just start it again?"
    assert extractive_answer(question, faq) == REFUSAL
    assert "resumes interrupted backups" in extractive_answer(question, faq, similarity=Nearness("resumes"))
    # a question of no kind asks for more nearness than one of a kind: 0.65 is not enough
    assert extractive_answer(question, faq, similarity=lambda q, texts: [0.65] * len(texts)) == REFUSAL


def test_a_person_is_never_found_by_meaning_alone() -> None:
    # any capitalised word reads as a name: "Japanese Shinto shrine" is no creator
    faq = [Passage(1, "## Where does the name come from?\n\n\"Kiln\" is a Japanese Shinto word for a shrine, and "
                      "shrine and template sound alike.", {"source": "faq.md", "heading": "FAQ", "start": "0"})]
    question = "Who originally created Kiln?"
    assert extractive_answer(question, faq, similarity=lambda q, texts: [0.9] * len(texts)) == REFUSAL


RYE = [Passage(1, "# Rye sour loaf\n\nThis rye loaf is a slowly risen bread with a sour crumb.\n\n## Directions\n\n"
                  "1. Mix the flour, the water and the starter.\n2. Leave the bowl covered in a warm corner for 14 "
                  "hours, until doubled.\n3. Bake at 230°C for 40 minutes.",
               {"source": "rye-sour-loaf.md", "heading": "Rye sour loaf", "start": "0"})]


def test_a_number_is_taken_from_the_sentence_of_the_document_nearest_in_meaning() -> None:
    """"How long …?" whose best sentence by words holds no number ("a slowly risen bread"): the
    sentence of the same document that holds one and is nearest in meaning answers, though it
    shares none of the question's words ("Leave the bowl covered … for 14 hours")."""
    question = "How long should the rye loaf rise?"
    near = Nearness("14 hours")
    answer = extractive_answer(question, RYE, max_sentences=1, similarity=near)
    assert "14 hours" in answer
    assert "14 hours" not in extractive_answer(question, RYE, max_sentences=1, similarity=Nearness("230°C"))


#: twin pages of a framework's two flavours, the one whose title the question names ranked first
TWINS = [
    Passage(1, "# How to Include Harbour Desk Server Quay\n\nTo include Harbour Desk Server Quay, use the "
               "`harbour-desk-server-quay` starter.\n\nIf you include the starter, but you do not want the desk "
               "to be enabled, set `harbour.desk.server.quay.enabled=false`.",
            {"source": "server-quay/starter.adoc", "heading": "How to Include Harbour Desk Server Quay"}),
    Passage(2, "# How to Include Harbour Desk\n\nTo include Harbour Desk, use the `harbour-desk-server-tide` "
               "starter.\n\nIf you include the starter, but you do not want the desk to be enabled, set "
               "`harbour.desk.enabled=false`.",
            {"source": "server-tide/starter.adoc", "heading": "How to Include Harbour Desk"}),
]


def test_of_twin_sentences_meaning_cannot_tell_apart_the_better_ranked_page_answers() -> None:
    question = ("One of our services pulls in the Harbour Desk Server Quay starter only for its helpers, and "
                "we don't want the desk itself to run there. Which property turns it off?")
    near = Nearness("harbour.desk.enabled=false")  # meaning leans, a little, to the other flavour's key
    answer = extractive_answer(question, TWINS, max_sentences=1, similarity=near)
    assert "`harbour.desk.server.quay.enabled=false`" in answer and answer.endswith("[1]")


FAQ = [Passage(1, "## Frequently Asked Questions\n\nQ: How can I make the scheduler restart a job that uses too much "
                  "memory automatically?\n\nA: The Watchdog package ships a console script, `memwatch`, for this task. "
                  "It works on Linux and macOS.\n\nQ: Can I run the scheduler on Windows?\n\nA: Only under WSL.",
               {"source": "faq.md", "heading": "Frequently Asked Questions", "start": "0"})]


def test_the_question_an_faq_asks_is_answered_by_the_reply_after_it() -> None:
    # nearest in meaning to the user's question is the FAQ's own question: its answer is the line after it
    question = "I'd like the scheduler to restart a job automatically when it uses too much memory. What can do that?"
    answer = extractive_answer(question, FAQ, max_sentences=1, similarity=Nearness("too much memory"))
    assert "`memwatch`" in answer and "Q:" not in answer and answer.endswith("[1]"), answer
