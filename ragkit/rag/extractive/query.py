"""A question as the extractive answerer reads it (``read_question``): its content-word stems
with their weights (numbers and quoted words count double, names one and a half, a how-to's verb,
a counted list's noun and an identifier's parts less, words carried over from an earlier question
and those of a premise it states before asking ("Since X is static, …", "X is deprecated; …")
half; a list's count and the "time" of "one at a time" not at all), the kind of
answer it wants (``answer_type``, ``values``), whether it wants a list, a definition, a byline,
and the words a passage must not be refused for lacking."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ragkit.markdown_tables import CODE_SPAN
from ragkit.month_names import ABBREVIATIONS, MONTH_NAMES
from ragkit.rag.extractive.answer_type import (
    ACRONYM_WORDS,
    AUTHORSHIP_WORDS,
    MEASURED_NOUNS,
    answer_type,
    asked_acronym,
    asked_state,
    asks_author,
    asks_obligation,
    asks_yes_no,
    counted_modifier,
    counted_noun,
    defined_term,
    definition_frame,
    is_howto,
    list_count,
    naming_kind,
    quantity_measure,
    wants_list,
    without_case,
)
from ragkit.rag.extractive.text import (
    SNAKE,
    STOPWORDS,
    WORD,
    signed_names,
    snake_identifiers,
    stem,
    terms,
    word_terms,
)
from ragkit.rag.extractive.values import (
    asked_noun,
    asked_program,
    asked_qualifier,
    asks_document,
    asks_instance,
    asks_which,
    implied_default,
    value_question,
)

_VERB = 0.5  # weight of a how-to question's verb (its object says what it is about)
_PART = 0.3  # weight of a part of an identifier ("Docs" of "MkDocs"), beside the whole word's
_OWNER = 0.7  # weight of a possessive name ("Edith Carrow's brother": the brother is the subject)
_CONTEXT_BOOST = 0.5  # weight of a word carried over from an earlier question of the conversation
_GIVEN = 0.5  # weight of a word of the premise a question states before asking ("Since X is static, …")
#: a premise the question states before it asks: a "since/because/given that …," clause, or a
#: statement ended by a semicolon ("atomFamily is deprecated; what package …?")
_PREMISE = re.compile(r"^\W*(?:(?:since|because|given\s+that|now\s+that|as|besides|(?:apart|aside)\s+from|other\s+than|"
                      r"except(?:\s+for)?)\b[^,;?]{1,120}[,;]|[^,;?]{3,120};)",
                      re.IGNORECASE)
_IDENTIFIER_BOOST = 1.5  # weight of a snake_case identifier the question writes, whole (as a name's)
#: the words of a release's arrival ("Which release first shipped / introduced / added X?"): release
#: notes name X and the version, rarely the verb; every note says "release"
_ARRIVAL = frozenset(t for w in "first shipped introduced added arrived landed appeared released release version"
                     .split() for t in word_terms(w))
_ARRIVAL_WEIGHT = 0.5
_MEASURED_NOUN = 0.5  # weight of the quantity noun a number question asks for ("What *temperature* …?")
_LIST_NOUN = 0.5  # weight of the noun a list question counts ("the three *rules*"): the items need not say it

#: a question whose answer is a date or a number and nothing else: "On what date was …?", "When
#: did …?", "How many …?" ("When does the teardown run?" is answered by an event, "How often …?"
#: by "daily", "What date format …?" by a format)
SAYS_KIND = re.compile(
    r"^\W*(?:(?:on|in)\s+)?(?:what|which)\s+(?:date|year|day|month)\s+(?:is|was|were|did|does|do|will)\b"
    r"|^\W*when\s+(?:was|were|did|will)\b|\bhow\s+(?:many|much)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Query:
    kind: str | None  # the answer type: person, date, number, value (a default, a port, a version…), alias,
    # acronym or None
    howto: bool
    list_wanted: bool
    ordered: bool
    boosts: dict[str, float]  # content-word stem -> boost
    numbers: frozenset[str]  # the question's numbers (years, quantities): they scope it
    names: frozenset[str]  # the question's names (capitalised words, identifiers)
    quoted: frozenset[str]  # the stems of a title the question quotes
    defined: str | None  # the term a definition question asks about ("What is a scope?")
    words: frozenset[str]  # the question's words, lower-cased
    text: str = ""  # the question
    own: frozenset[str] = frozenset()  # the stems of the question's own words (not the conversation's,
    # nor the parts of an identifier: "MkDocs" counts once), for the share of it no passage has
    value_kind: str | None = None  # for a value question: port, version, path or None (any literal)
    default: bool = False  # the question asks for a default
    author: bool = False  # the question asks who wrote a document: the byline under its title
    action: str = ""  # a how-to question's verb, stemmed ("How do I add a remote?" -> "add")
    acronym: str = ""  # the acronym a question asks to expand ("What does IIFE stand for?")
    measure: str | None = None  # what a number is measured in: percent, money, rate (either) or None
    said: frozenset[str] = frozenset()  # what a value may not be: the question's words, identifiers whole
    # (the value of SESSION_COOKIE_NAME may be 'session': the identifier's parts are not said alone)
    type_noun: str = ""  # the noun a date or number question asks for ("the *total*", "which *year*"): a
    # label of the value it asks for ("TOTAL $821.14"), though no word to match elsewhere
    versions: frozenset[str] = frozenset()  # the dotted numbers the question writes ("Git 2.44"): whole
    asked_numbers: frozenset[str] = frozenset()  # those of its numbers the asking sentence writes: a
    # statement before it ("Our balancer drops idle connections after 60 seconds.") tells the case, which the answer need not
    numbered: frozenset[tuple[str, str]] = frozenset()  # the numbered names it writes ("Tier 2": ("tier", "2"))
    counted: str = ""  # the stem of the noun a "how many" question counts ("How many *heads*…?")
    counted_also: str = ""  # the noun before it, which documents may count instead ("8 defers" for "defer statements")
    counted_defined: bool = False  # the question writes that noun capitalised, a defined term ("How many Tech Leads …?")
    yes_no: bool = False  # the question is answered by yes or no ("Can I …?", "Does X support …?")
    obliged: bool = False  # it asks whether a thing is obliged ("Do I have to …?"): "optional" answers it
    state: str = ""  # the state a yes/no question asks about ("Am I *affected* …?"): "unaffected" answers it
    counted_given: bool = False  # some passage gives a number of it ("8 heads"): only such a unit is typed
    duration_given: bool = False  # "How long …?" and some passage gives a length of time: only a length is typed
    instance: bool = False  # "What charset does …?": no kind, but the answer names one thing, often a literal
    which: bool = False  # "Which agency handled …?": a form's field labelled with its noun may answer it
    document: bool = False  # "Which recipe can I make …?": the answer names its document by its title
    asked: str = ""  # the stem of the noun that names what is asked ("Which *university* …?"): an answer says it
    qualifier: str = ""  # the stem of the name that qualifies that noun ("Which *Rust* crate …?")
    form: str = ""  # the sentence that asks (``asked_part``): the question's form is read from it
    examples: frozenset[str] = frozenset()  # the stems of its illustrations ("…, like an interval?",
    # "takeLast(3)"): a passage need not say them to be about the question
    common: frozenset[str] = frozenset()  # for "Who …?": the stems of words the passages write in lower
    # case, which are no one's name ("Utility-Preserving Formulation" in a title)
    remedied: frozenset[str] = frozenset()  # the documents whose Cause or Solution section is among the
    # passages, set by the answerer for a question that states its case first (read by ``engine._remedy_first``)
    compounds: frozenset[str] = frozenset()  # its lower-case hyphenated names ("text-overflow"):
    # code naming a part of one ("`overflow`") and never it names another thing
    program: str = ""  # the program "Which diskutil command …?" names (``values.asked_program``), kept by the
    # answerer when some code of the passages runs it: code that does not is another program's


_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
#: the numbers a call is written with ("takeLast(3)", "retry(2, 5)"): an example's arguments, which
#: scope nothing a passage must say and weigh as any word
_CALL_ARGUMENTS = re.compile(r"(?<=[A-Za-z_])\(\s*-?\d+(?:\s*,\s*-?\d+)*\s*\)")
#: the end of a statement before the next sentence of a question: after a lower-case word, a number, a
#: closing bracket or an identifier in capitals ("… fails with ERR_PNPM_TARBALL_INTEGRITY. What …"),
#: not after an initial or an abbreviation's capital ("J. R. R. Tolkien", "the U.S. Army")
_SENTENCE_END = re.compile(r"(?:(?<=[a-z0-9)][.!])|(?<=[A-Z0-9_]{3}[.!]))\s+(?=[A-Z])")
#: how a question opens: a question word or an auxiliary verb, perhaps after a preposition
_ASKS = re.compile(
    r"(?:(?:in|on|at|from|for|to|by|with|since|and|so|but|then|under|into|through|after|before|of|about|within|"
    r"during|over|via|against|between|across|onto|upon|toward|towards)\s+)?"
    r"(?:how|what|which|who|whom|whose|when|where|why|am|can|could|do|does|did|is|are|was|were|should|will|would|may|must|has|have)\b",
    re.IGNORECASE)


def _owners(words: list[str]) -> set[int]:
    """Positions of a possessive name ("Edith Carrow's" brother): it sets the scene, the noun
    after it is what the question is about, so it is not boosted as a name."""
    out: set[int] = set()
    for i, w in enumerate(words):
        if w[0].isupper() and w.lower().endswith(("'s", "’s")):
            j = i
            while j >= 1 and words[j][0].isupper() and j not in out:
                out.add(j)
                j -= 1
    return out


def _howto_verb(words: list[str]) -> int:
    """The position of a how-to question's verb ("How do I *read* a cookie?", "how to *add* …"):
    documentation names the task's object, not always its verb ("declare a cookie parameter")."""
    for i, w in enumerate(words[:-1]):
        if w.lower() in ("i", "we", "you", "to") and i + 1 < len(words) and words[i + 1][0].islower():
            return i + 1
    return -1


