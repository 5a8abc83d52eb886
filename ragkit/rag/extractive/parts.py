"""Two questions asked as one ("How many requests does the attack need, and how long does it
take?", "Which release dropped it, and on what date?", "In which release, and on what date, did X
drop Y?", "What does X do? When should I use it?", "What minimum age and how many years of
service does X require?"): ``question_parts`` finds the two, so that the
answerer (``engine._both_parts``) can add the best sentence of each part asked alone to the
whole question's answer, the second part leaning on the first for its subject ("What licence is
*it* under?")."""

from __future__ import annotations

import re

from ragkit.rag.extractive.text import AUXILIARY

#: the words that open a question asking for something (not a yes/no question)
QUESTION_WORD = r"(?:how|what|which|where|when|who|whom|why)"
#: a question word after a preposition: "on what date", "about how long", "in which release"
_ASKING = rf"(?:(?:on|in|at|by|for|about|since|until|from|to|with)\s+)?{QUESTION_WORD}"
#: ", and how long …", ", but is it …", ", and on what date?": a second question after a comma
#: (without one, "Where and when …?", "How do I pin and lock …?" ask one thing); "…, and if not
#: what should I use?" asks the second whatever the first's answer; "…, and if I need glasses to
#: meet it, when do I have to wear them?" asks the second under its condition, which it keeps
_SECOND = re.compile(
    rf",\s*(?:and|but)\s+(?:if\s+(?:not|so)\s*,?\s*|(?P<condition>if\s+[^,?]{{3,80}}),\s*)?"
    rf"(?P<second>(?:{_ASKING}|is|are|does|do|did|can|could|"
    r"should|will|would|was|were|has|have)\b[^?]{3,}\??)\s*$",
    re.IGNORECASE,
)
#: two questions sharing what follows them: "In which release, and on what date, did X drop Y?"
_SHARED = re.compile(
    rf"^(?P<first>{_ASKING}\b[^,?]{{0,40}}),\s*and\s+(?P<second>{_ASKING}\b[^,?]{{0,40}}),\s*(?P<rest>[^?]{{8,}}\??)\s*$",
    re.IGNORECASE,
)
#: a yes/no question and its reason: "Was the driver affected by the CVE, and why?" asks whether,
#: then "Why was the driver affected by the CVE?"
_AND_WHY = re.compile(r",\s*and\s+why(?:\s+not)?\s*\??\s*$", re.IGNORECASE)
_YES_NO = re.compile(r"(?:^|(?<=[.!]\s))(?P<asked>(?:is|are|was|were|does|do|did|can|could|should|will|would|has|have|had)"
                     r"\b[^.!?]{8,})$", re.IGNORECASE)
#: two questions joined by "and" without a comma, the last sentence of the text: "What minimum age
#: and how many years of citizenship does X require?", "What record type do I use and what prefix
#: goes before the name?"; a bare question word ("Where and when is it held?") asks one thing
_JOINED = re.compile(rf"(?:^|(?<=[.!?:]\s))(?P<first>{_ASKING}\s[^,?.!]{{1,80}}?)\s+and\s+"
                     rf"(?P<second>{_ASKING}\b[^?]{{3,}}\??)\s*$", re.IGNORECASE)
#: two things of one question, each with its article: "What are the oldest Rust version and the
#: oldest Python version it works with?" asks each ("What are the oldest Rust version?"); not a
#: relation of the two ("What is the difference between the lexer and the parser?")
_NOUNS = re.compile(r"(?:^|(?<=[.!?:]\s))(?P<lead>(?:what|which)\s+(?:is|are|was|were)\s+)"
                    r"(?P<first>(?:the|its|their)\s+[^,?.!]{1,60}?)\s+and\s+(?P<second>(?:the|its|their)\s+[^,?.!]{3,100})\?\s*$",
                    re.IGNORECASE)
_RELATION = re.compile(r"\b(?:between|difference|differences|relation|relationship|ratio|distance|gap|link|"
                       r"connection|trade-?offs?|overlap|order)\b|\s(?:the|a|an|of)\s", re.IGNORECASE)
#: the verb a question's words lean on ("does" of "how many years … does X require"), and what follows
_AUXILIARY = re.compile(rf"\b{AUXILIARY}\b", re.IGNORECASE)
_NOUN_WORDS = 4  # a first part of at most this many words, with no verb of its own, is the asked thing only
#: two questions one after the other: "What does X do? When should I use it?"
_TWO = re.compile(r"^(?P<first>[^?]{8,}\?)\s+(?P<second>[A-Z][^?]{3,}\?)\s*$")
_MIN_WORDS = 4  # a first part shorter than this is no question of its own ("Which flags, and …?")
MAX_CHARS = 600  # a longer text is read as one question (the sets' longest question has about 200)


def question_parts(question: str) -> tuple[str, str] | None:
    """The two questions ``question`` asks, or None when it asks one."""
    text = question.strip()
    if len(text) > MAX_CHARS:
        return None
    if (two := _TWO.match(text)) is not None:
        first, second = two.group("first"), two.group("second")
    elif (shared := _SHARED.match(text)) is not None:
        rest = shared.group("rest").rstrip("?").strip()
        first, second = f"{shared.group('first')} {rest}?", f"{shared.group('second')} {rest}?"
        second = second[0].upper() + second[1:]
    elif (why := _AND_WHY.search(text)) is not None and (yes_no := _YES_NO.search(text[: why.start()])):
        first = text[: why.start()].rstrip(" ,") + "?"
        asked = yes_no.group("asked").rstrip(" ,")
        second = f"Why {asked[0].lower()}{asked[1:]}?"
    elif (match := _SECOND.search(text)) is not None:
        first = text[: match.start()].rstrip(" ,") + "?"
        second = match.group("second").rstrip("?").strip() + "?"
        if match.group("condition"):
            second = f"{match.group('condition')}, {second}"
        second = second[0].upper() + second[1:]
    elif (joined := _JOINED.search(text)) is not None:
        asked, second = joined.group("first").strip(), joined.group("second").rstrip("?").strip()
        verb = _AUXILIARY.search(second)
        if len(asked.split()) <= _NOUN_WORDS and not _AUXILIARY.search(asked) and verb is not None:
            asked = f"{asked} {second[verb.start():]}"  # "What minimum age" asks what the second part's verb says
        first = text[: joined.start()] + asked + "?"
        second = second[0].upper() + second[1:] + "?"
    elif (nouns := _NOUNS.search(text)) is not None and not _RELATION.search(
            " " + nouns.group("first").split(None, 1)[1]):
        lead = nouns.group("lead")
        first = text[: nouns.start()] + lead + nouns.group("first") + "?"
        second = lead[0].upper() + lead[1:] + nouns.group("second") + "?"
    else:
        return None
    if len(first.split()) < _MIN_WORDS:
        return None
    return first, second
