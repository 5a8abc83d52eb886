"""Which candidate leads the answer: after scoring, a close candidate that holds what the best one
lacks goes first (``typed_first``: the kind of answer asked for, a thing named, the noun asked for,
the replacement asked for; ``close_typed``), or the best is read on through its paragraph to the
sentence that holds it (``read_on``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ragkit.markdown_tables import CODE_SPAN
from ragkit.rag.extractive.answer_type import asks_why
from ragkit.rag.extractive.holds import holds_kind, names_any, names_thing, says
from ragkit.rag.extractive.query import ASKS_NAME, SAYS_KIND, Query
from ragkit.rag.extractive.reasons import gives_reason
from ragkit.rag.extractive.releases import another_release
from ragkit.rag.extractive.text import STOPWORDS, WORD, snake_identifiers, word_terms
from ragkit.rag.extractive.units import Candidate, Unit, last_position, passage_of
from ragkit.rag.extractive.values import names_literal

_TYPED_CLOSE = 0.5  # a typed unit of the best one's section goes first when it scores this share of it
_TYPED_NEAR = 0.9  # ... and one of any passage, for a question an answer without the kind leaves unanswered
_TYPED_RESCUE = 0.7  # ... and one of any passage, before a refusal for want of the kind
#: what a question that asks for a replacement says, and a sentence that names one
_INSTEAD = re.compile(r"\b(?:instead|rather\s+than|in\s+place\s+of)\b", re.IGNORECASE)
#: what a question asks to replace: the words after "instead of" (to a clause's end)
_REPLACED = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+([^?,;.]{1,60})", re.IGNORECASE)
_VAGUE_OBJECTS = frozenset("each either both all one ones it them this that these those".split())
_ASKING_WORDS = 2  # the asking sentence's words, fewer of which say too little to sort by ("How do I fix it?")
_IDENTIFIER_CLOSE = 0.5  # a candidate writing the question's identifier goes first at this share of the best
_REASON_CLOSE = 0.8  # for "Why …?", a candidate that gives a reason goes first at this share of the best
_ASKED_CLOSE = 0.8  # a sentence of the best one's section that says the noun asked for goes first at this share of it


def typed_first(candidates: list[Candidate], query: Query) -> list[Candidate]:
    """The candidates, with the best one that holds the kind of answer asked for first when the
    best holds none and that one is of the same section of the same passage and scores close:
    the untyped sentence describes the subject ("Text for link anchors beside each title"), the
    typed one states what is asked ("Default: '§'"). For a "Which …?" question, the one that
    names a thing (or leads a list) goes first when the best names none: "… by sending specific
    signals to the main process", then "`SIGTTIN`: Increase the number of worker processes by one"."""
    if not candidates:
        return candidates
    best = candidates[0]
    if (query.which or ASKS_NAME.search(query.form)) and query.kind is None and not query.howto \
            and not names_any(best.unit, query):
        same = _close_in_section(candidates, _TYPED_CLOSE, lambda c: names_any(c.unit, query))
        return put_first(candidates, same) if same else candidates
    if query.asked and not query.howto and not query.list_wanted and not says(best.unit.own, query.asked):
        # "What minimum age does X require of a senator?": "A senator must be thirty years of age", after
        # "… must have been a citizen nine years", which shares more of the question but not its noun
        saying = _close_in_section(candidates, _ASKED_CLOSE, lambda c: c.typed >= best.typed and says(c.unit.own, query.asked))
        if saying is not None:
            return put_first(candidates, saying)
    if (replaced := _replaced(query.form)) and not _INSTEAD.search(best.unit.text):
        # "What should I write instead of $?": "Avoid this by using parentheses instead of `$`", after
        # "One common pitfall is to use `runST` with the `$` operator", which says what not to do; the
        # sentence says what is replaced too ("instead of each" names nothing a sentence must say)
        instead = _close_in_section(candidates, _TYPED_CLOSE,
                                    lambda c: bool(_INSTEAD.search(c.unit.text)) and _says_replaced(c.unit, replaced))
        if instead is not None:
            return put_first(candidates, instead)
    if query.kind is None or candidates[0].typed:
        return candidates
    same = close_typed(candidates, query)
    return put_first(candidates, same) if same else candidates


