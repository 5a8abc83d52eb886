"""A chat follow-up that names only its new subject: "What about SESSION_COOKIE_NAME?" after
"What is the default of SESSION_COOKIE_AGE?" asks the earlier question again about the new
subject, so it becomes "What is the default of SESSION_COOKIE_NAME?".

``elided_question`` finds, among the earlier question's words, the one the new subject stands in
for, by what the two share: the parts of an identifier (``SESSION_COOKIE_``), the kind of word
(an identifier, a capitalised name, a number) and an ending ("Thurs*days*" / "Fri*days*"). When
no word of the earlier question is like the new subject, there is no frame to reuse and the
caller keeps its own way (the earlier question's key words added to the search).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragkit.rag.extractive import terms

_ELIDED = re.compile(r"^\W*(?:and\s+|but\s+|so\s+)?(?:what|how)\s+about\s+(?P<subject>[^?!.]{1,200}?)\W*$",
                     re.IGNORECASE)
_WORD = re.compile(r"[\w.-]*\w")
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _kind(word: str) -> str:
    if "_" in word or "." in word or re.search(r"[a-z][A-Z]", word):
        return "identifier"
    if word.isdigit():
        return "number"
    if word[:1].isupper():
        return "name"
    return "word"


def _parts(word: str) -> set[str]:
    return {p.lower() for p in _PARTS.findall(word)}


def _likeness(candidate: str, subject: str) -> float:
    """How much ``candidate`` (a word of the earlier question) is like ``subject``: 0 when not at all."""
    if candidate.lower() == subject.lower():
        return 0.0
    score = 0.0
    kind = _kind(subject)
    if kind != "word" and _kind(candidate) == kind:
        score += 1.0
    if kind == "identifier":
        score += len(_parts(candidate) & _parts(subject))
    a, b = candidate.lower(), subject.lower()
    ending = 0
    while ending < min(len(a), len(b)) - 1 and a[-1 - ending] == b[-1 - ending]:
        ending += 1
    if ending >= 3:
        score += 0.5
    return score


def elided_question(question: str, earlier: Sequence[str]) -> str | None:
    """The earlier question asked again about the subject of a "what about X?" follow-up, or None
    (not such a follow-up, nothing earlier, or no word of the earlier question that X is like)."""
    match = _ELIDED.match(question)
    if match is None or not earlier:
        return None
    previous = earlier[-1]
    if len(earlier) > 1:  # the earlier question may itself have been a "what about"
        previous = elided_question(previous, earlier[:-1]) or previous
    subject = match.group("subject").strip()
    words = [m for m in _WORD.finditer(previous) if terms(m.group(0))]
    if not words or not subject:
        return None
    head = _WORD.findall(subject)
    key = head[-1] if head else subject
    best = max(words, key=lambda m: (_likeness(m.group(0), key), m.start()))
    if _likeness(best.group(0), key) <= 0:
        return None
    return previous[: best.start()] + subject + previous[best.end():]


__all__ = ["elided_question"]