# phrases in which "time" is no time: "one at a time" (in turn), "at the same time" (together)
_IDIOM = re.compile(r"\b(?:at\s+(?:a|the\s+same|(?:any\s+)?one|any)|from\s+time\s+to|all\s+the)\s+time\b", re.IGNORECASE)
#: ... nor "one" a number in "at one time" ("How many credit hours can I have at one time?": at once)
_AT_ONCE = re.compile(r"at\s+(?:any\s+)?one\s+time", re.IGNORECASE)


def _idiom_words(m: re.Match[str]) -> str:
    """An idiom's words that keep their meaning: "at one time" none, "one at a time" its "one"."""
    return "at" if _AT_ONCE.fullmatch(m.group()) else m.group().rsplit(None, 1)[0]


#: the end of a sentence and the start of the next: ". ", "? ", "! " (closing and opening quotes or brackets)
_SENTENCE_BREAK = re.compile(r"[.!?][\"')\]’”]*\s+[\"'(\[‘“]*")


def _question_terms(question: str, form: str, drop: frozenset[str]) -> tuple[dict[str, float], set[str]]:
    """Boost factors (numbers and quoted words x2, capitalised names not opening a sentence of it
    x1.5, possessive ones x0.7, a how-to question's verb x0.5, else 1; a snake_case identifier
    whole x1.5, its words as parts; the verb is read in ``form``, the sentence that asks) and the name-like stems
    (not short acronyms such as CSS or API: documentation often spells those out). Words in ``drop`` (the answer-type noun, "which *year*") are not matched:
    they name what the answer is, not what it is about."""
    boosts: dict[str, float] = {}
    names: set[str] = set()
    quoted = {w.lower() for q in _QUOTED.findall(question) for w in WORD.findall(q)}
    text = _IDIOM.sub(_idiom_words, question)
    tokens = list(WORD.finditer(text))
    words = [m.group() for m in tokens]
    spans = [m.span() for m in SNAKE.finditer(text)]
    arguments = [m.span() for m in _CALL_ARGUMENTS.finditer(text)]
    parts = {i for i, m in enumerate(tokens) if any(a <= m.start() < b for a, b in spans)}
    premise = _PREMISE.match(text)
    given = {i for i, m in enumerate(tokens) if premise and m.start() < premise.end()}
    owner = _owners(words)
    lowered = {w for w in words if w.islower()}
    # the first word of each sentence is capitalised as a sentence's first word is, as the question's
    # own first word is: "I applied … but was not chosen. According to the notice, what …?"
    starts = {m.end() for m in _SENTENCE_BREAK.finditer(text)}
    openers = {i for i, m in enumerate(tokens) if m.start() in starts}
    asking = WORD.findall(_IDIOM.sub(_idiom_words, form))  # the asking sentence's verb
    at = _howto_verb(asking) if is_howto(form) else -1
    verb = len(words) - len(asking) + at if at >= 0 else -1
    for i, raw in enumerate(words):
        if raw.lower() in drop:
            continue
        digit = any(c.isdigit() for c in raw) and not any(a <= tokens[i].start() < b for a, b in arguments)
        # a capital the question also writes in lower case marks no name ("treats 'Apple' and 'apple' as
        # different": two spellings of an example)
        name = (i > 0 and i not in openers and raw[0].isupper() and raw.lower() not in lowered
                or any(c.isupper() for c in raw[1:]))
        for k, key in enumerate(word_terms(raw)):
            boost = (2.0 if digit or raw.lower() in quoted else _OWNER if i in owner else 1.5 if name
                     else _VERB if i == verb else 1.0) * (_PART if k or i in parts else 1.0) * (
                         _GIVEN if i in given else 1.0)
            boosts[key] = max(boosts.get(key, 0.0), boost)
            if name and not digit and k == 0 and len(key) > 2 and not (raw.isupper() and len(raw) <= 4):
                names.add(key)
    for key in snake_identifiers(text):  # ``NO_COLOR`` whole (its words count as parts): a name only
        boosts[key] = max(boosts.get(key, 0.0), _IDENTIFIER_BOOST)  # a passage that writes it holds
        names.add(key)
    for key in signed_names(text):  # "C#", "C++": a name, as a capitalised word is
        boosts[key] = max(boosts.get(key, 0.0), 1.5)
        names.add(key)
    return boosts, names


