"""The offline extractive answer engine: the best 1-3 sentences of the retrieved passages.

Passages (``ragkit.rag.passages.Passage``, from the search tool's structured citations) are split
into sentences (``ragkit.rag.extractive.text``). Each sentence is scored by the IDF-weighted
share of the question's content words it contains (stopwords removed, light suffix stemming;
numbers and capitalised names weigh more), with part credit for words found in the passage's
title or heading or elsewhere in the passage; a number in the question (a year, say) scopes it and
counts wherever in the passage it appears. The score is then weighed by:

- *answer type* (``ragkit.rag.extractive.answer_type``): a who/when/how-many question ("which
  year", "what share", "how long") wants a person, a date or a quantity; a sentence with none that
  is new (not in the question) counts half;
- *retrieval rank*: a little, so a strong match in a later passage still wins.

A sentence that adds nothing beyond the question's own words is never an answer. The best 1-3
sentences are written each followed by its ``[n]`` marker. It says the knowledge base has no
answer when no sentence shares enough meaningful content with the question, or when a number the
question is about appears in none of the passages.

Passage text is data: nothing in it is ever followed as an instruction; the only thing text can
do is be quoted if it is relevant to the question.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragkit.rag.extractive.answer_type import answer_type, has_answer_type
from ragkit.rag.extractive.text import STOPWORDS, WORD, split_sentences, stem, terms
from ragkit.rag.passages import Passage

log = logging.getLogger(__name__)

REFUSAL = "The knowledge base does not contain an answer to this question."
# sentences addressed to an AI rather than stating facts are never quoted as answers
_INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override)\b[^.]{0,60}\b(instructions?|prompts?|rules|guidelines)\b"
    r"|\b(system prompt|you are now|as an ai)\b",
    re.IGNORECASE,
)


def _question_weights(question: str, *, drop: frozenset[str] = frozenset()) -> dict[str, float]:
    """Boost factors: numbers x2, capitalised names (not sentence-initial) x1.5, else 1.

    Words in ``drop`` (the answer-type noun, as in "which *year*") are not matched: they name
    what the answer is, not what it is about."""
    boosts: dict[str, float] = {}
    words = WORD.findall(question)
    for i, raw in enumerate(words):
        low = raw.lower()
        if low in STOPWORDS or low in drop or (len(low) < 2 and not low.isdigit()):
            continue
        boost = 2.0 if any(c.isdigit() for c in raw) else 1.5 if raw[0].isupper() and i > 0 else 1.0
        key = stem(low)
        boosts[key] = max(boosts.get(key, 0.0), boost)
    return boosts



# ---------------------------------------------------------------- choosing the answer
@dataclass
class _Candidate:
    score: float
    matched: int
    rank: int
    position: int
    sentence: str
    number: int


@dataclass(frozen=True)
class _Unit:
    rank: int
    position: int
    sentence: str
    number: int
    own: frozenset[str]
    context: frozenset[str]  # terms of the passage's title and heading (when the tool gives them)
    scope: frozenset[str]  # every term of the passage


def _units(passages: Sequence[Passage]) -> list[_Unit]:
    units = []
    for rank, p in enumerate(passages):
        heading = frozenset(terms(f"{p.meta.get('title', '')} {p.meta.get('heading', '')}"))
        scope = frozenset(terms(p.text)) | heading
        for pos, sentence in enumerate(split_sentences(p.text)):
            units.append(_Unit(rank, pos, sentence, p.number, frozenset(terms(sentence)), heading, scope))
    return units


_TYPE_MISS = 0.5  # score factor for a sentence without the kind of answer the question asks for
_RANK_DECAY = 0.03  # per retrieval rank: prefer better-ranked passages; a strong later match still wins
_CONTEXT = 0.5  # credit for a question word found in the passage's heading rather than the sentence
_SCOPE = 0.3  # ... or elsewhere in the passage (a question's numbers count in full: they scope it)


@dataclass(frozen=True)
class _Query:
    kind: str | None  # the answer type: person, date, number or None
    boosts: dict[str, float]  # content-word stem -> boost
    numbers: frozenset[str]  # the question's numbers (years, quantities): they scope it
    words: frozenset[str]  # the question's words, lower-cased


def _query(question: str) -> _Query:
    kind, type_nouns = answer_type(question)
    boosts = _question_weights(question, drop=type_nouns)
    return _Query(
        kind,
        boosts,
        frozenset(t for t in boosts if t.isdigit()),
        frozenset(w.lower() for w in WORD.findall(question)),
    )


def _term_weights(query: _Query, units: Sequence[_Unit]) -> dict[str, float]:
    """IDF over the retrieved sentences, times the question's boosts."""
    n = len(units)
    df = {t: sum(1 for u in units if t in u.own) for t in query.boosts}
    rare = math.log((n + 1) / 1.5)  # the weight of a term found in one sentence
    return {t: query.boosts[t] * (math.log((n + 1) / (df[t] + 0.5)) if df[t] else rare) for t in query.boosts}


def _score(u: _Unit, query: _Query, weight: dict[str, float], min_coverage: float) -> _Candidate | None:
    """A sentence's score, or None when it cannot be an answer (see the module docstring)."""
    wanted = query.boosts.keys()
    hits = u.own & wanted
    if not (hits - query.numbers) or not (u.own - wanted - u.context) or _INJECTION.search(u.sentence):
        return None  # no content word of the question, nothing beyond the question, or addressed to an AI
    context_hits = (u.context - u.own) & wanted
    scope_hits = (u.scope - u.own - u.context) & wanted
    total = sum(weight.values())
    coverage = (
        sum(weight[t] for t in hits)
        + _CONTEXT * sum(weight[t] for t in context_hits)
        + sum(weight[t] * (1.0 if t in query.numbers else _SCOPE) for t in scope_hits)
    ) / total
    matched = len(hits) + len(context_hits) + len(scope_hits & query.numbers)
    # one shared word must carry most of the question's weight; two or more, a fair share
    if coverage < (min_coverage if matched >= 2 or len(wanted) == 1 else max(min_coverage, 0.55)):
        return None
    fit = 1.0 if has_answer_type(query.kind, u.sentence, query.words) else _TYPE_MISS
    score = coverage * fit * max(0.5, 1.0 - _RANK_DECAY * u.rank)
    return _Candidate(score, matched, u.rank, u.position, u.sentence, u.number)


def extractive_answer(
    question: str, passages: Sequence[Passage], *, max_sentences: int = 3, min_coverage: float = 0.3
) -> str:
    """The best 1-3 sentences with ``[n]`` markers, or the refusal (see the module docstring)."""
    query = _query(question)
    units = _units(passages) if query.boosts else []
    if not units:
        return REFUSAL
    if any(all(t not in u.scope for u in units) for t in query.numbers):
        return REFUSAL  # the question's year or quantity is in no passage: nothing here answers it
    weight = _term_weights(query, units)
    candidates = sorted(
        (c for u in units if (c := _score(u, query, weight, min_coverage))),
        key=lambda c: (-c.score, c.rank, c.position),
    )
    for c in candidates[:5]:
        log.debug("candidate %.3f [%d] %s", c.score, c.number, c.sentence[:100])
    if not candidates:
        return REFUSAL
    chosen: list[_Candidate] = []
    for cand in candidates:
        if len(chosen) == max_sentences or cand.score < 0.6 * candidates[0].score:
            break
        if all(cand.sentence.lower() != c.sentence.lower() for c in chosen):
            chosen.append(cand)
    return " ".join(f"{c.sentence} [{c.number}]" for c in chosen)