def asking_words_first(candidates: list[Candidate], query: Query) -> list[Candidate]:
    """The candidates, with the best one that says a word of the sentence that asks first, when the
    question sets a scene before asking and neither the best one nor its headings say any: it
    restates the scene ("… but only when DefaultRoot is enabled. Which environment variable should I
    set?": not "these wrong timestamps go away when the DefaultRoot directive is removed", but the
    sentence on the TZ environment variable). The asking sentence's names are left out: they say
    what the question is about, which the scene's sentence may say too."""
    if not candidates or query.form == query.text:
        return candidates
    asking = {t for w in WORD.findall(query.form) for t in word_terms(w)} & query.boosts.keys() - query.names
    best = candidates[0].unit
    if len(asking) < _ASKING_WORDS or (best.own | best.section) & asking:
        return candidates
    saying = next((c for c in candidates[1:] if c.unit.own & asking), None)
    return put_first(candidates, saying) if saying else candidates


def reason_first(candidates: list[Candidate], query: Query) -> list[Candidate]:
    """For a question that asks why, the candidates with the best one that gives a reason by its
    words ("… given you can accidentally expose confidential information", "because …") first,
    when the best gives none and that one scores close to it: the best describes the case the
    question sets ("A Teams meeting will be set up …"), the other says why."""
    if not candidates or not asks_why(query.form) or gives_reason(candidates[0].unit.text):
        return candidates
    floor = _REASON_CLOSE * candidates[0].score
    chosen = next((c for c in candidates[1:] if c.score >= floor and c.unit.kind in ("prose", "item")
                   and gives_reason(c.unit.text)), None)
    return put_first(candidates, chosen) if chosen else candidates


def identifier_first(candidates: list[Candidate], query: Query) -> list[Candidate]:
    """The candidates, with the best one that writes the snake_case identifiers the question writes
    (``DHCP_LEASETIME``) first when the best one does not and it scores at least half as well:
    the table row of the setting the question names ("Old: `DHCP_LEASETIME`; New: …"), not a
    sentence that shares the question's other words ("v5", "v6")."""
    wanted = set(snake_identifiers(query.text))
    if not candidates or not wanted:
        return candidates

    def writes(c: Candidate) -> bool:  # every one of them, in a sentence, an item or a row (not a console line)
        return c.unit.kind not in ("line", "code") and wanted <= set(snake_identifiers(c.unit.text))

    if writes(candidates[0]):
        return candidates
    floor = _IDENTIFIER_CLOSE * candidates[0].score
    chosen = next((c for c in candidates[1:] if c.score >= floor and writes(c)), None)
    return put_first(candidates, chosen) if chosen else candidates


def _close_in_section(candidates: list[Candidate], share: float, test: Callable[[Candidate], bool]) -> Candidate | None:
    """The best candidate after the first that passes ``test``, is of the first's passage and
    section and scores at least ``share`` of the first's score."""
    best = candidates[0]
    return next((c for c in candidates[1:] if c.score >= share * best.score and c.unit.rank == best.unit.rank
                 and c.unit.block.section == best.unit.block.section and test(c)), None)


def put_first(candidates: list[Candidate], chosen: Candidate) -> list[Candidate]:
    """The candidates with ``chosen`` moved to the front."""
    return [chosen, *(c for c in candidates if c is not chosen)]


def _replaced(form: str) -> str:
    """What a question asks to replace: "$" of "What should I write instead of $?", "reverting" of
    "… return zero instead of reverting on …"; "" when it asks for no replacement or names nothing
    ("instead of each")."""
    found = _REPLACED.search(form)
    if found is None:
        return ""
    words = [w for w in WORD.findall(found.group(1)) if w.lower() not in STOPWORDS and w.lower() not in _VAGUE_OBJECTS]
    if words:
        return words[0]
    symbols = found.group(1).strip().strip("`'\"")
    return symbols if symbols and not WORD.search(symbols) else ""


def _says_replaced(u: Unit, replaced: str) -> bool:
    """Whether sentence ``u`` says the thing replaced: its word (a stem of it), or the symbol as written."""
    return bool(set(word_terms(replaced)) & u.own) if WORD.search(replaced) else replaced in u.text


