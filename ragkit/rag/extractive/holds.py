"""Whether a sentence holds what a question asks for: the kind of answer (``holds_kind``: a date,
a number of the thing counted, a value, a naming), a thing named (``names_thing``, for "Which …?"),
the noun asked for (``says``, a stem or a word that begins with it)."""

from __future__ import annotations

import re

from ragkit.rag.extractive.answer_type import (
    NAMING_KINDS,
    counts,
    counts_other,
    expands,
    gives_frequency,
    gives_naming,
    has_answer_type,
    in_measure,
    says_duration,
    says_size,
)
from ragkit.rag.extractive.query import Query
from ragkit.rag.extractive.text import snake_identifiers, stem
from ragkit.rag.extractive.units import Unit
from ragkit.rag.extractive.values import declares_default, holds_value, names_literal

_HOW_MANY = re.compile(r"\bhow\s+many\b", re.IGNORECASE)  # asks for a count of a noun (not "how far", "how old")
_SAYS_DEFAULT = re.compile(r"\bdefault", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_RELEASE = re.compile(r"\b(?:versions?|releases?|v)\s*\d+(?:\.\d+)*|\b\d+\.\d+\.\d+", re.IGNORECASE)
_HOW_MUCH = re.compile(r"\bhow\s+(?:many|much)\b", re.IGNORECASE)  # a number, though the question asks a default
_LABEL_WORDS = 8  # a line ending with a colon of at most this many words labels the code block after it
#: nouns for a measure, not a count: "What F1 score …?" is not answered by a number of things
_MEASURE_NOUNS = frozenset(stem(w) for w in ("score", "accuracy", "precision", "recall", "rate", "ratio"))
_PREFIX = 5  # a stem that begins another (both at least this long) matches it: marri/marriag


def prefix_match(a: str, b: str) -> bool:
    """Whether one stem begins the other, both at least ``_PREFIX`` long (marri/marriag)."""
    return min(len(a), len(b)) >= _PREFIX and (a.startswith(b) or b.startswith(a))


def says(words: frozenset[str], noun: str) -> bool:
    """Whether ``words`` (stems) say ``noun`` (a stem), or a word that begins with it or that it begins."""
    return any(t == noun or prefix_match(t, noun) for t in words)


def counts_asked(query: Query, text: str) -> bool:
    """Whether ``text`` gives a number of what the question counts: of its noun ("8 heads"), or
    of the noun before it ("8 defers" for "How many defer statements …?"); a noun the question
    writes capitalised, a defined term, may be so in the text ("2 or 3 Tech Leads")."""
    return (counts(query.counted, text, defined=query.counted_defined)
            or bool(query.counted_also) and counts(query.counted_also, text))


def holds_kind(u: Unit, query: Query) -> bool:
    """Whether unit ``u`` holds the kind of answer the question asks for: the words an acronym
    stands for, a naming, a value (a line that labels a code block holds the block's), a person, a
    date or a number (of what a "How many …?" question counts, when a passage counts it), in the
    measure asked for (an amount of money, a length of time)."""
    if query.acronym:  # "Immediately Invoked Function Expression (IIFE)"
        return expands(query.acronym, u.text)
    if query.kind in NAMING_KINDS:  # "a polyfill (aka "shim")", "is referred to as an *embargo*"
        return gives_naming(query.kind, u.text)
    if query.duration_given and not (says_duration(u.text) or says_size(u.text)):
        # "How long must …?" and a passage says "for six months": "version 1.3" is no length; nor is
        # "the default Status is `connected`" one for "How long may a participant stay … by default?"
        return False
    if query.kind == "value":  # "The default is:" states the code block after it (a how-to's
        # longer description line only introduces an example, whatever literals it holds)
        labels = u.code_after and len(u.text.split()) <= _LABEL_WORDS and (not query.default or declares_default(u.text))
        text = f"{u.text} `{' '.join(u.code_after.split())}`" if labels else u.text
        # an item of a list led by "Defaults to one of:" holds a default ("- macOS: `~/Library/Caches/app`")
        default = query.default and not declares_default(u.lead)
        if query.duration_given and (not query.default or declares_default(text)):
            return True  # "How long … by default?": the length of time it gives is the value ("the default (100 years)")
        if _HOW_MUCH.search(query.form):  # a default that is a number: "By default, how much extra load
            # does the budget allow?": "All policies default to including a retry budget that permits 20%
            # extra requests" (an example's "0.3" says no default); a literal still holds one below
            if (has_answer_type("number", text, query.words, query.common)
                    and bool(_DIGIT.search(_RELEASE.sub(" ", text)))  # not "a new one", nor "before version 4.2"
                    and (not query.default or bool(_SAYS_DEFAULT.search(text)))):
                return True
        return holds_value(query.value_kind, text, query.said, default=default)
    text = row_values(u.text) if u.kind == "row" else u.text
    if query.counted_given and not counts_asked(query, text):
        return False  # "How many heads…?" and a passage says "8 heads": a sentence with another number is not typed
    if query.counted and _HOW_MANY.search(query.form) and counts_other(query.counted, text) \
            and not counts_asked(query, text):
        return False  # "How many integrations …?": "There are 4 scaled tiers" counts other things
    if query.kind == "number" and query.asked in _MEASURE_NOUNS and counts_other(query.asked, text):
        return False  # "What F1 score …?": "four types of entities" counts things, it is no score
    return (query.kind is not None and (has_answer_type(query.kind, text, query.words, query.common)
                                        or query.kind == "number" and gives_frequency(query.form, text))
            and in_measure(query.measure, text))


def row_values(row: str) -> str:
    """A table row's cells without their column labels ("Appendix Material for Tidal Ledgers:
    harbours PNR; Before calibration: 12.5" -> "harbours PNR; 12.5"): a column's label names
    what the cells below it are, so it never holds the person, date or number a row gives."""
    return "; ".join(cell.split(": ", 1)[-1] for cell in row.split("; "))


#: a name written inside a sentence (not the capital that opens it): "uses *PostgreSQL* 15", ORDPATH
_NAME_INSIDE = re.compile(r"(?<![.!?:\]]\s)(?<!^)\b[A-Z][\w-]*[A-Za-z]")


_NUMBER_ALONE = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)*(?![\w.])")  # a number alone names no thing


def names_any(u: Unit, query: Query) -> bool:
    """Whether ``u`` names things for a "Which …?" question: it names one, or it leads a list."""
    return u.leads_list or names_thing(u.text, query)


def names_thing(text: str, query: Query) -> bool:
    """Whether ``text`` names a thing the question does not: a literal (``itsdangerous``,
    'SKU-4563', lamp_red) or a capitalised name inside a sentence (ORDPATH, Open Collective); a number
    alone names none."""
    named = _NUMBER_ALONE.sub(" ", " ".join(text.split()))  # one space: "time.  All" (a marker taken out) opens a sentence
    return names_literal(named, query.said) or any(i not in query.said for i in snake_identifiers(named)) or any(
        w.lower() not in query.words for w in _NAME_INSIDE.findall(named))
