"""Score a RAG agent on a question set (``data/questions.yaml`` format).

Each item has ``question``, ``answer`` (a substring a correct answer contains, or null when the
corpus cannot answer) and ``source`` (the file that holds the fact). An answer counts as correct
when it contains the substring and cites the expected source; for unanswerable questions, when
it says the knowledge base does not contain the answer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError

REFUSAL_MARKERS = ("does not contain", "no answer", "not contain an answer")


@dataclass(frozen=True)
class QuestionOutcome:
    question: str
    expected: str | None
    source: str | None
    answer: str
    cited: list[str]
    correct: bool


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    import yaml

    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise ConfigError(f"{path}: expected a top-level 'questions:' list")
    for i, q in enumerate(items):
        if not isinstance(q, dict) or "question" not in q:
            raise ConfigError(f"{path}: questions[{i}] needs a 'question' key")
    return items


def score_answer(item: dict[str, Any], answer: str, cited_sources: list[str]) -> bool:
    expected = item.get("answer")
    if expected is None:
        return any(m in answer.lower() for m in REFUSAL_MARKERS)
    return str(expected).lower() in answer.lower() and item.get("source") in cited_sources


def run_questions(agent: Any, items: list[dict[str, Any]]) -> list[QuestionOutcome]:
    out = []
    for item in items:
        result = agent.ask(item["question"])
        cited = [c.source for c in result.citations]
        out.append(QuestionOutcome(item["question"], item.get("answer"), item.get("source"),
                                   result.content, cited, score_answer(item, result.content, cited)))
    return out


def summary(outcomes: list[QuestionOutcome]) -> dict[str, Any]:
    n = len(outcomes)
    ok = sum(o.correct for o in outcomes)
    return {"correct": ok, "total": n, "accuracy": ok / n if n else 0.0,
            "failures": [asdict(o) for o in outcomes if not o.correct]}
