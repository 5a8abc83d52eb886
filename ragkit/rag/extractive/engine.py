"""The offline extractive answer engine: the best sentences of the retrieved passages, cited.

Passages (``ragkit.rag.passages.Passage``, from the search tool's structured citations) are parsed
into blocks (``ragkit.rag.extractive.text``: prose sentences, list items, table rows, headings and
code blocks, markup removed). Each sentence is scored by the IDF-weighted share of the question's
content words (stopwords removed, light suffix stemming; numbers and capitalised names weigh more)
it covers, with part credit by proximity: a word found in the sentence's section heading counts
0.7, in a neighbouring sentence of the same section 0.5, elsewhere in the passage or in another
retrieved passage of the same document 0.3 (a question's numbers count in full: they scope the
passage; its names 0.7: a passage about "Edith Carrow" says "her brother"). Words carried over from an earlier
question of the conversation weigh half. An acronym a document spells out ("compound annual growth
rate (CAGR)") says its words in every sentence of the document's passages that writes it
(``ragkit.rag.extractive.acronyms``). The score is then weighed by:

- *answer type* (``ragkit.rag.extractive.answer_type``): a who/when/how-many question wants a
  person, a date (or a point counted in units: "at the 3-month mark") or a quantity (a word that
  starts with a digit, not "S3"; a share a percentage, a price or a fee an amount of money), and
  "What does IIFE stand for?" the words its letters begin ("Immediately Invoked Function
  Expression"); "How many characters…?" a number of characters ("70 characters") and "How long
  is a meet-up?" a measure that ends with "long" ("1 week long"), when some passage gives one
  (then a sentence with only another number is not of the kind, and one with it counts half
  again); a
  sentence with none that is new (not in the question) counts
  half. For such a question a heading that holds the answer ("Tern 1.3.0 (released 18 November
  2024)") is a candidate too. The noun such a question asks for ("What was the *total* paid?")
  is no word to match, but a unit that labels a value with it ("TOTAL $821.14", "Commission %:
  10%") counts it as matched, and is a candidate in a document the question names whatever
  else it shares (the shop's name is on another part of the receipt). A table row is typed by
  its cells, not its column labels (a label names what the cells are);
- a sentence that is itself a question (a quoted one, a FAQ heading) counts half, and so does
  one not about the title the question quotes ("When was "Winter Sluice" written?") or about a
  name the question gives that heads another section of the passage (another poem's date; a
  figure's labels that a PDF's text layer gives line by line, "Job 1", "master", head none);
- a sentence that defines the term a "What is X?" / "What does X do?" question asks about ("X is …",
  "X, which measures …", "X that merges …", "X: …") counts a fifth more;
- *documentation*: a question that asks for a value (``ragkit.rag.extractive.values``:
  a default, a port, a version) wants a sentence that states one ("Default: True", "defaults to
  5"; for a port, a host:port address counts more), and then a line of a console block may answer
  ("Serving on http://127.0.0.1:8080", a little less than prose); a unit under the heading the
  question names (``dev_addr``, ``PERMANENT_SESSION_LIFETIME``) counts half again; one on a page
  whose title it names ("Waitress") a fifth more, and such a value is a candidate whatever else
  it shares; a change under a release's heading holds the version a "Which release…?" question
  asks for (the heading is quoted before it: "2.4.0 (March 2025): Drop Python 3.8 support"), and
  a short line ending with a colon the value of the code block it introduces ("Default:", a
  literal block); a how-to's description line that a command follows ("- Add a remote:" and
  "`git remote add …`") counts more, the more when it opens with the question's verb, and the
  command's words count for it as its heading's would ("Save the script somewhere:" before the
  ``zsh_source`` command, for "I use zsh. What command …?"; not for a yes/no question); "Who wrote the X paper?" (or "Who is its first
  author?") is answered by the byline under a document's title; a form's field labelled with the
  question's words ("Prepared By: …" for "Who prepared the report?", ``ragkit.rag.extractive.fields``)
  that holds the kind asked for is a candidate whatever else it shares, and counts double (so is a
  field a "Which NOUN …?" question's noun labels: "Agency: …" for "Which agency handled …?"); a
  small tie-break prefers the question's very words ("all");
- *retrieval rank*: a little, so a strong match in a later passage still wins.

Two questions asked as one ("How many …, and how long …?", ``parts.question_parts``) are answered
as one, and then the best sentence of each part asked alone (the second with the first as its
context) is added when the answer does not quote it, one sentence more than a question gets at
most: the whole question's sentence often answers its first part only.

For a yes/no, a why, an "If …, what …?" or a "Which … should I use instead?" question two
neighbouring sentences of a paragraph are also scored as one candidate
(``ragkit.rag.extractive.reasons``): the second often carries the fact ("… removes color only.
Styles such as bold are preserved."; a claim, then the sentence that explains it; the general
rule, then the case; what does not work, then the alternative). For a yes/no question a sentence that says no ("does
not support", "cannot") counts a little more. A snake_case identifier the question writes
(``NO_COLOR``) is a name whole, and its words count as its parts.

A unit that holds the kind of answer asked for counts its neighbours' matched words as shared
("… the collection of tweets by Marta Quell" after the sentence that says what the guide is), and
when the best candidate holds none, a close one of its section that does is quoted first
("Default: '§'" beside the setting's description; for a "Which …?" question, one that names a thing:
"`SIGTTIN`: …" under "… by sending specific signals …"); failing that, the best is read on through its
paragraph, two sentences at most, to one that holds it (for a "What/Which NOUN …?" question, a
literal: the best says the case, "… if no explicit charset is present …", the next the value; for a
how-to question, the code written inline: "… rather than …", then "In this case you should use `…`").
Those reorderings are ``ragkit.rag.extractive.leading``'s; whether a unit holds the kind asked
for, names a thing or says the noun asked for, ``ragkit.rag.extractive.holds``'s.

The answer is composed by ``ragkit.rag.extractive.compose``: the best 1-3 sentences each followed
by its ``[n]`` marker; a whole list when the question asks for one or the best sentence introduces
one (not another passage's list when the best sentence writes the items out as a series); for a how-to question, the code block of the best sentence's section. It says the knowledge
base has no answer when no sentence shares enough meaningful content with the question, when a
number, a version (read whole: "2.44" is not "v2.44.3"; "Gammapy 3.0" is not in notes that write 3.0
only after another name, "Astropy 3.0"; a release notes file's name writes its release, its text
need not: ``release-notes-0.16.1.md``), a code or an acronym (``wasm32-wasi``,
NATS: the retriever's exact-match side finds one if any document writes it) or a name the
question is about appears in none of the passages, or when most of the
question's weight is in words no passage has, or when the passage of every candidate (with its
document's other retrieved passages) lacks half of the question's words (boost-weighted, the
words of a sentence that sets the scene before the asking one at half weight; not for
a value question, whose line may say none of them, nor for a question that asks two things, each
part of which another document may answer), or when a question that asks for a kind of answer
(a person, a date, a number, a value) is best answered by a sentence with nothing of that kind
whose own words, neighbours and headings lack 30 % of the question's weight, or when a price, a
share or a rate is asked for and no passage gives an amount of money or a percentage; a question
that only a date or a number answers ("On what date was …?", "How many …?") is refused when the
answer quotes neither (``lacks_asked_kind``, which the ``local`` provider applies to its last answer), and
one that names what it asks for ("Which *university* …?", "What is the maximum *size* …?", "How
many stock *options* …?", ``values.asked_noun``) is refused when neither the answer nor the best
sentence's section, neighbours and headings say that noun, and a "Which …?" answer names no thing
of its own (a name, a literal): it answers another question of the same passage ("10 bonus
shares" for a new hire's stock options). A value asked for need not say the noun when its passage
holds all the question's other words ("Default: 2048" on the backlog's line, for its "size"). A question that names something found in some
passages is answered only from the documents that mention it ("What is the price of a Chubby
license?" is not answered by another paper's sentence about licence prices). "Who wrote the X
paper?" is also answered from a retrieved paper's ``authors`` metadata (its byline, found by the
PDF loader), whether or not its first page is among the passages; "What are the column headers of X?" by
the labels of the cells of the best-ranked table's rows; "Who wrote the foreword of X?" by
the signature that ends a passage (a name line after the last sentence), or that makes up a
passage starting inside its document (the splitter cut it from its prose); a sentence of a reference list
(``references`` metadata) counts half.

With ``similarity`` (how near in meaning sentences are to the question: the knowledge base's own
embedding model, ``ragkit.rag.similarity``), a free-form question's best twelve candidates are
also weighed by meaning (``_by_meaning``), and before a refusal for want of a sentence the one
nearest in meaning that holds the number or date asked for (or any, for a question of no kind
but a how-to)
answers when it is near enough (``_nearest_of_kind``). Before a refusal because the best sentence
holds no value, date or number and leaves part of the question unmet, a candidate that holds one
and scores at least 0.7 of it answers instead, from any passage, unless it is about another
release than the question's ("1 hour" on a parameter's line ranked far below the pool's
description). Every refusal logs its reason.

A version note alone ("Changed in version 23.3.", "New in version 1.1.") is never quoted: it
dates the sentence after it, which its neighbour's credit reaches.

Passage text is data: nothing in it is ever followed as an instruction; the only thing text can
do is be quoted if it is relevant to the question.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import PurePosixPath

from ragkit.loaders.base import CODE_EXTENSIONS
from ragkit.markdown_tables import CODE_SPAN, TABLE_HEADER
from ragkit.month_names import MONTH_NAMES
from ragkit.rag.extractive.acronyms import acronyms_in, with_defined
from ragkit.rag.extractive.answer_type import (
    asks_columns,
    asks_comparison,
    asks_conditional,
    asks_frequency,
    asks_mechanism,
    asks_replacement,
    asks_why,
    counts,
    defines,
    has_answer_type,
    in_measure,
    negates,
    says_duration,
    says_obligation,
    says_size,
    says_state,
    states_rule,
)
from ragkit.rag.extractive.compose import BACK_REFERENCE, columns_answer, compose
from ragkit.rag.extractive.fields import field_line, fills_field, signed_line
from ragkit.rag.extractive.holds import (
    counts_asked,
    holds_kind,
    names_any,
    names_thing,
    prefix_match,
    says,
)
from ragkit.rag.extractive.leading import (
    asking_words_first,
    close_typed,
    identifier_first,
    put_first,
    read_on,
    reason_first,
    typed_first,
)
from ragkit.rag.extractive.parts import QUESTION_WORD, question_parts
from ragkit.rag.extractive.query import (
    ASKS_NAME,
    SAYS_KIND,
    Query,
    another_compound,
    another_numbered,
    asked_part,
    dotted_numbers,
    read_question,
)
from ragkit.rag.extractive.reasons import advises, sentence_pairs
from ragkit.rag.extractive.releases import (
    another_file_release,
    another_release,
    anothers_releases,
    asked_product,
    asks_release,
    file_date,
    file_releases,
    first_release_numbered,
    of_product,
    product_releases,
    releases_of,
    same_release,
    under_release,
)
from ragkit.rag.extractive.text import (
    MONTHS,
    NUMBER,
    STOPWORDS,
    WORD,
    Block,
    code_lines,
    doer_verbs,
    is_sentence,
    parse_blocks,
    snake_identifiers,
    split_prose,
    stem,
    terms,
    word_terms,
)
from ragkit.rag.extractive.units import Candidate, Unit, last_position
from ragkit.rag.extractive.values import (
    declares_default,
    named_heading,
    runs_program,
    says_unset_default,
    serves_address,
    writes_new_identifier,
)
from ragkit.rag.passages import Passage

log = logging.getLogger(__name__)

REFUSAL = "The knowledge base does not contain an answer to this question."
#: how near in meaning each text is to the question (cosine similarities, the embedding model's)
Similarity = Callable[[str, Sequence[str]], Sequence[float]]
# sentences addressed to an AI rather than stating facts are never quoted as answers
_INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override)\b[^.]{0,60}\b(instructions?|prompts?|rules|guidelines)\b"
    r"|\b(system prompt|you are now|as an ai)\b",
    re.IGNORECASE,
)

_TYPE_MISS = 0.5  # score factor for a sentence without the kind of answer the question asks for
_QUESTION = 0.5  # ... for a sentence that is itself a question
_UNQUOTED = 0.5  # ... for one not about the title the question quotes ("Winter Sluice") or names
_RANK_DECAY = 0.03  # per retrieval rank: prefer better-ranked passages; a strong later match still wins
_SECTION = 0.7  # credit for a question word found in the sentence's section heading
_NEAR = 0.5  # ... in a neighbouring sentence of the same section
_SCOPE = 0.3  # ... elsewhere in the passage (a question's numbers count in full: they scope it)
_RESTATES = 0.7  # score factor for a sentence with no word beyond the question's and its heading's
_COUNTED = 1.5  # ... for one that gives a number of what a "how many" question counts ("70 characters")
#: a sentence that points back at the one before with "This" or "That" ("This can be done by setting
#: `mode=True`.") is matched with that sentence's words as well: compose quotes the two together
#: (``_antecedent``). Not "It …": its "it" is as often a noun of its own sentence's before
_BACK_WORDS = True
_LONG = "long"  # what "How long …?" counts (``counted_noun``): a length of time, unless a passage says "N … long"
#: what "How many people …?" counts: a number of people, which a passage that answers says with the
#: noun ("about 300 attendees"); a day of the month or a session's length counts no one
_PEOPLE_COUNTED = frozenset(stem(w) for w in "people persons attendees participants delegates visitors registrants".split())
#: the nouns a number of people is said with ("11 contributors", "about 300 attendees"), read by
#: ``answer_type.counts`` as any count is
_PEOPLE_NOUNS = frozenset(stem(w) for w in "people persons attendees participants delegates visitors registrants "
                          "contributors volunteers respondents".split())
#: a question that asks how long, and no amount or count with it ("How much salt …, and how long …?")
_ASKS_HOW_LONG = re.compile(r"^(?!.*\bhow\s+(?:much|many)\b).*\bhow\s+long\b", re.IGNORECASE | re.DOTALL)
_DEFINES = 1.2  # score factor for a sentence that defines what a "What is X?" question asks about
_NAMED = 1.5  # ... for one under the heading the question names ("dev_addr")
_NAMED_PAGE = 1.2  # ... for one on the page whose title the question names ("Waitress")
_LEADS_CODE = 1.3  # ... for a how-to's description line that a code block follows ("Add a remote:")
_NAMES_THING = 1.3  # ... for one that names a thing the question does not, for "Which organisations …?"
_NEGATES = 1.15  # ... for one that says no, for a yes/no question ("does not support", "cannot")
_OBLIGES = 1.3  # ... for one that says whether a thing is obliged, for a question that asks it ("optional")
_STATES = 1.3  # ... for one that says the state a yes/no question asks about ("unaffected" for "Am I affected …?")
_SURFACE = 0.02  # ... per word the unit shares with the question as written (at most five)
# the stopwords that carry no distinction between two answers (unlike "all", "latest", "only", "not")
_FUNCTION_WORDS = STOPWORDS - frozenset(
    "all any both each few more most no nor not only other same some before after above below off on out over "
    "under up down again further once".split()
)
_BYLINE = 2.0  # ... for the names under a document's title, for "Who wrote the Raft paper?"
_FIELD_FIT = 2.0  # ... for a form's field labelled with the question's words ("Prepared By: Sarah Quill")
_OTHER_RELEASE = 0.5  # ... for a sentence that names another release than the one the question names
#: a bibliographic entry: "Slatkin, M. Ecological character displacement. Ecology 61, 163–177 (1980)."
#: (its number first, perhaps), or the journal, volume and pages it ends with ("Ecology 61, 163–177
#: (1980)."); not "Smith, J. (2010) showed …", a sentence that cites
_REFERENCE_ENTRY = re.compile(r"(?:\[?\d{1,3}[.\]]\s+)?[A-Z][\w'’-]+,\s+(?:[A-Z]\.\s*){1,3}(?:(?:,|&|and)\s+[^()]{0,80})?"
                              r"[A-Z][^()]{10,200}\((?:1[89]|20)\d\d\)"
                              r"|[A-Z][\w.&' -]{0,60}\s\d{1,4},\s*[A-Za-z]?\d{1,6}(?:[–-][A-Za-z]?\d{1,6})?\s*\((?:1[89]|20)\d\d\)")
#: a troubleshooting article's sections: those that say what goes wrong (a question that states its
#: case says it already) and those that say why and what to do
_SYMPTOM_HEADING = re.compile(r"(?:the\s+)?(?:issues?|symptoms?|problems?|steps\s+to\s+reproduce|(?:expected|actual)\s+"
                              r"(?:results?|behaviou?rs?)|error\s+messages?)", re.IGNORECASE)
_REMEDY_HEADING = re.compile(r"(?:the\s+)?(?:causes?|solutions?|workarounds?|fix(?:es)?|resolutions?|remed(?:y|ies)|"
                             r"how\s+to\s+fix(?:\s+it)?)", re.IGNORECASE)
#: a sentence about its own document ("This article provides an explanation and fix for …")
_ABOUT_DOCUMENT = re.compile(r"(?:this|the\s+following)\s+(?:article|document|page|guide|topic|section|tutorial|post|"
                             r"chapter|note)\s+(?:provides|describes|explains|covers|shows|contains|gives|lists|discusses|"
                             r"is\s+about|will\s+(?:show|explain|describe|cover|help))\b", re.IGNORECASE)
_REFERENCE_LIST = 0.5  # ... for a sentence of a paper's reference list (``references`` metadata)
_OPENING_LINES = 4  # a document's byline is among its first lines
_SIGNATURE_LINES = 5  # ... a foreword's or a letter's signature: a name and a few lines of role at its end
_OPENING_WORDS = 8  # ... each a short line
_ADDRESS = 1.3  # ... for a host:port address, for a question about a port ("bind to port 80" is not one)
_OTHER_PROGRAM = 0.5  # ... for code that runs no program of the one "Which diskutil command …?" names
_LINE = 0.7  # ... for a line of a code block that holds the value asked for (prose that says it first)
_PRODUCT_RELEASE = 1.3  # ... for a release written after the product whose version is asked for ("Kotlin 2.0.20")
_HOWTO_IDF_FLOOR = 0.7  # a how-to question's words weigh at least this share of the rarest's
_MISSING = 0.7  # refuse when words found in no passage carry this share of the question's weight
_OFF_TOPIC = 0.3  # ... or this share with a name the question is about among them
_SCENE = 0.5  # the weight of a scene-setting sentence's words in ``_unsupported_share``
_UNSUPPORTED = 0.5  # a sentence is no answer when its passage and document lack this share of the question
_SHARED_NAME = 0.5  # a name more than this share of the retrieved documents say is the collection's own ...
_SHARED_NAME_DOCUMENTS = 3  # ... when they are at least this many
#: a question that asks two things ("Which magic times a statement, and how are snippets wrapped?",
#: "Can I pass a charset? Which character set does it use?"): each part may be answered by another
#: document, so no one passage need hold half of it
_COMPOUND = re.compile(rf"\band\s+{QUESTION_WORD}\b|\?\s+\S[^?]*\?", re.IGNORECASE)
#: the end of a quoted sentence (or list, or code block's lead) in an answer: its ``[n]`` marker
_MARKER_END = re.compile(r"\[\d+\](?=\s|$)")
_MARKERS = re.compile(r"\s*\[\d+\](?=\s|$)")  # an answer's citation markers, with the space before each
_FOLD_WORDS = 4  # a part's sentence of at least this many words, quoted already, gets only its label
_MARKER = re.compile(r"\[\d+\]")
#: a version note alone ("Changed in version 23.3.", "New in version 1.1."): it dates the text
#: after it, and says nothing itself, but the version when a question asks for one ("Since which
#: release is … deprecated?": "Deprecated since version 26.1.0.")
_VERSION_NOTE = re.compile(r"^\W*(?:new|changed|added|deprecated|removed)\s+(?:in|since)\s+(?:version\s+)?v?[\d.]+\W*$",
                           re.IGNORECASE)
_MEANING = 1.5  # a candidate's score falls by e**(-_MEANING × how much less near in meaning than the nearest)
_MEANING_DEPTH = 12  # how many of the best candidates are reordered by meaning
_TIME_NOUNS = frozenset(word_terms("time duration period"))  # nouns a length of time answers
_SIZE_NOUNS = frozenset(word_terms("length size"))  # nouns an amount of text or storage answers
#: nouns for what one is obliged to do, which a sentence saying "must" or "required" states
#: (``states_rule``): "What is the eyesight standard for drivers?": "You MUST be able to read …"
_RULE_NOUNS = frozenset(stem(w) for w in ("standard", "requirement", "rule", "obligation"))
#: nouns a why question asks with ("What is the *cause*?"): its answer gives the reason, rarely the noun
_REASON_NOUNS = frozenset(stem(w) for w in ("reason", "cause", "purpose", "point"))
#: nouns for what was set or done wrong ("What is the likely *misconfiguration*?"): the answer is the
#: advice that puts it right ("Make sure the region … is set to Global"), rarely the noun
_FAULT_NOUNS = frozenset(stem(w) for w in ("misconfiguration", "mistake", "misstep", "pitfall"))
#: nouns for a program's exit status ("What exit *code* …?", "which exit *status* …?"), which a
#: sentence saying how the program exits or what it returns, with a number, states: "exits 0 on success"
_STATUS_NOUNS = frozenset(stem(w) for w in ("code", "status", "value"))
_ASKS_EXIT = re.compile(r"\b(?:exit|return)\b", re.IGNORECASE)
_SAYS_EXIT = re.compile(r"\b(?:exits?|exited|returns?|returned)\b[^.;]*?(?<![\w.])[<>]?-?\d", re.IGNORECASE)
_KINDS_BY_MEANING = frozenset({"number", "date"})  # kinds a sentence near in meaning may answer (a "person" is any capital)
_DEFINING_DEPTH = 3  # the best candidates whose terms may be defined, with a value, by another sentence
_MEANING_POOL = 64  # the sentences, in rank order, looked through for the nearest of the kind asked for
_NEAR_ENOUGH = 0.6  # ... and how near it must be (cosine) to answer
_NEAR_ENOUGH_ANY = 0.7  # ... for a question that asks for no kind (a how-to, a yes or no)
_ABOVE = 3  # how many headings above a sentence may supply the value it lacks (a release's version)


def _candidate_order(c: Candidate) -> tuple[float, int, int]:
    """A candidate's place: best score first, then retrieval rank, then position. Scores are sums
    over sets of words, whose order varies from run to run, so two equal sums may differ in their
    last bits: they are compared to nine places, and every run gives the same answer."""
    return -round(c.score, 9), c.unit.rank, c.unit.position


def _aliases(wanted: frozenset[str], passages: Sequence[Passage]) -> dict[str, str]:
    """Passage stems that match a question stem by prefix, the light stemmer's misses
    ("married"/"marriage", "deploy"/"deployment"), mapped to the question's stem; to the shortest
    when several begin it, its root ("trainer": "train", not "traine"), whatever the sets' order."""
    seen = {t for p in passages for t in terms(f"{p.text} {p.meta.get('heading', '')}")} - wanted
    aliases: dict[str, str] = {}
    for t in seen:
        matched = [q for q in wanted if prefix_match(t, q) and not q.isdigit()]
        if matched:
            aliases[t] = min(matched, key=lambda q: (len(q), q))
    return aliases


