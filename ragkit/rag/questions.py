"""Score a RAG agent on a question set (``data/questions.yaml`` format).

Each item has ``question``, ``answer`` and ``source`` (the file that holds the fact, or a list
of files that each state it: citing any of them counts):

- ``answer`` is a text a correct answer contains, a list of texts it must all contain (a list
  answer: "the three rules"), or null when the corpus cannot answer;
- ``after`` (optional) is a question asked earlier in the same conversation: the item is a chat
  follow-up ("And how do I add elements to it?"), asked with the conversation's memory.

Grades: **correct** when the answer contains every expected text and cites the expected source
(for an unanswerable question: when it says the knowledge base does not contain the answer);
**partial** when it cites the expected source or holds some of the expected text, but not both in
full; **wrong** otherwise (a refusal of an answerable question included).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError

REFUSAL_MARKERS = ("does not contain", "no answer", "not contain an answer")
GRADES = ("correct", "partial", "wrong")


@dataclass(frozen=True)
class QuestionOutcome:
    question: str
    expected: str | list[str] | None
    source: str | list[str] | None
    answer: str
    cited: list[str]
    grade: str  # correct, partial or wrong

    @property
    def correct(self) -> bool:
        return self.grade == "correct"

    @property
    def cited_source(self) -> bool:
        """Whether the answer cites a file that holds the answer."""
        return bool(set(sources_of(self.source)) & set(self.cited))


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    import yaml

    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise ConfigError(f"{path}: expected a top-level 'questions:' list")
    for i, q in enumerate(items):
        if not isinstance(q, dict) or "question" not in q:
            raise ConfigError(f"{path}: questions[{i}] needs a 'question' key")
        q["answer"] = _as_text(q.get("answer"))
        if not isinstance(q.get("answer"), (str, list, int, float, type(None))):
            raise ConfigError(f"{path}: questions[{i}].answer must be a text, a list of texts or null")
        if not isinstance(q.get("source"), (str, list, type(None))):
            raise ConfigError(f"{path}: questions[{i}].source must be a file name or a list of file names")
    return items


def _as_text(answer: Any) -> Any:
    """A date written bare in YAML (``answer: 2010-12-26``, ``2010-12-26 10:00:00``) is read back as
    the text it was written as."""
    if isinstance(answer, list):
        return [_as_text(a) for a in answer]
    return str(answer) if isinstance(answer, date) else answer


def sources_of(source: str | list[str] | None) -> list[str]:
    """The files an item's ``source`` names (one, several, or none for an unanswerable question)."""
    if source is None:
        return []
    return [str(s) for s in source] if isinstance(source, list) else [str(source)]


def _expected_texts(item: dict[str, Any]) -> list[str]:
    answer = item.get("answer")
    return [str(a) for a in answer] if isinstance(answer, list) else [str(answer)]


def is_refusal(answer: str) -> bool:
    return any(m in answer.lower() for m in REFUSAL_MARKERS)


def grade_answer(item: dict[str, Any], answer: str, cited_sources: list[str]) -> str:
    """``correct``, ``partial`` or ``wrong`` (see the module docstring)."""
    if item.get("answer") is None:
        return "correct" if is_refusal(answer) else "wrong"
    texts = _expected_texts(item)
    found = sum(t.lower() in answer.lower() for t in texts)
    cited = bool(set(sources_of(item.get("source"))) & set(cited_sources))
    if found == len(texts) and cited:
        return "correct"
    return "partial" if cited or found else "wrong"


def run_questions(agent: Any, items: list[dict[str, Any]]) -> list[QuestionOutcome]:
    """Ask every question; a follow-up (``after``) is asked after its earlier question in a fresh
    conversation (the agent needs a ``ConversationMemory`` for the context to carry over)."""
    out = []
    for item in items:
        if item.get("after"):
            agent.reset()
            agent.ask(item["after"])
        result = agent.ask(item["question"])
        agent.reset()
        cited = [c.source for c in result.citations]
        out.append(QuestionOutcome(item["question"], item.get("answer"), item.get("source"),
                                   result.content, cited, grade_answer(item, result.content, cited)))
    return out


def page_ranks(search: Callable[[str], list[str]], items: list[dict[str, Any]]) -> list[int | None]:
    """For each answerable item, the rank (1-based) of the first retrieved passage from a file
    that holds the answer, or None when none is retrieved; ``search`` maps a query to the sources
    of the passages retrieved, best first. A follow-up is searched as the local provider searches
    it (the question and the key words of its earlier question)."""
    from ragkit.rag.local import follow_up_query

    ranks: list[int | None] = []
    for item in items:
        wanted = set(sources_of(item.get("source")))
        if item.get("answer") is None or not wanted:
            continue
        found = search(follow_up_query(item["question"], [item["after"]] if item.get("after") else []))
        ranks.append(next((i for i, src in enumerate(found, 1) if src in wanted), None))
    return ranks


def retrieval_summary(ranks: list[int | None], k: int) -> dict[str, Any]:
    """Page-level retrieval: hit@1, hit@k and MRR@k over ``page_ranks``."""
    n = len(ranks)
    return {
        "k": k, "queries": n,
        "hit@1": sum(r == 1 for r in ranks) / n if n else 0.0,
        f"hit@{k}": sum(r is not None and r <= k for r in ranks) / n if n else 0.0,
        f"mrr@{k}": sum(1 / r for r in ranks if r is not None and r <= k) / n if n else 0.0,
    }


def summary(outcomes: list[QuestionOutcome]) -> dict[str, Any]:
    n = len(outcomes)
    grades = Counter(o.grade for o in outcomes)
    answerable = [o for o in outcomes if o.expected is not None]
    return {
        "correct": grades["correct"], "partial": grades["partial"], "wrong": grades["wrong"], "total": n,
        "accuracy": grades["correct"] / n if n else 0.0,
        "cited_source": sum(o.cited_source for o in answerable), "answerable": len(answerable),
        "failures": [{**asdict(o), "grade": o.grade} for o in outcomes if not o.correct],
    }