def _action(question: str) -> str:
    words = WORD.findall(question)
    verb = _howto_verb(words) if is_howto(question) else -1
    return next(iter(word_terms(words[verb])), "") if verb >= 0 else ""


def asked_part(question: str) -> str:
    """The sentence that asks, when statements come first ("My site is in Hebrew and WP-CLI
    prints translated messages. How can I force English?"): what is asked for (a how-to, a list,
    a date) is read from it; the words of the whole question still count. The question itself
    when it is one sentence, or when its last part does not open as a question does ("… Knowles
    v. Mirzayance?")."""
    parts = _SENTENCE_END.split(question.strip())
    last = parts[-1]
    return last if len(parts) > 1 and _opens_question(last) else question


#: a short phrase and its comma before a question word: "By default, how often …?", "In practice, which …?"
_LEADING_PHRASE = re.compile(r"[A-Z][\w'’-]*(?:\s+[\w'’-]+){0,3},\s+")


def _opens_question(text: str) -> bool:
    """Whether ``text`` opens as a question does: with a question word or an auxiliary verb, perhaps
    after a short phrase and its comma ("By default, how often does …?") or a case it states
    first ("After I log in to the node, which command …?")."""
    if _ASKS.match(text) or _ASKS.match(without_case(text)):
        return True
    lead = _LEADING_PHRASE.match(text)
    return lead is not None and _ASKS.match(text, lead.end()) is not None