def _with_aliases(found: frozenset[str], aliases: dict[str, str]) -> frozenset[str]:
    return found | {aliases[t] for t in found if t in aliases}


def _units(passages: Sequence[Passage], wanted: frozenset[str] = frozenset(), *, lines: bool = False) -> list[Unit]:
    """Every sentence, item, row, heading and code block of the passages, with its context
    (stems that match a ``wanted`` one by prefix count as that one); with ``lines``, also every
    line of the code blocks (a value asked for may be in a console's output)."""
    aliases = _aliases(wanted, passages)

    def terms_of(text: str) -> frozenset[str]:
        return _with_aliases(frozenset(terms(text)), aliases)

    units: list[Unit] = []
    documents: dict[str, frozenset[str]] = {}  # what each document's retrieved passages say
    spelled: dict[str, dict[str, str]] = {}  # the acronyms each document's retrieved passages spell out
    for p in passages:
        source = p.meta.get("source", "")
        documents[source] = documents.get(source, frozenset()) | terms_of(f"{p.text} {p.meta.get('heading', '')}")
        spelled[source] = with_defined(spelled.get(source, {}), p.text)
    for rank, p in enumerate(passages):
        parents = p.meta.get("heading", "").split(" > ")[:-1]  # the last part is the first block's section
        released = _named_release(p)
        title = " ".join([p.meta.get("title", ""), released, *parents])
        titled = [w.lower() for w in WORD.findall(p.meta.get("document_title", "")[:_TITLE_CHARS])]  # read once
        # a program, a config file; not one its loader wrote out as a document with headings (an
        # OpenAPI description in YAML: ``ragkit.loaders.api_description``), whose passages carry a heading path
        if PurePosixPath(str(p.meta.get("source", ""))).suffix.lower() in CODE_EXTENSIONS and not p.meta.get("heading"):
            blocks = [Block("code", p.text.strip("\n"), p.meta.get("heading", "").split(" > ")[-1].strip())]
        else:
            blocks = parse_blocks(_without_title_lines(p.text, titled) if "page" in p.meta else p.text,
                                  p.meta.get("heading", ""), str(p.meta.get(TABLE_HEADER) or ""))
        scope = terms_of(f"{p.text} {title} {_authors(p)}")
        document = documents[p.meta.get("source", "")] - scope
        paragraph = _paragraphs(blocks, paged="page" in p.meta)
        raw: list[tuple[str, str, int]] = []  # (kind, text, block index)
        fields: list[tuple[str, str, int]] = []  # a form's fields read from two lines, after the rest
        for b_index, b in enumerate(blocks):
            if b.kind == "prose":
                said = split_prose(b.text)
                raw += [("prose", s, b_index) for k, s in enumerate(said)
                        if (is_sentence(s) or k == len(said) - 1 and _introduces_code(s, blocks, b_index))
                        and not _is_title_line(s, titled)]
                if (filled := field_line(blocks, b_index)) is not None:
                    fields.append(("prose", filled, b_index))
            elif b.kind in ("code", "heading", "item") or is_sentence(b.text):  # a list keeps its short items
                raw.append((b.kind, b.text, b_index))
            if (signed := signed_line(blocks, b_index)) is not None:  # a signature's role under its name
                fields.append(("prose", signed, b_index))
        commented: dict[int, str] = {}  # a code line's comment above it ("# disable update check")
        if lines:
            for i, b in enumerate(blocks):
                for ln, comment in code_lines(b.text) if b.kind == "code" else ():
                    if comment:
                        commented[len(raw)] = comment
                    raw.append(("line", ln, i))
        signature = _signature(raw, continued=p.meta.get("start", "0") not in ("", "0"))
        raw += fields
        defined = spelled[p.meta.get("source", "")]  # "a CAGR of 6.2%" says "compound annual growth rate"
        own = [terms_of(" ".join([text, *acronyms_in(text, defined)])) for _, text, _ in raw]
        if _BACK_WORDS:  # "This can be done by setting `mode=True`." says what the sentence before it says
            own = [own[i] | own[i - 1] if kind == "prose" and i and raw[i - 1][0] == "prose" and BACK_REFERENCE.match(text)
                   and not text.startswith("It ") and paragraph[b_index] == paragraph[raw[i - 1][2]] else own[i]
                   for i, (kind, text, b_index) in enumerate(raw)]
        # the sections the passage shows (a figure's labels head none: ``Block.label``)
        labels = {b.section for b in blocks if b.kind == "heading" and b.label}
        headings = terms_of(" ".join({b.section for b in blocks} - labels))
        for pos, (kind, text, b_index) in enumerate(raw):
            b = blocks[b_index]
            section = terms_of(f"{title} {b.section}" if kind != "heading" else title)
            near = frozenset().union(*(
                own[j] for j in (pos - 1, pos + 1)
                if 0 <= j < len(raw) and raw[j][0] not in ("code", "heading", "line") and blocks[raw[j][2]].section == b.section
            ))
            start = int(p.meta["start"]) if p.meta.get("start", "").isdigit() else rank
            # a step (a list item) whose command is nested under it leads it too, colon or not
            leads = ((text.rstrip().endswith(":") or kind == "item") and pos + 1 < len(raw) and raw[pos + 1][0] == "code"
                     and blocks[raw[pos + 1][2]].section == b.section)
            if leads:  # the command it introduces is its neighbour ("Update the last commit…:" `… --amend`)
                near |= own[pos + 1]
            term = _term_above(blocks, b_index) if kind == "prose" else ""
            near |= terms_of(term)  # a definition's term is its sentences' neighbour
            if pos in commented:  # a line of code says what the comment above it says ("# the port the
                own[pos] |= terms_of(commented[pos])  # sidecar listens on" over "port: 7411")
            opening = pos < _OPENING_LINES and p.meta.get("page", "1") == "1" and p.meta.get("start", "0") == "0"
            above = (tuple(h.text for h in reversed(blocks[:b_index]) if h.kind == "heading") + tuple(reversed(parents)))[:_ABOVE]
            above += (p.meta["document_title"],) if p.meta.get("document_title") else ()  # last: a release's file name
            above += (released,) if released else ()
            above += (dated,) if (dated := file_date(p.meta.get("source", ""))) else ()  # a post's date
            units.append(Unit(rank, pos, kind, text, p.number, p.meta.get("source", ""), start, own[pos], section,
                              near, scope, document, headings - section, b, paragraph[b_index], tuple(parents), leads,
                              opening, bool(p.meta.get("references")), raw[pos + 1][1] if leads else "", above,
                              text.rstrip().endswith(":") and pos + 1 < len(raw) and raw[pos + 1][0] == "item",
                              pos == signature, lead=_list_lead(raw, pos), term=term, title=p.meta.get("document_title", "")))
    return _standings(_whole_cut_ends(units))