def close_typed(candidates: list[Candidate], query: Query, *, refusing: bool = False) -> Candidate | None:
    """The best candidate after the first (which holds no answer of the kind asked for) that holds
    one and scores close to the first: of the first's section, at ``_TYPED_CLOSE`` of its score; of
    any passage at ``_TYPED_NEAR`` for "When …?" and "How many …?", whose answer without the kind
    is refused (``lacks_asked_kind``: "May 15, 2025" under a release); ``refusing`` (the first
    would be refused for want of the kind), of any passage at ``_TYPED_RESCUE``, when not about
    another release than the question's."""
    best = candidates[0]
    anywhere = query.kind in ("date", "number") and bool(SAYS_KIND.search(query.form))
    for c in candidates[1:]:
        if not c.typed:
            continue
        if refusing:
            if c.score >= _TYPED_RESCUE * best.score and not (query.versions and another_release(c.unit.text, query.versions)):
                return c
        elif anywhere and c.score >= _TYPED_NEAR * best.score or c.score >= _TYPED_CLOSE * best.score \
                and c.unit.rank == best.unit.rank and c.unit.block.section == best.unit.block.section:
            return c
    return None


_READ_ON = 2  # how many sentences after an answer of the wrong kind are read for one of the right kind


def read_on(candidates: list[Candidate], units: Sequence[Unit], query: Query) -> list[Candidate]:
    """The candidates, with the sentence that holds the kind of answer asked for quoted after the
    best one when the best holds none and that sentence follows it in its paragraph (at most
    ``_READ_ON`` sentences on): the best states the case the question describes ("… if no
    explicit charset is present …"), the one after it the fact ("… the default charset must be
    ISO-8859-1"); for a how-to question, the sentence that writes the code to use ("Occasionally
    you might want to test … rather than …", then "In this case you should use `…`"); for "Which
    *university* …?", the sentence that says the noun and names one, when the best says neither
    ("There is a memory exhaustion attack in …", then "These issues were reported by … of Arizona
    State University")."""
    if not candidates or candidates[0].typed or candidates[0].unit.kind != "prose":
        return candidates
    # "Which *university* …?" and the best names no university: the sentence after it may
    unnamed = (bool(query.asked) and query.which and not query.kind and not query.howto
               and not says(candidates[0].unit.own, query.asked))
    # "What are the ways to …?" and the best leads no code: the sentence after it may ("To disable it,
    # use any of these methods:" and the commands); a list after the paragraph is compose's (``_list_of``)
    listing = (query.list_wanted and not (query.kind or query.instance or query.howto or unnamed)
               and not candidates[0].unit.leads_code)
    if not (query.kind or query.instance or query.howto or unnamed or listing):
        return candidates
    def holds(u: Unit) -> bool:  # the kind asked for; for an instance of what the question names, a literal
        if listing:
            return u.leads_code
        if unnamed:
            return says(u.own, query.asked) and names_thing(u.text, query)
        if query.kind:
            return holds_kind(u, query)
        return names_literal(" ".join(CODE_SPAN.findall(u.text)) if query.howto else u.text, query.said)

    if not query.kind and holds(candidates[0].unit):
        return candidates
    best = candidates[0]
    last = last_position(best.unit)
    blocks = 1 if unnamed else 0  # the names may be in the next paragraph ("These issues were reported by …")
    after = sorted((v for v in passage_of(units, best.unit) if v.kind == "prose"
                    and 0 <= v.paragraph - best.unit.paragraph <= blocks and v.block.section == best.unit.block.section
                    and 0 < v.position - last <= _READ_ON), key=lambda v: v.position)
    found = next((v for v in after if holds(v)), None)
    if found is None:
        return candidates
    read = [v for v in after if v.position <= found.position]  # the sentences up to the one found, once
    run = (*(best.unit.run or (best.unit.text,)), *(v.text for v in read))
    joined = replace(best.unit, text=" ".join(run), run=run, own=best.unit.own.union(*(v.own for v in read)),
                     leads_code=read[-1].leads_code, code_after=read[-1].code_after)
    return [replace(best, unit=joined), *(c for c in candidates[1:] if c.unit not in read)]