#: "What is X called …?" asks for a name: "called" says how the answer is asked for, not what about
_CALLED = re.compile(r"^\W*what(?:'s|’s|\s+is|\s+was|\s+are|\s+were)\s+.+\bcalled\b", re.IGNORECASE)


def read_question(question: str, context: str = "") -> Query:
    form = asked_part(question)  # what is asked for is read from the sentence that asks
    kind, type_nouns = answer_type(form)
    author = asks_author(form)
    if author:  # "Who wrote the Raft paper?": "wrote" and "paper" name the relation, not the subject
        type_nouns = type_nouns | AUTHORSHIP_WORDS
    if naming := naming_kind(form):  # "What is another name for …?", "What does OpenStack call …?":
        kind, type_nouns = naming[0], type_nouns | naming[1]  # the sentence that names it
    acronym = asked_acronym(form)
    if acronym:  # "What does IIFE stand for?" wants the words its letters begin
        kind, type_nouns = "acronym", type_nouns | ACRONYM_WORDS
    # "To keep X, which command …?" asks for a name; "If I don't configure anything, how old …?" for a default
    value, value_kind = value_question(form)
    if not value:
        value, value_kind = value_question(without_case(form))
    if value and kind in (None, "number", "date"):  # "What is the default lease time?" wants 12s, not a date
        kind, type_nouns = "value", frozenset({value_kind} if value_kind else {"value", "values"})
    unset = implied_default(form)  # "unless I change it": a default asked for, no subject
    type_nouns = type_nouns | {w.lower() for w in WORD.findall(unset)}
    type_nouns = type_nouns | definition_frame(form)  # "How does the book define …?": "book" is not its subject
    listed, ordered = wants_list(form)
    _, count_word, list_noun = list_count(form) if listed else (None, "", "")
    drop = type_nouns | ({count_word} if count_word else frozenset()) | ({"called"} if _CALLED.match(form) else frozenset())
    boosts, names = _question_terms(question, form, drop)
    for t in word_terms(list_noun) if list_noun else []:
        boosts[t] = boosts.get(t, 1.0) * _LIST_NOUN
    for noun in type_nouns & MEASURED_NOUNS if kind == "number" else ():  # "What *temperature* range …?"
        for t in word_terms(noun):
            boosts.setdefault(t, _MEASURED_NOUN)
    if value_kind == "version":  # "Which release first *shipped* generics?": notes say "Go 1.18 includes …"
        for t in _ARRIVAL & boosts.keys():
            boosts[t] *= _ARRIVAL_WEIGHT
    own = frozenset(boosts) - {p for raw in WORD.findall(question) for p in word_terms(raw)[1:]}
    for t in terms(context):
        boosts.setdefault(t, _CONTEXT_BOOST)
    counted = counted_noun(form) if kind == "number" else ""
    return Query(
        kind, is_howto(form), listed, ordered, boosts,
        _numbers(_DOTTED.sub(" ", question), boosts), frozenset(names),
        frozenset(t for q in _QUOTED.findall(question) for t in terms(q)), defined_term(form),
        frozenset(w.lower() for w in WORD.findall(question)),
        text=question, form=form, own=own, value_kind=value_kind, author=author, action=_action(form),
        default=bool(re.search(r"\bdefault", question, re.IGNORECASE) or unset), said=said_words(question),
        measure=quantity_measure(form) if kind == "number" else None, acronym=acronym,
        type_noun=next(iter(type_nouns)) if kind in ("number", "date") and len(type_nouns) == 1 else "",
        versions=dotted_numbers(question), asked_numbers=_numbers(_DOTTED.sub(" ", form), boosts), numbered=numbered_names(question), counted=counted,
        counted_also=counted_modifier(form) if kind == "number" else "",
        counted_defined=_counts_defined(form, counted),
        yes_no=asks_yes_no(form), obliged=asks_obligation(form), state=asked_state(form), instance=kind is None and asks_instance(form), which=asks_which(without_case(form)), document=asks_document(without_case(form)),
        asked=next(iter(word_terms(asked_noun(without_case(form)))), ""),
        qualifier=next(iter(word_terms(asked_qualifier(form))), ""),
        examples=_examples(question), program=asked_program(form), compounds=hyphen_compounds(question),
    )