def _whole_cut_ends(units: list[Unit]) -> list[Unit]:
    """The units, the sentence a passage ends on read whole when the chunk's end cuts it ("We need
    frugal computing: achieving our aims with") and another retrieved passage of the same file,
    the next chunk, holds it whole ("… achieving our aims with less energy and material."): quoted,
    the cut copy stops short of what it says. It keeps its own passage's place and neighbours."""
    last: dict[int, Unit] = {}
    for u in units:
        if u.kind == "prose" and (u.rank not in last or u.position > last[u.rank].position):
            last[u.rank] = u
    cut = {id(u) for u in last.values() if u.text.rstrip()[-1:] not in _SENTENCE_ENDS}
    if not cut:
        return units
    prose = [u for u in units if u.kind == "prose"]

    def whole(u: Unit) -> Unit:
        for v in prose:
            if (v.source == u.source and v.rank != u.rank and len(v.text) > len(u.text)
                    and v.text.startswith(u.text) and v.text[len(u.text)].isspace()):
                return replace(u, text=v.text)
        return u

    return [whole(u) if id(u) in cut else u for u in units]


_SENTENCE_ENDS = frozenset(".!?:;)\"'`”’")


def _is_title_line(text: str, title: list[str]) -> bool:
    """Whether a line of prose is the document's title (``title``: its words, lower-cased), or its
    first words as a PDF's first page breaks it ("SOfIoTS: Ontological Framework, Demonstration
    Outcomes, and Recommendations for Further" of a report so titled), or a running head, the title
    with the page's number at either end: no sentence of the document, nor a form's "SOfIoTS:" field."""
    first = WORD.search(text)
    if not title or first is None or first.group().lower() != title[0] and not _PAGE_NUMBER.fullmatch(first.group()):
        return False  # most lines: told apart by their first word, before reading them whole
    words = [w.lower() for w in WORD.findall(text)]
    if len(words) > 1 and _PAGE_NUMBER.fullmatch(words[0]) and title[0] != words[0]:
        words = words[1:]  # a running head with its page number first ("182 FogProtect: …")
    elif len(words) > 1 and _PAGE_NUMBER.fullmatch(words[-1]) and title[len(words) - 1:len(words)] != words[-1:]:
        words = words[:-1]  # or last ("FogProtect: Protecting Sensitive Data in the Computing Continuum 183")
    return len(words) >= _TITLE_WORDS and 2 * len(words) >= len(title) and title[:len(words)] == words


def _without_title_lines(text: str, title: list[str]) -> str:
    """A page's text without its lines that are the document's title: a PDF repeats the title at the
    top of its pages as a running head, which the page's first sentence would otherwise begin with
    ("FogProtect: … Continuum 183 This will allow trading risk factors …")."""
    if not title or "\n" not in text:
        return text
    return "\n".join(line for line in text.split("\n") if not _is_title_line(line, title))


_PAGE_NUMBER = re.compile(r"\d{1,4}")  # a page's number beside a running head
_TITLE_WORDS = 4  # a prose line of fewer words is not taken for the title it begins
_TITLE_CHARS = 1000  # a title is read up to this many characters (a metadata title can be any length)


#: a definition list's term alone on its line, as the AsciiDoc loader writes a man page's options
#: ("`--cached`:", "`lfs.url`:"); the reStructuredText loader writes a term and its definition on one line
_TERM_LINE = re.compile(r"^`[^`\n]{1,80}`:$")
_TERM_NAME = re.compile(r"[^\s`]{1,80}")  # one word: a setting, a flag, a signal


def _term_above(blocks: Sequence[Block], index: int) -> str:
    """The term line right above block ``index`` of the same section ("`--cached`:" above "Lists
    cached locks … Contrary to `--local`, this will include locks of other users as well."): a
    sentence of a definition does not say what it defines; "" when there is none."""
    above = blocks[index - 1] if index > 0 else None
    if above is None or above.section != blocks[index].section:
        return ""
    if above.kind == "code":  # a name in code alone on its line, the definition's paragraph under it
        # (reStructuredText's "``stopasgroup``", a blank line, then its indented text)
        return f"`{above.text}`" if _TERM_NAME.fullmatch(above.text) else ""
    return above.text if above.kind == "prose" and _TERM_LINE.match(above.text.strip()) else ""


def _paragraphs(blocks: Sequence[Block], *, paged: bool) -> list[int]:
    """The paragraph of each block, numbered in order: in a page written one sentence to a line,
    prose lines with no blank line between them are one paragraph ("Swift provides three overflow
    operators …" then "These operators all begin with an ampersand:"); any other block is one of
    its own. A ``paged`` document's text (a PDF's) has no blank lines: there a line that ends a
    sentence ends its paragraph, as its shorter last line does."""
    numbers: list[int] = []
    for b in blocks:
        if not numbers:
            numbers.append(0)
        else:
            numbers.append(numbers[-1] + (0 if b.kind == "prose" and b.continues and not paged else 1))
    return numbers


def _list_lead(raw: Sequence[tuple[str, str, int]], pos: int) -> str:
    """For the list item at ``pos``, the line ending with ":" that leads its list ("Defaults to one
    of the following directories:"); "" for anything else."""
    if raw[pos][0] != "item":
        return ""
    while pos > 0 and raw[pos - 1][0] == "item":
        pos -= 1
    return raw[pos - 1][1] if pos > 0 and raw[pos - 1][1].rstrip().endswith(":") else ""


def _standings(units: list[Unit]) -> list[Unit]:
    """The units, each with the rank its score decays by (``Unit.standing``): halfway between its
    passage's retrieval rank and the best rank of the passages that show its section of its
    document. A section's later chunk ("`allow_methods` - … Defaults to `['GET']`", the rest of a
    list the chunker cut) is nearly as near the question as its first one (the whole of the best
    rank instead: four answers gained on the recorded questions, five lost). A unit outside any headed
    section keeps its passage's rank."""
    best: dict[tuple[str, str], int] = {}
    for u in units:
        if u.block.section:
            key = (u.source, u.block.section)
            best[key] = min(best.get(key, u.rank), u.rank)
    return [replace(u, standing=(u.rank + best.get((u.source, u.block.section), u.rank)) / 2 if u.block.section else u.rank)
            for u in units]


def _signature(raw: Sequence[tuple[str, str, int]], *, continued: bool = False) -> int:
    """The position of a passage's signature: the first of the short lines without closing
    punctuation that end it after a sentence of prose (a foreword's "Sarah Drasner", "Head of
    Developer Experience", "Netlify"; a letter's or a memo's name and role), or that make up the
    whole of a ``continued`` passage (one that starts inside its document: the splitter cut the
    signature from the prose it ends); -1 when it ends otherwise."""
    pos = len(raw)
    while pos > 0 and raw[pos - 1][0] in ("heading", "prose") and _short_line(raw[pos - 1][1]):
        pos -= 1
    body = [text for kind, text, _ in raw[:pos] if kind == "prose"]
    ends = 0 < len(raw) - pos <= _SIGNATURE_LINES
    if ends and pos == 0 and continued:
        return 0
    return pos if ends and body and body[-1].rstrip()[-1:] in ".!?" else -1


def _prose_sentence(text: str) -> bool:
    return len(text.split()) > _OPENING_WORDS and text.rstrip()[-1:] in ".!?"


def _short_line(text: str) -> bool:
    return len(text.split()) <= _OPENING_WORDS and text.rstrip()[-1:] not in ".!?:;,"


def _introduces_code(sentence: str, blocks: Sequence[Block], index: int) -> bool:
    """Whether ``sentence`` (the last of block ``index``) ends with a colon and a code block of the
    same section follows: "Default:" and reStructuredText's "The default is::" before a literal."""
    after = blocks[index + 1] if index + 1 < len(blocks) else None
    return (sentence.rstrip().endswith(":") and after is not None and after.kind == "code"
            and after.section == blocks[index].section)


@lru_cache(maxsize=1024)
def _code_terms(code: str) -> frozenset[str]:
    """The terms of a code block a description line introduces."""
    return frozenset(terms(code))


