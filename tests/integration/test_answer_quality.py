"""The offline answerer on the project's own question sets (how-to questions over technical
documentation; real-looking documents), with the real model and
the default pipeline: the page that holds the answer is cited, lists, dates and code come through,
follow-ups keep the conversation's context, and every answer that quotes a passage cites it with
markers numbered in order of first appearance. ``benchmarks/answer_quality.py`` prints the figures."""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragkit.agent import AgentConfig, ConversationMemory
from ragkit.config import load_pipeline
from ragkit.rag.agent import RAGAgent
from ragkit.rag.questions import QuestionOutcome, is_refusal, load_questions, run_questions, summary

pytestmark = [pytest.mark.model, pytest.mark.slow]
log = logging.getLogger(__name__)
# set -> (minimum correct, minimum answers citing the page that holds the answer). Measured with
# the hybrid default: howto 30/31 correct, 29/29 cited; realdocs 33/34, 32/32 (dense alone: 29/31
# and 33/34); before the answerer handled how-to questions and real-looking documents: 15/31 and 20/34.
# The margin leaves room for retriever changes.
SETS = {"howto-docs": (26, 27), "realdocs": (30, 30)}


class Recorder:
    """Wraps the agent to keep every result (content and citations) for the checks below."""

    def __init__(self, agent: RAGAgent) -> None:
        self.agent, self.results = agent, []

    def ask(self, question: str):
        result = self.agent.ask(question)
        self.results.append(result)
        return result

    def reset(self) -> None:
        self.agent.reset()


@pytest.fixture(scope="module", params=sorted(SETS))
def scored(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           repo_root: Path) -> Iterator[tuple[str, list[QuestionOutcome], Recorder]]:
    name = request.param
    fixture = repo_root / "tests" / "fixtures" / name
    docs = tmp_path_factory.mktemp(name) / "docs"
    shutil.copytree(fixture / "docs", docs)
    spec = load_pipeline(repo_root / "pipelines" / "default.yaml")
    index = tmp_path_factory.mktemp("idx") / "index"
    with RAGAgent.from_directory(docs, pipeline=spec, index=index, provider="local",
                                 config=AgentConfig(memory=ConversationMemory(max_messages=40))) as rag:
        recorder = Recorder(rag)
        yield name, run_questions(recorder, load_questions(fixture / "questions.yaml")), recorder


def test_question_set_scores(scored: tuple[str, list[QuestionOutcome], Recorder]) -> None:
    name, outcomes, _ = scored
    result = summary(outcomes)
    for f in result["failures"]:
        log.warning("%s: %s | expected %r from %s | got %r citing %s", f["grade"], f["question"],
                    f["expected"], f["source"], f["answer"], f["cited"])
    min_correct, min_cited = SETS[name]
    assert result["total"] >= (20 if name == "howto-docs" else 30)
    assert result["correct"] >= min_correct and result["cited_source"] >= min_cited, result
    for o in outcomes:
        if o.expected is None:
            assert is_refusal(o.answer), f"{o.question!r} got an invented answer: {o.answer!r}"


def test_every_answer_that_quotes_a_passage_cites_it(scored: tuple[str, list[QuestionOutcome], Recorder]) -> None:
    """Every answer that uses retrieved text carries an [n] that resolves;
    markers are numbered 1, 2, … in order of first appearance (outside code)."""
    _, _, recorder = scored
    for result in recorder.results:
        if is_refusal(result.content):
            continue
        prose = re.sub(r"```.*?```|`[^`\n]*`", "", result.content, flags=re.DOTALL)
        markers = [int(n) for n in re.findall(r"\[(\d+)\]", prose)]
        assert markers, f"no citation in {result.content!r}"
        assert list(dict.fromkeys(markers)) == list(range(1, len(set(markers)) + 1)), result.content
        assert [c.number for c in result.citations] == sorted(set(markers))
        for c in result.citations:  # each cited passage holds text the answer quotes
            quoted = [s for s in re.split(r"\s*\[\d+\]\s*", result.content) if s.strip()]
            assert any(_overlaps(q, c.text) for q in quoted), (c.source, result.content)


def _overlaps(quote: str, passage: str) -> bool:
    words = set(re.findall(r"[a-z0-9]{4,}", passage.lower()))
    return len(set(re.findall(r"[a-z0-9]{4,}", quote.lower())) & words) >= 2