def _counts_defined(form: str, counted: str) -> bool:
    """Whether ``counted``, the noun a "How many …?" question counts, is written capitalised in it: a
    defined term, which a passage may count so ("2 or 3 Tech Leads")."""
    return bool(counted) and any(w[0].isupper() and stem(w) == counted for w in WORD.findall(form))


_DOTTED = re.compile(r"(?<![\d.])\d+(?:\.\d+)+(?![\d]|\.\d)")


def dotted_numbers(text: str) -> frozenset[str]:
    """The dotted numbers of ``text``, whole ("2.44" in "Git 2.44", "2.44.3" in "v2.44.3"): a
    version, a section. The words of "2.44" are "2" and "44", which "v2.44.3" also has."""
    return frozenset(_DOTTED.findall(text))


#: a name followed by its number: "Tier 2", "Phase 3", "RFC 6585", "Python 3" (not a dotted version,
#: which ``dotted_numbers`` reads, nor a count: "uses 3 workers")
_NUMBERED = re.compile(
    r"\b((?-i:[A-Z][A-Za-z]+)|tier|level|phase|step|stage|chapter|section|part|round|rule|article|appendix|figure|"
    r"table|exercise|lecture|lesson|module|milestone|grade|class|category|priority|severity)\s+#?(\d{1,5})(?![\d.:/-]|,\d)"
    # "Windows 7 and later" numbers every later one too
    r"(?P<on>\+|\s+(?:and|or)\s+(?:later|newer|above|higher|up|greater))?",
    re.IGNORECASE,
)