def _term_weights(query: Query, units: Sequence[Unit]) -> dict[str, float]:
    """IDF over the retrieved sentences, times the question's boosts. For a how-to question the
    IDF has a floor: the retrieved pages are all about its topic ("cookie" in every sentence of
    the cookie page), which must not make the topic word count for little."""
    n = len(units)
    df = {t: sum(1 for u in units if t in u.own) for t in query.boosts}
    rare = math.log((n + 1) / 1.5)  # the weight of a term found in one sentence
    floor = _HOWTO_IDF_FLOOR * rare if query.howto else 0.0
    return {
        t: query.boosts[t] * (max(floor, math.log((n + 1) / (df[t] + 0.5))) if df[t] else rare)
        for t in query.boosts
    }


def _authors(passage: Passage) -> str:
    """The authors of the passage's document (its byline, ``authors`` metadata): they name it as its
    title does ("the naive decomposition in the work of Ammann, Jajodia and Ray")."""
    authors = passage.meta.get("authors") or ""
    return " ".join(map(str, authors)) if isinstance(authors, list) else str(authors)


def _named_release(passage: Passage) -> str:
    """The releases the passage's file name writes, as words: a release notes file named for its
    release ("release-notes-0.16.1.md") may say it nowhere else, so they count as written in it."""
    return " ".join(file_releases(str(passage.meta.get("source", ""))))


def _versions_present(query: Query, passages: Sequence[Passage]) -> bool:
    """Whether every dotted number the asking sentence writes ("Git 2.44") is in some passage as a
    whole, or with zeros after it ("2.44.0"): "v2.44.3" is another release, though it has the words
    "2" and "44". A statement before it tells the asker's case ("Our servers still run Python 3.10."),
    which the answer need not repeat ("… only support Python 3.11.0 or greater")."""
    asked = query.versions & dotted_numbers(query.form)
    if not asked:
        return True
    texts = [f"{_named_release(p)} {p.text} {p.meta.get('heading', '')} {p.meta.get('title', '')}" for p in passages]
    found = {same_release(v) for text in texts for v in dotted_numbers(text)}
    if not all(same_release(v) in found for v in asked):
        return False
    # "Gammapy 3.0" is not in passages that write 3.0 only as another product's ("Astropy 3.0")
    return all(any(of_product(text, product, version) for text in texts)
               for product, version in product_releases(query.form))


#: a code or an acronym the question writes (NATS, XL, ``wasm32-wasi``, HTTP/3): rare and exact, so the
#: retriever's exact-match side ranks a passage that holds it high when any document does
# the whole of a token: an acronym ("HTTP/3"), an upper-case code of hyphenated parts ("DNS-PERSIST-01"), a code in
# lower case with a digit ("h2c"), a letter and a slash before capitals ("z/OS")
_MARK = re.compile(r"[A-Z][A-Z0-9]+(?:/\d[\d.]*|/[A-Z][A-Z0-9]+|(?:-[A-Z0-9]+)+)?|[a-z]+\d[a-z0-9_]*(?:-[a-z0-9]+)*"
                   r"|[a-z]/[A-Z][A-Z0-9]+")
#: "HTTP/3", "PDF/UA" and "z/OS" are one token each
_TOKEN = re.compile(r"[A-Z][A-Z0-9]+/(?:\d[\d.]*|[A-Z][A-Z0-9]+)|(?<![\w/])[a-z]/[A-Z][A-Z0-9]+|[\w.-]+")
_SQUASH = re.compile(r"[^a-z0-9]+")


def _marks_present(question: str, passages: Sequence[Passage]) -> bool:
    """Whether every code or acronym ``question`` writes is in some passage, its heading or its
    file's name, read without case, spaces or punctuation ("BERT-Large" is "BERTLARGE"): the
    question "Which release added NATS as a broker?" is about a thing no retrieved passage names."""
    marks = {_SQUASH.sub("", m.lower()) for t in _TOKEN.findall(question) if _MARK.fullmatch(m := t.rstrip(".-"))}
    if not marks:
        return True
    held = _SQUASH.sub("", " ".join(f"{p.text} {p.meta.get('heading', '')} {p.meta.get('source', '')}"
                                    for p in passages).lower())
    return all(m in held for m in marks)


def _label_weight(query: Query, units: Sequence[Unit]) -> tuple[str, float]:
    """The stem of the noun a date or number question asks for ("What was the *total* paid?") and
    its weight (its IDF over the units, as a question word's), for a unit that labels a value with
    it ("TOTAL $821.14", "Commission %: 10%"); ("", 0) for any other question."""
    stems = terms(query.type_noun)
    if not stems:
        return "", 0.0
    n = len(units)
    df = sum(1 for u in units if stems[0] in u.own)
    return stems[0], math.log((n + 1) / (df + 0.5)) if df else 0.0


def _labels(u: Unit, query: Query) -> bool:
    """Whether ``u`` labels a value with the noun the question asks for: the noun (or its plural),
    then at most a few symbols, then a number ("TOTAL $821.14", "Total: 3", "Commission %: 10%";
    not "Total Points: 3,247", which is another quantity)."""
    noun = re.escape(query.type_noun)
    return bool(query.type_noun) and bool(
        re.search(rf"\b{noun}(?:e?s)?\b[^\w\n]{{0,4}}[$€£¥]?\d", u.text, re.IGNORECASE))


def _asking_terms(query: Query) -> frozenset[str]:
    """The question's terms that the sentence that asks says (all of them when it is the only one)."""
    if not query.form or query.form == query.text:
        return frozenset(query.boosts)
    return frozenset(query.boosts) & _form_terms(query.form)


@lru_cache(maxsize=256)
def _form_terms(form: str) -> frozenset[str]:
    """The terms of the sentence that asks, read once per question, not once per unit scored."""
    return frozenset(terms(form))


def _score(u: Unit, query: Query, weight: dict[str, float], min_coverage: float,
           label: tuple[str, float] = ("", 0.0)) -> Candidate | None:
    """A unit's score, or None when it cannot be an answer (see the module docstring). ``label``:
    the stem and weight of the noun the question asks for, credited to a unit that labels a value
    with it."""
    labelled = bool(label[0]) and label[1] > 0 and _labels(u, query)
    if labelled:  # the label is a matched word of the question's, beside its own words
        weight = {**weight, label[0]: label[1]}
        query = replace(query, boosts={**query.boosts, label[0]: 1.0})
    total = sum(w for t, w in weight.items() if t != label[0])
    wanted = weight.keys()
    if (u.kind == "code" and not query.howto or _INJECTION.search(u.text)
            or _VERSION_NOTE.match(u.text) and query.value_kind != "version"):
        return None  # code answers only how-to questions; text addressed to an AI is never quoted
    typed = holds_kind(u, query)
    # the release heading above it, for a version asked for even when the sentence holds one of its
    # own ("… the final release of the 0.12 series and the last version to support Python 3.7"
    # under "v0.12.2 (December 2022)")
    dated = (_typed_above(u, query) if u.kind != "heading" and (query.value_kind == "version"
                                                                   or query.kind == "date" and not typed) else "")
    typed = typed or bool(dated)
    # the names under a title (the title is the first line), or a signature at the end
    # (a sentence of the opening paragraph is neither: "When Ada asked me to write this foreword, …")
    byline = query.author and typed and (u.opening and u.position > 0 and not _prose_sentence(u.text) or u.closing)
    # "Prepared By: …" for "Who prepared …?"; "Agency: …" for "Which agency handled …?"
    # (labelled with words of the sentence that asks: "I want to copy the author's setup. Which directory …?"
    # is not answered by ";; Author: …")
    field = (typed if query.kind is not None else query.which) and fills_field(u.text, _asking_terms(query), query.names)
    if u.kind == "heading" and not (typed and query.kind in ("date", "number", "value") or byline or field):
        return None  # a heading answers only when it holds the wanted date, number or value (or a byline)
    if u.kind == "line" and not typed:
        return None  # a line of a console or code block answers only with the value asked for
    hits = u.own & wanted
    section_hits = (u.section - u.own) & wanted
    # a description line's command is what it says: "Save the script somewhere:" before the zsh one
    code_hits = ((_code_terms(u.code_after) - u.own - u.section) & wanted if u.leads_code and query.howto
                 and not query.yes_no else frozenset())
    near_hits = (u.near - u.own - u.section - code_hits) & wanted
    scope_hits = (u.scope - u.own - u.section - u.near - code_hits) & wanted
    document_hits = u.document & wanted
    if byline and u.closing:  # a signature signs its whole section ("Foreword" of "Field Notes on
        # Tides"); its document's other passages scope it
        scope_hits, document_hits = scope_hits | (document_hits - u.own - u.section - u.near), frozenset()
        hits, section_hits = hits | section_hits, frozenset()
    elif byline:  # the names under a title are about the whole document: its other passages' words are
        # theirs as a heading's are its section's (the loader's byline of a foreword its signature signs)
        section_hits, document_hits = section_hits | (document_hits - u.own - u.near), frozenset()
    names = query.names - u.elsewhere  # a name heading another section is not this one's subject
    if (not (hits - query.numbers) and not (section_hits - query.numbers)
            and not ((byline or field) and (scope_hits or near_hits))):
        return None  # about none of the question's words (a byline: about the document they are in,
        # whose title may be the line before it: "Title: Harbour Tales", "Author: Marta Quell"; a
        # mail's "From:" field, labelled with the question's "sent": about the mail it heads)
    if (not (u.own - wanted) and not (query.howto and u.leads_code) and not (typed and query.kind == "value")
            and not u.leads_list and not writes_new_identifier(u.text, query.said)):
        return None  # adds nothing beyond the question (a description line adds the command after it,
        # "Default: '/'" its value, "The available convertors are:" and "What is in a new hire gift:" their list,
        # "… renamed to skimage.filters" the identifier the question's "skimage.filter" became)
    coverage = (
        sum(weight[t] for t in hits)
        + _SECTION * sum(weight[t] for t in section_hits | code_hits)
        + _NEAR * sum(weight[t] for t in near_hits)
        + sum(weight[t] * (1.0 if t in query.numbers else _SECTION if t in names else _SCOPE) for t in scope_hits)
        + _SCOPE * sum(weight[t] for t in document_hits)
    ) / total
    # a unit that holds the kind of answer asked for ("… the collection of tweets by Marta Quell",
    # "Default: '§'") may leave its subject to the sentence beside it: its neighbours' words count
    matched = (len(hits) + len(section_hits) + len(code_hits) + len(scope_hits & query.numbers)
               + (len(near_hits) if typed else 0))
    named = _named(u, query)
    # one shared word must carry most of the question's weight; two or more, a fair share; the
    # value asked for under the heading the question names is a candidate whatever else it shares
    # ("Serving on …:8080" under "Waitress" for "What port does Waitress listen on?")
    needed = min_coverage if matched >= 2 or len(wanted) == 1 or byline else max(min_coverage, 0.55)
    # so is a value labelled with the noun asked for in a document the question names ("TOTAL
    # $821.14" on the receipt whose other lines say "TECHMART", for "the total on the TechMart receipt")
    in_named = labelled and typed and bool(query.names) and query.names <= (u.scope | u.document | u.section)
    # and so is a form's field labelled with the question's words that holds the kind asked for
    if coverage < needed and not (typed and named and query.kind == "value") and not in_named and not field:
        return None
    fit = _fit(u, query, typed, named) * (_BYLINE if byline else 1.0) * (_FIELD_FIT if field else 1.0)
    if (query.versions and query.value_kind != "version" and not asks_release(query.text)
            and another_release(u.text, query.versions)):
        fit *= _OTHER_RELEASE  # "NumPy 1.22.0 … 609 pull requests" is no answer about NumPy 2.0.0
    elif (query.versions and not asks_release(query.text, version=False)
          and another_file_release(u.source, query.versions)):
        fit *= _OTHER_RELEASE  # nor is a sentence of ``changelog-4.3.rst`` about Celery 5.5
    if another_numbered(u.text, query.numbered):
        fit *= _OTHER_RELEASE  # nor is "uv has Tier 1 support" about Tier 2
    if not query.document and _ABOUT_DOCUMENT.match(u.text):
        fit *= _OTHER_RELEASE  # "This article provides a fix for …" says what its page is about, not the fix
    if u.source in query.remedied and _SYMPTOM_HEADING.fullmatch(u.block.section.strip()):
        fit *= _OTHER_RELEASE  # nor is a troubleshooting article's "Issue" the answer to a question that
        # states that issue: its "Cause" and "Solution" are, and they are among the passages
    if (other := another_compound(u.text, query.compounds, (u.title, u.block.section, *u.parents, *u.above))):
        fit *= _OTHER_RELEASE ** other  # nor is "The style `overflow` accepts …" (under "Overflow") about text-overflow
    own_share = sum(weight[t] for t in hits) / total
    label = dated or (" > ".join(named) if typed and named and not set(terms(" ".join(named))) <= u.own else "")
    if not label and query.which and (query.kind is None or query.value_kind == "name") and u.kind in (
            "prose", "item") and _LITERAL_HEADING.fullmatch(
            u.block.section) and u.block.section.strip("`()") not in u.text:
        label = u.block.section  # "Which annotation …?": the sentence under "`:execrows`" never names it
    if not label and query.document and u.title and u.title.lower() not in u.text.lower():
        label = u.title  # "Which recipe can I make …?": the recipe's title, which its lines never say
    return Candidate(coverage * fit * max(0.5, 1.0 - _RANK_DECAY * u.standing), u, own_share, typed, label)