#: a name numbered in Roman numerals of two letters or more: "MIMIC-III", "MIMIC-IV", "Part II"
#: (not "I" or "V", which are words and letters too)
_ROMAN_NUMBERED = re.compile(r"\b([A-Z][A-Za-z]+)[-\s](II|III|IV|VI|VII|VIII|IX|XI|XII)\b")
_ROMAN = {"II": "2", "III": "3", "IV": "4", "VI": "6", "VII": "7", "VIII": "8", "IX": "9", "XI": "11", "XII": "12"}


def numbered_names(text: str) -> frozenset[tuple[str, str]]:
    """The numbered names ``text`` writes, lower-cased with their numbers ("Tier 2" -> ("tier",
    "2"), "MIMIC-IV" -> ("mimic", "4")); a stopword before a number names nothing ("In 2024")."""
    return _names_of(_NUMBERED.finditer(text)) | _roman_names(text)


def _names_of(matches: Iterable[re.Match[str]]) -> frozenset[tuple[str, str]]:
    return frozenset((m.group(1).lower(), m.group(2)) for m in matches if m.group(1).lower() not in _NOT_NUMBERED)


#: words a number after them does not name: a stopword ("In 2024"), a month ("June 2020" is a date,
#: and "on June 8, 2020" no other June)
_NOT_NUMBERED = STOPWORDS | frozenset(MONTH_NAMES) | ABBREVIATIONS.keys()


def _roman_names(text: str) -> frozenset[tuple[str, str]]:
    return frozenset((m.group(1).lower(), _ROMAN[m.group(2)]) for m in _ROMAN_NUMBERED.finditer(text)
                     if m.group(1).lower() not in _NOT_NUMBERED)


def another_numbered(text: str, numbered: frozenset[tuple[str, str]]) -> bool:
    """Whether ``text`` numbers one of the question's names otherwise and never as the question
    does: "uv has Tier 1 support" is about another tier than "Tier 2"; not a text that numbers
    a range ("Windows 7 and later", "Python 3+")."""
    if not numbered:
        return False
    matches = list(_NUMBERED.finditer(text))
    if any(m.group("on") for m in matches):
        return False  # "Windows 7 and later" may be about Windows 10
    found = _names_of(matches) | _roman_names(text)
    names = {name for name, _ in numbered}
    return any(name in names for name, _ in found) and not (found & numbered)