def _remedy_first(candidates: list[Candidate], query: Query) -> list[Candidate]:
    """For a question that states its case first, the best sentence of a troubleshooting article's
    Cause or Solution section first, when the best is of its Issue section (or says what the article
    is about) and it scores at least ``_REMEDY_CLOSE`` of it: the question describes the issue already."""
    if not candidates or candidates[0].unit.source not in query.remedied:
        return candidates
    best = candidates[0].unit
    if not (_SYMPTOM_HEADING.fullmatch(best.block.section.strip()) or _ABOUT_DOCUMENT.match(best.text)):
        return candidates
    floor = _REMEDY_CLOSE * candidates[0].score
    remedy = next((c for c in candidates[1:] if c.score >= floor and c.unit.source == best.source
                   and _REMEDY_HEADING.fullmatch(c.unit.block.section.strip())), None)
    return put_first(candidates, remedy) if remedy else candidates


_REMEDY_CLOSE = 0.3


def _codes(u: Unit) -> list[str]:
    """The code ``u`` writes: a code block's text or line, else its code spans."""
    return [u.text] if u.kind in ("code", "line") else [span.strip("`") for span in CODE_SPAN.findall(u.text)]


def _about_release(query: Query) -> bool:
    """Whether the question numbers a release it asks about, not for ("… in MNE-Python 1.12.0?",
    not "Which version …?" nor "In which release …?"); a version of another product than the one
    it numbers is asked about that release ("Since TypeScript 5.0 targets …, what is the oldest
    Node.js …?")."""
    return bool(query.versions) and not asks_release(query.text) and (
        query.value_kind != "version" or _of_another_product(query))


def _of_another_product(query: Query) -> bool:
    """Whether a version question asks for the version of a named product other than those of the
    releases it numbers (Node.js's, for TypeScript 5.0)."""
    asked = asked_product(query.form).lower()
    numbered = {product.lower() for product, _ in product_releases(query.text)}
    return bool(asked and numbered) and asked not in numbered


def _release_files(query: Query, passages: Sequence[Passage]) -> bool:
    """Whether the passages come from notes named one file a release (``v1.12.rst``) and one of
    them is of the release the question numbers, when it asks for no version or release: that
    release is of the folder's product, and the other files are about other releases (the
    question's "NumPy 2.0" is no release of Numba, whose notes are named for Numba's)."""
    if not _about_release(query):
        return False
    sources = {str(p.meta.get("source", "")) for p in passages}
    return any(file_releases(s) and not another_file_release(s, query.versions) for s in sources)


def _under_asked_release_first(candidates: list[Candidate], query: Query) -> list[Candidate]:
    """When some candidates are under a heading that names the release the question numbers
    ("Version 1.12.0 (2026-04-07)"), the others count half: a change log's next, unreleased
    entries say the same things of another release."""
    if not _about_release(query):
        return candidates
    under = [under_release((*c.unit.above, *c.unit.parents), query.text) for c in candidates]
    if not any(under) or all(under):
        return candidates
    return sorted((c if u else replace(c, score=c.score * _OTHER_RELEASE) for c, u in zip(candidates, under, strict=True)),
                  key=_candidate_order)


def _of_asked_release(candidates: list[Candidate], query: Query) -> list[Candidate]:
    """The candidates not from the notes of another release than the one the question numbers."""
    return [c for c in candidates if not another_file_release(c.unit.source, query.versions)]


#: a heading that is one literal, the thing its section describes (``:execrows``, ``--dry-run``), or
#: one identifier written plain, as a settings page heads each setting ("frozenStore", "max_connections",
#: "--frozen-store"): no word of prose is in camelCase or snake_case
_LITERAL_HEADING = re.compile(r"(?:`[^`\s]{1,60}`|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"
                              r"|--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?:\s*\(\))?")


_PLAIN = re.compile(r"[a-z]+(?:-[a-z]+)*")  # a word in lower case, not part of an address or a path
_EDGE = ".,;:!?()[]{}\"'`*_"


def _lower_case_words(units: Sequence[Unit]) -> frozenset[str]:
    """The stems of the words the passages write in lower case somewhere (in running text, not
    in an e-mail address or a path): a capitalised one of them is a common word in a title or
    at a line's start ("Utility-Preserving Formulation"), not a name, which is never written so."""
    return frozenset(
        stem(part) for u in units for token in u.text.split()
        if _PLAIN.fullmatch(word := token.strip(_EDGE)) for part in word.split("-"))


def _typed_above(u: Unit, query: Query) -> str:
    """The nearest heading above ``u`` that holds the version (or port) asked for ("Which release dropped Python 3.8?": "Removed: Drop Python 3.8 support" under
    "## 0.45.0 (December 2024)"), else its document's title when that holds it (a release's notes
    in a file of their own, ``2.44.0.adoc``, whose middle passages show no heading), else ""."""
    for heading in u.above:
        if holds_kind(replace(u, text=heading, code_after=""), query):
            return heading
    return ""


def _named(u: Unit, query: Query) -> list[str]:
    """The headings of ``u`` the question names: its section ("dev_addr"), or a heading above it
    (the page title "Waitress") followed by its section."""
    if named_heading(u.block.section, query.text):
        return [u.block.section]
    above = [h for h in u.parents if named_heading(h, query.text)]
    return [above[0], u.block.section] if above and u.block.section and u.block.section != above[0] else above[:1]


def _fit(u: Unit, query: Query, typed: bool, named: list[str]) -> float:
    """The score factors of the module docstring."""
    # a list item that leads items nested under it answers a list question with them, whatever kind they
    # are ("New `--ocr-engine` option allows selecting OCR engines:" over `auto`, `tesseract`, `none`)
    nesting = query.list_wanted and u.leads_list and u.kind == "item"
    fit = 1.0 if query.kind is None or typed or nesting else _TYPE_MISS
    if query.quoted - u.own - u.section or (query.names & u.elsewhere) - u.own - u.section:
        fit *= _UNQUOTED  # a quoted title, or a name heading another section, names another subject
    if (u.kind != "heading" and not (u.own - query.boosts.keys() - u.section)
            and not (query.howto and (u.leads_code or u.leads_list))
            and not (typed and query.kind == "value") and not (query.list_wanted and u.leads_list)):
        fit *= _RESTATES  # only the question's and its heading's words: likely a restatement (not a
        # how-to's description line: what it adds is the command or the list after it, "delete
        # entire line:" before "- vim: `dd`" and "- helix: `xd`"; nor "Default: 'session'"
        # for SESSION_COOKIE_NAME: the value asked for, though it is one of the question's words)
    if query.which and query.kind is None and not query.howto and names_any(u, query):
        fit *= _NAMES_THING  # "Software Freedom Conservancy … and Open Collective are examples of …"
    if query.yes_no and negates(u.text):
        fit *= _NEGATES  # "uv does not support the --user flag": the answer "no", said
    if query.obliged and says_obligation(u.text):
        fit *= _OBLIGES  # "Participation is optional." for "Do engineers have to take part …?"
    elif query.state and says_state(query.state, u.text):
        fit *= _STATES  # "The xz package … is therefore unaffected." for "Am I affected by …?"
    if query.counted_given and typed:
        fit *= _COUNTED  # "70 characters" for "How many characters…?": the very count asked for
    elif query.counted == _LONG and typed and says_duration(u.text):
        fit *= _COUNTED  # "for 3.7 hours" for "How long did it keep flying?": a length of time
    if query.defined and defines(query.defined, u.text):
        fit *= _DEFINES
    if _asks(u):
        fit *= _QUESTION  # a question, or part of a paragraph that asks one, is not an answer
    if named:
        fit *= _NAMED if named[-1] == u.block.section and len(named) == 1 else _NAMED_PAGE
    if query.program and (u.kind in ("code", "line") or u.leads_code) and not runs_program(
            u.code_after if u.leads_code else u.text, query.program):
        fit *= _OTHER_PROGRAM  # "Which diskutil command …?": not a listing of the installer's output
    if query.howto and u.leads_code:
        fit *= _LEADS_CODE  # "- Add a remote:" and the command after it
        if query.action and terms(u.text)[:1] == [query.action]:
            fit *= _LEADS_CODE  # ... that starts with the action asked about ("add"), not "Change the URL"
    if u.references or _REFERENCE_ENTRY.match(u.text):
        fit *= _REFERENCE_LIST  # an entry of a paper's reference list names a topic, rarely answers (so
        # does a sentence that opens with one: a reference list run into the next article's text)
    if u.kind == "line":
        fit *= _LINE  # a console's output line: when no sentence says the value
    if query.value_kind == "port" and serves_address(u.text):
        fit *= _ADDRESS  # "Serving on http://127.0.0.1:8080": the address a server listens on
    if query.value_kind == "version" and typed and (product := asked_product(query.form)) and releases_of(u.text, product):
        fit *= _PRODUCT_RELEASE  # "Implemented in Kotlin 2.0.20" for "Which Kotlin version …?", not a UUID's "version 4"
    same = len(query.words & {w.lower() for w in WORD.findall(u.text)} - _FUNCTION_WORDS)
    fit *= 1.0 + _SURFACE * min(same, 5)  # a tie-break on the very words, quantifiers included ("all")
    return fit


def _asks(u: Unit) -> bool:
    """Whether ``u`` is a question, or a sentence of a short paragraph that asks one ("My build
    fails on Windows. What should I do?"); a longer paragraph that ends on a question argues (its
    statements: "… more details on why 2 was chosen. In summary, "computers like binary numbers".
    If we are going to choose a reference base, why not make it 2?")."""
    return u.text.rstrip().endswith("?") or u.block.text.rstrip().endswith("?") and len(
        split_prose(u.block.text)) <= _ASKING_SENTENCES


_ASKING_SENTENCES = 2  # a paragraph of at most this many sentences that ends on a question asks it


def _with_bylines(passages: Sequence[Passage]) -> list[Passage]:
    """The passages, each document's first one followed by its title and byline when its loader
    found them (``authors``: a paper's names under its title, ``ragkit.loaders.pdf_paper``):
    "Who wrote the Raft paper?" is answered from any retrieved passage of the paper, and with
    every author, also when its first page is among them (a page's text layer interleaves the
    names with their affiliations, and only the first few lines of it are read as a byline). The
    added passage cites the passage it follows; it is written as a heading, the title, with the
    names under it, so that a title that is a file's name ("lantern-rota") is one still, and one
    name alone on its line is not read as the heading."""
    out: list[Passage] = []
    done: set[str] = set()
    for p in passages:
        out.append(p)
        source, authors = p.meta.get("source", ""), p.meta.get("authors", "")
        if authors and source not in done:
            title = p.meta.get("document_title", "") or source
            out.append(Passage(p.number, f"# {title}\n\n{authors}", {"source": source, "page": "1", "start": "0"}))
        done.add(source)
    return out


#: what people call a file of a format by its application or kind: "the sample PowerPoint deck" is
#: ``sample.pptx``, "the staff list spreadsheet" ``staff.xlsx``, "the test email" ``test.eml``
_FORMAT_WORDS = {
    **dict.fromkeys((".pptx", ".ppt"), "powerpoint slides deck presentation"),
    ".odp": "slides deck presentation",
    **dict.fromkeys((".docx", ".doc"), "word"),
    **dict.fromkeys((".xlsx", ".xls"), "excel spreadsheet workbook"),
    **dict.fromkeys((".ods", ".csv"), "spreadsheet"),
    ".eml": "email e-mail mail",
    ".msg": "outlook email e-mail mail",
}


@lru_cache(maxsize=4096)
def _file_terms(source: str) -> frozenset[str]:
    """The words of a source's path, its folders' names and its file's
    ("VATES_Meetings/October_20th_2014.md" -> vates, meeting, october, 20th, 2014, md: minutes
    filed under their meeting's name), and of what its format is called (a ``.pptx`` is a
    PowerPoint deck, an ``.eml`` an email)."""
    *folders, name = re.split(r"[\\/]", source)
    kind = _FORMAT_WORDS.get(name[name.rfind("."):].lower(), "") if "." in name else ""
    return frozenset(terms(re.sub(r"[_.-]+", " ", " ".join([*folders, name, kind]))))


def _names_table(query: Query, passages: Sequence[Passage]) -> bool:
    """Whether the question names, by every word of its file's name, a table whose rows (written
    as documents of their own, ``table: NAME`` and its cells) are among the passages ("… in January 1855, according to Nightingale's monthly figures?" of
    ``Nightingale.csv``): its rows give values, not the description of what they count, so the
    question's names that describe it ("the British army in the East") are no other subject."""
    for source in {str(p.meta.get("source", "")) for p in passages if p.text.startswith("table: ")}:
        name = re.split(r"[\\/]", source)[-1]
        words = WORD.findall(re.sub(r"[_.-]+", " ", name[: name.rfind(".")] if "." in name else name))
        if any(not w.isdigit() for w in words) and all(_word_asked(w, query) for w in words):
            return True
    return False


def _holds_number(text: str, number: str) -> bool:
    """Whether ``text`` writes ``number`` whole, not as a part of another ("9" in "9.25"), or as
    the year of an ISO date ("1855" in "1855-01-01")."""
    whole = rf"(?<![\w.-]){re.escape(number)}(?![\w]|[.-]\d)"
    return re.search(whole, text) is not None or len(number) == 4 and number in _iso_dates(text)


_ISO_DATE = re.compile(r"(?<![\w.-])(\d{4})-(0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?![\w.-]|-\d)")


def _iso_dates(text: str) -> frozenset[str]:
    """The years of ``text``'s ISO dates."""
    return frozenset(m.group(1) for m in _ISO_DATE.finditer(text))


def _iso_months(text: str) -> frozenset[str]:
    """The months of ``text``'s ISO dates, as their names' terms ("1855-01-01": january)."""
    return frozenset(MONTH_NAMES[int(m.group(2)) - 1] for m in _ISO_DATE.finditer(text))


def _word_asked(word: str, query: Query) -> bool:
    """Whether the question says ``word``, or each part of it (``Langren1644``: "Langren", "1644")."""
    stems = word_terms(word)
    return bool(stems) and (stems[0] in query.boosts or len(stems) > 1 and all(t in query.boosts for t in stems[1:]))


def _said_anywhere(units: Sequence[Unit]) -> frozenset[str]:
    """Every term the passages say (their text, titles and headings) and their files' paths (a
    menu that never writes the pub's name is ``the-dorset-food-menu.pdf``, minutes that never
    write their meeting's are filed under it, as ``unsaid_names`` reads them). A passage's units
    share its scope and document sets, so each set is joined once, not once per unit (a passage of
    thousands of list items made as many copies of them)."""
    distinct = {id(s): s for u in units for s in (u.scope, u.document)}
    files = {_file_terms(source) for source in {u.source for u in units}}
    return frozenset().union(*distinct.values(), *files)


def _missing_share(query: Query, present: frozenset[str]) -> float:
    """The share of the question's own words (boost-weighted; not the conversation's words) that
    no passage has (``present``: the terms they say)."""
    own = {t: b for t, b in query.boosts.items() if t in query.own}
    total = sum(own.values())
    return sum(b for t, b in own.items() if t not in present) / total if total else 1.0


def _unsupported_share(u: Unit, query: Query) -> float:
    """The share of the question's own words (boost-weighted, as ``_missing_share``) that the
    unit's passage, its section, the other retrieved passages of its document and its file's name
    (and what its format is called: "the sample PowerPoint deck") do not have; the words of a
    sentence that sets the scene before the one that asks count half ("My Zoom meetings keep
    getting cut off. How long can a meeting last …?": the handbook need not say "cut off"), and
    so do its illustrations ("…, like an interval?"). A doer is said by its verb: "Scala's creator"
    by "Scala was created by …" (``doer_verbs``)."""
    asking = frozenset(terms(query.form)) if query.form and query.form != query.text else None
    own = {t: b * (_SCENE if asking is not None and t not in asking or t in query.examples else 1.0)
           for t, b in query.boosts.items() if t in query.own}
    total = sum(own.values())
    have = u.scope | u.document | u.section | _file_terms(u.source)
    return sum(w for t, w in own.items() if t not in have and not doer_verbs(t) & have) / total if total else 0.0


def _off_kind(c: Candidate, query: Query) -> bool:
    """Whether candidate ``c`` holds nothing of the kind of answer asked for, not even a number
    of another thing than the passages count or in another measure ("seven built-in, primitive
    value types" is a number, though too far from its noun to count "types"; "1.42 million
    pounds" is one, though not written as an amount of money is)."""
    return not c.typed and not holds_kind(c.unit, replace(query, counted_given=False, duration_given=False, measure=None))


def _unmet_share(u: Unit, query: Query, weight: dict[str, float]) -> float:
    """The share of the question's own words, weighed as scored, that the unit, its neighbouring
    sentences and its section headings do not have: what the sentence leaves unanswered."""
    own = {t: weight[t] for t in query.own if t in weight}
    total = sum(own.values())
    have = u.own | u.near | u.section
    return sum(w for t, w in own.items() if t not in have) / total if total else 0.0


def extractive_answer(
    question: str, passages: Sequence[Passage], *, max_sentences: int = 3, min_coverage: float = 0.3,
    context: str = "", similarity: Similarity | None = None,
    part_passages: tuple[Sequence[Passage], Sequence[Passage]] | None = None,
) -> str:
    """The best sentences with ``[n]`` markers, or the refusal (see the module docstring).

    ``context`` is text the question leans on (an earlier question of the conversation, for a
    follow-up such as "And how do I add elements to it?"): its words count at half weight.
    ``part_passages``: for two questions asked as one, the passages each part's own search found,
    read beside ``passages`` for that part's answer (not the whole question's)."""
    if (parts := question_parts(question)) is not None:
        return _both_parts(question, parts, passages, max_sentences=max_sentences, min_coverage=min_coverage,
                           context=context, similarity=similarity, part_passages=part_passages)
    return _one_question(question, passages, max_sentences=max_sentences, min_coverage=min_coverage,
                         context=context, similarity=similarity)


def _one_question(question: str, passages: Sequence[Passage], *, max_sentences: int, min_coverage: float,
                  context: str, similarity: Similarity | None, answered: tuple[str, frozenset[str]] = ("", frozenset())) -> str:
    """``extractive_answer`` for a question that asks one thing. ``answered``: for the second part of
    two questions asked as one, the first part's answer and the words only the second part asks; a
    sentence that answer quotes answers the second part only if it says one of those words or holds
    the kind of answer the second part asks for (its date: "In which release, and on what date …?");
    otherwise the second asks another fact ("Which course …, and which document …?")."""
    question = first_release_numbered(question, (str(p.meta.get("source", "")) for p in passages))
    query = read_question(question, context)
    if query.author:
        passages = _with_bylines(passages)
    units = _units(passages, frozenset(query.boosts), lines=query.kind == "value") if query.boosts else []
    if not units:
        return _refuse("no passage shares a word with the question")
    present = _said_anywhere(units)
    if asks_columns(query.form) and not query.names - present and (columns := columns_answer(units)):
        return columns  # a table's columns: the labels of its rows' cells (of the table it names, if any)
    missing = _missing_share(query, present)
    table = _names_table(query, passages)
    if (query.asked_numbers - present or missing >= _MISSING
            or (query.names - present and missing >= _OFF_TOPIC and not table)
            or not _versions_present(query, passages) or not _marks_present(query.form, passages)):
        # the question's year, quantity, version or name (or most of it) is in no passage
        return _refuse("the question's number, version, name or most of its words are in no passage")
    if query.counted and any(counts_asked(query, u.text) for u in units if u.kind != "code"):
        query = replace(query, counted_given=True)  # the passages agree on what a number of it looks like
    elif (query.counted == _LONG or query.kind == "value" and query.value_kind != "name") and _ASKS_HOW_LONG.search(
            query.form) and any(says_duration(u.text) for u in units if u.kind != "code"):
        # "… for a period of six months": not "version 1.3"; "How long … by default?" asks a default
        # that is a length of time: "The default is 14400 seconds", not "the default Status is `connected`";
        # "Which setting controls how long …?" asks the setting's name, not a length
        query = replace(query, duration_given=True)
    if query.counted in _PEOPLE_COUNTED and not query.counted_given and not any(
            counts(noun, u.text) for u in units if u.kind != "code" for noun in _PEOPLE_NOUNS):
        return _refuse("a number of people is asked for and no passage counts them")
    if query.measure and not any(in_measure(query.measure, u.text) for u in units if u.kind != "code"):
        return _refuse("a price, share or rate is asked for and no passage gives one")
    if query.program and not any(runs_program(code, query.program) for u in units for code in _codes(u)):
        query = replace(query, program="")  # "Which single command …?": no code runs a program named so
    if query.form != query.text:  # a case stated first: its symptoms are the question's
        query = replace(query, remedied=frozenset(u.source for u in units if _REMEDY_HEADING.fullmatch(u.block.section.strip())))
    if query.kind in ("person", "owner"):
        query = replace(query, common=_lower_case_words(units))
    weight = _term_weights(query, units)
    if table:  # a table's rows are weighed by the words some passage says: the others describe the table
        weight = {t: w for t, w in weight.items() if t in present} or weight
    label = _label_weight(query, units)
    # a yes/no, why or conditional question: two neighbouring sentences of a paragraph are one candidate too (``reasons``)
    paired = (query.yes_no or asks_why(query.form) or asks_conditional(query.form)
              or asks_replacement(query.form)) and not query.howto
    # a number asked for, or how a thing works ("How does X let …?"): a sentence that gives it of
    # "this" or "it" ("This allows …") is one candidate with the one before
    leaning = query.kind == "number" or asks_mechanism(query.form)
    # and for any question, a sentence with the example that follows it ("For instance: …")
    scored = [*units, *sentence_pairs(units, leaning=leaning and not paired, examples=not paired)]
    candidates = sorted(
        (c for u in scored if (c := _score(u, query, weight, min_coverage, label))),
        key=_candidate_order,
    )
    shared = _collection_names(query.names & present, units)
    # the rows of a table the question names need not hold half of it: they give values, not the
    # words that describe what the table counts
    candidates = _answering(candidates, query, present, shared, half=not table)
    if table:  # a row answers only with every month the question gives (in a month's name or an ISO
        # date) and every number that the passages say, whole: "February 1854" is not answered by
        # the row of December 1854, nor "pump number 9" by the row whose "y: 9.25"
        months, numbers = query.boosts.keys() & MONTHS, query.numbers & present
        candidates = [c for c in candidates if c.unit.kind != "row" or months <= c.unit.own | _iso_months(c.unit.text)
                      and all(n in _file_terms(c.unit.source) or _holds_number(c.unit.text, n) for n in numbers)]
    if release_files := _release_files(query, passages):  # another release's notes answer nothing
        candidates = _of_asked_release(candidates, query)
    candidates = _under_asked_release_first(candidates, query)
    if similarity is not None and _free_form(query):
        candidates = _by_meaning(candidates, question, similarity)
    candidates = _first_copies(candidates)
    for leads in (asking_words_first, identifier_first, reason_first, typed_first):  # which candidate leads (``leading``)
        candidates = leads(candidates, query)
    candidates = _remedy_first(candidates, query)
    candidates = read_on(candidates, units, query)
    if answered[0]:
        candidates = [c for c in candidates if c.unit.text not in answered[0] or c.unit.own & answered[1]
                      or query.kind and c.typed]  # or holds the kind asked: its date, its other number
    for c in candidates[:5]:
        log.debug("candidate %.3f [%d] %s", c.score, c.unit.number, c.unit.text[:100])
    if not candidates:
        refused = "no sentence shares enough of the question (or says its names)"
    elif query.kind and missing >= _OFF_TOPIC and not any(c.typed for c in candidates):
        refused = f"no candidate holds a {query.kind}, and words of the question are missing"
    elif query.kind == "number" and asks_frequency(query.form) and all(_off_kind(c, query) for c in candidates):
        refused = "how often is asked and no candidate says a number or a frequency"  # a pointer to where it is said
    elif query.kind and _off_kind(candidates[0], query) and _unmet_share(candidates[0].unit, query, weight) >= _OFF_TOPIC:
        refused = f"the best sentence holds no {query.kind} and is about part of the question only"
        typed = close_typed(candidates, query, refusing=True)
        if typed is None and query.default and query.kind == "value":  # a default said in words holds no
            # literal: "If not explicitly set, the first child … will be considered the initial state"
            typed = next((c for c in candidates[:_WORDED_DEFAULT_DEPTH] if says_unset_default(c.unit.text)), None)
        if typed is not None:  # a close one that holds it answers, wherever it is (not about another release)
            candidates, refused = put_first(candidates, typed), ""
    else:
        refused = ""
    if refused and (defining := _defining([c.unit for c in candidates[:_DEFINING_DEPTH]], units, query)):
        candidates, refused = [defining], ""  # the best ones name a thing whose value another sentence gives
    if refused:
        nearest = _nearest_of_kind(units, query, weight, present, question, similarity,
                                   release_files=release_files, shared=shared) if similarity else None
        if nearest is None:
            return _refuse(refused)
        candidates = read_on([nearest], units, query)
    elif similarity is not None and query.kind in _KINDS_BY_MEANING and _off_kind(candidates[0], query) \
            and (kin := _nearest_in_document(units, query, candidates[0].unit, question, similarity)) is not None:
        candidates = [kin, *candidates]  # "How long should it ferment?": "Culture … for at least 2 weeks"
    code_units = sorted(
        (u for u in units if u.kind == "code" and (u.own | u.section) & weight.keys()),
        key=lambda u: (-sum(weight[t] for t in (u.own | u.section) & weight.keys()), u.rank, u.position),
    ) if query.howto else []
    answer = compose(candidates, units, howto=query.howto, list_wanted=query.list_wanted,
                   ordered=query.ordered, max_sentences=max_sentences, code_units=code_units,
                   why=asks_why(query.form), person=query.kind == "person", compared=asks_comparison(query.form))
    if _lacks_asked_noun(query, answer, candidates[0], units):
        return _refuse(f"the answer never says what is asked for ({query.asked!r})")
    return answer