_COMPOUND = re.compile(r"(?<![\w-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")


def hyphen_compounds(question: str) -> frozenset[str]:
    """The lower-case hyphenated names the question writes ("the text-overflow style")."""
    return frozenset(_COMPOUND.findall(question))


def another_compound(text: str, compounds: frozenset[str], headings: tuple[str, ...] = ()) -> int:
    """How many ways ``text`` is about a part of one of the question's hyphenated names rather than
    the name, when neither it nor its ``headings`` write the name: it names the part in code ("The
    style `overflow` accepts two values"), and one of its headings (its section's, its document's
    title) is the part ("Overflow"); 0, 1 or 2. Both are about another style than "text-overflow"."""
    if not compounds:
        return 0
    lower = " ".join((text, *headings)).lower()
    spans = {span.strip("`").strip().lower() for span in CODE_SPAN.findall(text)}
    titles = {h.strip().strip("`").strip().lower() for h in headings}
    found = 0
    for compound in compounds:
        if compound in lower or compound.replace("-", "_") in lower:
            continue
        parts = compound.split("-")
        pieces = {"-".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)} - {compound}
        found = max(found, bool(spans & pieces) + bool(titles & pieces))
    return found


#: an illustration that closes a clause: "…, like an interval?", "…, such as GitHub or GitLab."
_ILLUSTRATION = re.compile(r",\s*(?:like|such\s+as|e\.g\.|for\s+example|for\s+instance)\s+([^,;?!]+)", re.IGNORECASE)


def _examples(question: str) -> frozenset[str]:
    """The stems of the words that illustrate the question rather than say what it is about: a
    closing "…, like an interval" or "…, such as X", and a call's numbers ("takeLast(3)")."""
    found = [m.group(1) for m in _ILLUSTRATION.finditer(question)]
    found += [m.group() for m in _CALL_ARGUMENTS.finditer(question)]
    return frozenset(t for text in found for t in terms(text))


def _numbers(question: str, boosts: dict[str, float]) -> frozenset[str]:
    """The numbers the question writes in digits (a year, a quantity): they scope it. A number
    word ("one at a time", "which one") matches digits but scopes nothing; a dotted number
    ("3.13", which a passage may write "v3.13") scopes it whole (``dotted_numbers``)."""
    question = _CALL_ARGUMENTS.sub(" ", question)  # "takeLast(3)": an example's argument
    written = {t for raw in WORD.findall(question) if any(c.isdigit() for c in raw) for t in word_terms(raw)}
    return frozenset(t for t in boosts if t.isdigit() and t in written)


_IDENTIFIER = re.compile(r"\b[A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)+\b")


def said_words(question: str) -> frozenset[str]:
    """The question's words, lower-cased, with each identifier (``SESSION_COOKIE_NAME``,
    ``flask.session``) kept whole instead of as its parts."""
    idents = [m.group().lower() for m in _IDENTIFIER.finditer(question)]
    return frozenset(w.lower() for w in WORD.findall(_IDENTIFIER.sub(" ", question))) | frozenset(idents)


#: a question that asks for a name: "What is the name of …?", "What's X called?", "What name …?"
ASKS_NAME = re.compile(r"^\W*what(?:'s|’s|\s+is|\s+was|\s+are|\s+were)\s+the\s+names?\s+of\b"
                       r"|^\W*what(?:'s|’s|\s+is|\s+was|\s+are|\s+were)\s+(?:[\w'’.-]+\s+){1,6}?called\s*\?"
                       r"|^\W*what\s+names?\b", re.IGNORECASE)


__all__ = ["ASKS_NAME", "Query", "asked_part", "dotted_numbers", "read_question", "said_words"]