def _both_parts(question: str, parts: tuple[str, str], passages: Sequence[Passage], *, max_sentences: int,
                min_coverage: float, context: str, similarity: Similarity | None,
                part_passages: tuple[Sequence[Passage], Sequence[Passage]] | None = None) -> str:
    """The answer to two questions asked as one: the whole question's, then the best sentence of
    each part's own answer (the second part read with the first as its context) that it does not
    already quote, one more than a question gets at most; a part these passages give no answer
    reads those of its own search beside them (``part_passages``). When the whole question has no
    answer here, none: the caller may read more passages (the parts alone answer from fewer of the
    question's words, and more often wrongly)."""
    whole = _one_question(question, passages, max_sentences=max_sentences, min_coverage=min_coverage,
                          context=context, similarity=similarity)
    if whole == REFUSAL:
        return whole
    first, second = parts
    # the statements before the first part's question ("Our contributor fell ill mid-program. By
    # how much …?") are the whole question's: a part is answered by a sentence that says what it
    # asks, not by one that tells the circumstances the question is asked in
    first = asked_part(first)
    pieces = [whole]
    room = max_sentences + 1 - len(_MARKER_END.findall(whole))
    answered: tuple[str, frozenset[str]] = ("", frozenset())
    read = {p.number for p in passages}
    # two things asked in one breath are said together: a part is answered from the documents the
    # whole answer quotes when they answer it ("the oldest Rust version and the oldest Python
    # version": the getting-started page's, not a migration note's of an old release)
    quoted = {int(marker[1:-1]) for marker in _MARKER.findall(whole)}
    sources = {p.meta.get("source") for p in passages if p.number in quoted}
    agreeing = [p for p in passages if p.meta.get("source") in sources]
    for n, (part, leaning) in enumerate(((first, context), (second, f"{context} {first}".strip()))):
        answer = REFUSAL
        if agreeing and len(agreeing) < len(passages):
            answer = _one_question(part, agreeing, max_sentences=1, min_coverage=min_coverage, context=leaning,
                                   similarity=similarity, answered=answered)
        if answer == REFUSAL:
            answer = _one_question(part, passages, max_sentences=1, min_coverage=min_coverage, context=leaning,
                                   similarity=similarity, answered=answered)
        own = [p for p in (part_passages[n] if part_passages else ()) if p.number not in read]
        if answer == REFUSAL and own:  # not in the passages of the whole question: in those of the part's search
            answer = _one_question(part, [*passages, *own], max_sentences=1, min_coverage=min_coverage,
                                   context=leaning, similarity=similarity, answered=answered)
        if answer != REFUSAL:  # the second part asks another fact than the sentence that answers the first
            answered = (answer, frozenset(terms(second)) - frozenset(terms(first)))
        bare = _MARKERS.sub("", answer).strip()  # a sentence the whole answer quotes within its run
        if answer == REFUSAL or any(answer in p or bare in _MARKERS.sub("", p) for p in pieces):
            continue
        if (longer := [i for i, p in enumerate(pieces) if _MARKERS.sub("", p) in _MARKERS.sub("", answer)]):
            pieces[longer[0]] = answer  # it quotes a piece and goes on (the reason after a claim): once
            continue
        if (folded := _with_label(pieces, answer)) is not None:
            pieces = folded
        elif room > 0:
            pieces.append(answer)
            room -= 1
    return " ".join(pieces)


def _with_label(pieces: list[str], answer: str) -> list[str] | None:
    """``pieces`` with ``answer``'s label put on the sentence they quote already, when ``answer``
    is that sentence under another label ("2025-01-27: Support … [1]" after "Jekyll 4.4.0
    Released: Support … [1]" -> "Jekyll 4.4.0 Released, 2025-01-27: Support … [1]"); None when
    they do not quote it. The label is what the part adds: the sentence twice would say it twice."""
    label, _, body = answer.partition(": ")
    if not body or _MARKER_END.search(label) or len(body.split()) < _FOLD_WORDS:
        return None
    for i, piece in enumerate(pieces):
        at = piece.find(body)
        if at < 0:
            continue
        before = piece[:at]
        head = before[:-2] + f", {label}: " if before.endswith(": ") else before + f"{label}: "
        return [*pieces[:i], head + piece[at:], *pieces[i + 1:]]
    return None


def _collection_names(names: frozenset[str], units: Sequence[Unit]) -> frozenset[str]:
    """The names of the question that most of the retrieved documents say: the collection's own
    ("Nix" in Nix's release notes), which a document need not repeat to be about it."""
    said: dict[str, frozenset[str]] = {}
    for u in units:  # a document's units share its terms (its passages' text, titles and file name)
        if u.source not in said:
            said[u.source] = u.scope | u.document | _file_terms(u.source)
    if len(said) < _SHARED_NAME_DOCUMENTS:
        return frozenset()
    return frozenset(t for t in names if sum(t in terms for terms in said.values()) > _SHARED_NAME * len(said))


def _answering(candidates: list[Candidate], query: Query, present: frozenset[str],
               shared: frozenset[str] = frozenset(), *, half: bool = True) -> list[Candidate]:
    """The candidates whose document can answer: it mentions the names the question gives that
    some passage says, but for the collection's own (``shared``), or the sentence is under the
    release the question numbers; and its passage, with the document's other passages, holds
    half the question."""
    named = (query.names & present) - shared
    # a question about a name is answered from a document that mentions it; about an identifier
    # (``NO_COLOR``), from one that writes it whole, not only its words
    named = {t for t in named if "_" in t} or named
    if named:  # the file's name names its document too ("the Outlook test email": ``test_outlook_msg.msg``)
        candidates = [c for c in candidates
                      if named & (c.unit.scope | c.unit.document | c.unit.section | _file_terms(c.unit.source))
                      or under_release((*c.unit.above, *c.unit.parents), query.text)]
    # the passage an answer comes from (with its document's other passages) must hold half the
    # question: "In which year did Ada Quill receive the Harbour Medal?" is not answered by a
    # passage that names her and gives a year, but says nothing of a medal (a value's line may say
    # none of its question: "Serving on …:8080" for "What port does Waitress listen on?")
    if half and query.kind != "value" and not _COMPOUND.search(query.text):  # two questions in one: each part its own passage
        candidates = [c for c in candidates if _unsupported_share(c.unit, query) < _UNSUPPORTED]
    return candidates


#: a sentence that gives the value of a thing it opens with: "The lookback period is 5 minutes by default"
_DEFINES_VALUE = re.compile(r"^(?:The|A|An|Its)\s+(?P<term>(?:[\w-]+\s+){1,3}?[\w-]+)\s+(?:is|are|was|were|defaults\s+to)\b")


def _defining(best: Sequence[Unit], units: Sequence[Unit], query: Query) -> Candidate | None:
    """For a value or number question whose best sentences hold none: the sentence of the
    passages that opens with a term of two words or more one of them uses and gives the kind
    asked for ("Time series are only returned if their most recent sample is less than the
    lookback period ago." for "How far back does a query look …?", then "The lookback period is
    5 minutes by default"); None when there is none, or more than one."""
    if query.kind not in ("value", "number"):
        return None
    said = " ".join(f" {' '.join(WORD.findall(u.text.lower()))} " for u in best if u.kind == "prose")
    found = [u for u in units if u.kind == "prose" and (m := _DEFINES_VALUE.match(u.text))
             and f" {' '.join(WORD.findall(m.group('term').lower()))} " in said and holds_kind(u, query)]
    return Candidate(0.0, found[0], 0.0, True) if len({u.text for u in found}) == 1 else None


def _nearest_of_kind(units: Sequence[Unit], query: Query, weight: dict[str, float], present: frozenset[str],
                     question: str, similarity: Similarity, *, release_files: bool = False,
                     shared: frozenset[str] = frozenset()) -> Candidate | None:
    """When the words find no sentence holding the kind of answer asked for (a number, a date), the
    one nearest in meaning to the question among those that hold it and share a word with it, if
    it is near enough (for a question of no kind but a how-to, the nearest of all, nearer still): "The agenda must be made publicly available at least 2 days
    before the meeting" for "How far ahead of a meeting does its agenda have to be published?"."""
    if query.kind is not None and query.kind not in _KINDS_BY_MEANING or query.howto:
        return None  # a how-to must fit the case it asks about ("on a mainframe running z/OS"): meaning cannot tell
    typed = query.kind is not None
    total = sum(weight.values()) or 1.0
    pool = [Candidate(0.0, u, sum(weight[t] for t in u.own & weight.keys()) / total, typed)
            for u in sorted(units, key=lambda u: (u.rank, u.position))
            if u.kind in ("prose", "item", "row") and not _INJECTION.search(u.text)
            and (u.own - query.numbers) & weight.keys() and (not typed or holds_kind(u, query))]
    pool = _answering(pool, query, present, shared, half=False)
    pool = (_of_asked_release(pool, query) if release_files else pool)[:_MEANING_POOL]
    if not pool:
        return None
    near = list(similarity(question, [c.unit.text for c in pool]))
    top = max(range(len(pool)), key=lambda i: (near[i], -i))
    best = _ranked_twin(pool, top)  # as near as its twin: what meaning reads of them is the same
    log.debug("nearest of its kind %.2f [%d] %s", near[top], pool[best].unit.number, pool[best].unit.text[:80])
    if near[top] < (_NEAR_ENOUGH if typed else _NEAR_ENOUGH_ANY):
        return None
    found = pool[best]
    if _asks(found.unit):  # nearest in meaning to a question is the question an FAQ asks: its answer follows
        reply = _reply(found.unit, units)
        if reply is None or typed and not holds_kind(reply, query):
            return None
        found = replace(found, unit=reply)
    return replace(found, score=near[top])


def _reply(asking: Unit, units: Sequence[Unit]) -> Unit | None:
    """The sentence or item right after ``asking`` in its passage and section when it asks
    nothing itself: an FAQ's "A: The Superlance package contains … ``memmon`` …" after "Q: How can
    I make Supervisor restart a process …?"; None when the passage ends there."""
    return next((u for u in units if u.rank == asking.rank and u.position == last_position(asking) + 1
                 and u.kind in ("prose", "item") and u.block.section == asking.block.section and not _asks(u)), None)


def _ranked_twin(pool: Sequence[Candidate], best: int) -> int:
    """The first of ``pool`` (ranked as retrieved) that says what ``pool[best]`` says but for its
    code spans: twin pages (a framework's two flavours) write "set `x.enabled=false`" with another
    key each, a difference meaning reads as noise, while the retrieval's rank weighed the page's
    title against the question ("Server Web MVC")."""
    said = _twin_text(pool[best].unit.text)
    return next((i for i in range(best) if _twin_text(pool[i].unit.text) == said), best)


def _twin_text(text: str) -> str:
    return " ".join(CODE_SPAN.sub("`…`", text).lower().split())


def _nearest_in_document(units: Sequence[Unit], query: Query, best: Unit, question: str,
                         similarity: Similarity) -> Candidate | None:
    """When the best sentence for a number or date question holds none, the sentence of its
    document that holds one and is nearest in meaning to the question, if nearer than the best
    sentence itself, whatever words it shares: a recipe's "Culture at room temperature … for at
    least 2 weeks" for "How long should it ferment?", where the best sentence only says it is
    "lacto-fermented". The pool and bound differ from ``_nearest_of_kind``'s (one document, any
    words; nearer than the best sentence rather than ``_NEAR_ENOUGH``)."""
    pool = [u for u in units if u.source == best.source and u.kind in ("prose", "item", "row")
            and not _INJECTION.search(u.text) and holds_kind(u, query)][:_MEANING_POOL]
    if not pool:
        return None
    *near, own = similarity(question, [*(u.text for u in pool), best.text])
    i = max(range(len(pool)), key=lambda k: (near[k], -k))
    log.debug("nearest of its kind in its document %.2f (best %.2f) [%d] %s", near[i], own, pool[i].number,
              pool[i].text[:80])
    return Candidate(near[i], pool[i], 0.0, True) if near[i] > own else None


def _free_form(query: Query) -> bool:
    """Whether the question's answer has no kind the words of a sentence can be checked for: a
    how-to, a reason, a place, a description; not a person, a date, a number, a value, a name, a
    release, a "Which …?" thing or a yes or no. Those are found by what a sentence holds; these
    by what it means, as well as by the words it shares."""
    return query.kind is None and not (query.versions or query.which or query.yes_no or ASKS_NAME.search(query.form))


def _by_meaning(candidates: list[Candidate], question: str, similarity: Similarity) -> list[Candidate]:
    """The best candidates reordered by how near each is in meaning to the question as well as by
    the words it shares: a sentence that says the asked thing in other words ("Run the upload again
    and it picks up where it stopped" for "How do I carry on an upload that stopped halfway?")
    passes one that repeats the question's words."""
    top = candidates[:_MEANING_DEPTH]
    if len(top) < 2:
        return candidates
    near = list(similarity(question, [c.unit.text for c in top]))
    best = max(near)
    rescored = [replace(c, score=c.score * math.exp(_MEANING * (n - best))) for c, n in zip(top, near, strict=True)]
    for c, n in zip(rescored[:5], near, strict=False):
        log.debug("by meaning %.3f (%.2f) [%d] %s", c.score, n, c.unit.number, c.unit.text[:80])
    return sorted([*rescored, *candidates[_MEANING_DEPTH:]], key=_candidate_order)


def _first_copies(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates, each sentence that several passages write (a guide's paragraph copied into
    the change log) quoted from the passage the search ranked first: the words are the same,
    the ranking says which file is about them."""
    first: dict[tuple[str, str], Unit] = {}
    for c in candidates:
        key = (c.unit.kind, c.unit.text)
        if key not in first or c.unit.rank < first[key].rank:
            first[key] = c.unit
    return [c if first[(c.unit.kind, c.unit.text)] is c.unit else replace(c, unit=first[(c.unit.kind, c.unit.text)])
            for c in candidates]


#: how far down the candidates a default said in words is looked for before refusing
_WORDED_DEFAULT_DEPTH = 3


def _refuse(reason: str) -> str:
    """The refusal, with its reason logged at debug level (``ragkit -vv ask`` shows it)."""
    log.debug("refused: %s", reason)
    return REFUSAL


def unsaid_names(question: str, passages: Sequence[Passage]) -> list[str]:
    """The names ``question`` gives (capitalised words not opening it, identifiers: Kotlin,
    ClickHouse, ``scipy.quantum``), as it writes them, that none of ``passages`` says (in its
    text, title, headings or file name). An answer from such passages is about something else,
    unless the knowledge base never names the thing in the passage that answers ("Which release
    of Kiln …?" over Kiln's change log): the caller can look for the name itself."""
    query = read_question(question)
    if not query.names or _names_table(query, passages):  # its rows do not describe what they count
        return []
    aliases = _aliases(frozenset(query.boosts), passages)
    said: set[str] = set()
    for p in passages:
        text = f"{p.text} {p.meta.get('title', '')} {p.meta.get('heading', '')}"
        said |= _with_aliases(frozenset(terms(text)), aliases) | _file_terms(p.meta.get("source", ""))
    missing = query.names - said
    words = [raw for raw in WORD.findall(question) if (word_terms(raw) or [""])[0] in missing]
    words += [i for i in snake_identifiers(question) if i in missing]
    if not words:  # each word said somewhere; a name of several words must be said as one
        held = _SQUASH.sub("", " ".join(f"{p.text} {p.meta.get('title', '')} {p.meta.get('heading', '')} "
                                        f"{p.meta.get('source', '')}" for p in passages).lower())
        words = [n for n in _long_names(question) if _SQUASH.sub("", n.lower()) not in held]
    return list(dict.fromkeys(words))


#: a name of several capitalised words ("Business Source License"), not the word that opens a sentence;
#: of three words at least (a question's "Intel Mac" or "Kotlin Duration" is said apart as often as not)
_LONG_NAME_WORDS = 3
_LONG_NAME = re.compile(r"(?<![\w'’])[A-Z][a-z][\w-]*(?:\s+[A-Z][a-z][\w-]*)+")
_OPENING = re.compile(r"(?:^|[.?!:;]\s+)(\S+)")


def _long_names(question: str) -> list[str]:
    """The names of ``_LONG_NAME_WORDS`` capitalised words or more ``question`` writes ("Under the
    *Business Source License*, …"), without a word that opens a sentence of it ("What", "I'm") or a
    possessive's "'s"."""
    openers = {m.start(1) for m in _OPENING.finditer(question)}
    names = []
    for m in _LONG_NAME.finditer(question):
        kept = [w.group() for w in re.finditer(r"\S+", m.group()) if m.start() + w.start() not in openers]
        if len(kept) >= _LONG_NAME_WORDS:
            names.append(re.sub(r"['’]s$", "", " ".join(kept)))
    return names


#: nouns that name one thing, as reference docs use them in turn: a call's "arguments" are its "parameters"
_ALIKE = {noun: alike for alike in [(stem("argument"), stem("parameter"))] for noun in alike}
#: nouns for what identifies a thing: "What is the advisory *ID* …?" is answered by the identifier
#: itself ("GHSA-8rvj-mm4h-c258"), as a "Which …?" question is by a name, whether or not it says "ID"
_IDENTIFYING = frozenset(stem(w) for w in ("id", "identifier", "code"))


def _says_joined(words: frozenset[str], name: str) -> bool:
    """Whether ``words`` (stems) say ``name``, or each word of a name joined by hyphens
    ("usb-to-serial" by a sentence's "USB to serial")."""
    parts = [t for p in name.split("-") for t in word_terms(p)]
    return says(words, name) or len(parts) > 1 and all(says(words, p) for p in parts)


_DEFAULT_LINE_WORDS = 6  # a line that declares a default and says no more ("Default: 1024")


def _lacks_asked_noun(query: Query, answer: str, candidate: Candidate, units: Sequence[Unit]) -> bool:
    """Whether ``answer`` never says the noun that names what the question asks for ("Which
    *university* …?", "What *licence* is …?", "What is the maximum *size* …?", "How many stock
    *options* …?"), nor does the best sentence's section, its neighbours or the headings above
    it: then it answers another question of the same passage ("10 bonus shares" for the stock
    options of a new hire). A "Which …?" answer that names a thing the question does not (a
    literal, ``itsdangerous``, 'SKU-4563', an upper-case name: ORDPATH) may leave its noun
    unsaid; so may a list, which its items answer, a how-to's steps, a price ("free"), a date,
    and a value of the very kind the noun names ("Python 3.10 or newer" for "What Python version …?"),
    but not one of another product ("Welcome to Mantid 4.0" for it). A line that declares a default
    and no more ("Default: 1024") is of what the paragraph above it describes (among ``units``)."""
    if not query.asked or query.howto or query.list_wanted or query.measure and in_measure(query.measure, answer):
        return False
    product = asked_product(query.form) if query.value_kind == "version" else ""
    if product and anothers_releases(_MARKER.sub(" ", answer), product):
        return True  # "Which Python version …?": "Welcome to Mantid 4.0" gives another product's
    if candidate.typed and (query.kind == "date" or query.value_kind == "version"
                            or query.asked in word_terms(query.value_kind or "")):
        return False  # "In which year …?": "in 2015"; "What Python version …?", "the oldest Node.js
        # release line …?": "Python 3.10 or newer", "Node.js v20+" (a version is what either noun names)
    if query.asked in _TIME_NOUNS and says_duration(_MARKER.sub(" ", answer)):
        return False  # "How much time …?": "10-15 minutes"
    if query.asked in _SIZE_NOUNS and says_size(_MARKER.sub(" ", answer)):
        return False  # "What is the maximum length …?": "no more than 300 characters"
    if query.asked in _REASON_NOUNS and asks_why(query.form):
        return False  # "What is the cause?": "… because the NG doesn't have an automatic reset"
    if query.asked in _FAULT_NOUNS and advises(_MARKER.sub(" ", answer)):
        return False  # "What is the likely misconfiguration …?": "Make sure the region … is set to Global"
    if query.asked in _RULE_NOUNS and states_rule(_MARKER.sub(" ", answer)):
        return False  # "What is the eyesight standard …?": "You MUST be able to read …"
    if query.asked in _STATUS_NOUNS and _ASKS_EXIT.search(query.form) and _SAYS_EXIT.search(_MARKER.sub(" ", answer)):
        return False  # "What exit code does mhdr return …?": "The mhdr utility exits 0 on success, 1 if …"
    best = candidate.unit
    around = best.own | best.near | best.section | best.scope | best.document
    if query.kind == "value" and candidate.typed and not query.own - {query.asked} - around:
        return False  # a value of the very thing the question names, all of it: "Default: 2048" for the backlog's "size"
    said = _MARKER.sub(" ", answer)
    have = frozenset(terms(said)) | best.near | best.section | frozenset(terms(" ".join(best.above)))
    if declares_default(best.text) and len(best.text.split()) <= _DEFAULT_LINE_WORDS:
        # "Default: 1024" gives the default of what the paragraph above it describes ("The minimum
        # number of file descriptors that must be available …")
        have |= frozenset().union(*(u.own for u in units if u.rank == best.rank and u.paragraph == best.paragraph - 1))
    # a length of time or a size is no thing a name gives ("What warranty period …?": not "ReleFly … in summer 2024")
    named = ((query.which or query.asked in _IDENTIFYING) and names_thing(said, query)
             and query.asked not in _TIME_NOUNS | _SIZE_NOUNS)
    if named and query.qualifier and not _says_joined(have | around, query.qualifier):
        return True  # "Which Rust crate …?": a thing of another name's kind, from a passage that never says Rust
    if any(says(have, noun) for noun in _ALIKE.get(query.asked, (query.asked,))):
        return False
    return not named


def lacks_asked_kind(question: str, answer: str) -> bool:
    """Whether ``answer`` quotes nothing of the only kind ``question`` can be answered with: no
    date for "On what date was …?" or "When did …?", no number (or amount of money) for "How
    many …?", no number at all for "Which version …?": then it is no answer, however near its
    sentences are to the question."""
    query = read_question(question)
    said = _MARKER.sub(" ", answer)
    if answer != REFUSAL and ASKS_NAME.search(query.form) and not names_thing(said, query):
        return True  # "What is the name of the tool …?": an answer that names nothing
    if answer != REFUSAL and query.value_kind == "version" and not re.search(r"\d", said):
        return True  # "Which version of libsodium is bundled?": an answer that writes no number
    # "How many stages does it run by default …?" asks a default that is a number
    kind = "number" if query.kind == "value" and _OPENS_HOW_MANY.search(query.form) else query.kind
    if kind == "number" and query.measure == "money" and bool(SAYS_KIND.search(query.form)) and answer != REFUSAL \
            and not in_measure("money", said):
        # "How much does a membership cost?": "2 blogs per year" counts blogs, no price; a bare
        # number may be one (a table's "30,675" under a heading in dollars)
        return len(_COUNTED_NUMBER.findall(said)) == len(NUMBER.findall(said))
    return (kind in ("date", "number") and bool(SAYS_KIND.search(query.form)) and answer != REFUSAL
            and not has_answer_type(kind, said, query.words)
            and not (query.measure is not None and in_measure(query.measure, said)))


#: a number of things: "2 blogs", "4 on-demand webinars" (not "2 million", an amount)
_COUNTED_NUMBER = re.compile(r"(?<![\w.,])\d[\d,.]*\s+(?!(?:million|billion|thousand|hundred|dollars|euros|pounds|cents)\b)"
                             r"(?:[a-z-]+\s+)?[a-z-]+s\b")
_OPENS_HOW_MANY = re.compile(r"^\W*how\s+(?:many|much)\b", re.IGNORECASE)  # the question opens with it


__all__ = ["REFUSAL", "STOPWORDS", "extractive_answer", "lacks_asked_kind", "unsaid_names"]
