"""``local``: an offline, deterministic provider with no model — extractive answers from tools.

- Tools offered and the latest user message not yet followed by a tool result: it calls the most
  relevant tool (word overlap between the question and the tool's name, description and
  parameters), passing the question as the first required string parameter.
- Tool results present: it composes an *extractive* answer. Results in the RAG format
  (``[n] source: ... | score: ...`` header lines, each followed by passage text) are split into
  sentences (not after "Dr." or an initial; title lines dropped; each table row a sentence of its
  own, its cells labelled by the header row: "Ticket: Adult; Price: £6.50"). Each sentence is scored
  by the IDF-weighted share of the question's content words it contains (stopwords removed, light
  suffix stemming; numbers and capitalised names weigh more), with part credit for words found in
  the passage's title or heading or elsewhere in the passage; a number in the question (a year, say) scopes
  it and counts wherever in the passage it appears. The score is then weighed by:
  - *answer type*: a who/when/how-many question ("which year", "what share", "how long") wants a
    person, a date or a quantity; a sentence with none that is new (not in the question) counts half;
  - *retrieval rank*: a little, so a strong match in a later passage still wins.
  A sentence that adds nothing beyond the question's own words is never an answer. The best 1-3
  sentences are written each followed by its ``[n]`` marker. It says the knowledge base has no
  answer when no sentence shares enough meaningful content with the question, or when a number
  the question is about appears in none of the passages.
  Other tool results are reported as they are.
- No tools: a short deterministic reply.

Passage text is data: nothing in it is ever followed as an instruction — the only thing text can
do is be quoted if it is relevant to the question. Token usage is estimated (~4 characters per
token) so cost accounting works; the model name is ``local-extractive`` (price 0).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.errors import ConfigError
from ragkit.providers.base import BaseProvider, Message, Response, StreamEvent, ToolCall, ToolSpec, Usage
from ragkit.registry import providers

log = logging.getLogger(__name__)

REFUSAL = "The knowledge base does not contain an answer to this question."

_STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each else few for from further get gets
got had has have having he her here hers him his how i if in into is it its itself just know let like
make me more most much must my need no nor not now of off on once only or other our ours out over own
please same say says long take takes many often she should show so some such tell than that the their theirs them then there these
they this those through to too under until up us use used using very want was way we were what when
where which while who whom why will with would you your yours explain describe give find list s t
""".split()
)
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_HEADER = re.compile(r"^\[(\d+)\]\s*(.*)$")
_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
# sentences addressed to an AI rather than stating facts are never quoted as answers
_INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override)\b[^.]{0,60}\b(instructions?|prompts?|rules|guidelines)\b"
    r"|\b(system prompt|you are now|as an ai)\b",
    re.IGNORECASE,
)
_SUFFIXES = (
    ("ational", "ate"),
    ("ation", ""),
    ("ies", "y"),
    ("sses", "ss"),
    ("ing", ""),
    ("edly", ""),
    ("ed", ""),
    ("ly", ""),
    ("es", ""),
    ("s", ""),
)


def stem(word: str) -> str:
    """A light, deterministic suffix stripper (install/installed/installing -> install)."""
    w = word.lower().replace("’", "'").split("'")[0]
    for suffix, repl in _SUFFIXES:
        if (
            w.endswith(suffix)
            and len(w) - len(suffix) >= 3
            and not w.endswith("ss" if suffix == "s" else "\0")
        ):
            w = w[: -len(suffix)] + repl
            break
    return w[:-1] if w.endswith("e") and len(w) >= 4 else w


def terms(text: str) -> list[str]:
    """Content-word stems of ``text`` in order (stopwords and 1-letter words removed)."""
    out = []
    for raw in _WORD.findall(text):
        low = raw.lower().replace("’", "'").split("'")[0]
        if low in _STOPWORDS or (len(low) < 2 and not low.isdigit()):
            continue
        out.append(stem(low))
    return out


def _question_weights(question: str, *, drop: frozenset[str] = frozenset()) -> dict[str, float]:
    """Boost factors: numbers x2, capitalised names (not sentence-initial) x1.5, else 1.

    Words in ``drop`` (the answer-type noun, as in "which *year*") are not matched: they name
    what the answer is, not what it is about."""
    boosts: dict[str, float] = {}
    words = _WORD.findall(question)
    for i, raw in enumerate(words):
        low = raw.lower()
        if low in _STOPWORDS or low in drop or (len(low) < 2 and not low.isdigit()):
            continue
        boost = 2.0 if any(c.isdigit() for c in raw) else 1.5 if raw[0].isupper() and i > 0 else 1.0
        key = stem(low)
        boosts[key] = max(boosts.get(key, 0.0), boost)
    return boosts


# ---------------------------------------------------------------- what kind of answer is wanted
_QUANTITY_NOUNS = (
    "share|percentage|percent|proportion|fraction|number|amount|price|cost|size|length|height|"
    "depth|distance|speed|rate|temperature|capacity|output|total|sum|value|frequency|age|weight|"
    "area|volume|duration|population|count"
)
_DATE_NOUNS = "year|years|date|dates|day|days|month|months|decade|century|period|season|time"
_ANSWER_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("person", re.compile(r"^\W*(?:who|whom|whose)\b", re.IGNORECASE)),
    (
        "date",
        re.compile(rf"^\W*when\b|\bsince when\b|\b(?:what|which)\s+(?P<noun>{_DATE_NOUNS})\b", re.IGNORECASE),
    ),
    (
        "number",
        re.compile(
            r"\bhow\s+(?:much|many|far|long|often|big|large|high|tall|deep|wide|heavy|old|fast|hot|cold|[a-z]+ly)\b"
            rf"|\b(?:what|which)(?:\s+(?:is|are|was|were|the|a|an|\w+est|rated|maximum|minimum|average|mean)){{0,3}}"
            rf"\s+(?P<noun>{_QUANTITY_NOUNS})\b",
            re.IGNORECASE,
        ),
    ),
)
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
million billion dozen half twice""".split()
)
_MONTHS = frozenset(
    """january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
# words that make a capitalised phrase a place or an organisation rather than a person
_DESIGNATORS = frozenset(
    """island islands isle coast street road avenue lane square bay hill hills mount mountain
mountains river lake sea ocean sound strait harbour harbor port haven point head cape beach cliff cliffs valley
forest park bridge castle church cathedral abbey house hall hut tower centre center building station observatory
museum library university college school institute academy trust society company corporation council ministry
department agency office bank hospital club association foundation network group committee board north south
east west northern southern eastern western new great upper lower saint st county city town village district
kingdom republic state states united national royal international""".split()
)
_YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})$")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
_HONORIFIC = re.compile(
    r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor|Sir|Dame|Lord|Lady|Captain|Capt|Rev|Father|Sister)"
    r"\.?\s+[A-Z][a-z]"
)


def answer_type(question: str) -> tuple[str | None, frozenset[str]]:
    """The kind of answer a question asks for (``person``, ``date``, ``number`` or None) and the
    type noun to leave out of matching ("which *year*"): classic answer-type detection."""
    for kind, pattern in _ANSWER_TYPES:
        match = pattern.search(question)
        if match:
            noun = match.groupdict().get("noun")
            return kind, frozenset({noun.lower()} if noun else ())
    return None, frozenset()


def has_answer_type(kind: str | None, sentence: str, question_words: frozenset[str]) -> bool:
    """Whether ``sentence`` holds something new (not in the question) of the wanted kind."""
    if kind is None:
        return True
    novel = [w for w in _WORD.findall(sentence) if w.lower() not in question_words]
    if kind == "number":
        return any(any(c.isdigit() for c in w) or w.lower() in _NUMBER_WORDS for w in novel)
    if kind == "date":
        return bool(_CLOCK.search(sentence)) or any(
            _YEAR.match(w) or (w.lower() in _MONTHS and w[0].isupper()) or w.lower().rstrip("s") in _WEEKDAYS
            for w in novel
        )
    return bool(_HONORIFIC.search(sentence)) or _has_personal_name(sentence, question_words)


def _has_personal_name(sentence: str, question_words: frozenset[str]) -> bool:
    """Two adjacent capitalised words (not opening the sentence, not from the question) of which
    neither is a place or organisation designator: "Ada Lovelace" yes, "Port Aldous" no."""
    words = _WORD.findall(sentence)
    name = [
        i > 0
        and w[0].isupper()
        and not w.isupper()
        and w.lower() not in question_words
        and w.lower() not in _DESIGNATORS
        for i, w in enumerate(words)
    ]
    return any(a and b for a, b in zip(name, name[1:], strict=False))


@dataclass
class Passage:
    number: int
    text: str
    meta: dict[str, str] = field(default_factory=dict)


def parse_passages(text: str) -> list[Passage]:
    """Parse ``[n] key: value | key: value`` headers and the passage text under each."""
    passages: list[Passage] = []
    for line in text.splitlines():
        match = _HEADER.match(line.strip())
        if match and ":" in match.group(2) or (match and not match.group(2)):
            meta = dict(_kv(part) for part in match.group(2).split(" | ") if ":" in part)
            passages.append(Passage(int(match.group(1)), "", meta))
        elif passages:
            passages[-1].text += line + "\n"
    return [p for p in passages if p.text.strip()]


def _kv(part: str) -> tuple[str, str]:
    key, _, value = part.partition(":")
    return key.strip(), value.strip()


# ---------------------------------------------------------------- sentences and table rows
_ABBREVIATION = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Sr|Jr|St|Mt|Capt|Col|Gen|Lt|Rev|Sgt|No|Nos|Fig|vs|approx|"
    r"ca|cf|e\.g|i\.e)|(?:^|\s)[A-Z])\.$"
)
_TABLE_SEPARATOR = re.compile(r"^:?-{2,}:?$")


def table_cells(line: str) -> list[str] | None:
    """The cells of a table row (``a | b`` or ``| a | b |``), or None for any other line."""
    if "|" not in line:
        return None
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells if len(cells) >= 2 else None


def _row_sentence(header: list[str] | None, cells: list[str]) -> str:
    """A table row as a sentence, each cell labelled by its column ("Price: £6.50")."""
    if not header or len(header) != len(cells):
        return "; ".join(c for c in cells if c)
    return "; ".join(
        f"{h}: {c}" if h and h.lower() != c.lower() else c for h, c in zip(header, cells, strict=True) if c
    )


def _is_title(line: str) -> bool:
    """A title or section line of plain text ("POWER AND SUPPLIES", "Annual Report 2022"): no
    closing punctuation and every longer word capitalised."""
    words = [w for w in _WORD.findall(line) if len(w) > 3 and not w.isdigit()]
    return (
        bool(words)
        and len(line.split()) <= 12
        and line[-1] not in ".!?:;,"
        and all(w[0].isupper() for w in words)
    )


def _split_prose(block: str) -> list[str]:
    """Split at sentence ends, but not after an abbreviation or an initial ("Dr. Halloran")."""
    pieces: list[str] = []
    for piece in _SENT_SPLIT.split(block):
        if pieces and _ABBREVIATION.search(pieces[-1]):
            pieces[-1] += " " + piece
        else:
            pieces.append(piece)
    return [p.strip() for p in pieces]


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage; markdown headings dropped, bullets and wrapped lines handled, and
    each table row a sentence of its own with its cells labelled by the header row."""
    blocks: list[tuple[str, bool]] = []  # (text, is a table row)
    header: list[str] | None = None
    in_table = False
    for line in text.splitlines():
        stripped = line.strip()
        cells = table_cells(stripped)
        if cells is not None:
            if all(_TABLE_SEPARATOR.match(c) for c in cells if c):
                continue
            if not in_table:
                header, in_table = cells, True
            else:
                blocks.append((_row_sentence(header, cells), True))
            continue
        in_table, header = False, None
        if not stripped or stripped.startswith("#") or _is_title(stripped):
            blocks.append(("", False))
            continue
        item = re.sub(r"^([-*+•]|\d+[.)])\s+", "", stripped)
        last = blocks[-1] if blocks else ("", True)
        label = len(last[0].split()) <= 3 and item[:1].isupper()  # "Supply runs" over a paragraph
        if item != stripped or last[1] or not last[0] or last[0][-1] in ".!?:" or label:
            blocks.append((item, False))
        else:
            blocks[-1] = (last[0] + " " + item, False)
    sentences = [s for b, row in blocks if b for s in ([b] if row else _split_prose(b))]
    return [s for s in sentences if len(s.split()) >= 3 or any(c.isdigit() for c in s)]


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
        frozenset(w.lower() for w in _WORD.findall(question)),
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


def _param_text(spec: ToolSpec) -> str:
    props = spec.parameters.get("properties", {})
    return " ".join(f"{name.replace('_', ' ')} {p.get('description', '')}" for name, p in props.items())


def choose_tool(question: str, tools: Sequence[ToolSpec]) -> ToolSpec:
    """The tool whose name, description and parameters share most words with the question;
    ties go to a search-like tool (a ``query``/``question`` parameter), then to the first."""
    wanted = set(terms(question))

    def overlap(spec: ToolSpec) -> int:
        text = f"{spec.name.replace('_', ' ').replace('-', ' ')} {spec.description} {_param_text(spec)}"
        return len(wanted & set(terms(text)))

    def generic(spec: ToolSpec) -> bool:  # on a tie, a search tool is the natural home of a question
        names = [spec.name, *spec.parameters.get("properties", {})]
        return any(_looks_like_search(n) or n in ("query", "question") for n in names)

    return max(tools, key=lambda spec: (overlap(spec), generic(spec), -tools.index(spec)))


def _is_string(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "string" or any(s.get("type") == "string" for s in schema.get("anyOf", []))


def tool_arguments(question: str, spec: ToolSpec) -> dict[str, Any]:
    """The question for the first required string parameter; neutral values for other required ones."""
    props: dict[str, Any] = spec.parameters.get("properties", {})
    args: dict[str, Any] = {}
    question_used = False
    for name in spec.parameters.get("required", []):
        schema = props.get(name, {})
        if _is_string(schema) and not question_used and "enum" not in schema:
            args[name], question_used = question, True
        elif "default" in schema:
            args[name] = schema["default"]
        elif "enum" in schema:
            args[name] = schema["enum"][0]
        else:
            neutral = {
                "string": question,
                "integer": 1,
                "number": 1.0,
                "boolean": False,
                "array": [],
                "object": {},
            }
            args[name] = neutral.get(schema.get("type", "string"), question)
    return args


@providers.register("local")
class LocalProvider(BaseProvider):
    """Offline and deterministic; see the module docstring for what it does."""

    name = "local"

    def __init__(
        self, *, model: str = "local-extractive", max_sentences: int = 3, min_coverage: float = 0.3
    ) -> None:
        if not 1 <= max_sentences <= 10:
            raise ConfigError(f"max_sentences must be between 1 and 10 (got {max_sentences})")
        if not 0 < min_coverage <= 1:
            raise ConfigError(f"min_coverage must be in (0, 1] (got {min_coverage})")
        self.model = model
        self.max_sentences = max_sentences
        self.min_coverage = min_coverage

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        question = messages[last_user].content if last_user >= 0 else ""
        results = [m for m in messages[last_user + 1 :] if m.role == "tool"]
        if tools and not results and question:
            spec = choose_tool(question, list(tools))
            digest = hashlib.sha256(f"{len(messages)}\0{question}\0{spec.name}".encode()).hexdigest()[:16]
            call = ToolCall(id=f"call_{digest}", name=spec.name, arguments=tool_arguments(question, spec))
            return self._response(messages, tools, "", (call,))
        if results:
            return self._response(messages, tools, self._answer(question, results))
        reply = "I am ragkit's offline local provider: I answer from tool results, and no tool was used here."
        return self._response(messages, tools, reply)

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Iterator[StreamEvent]:
        response = self.complete(messages, tools, **params)
        for piece in re.findall(r"\S+\s*", response.content):
            yield StreamEvent("text", text=piece)
        yield StreamEvent("done", response=response)

    def _answer(self, question: str, results: Sequence[Message]) -> str:
        passages = [
            p for m in results if not m.content.startswith("error:") for p in parse_passages(m.content)
        ]
        if passages:
            return extractive_answer(
                question, passages, max_sentences=self.max_sentences, min_coverage=self.min_coverage
            )
        errors = [m.content for m in results if m.content.startswith("error:")]
        if errors and len(errors) == len(results):
            return f"I could not answer because the tool failed: {errors[0].removeprefix('error:').strip()}"
        if any(_looks_like_search(m.name or "") for m in results):
            return REFUSAL
        return "\n".join(
            f"The {m.name or 'tool'} tool returned: {m.content}"
            for m in results
            if not m.content.startswith("error:")
        )

    def _response(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        content: str,
        calls: tuple[ToolCall, ...] = (),
    ) -> Response:
        seen = sum(len(m.content) + sum(len(json.dumps(c.arguments)) for c in m.tool_calls) for m in messages)
        seen += sum(len(json.dumps(t.parameters)) + len(t.description) for t in tools or ())
        produced = len(content) + sum(len(json.dumps(c.arguments)) for c in calls)
        usage = Usage(input_tokens=(seen + 3) // 4, output_tokens=(produced + 3) // 4)
        return Response(
            content=content,
            tool_calls=calls,
            usage=usage,
            model=self.model,
            stop_reason="tool_calls" if calls else "stop",
        )


def _looks_like_search(name: str) -> bool:
    return any(word in name.lower() for word in ("search", "retriev", "knowledge"))


__all__ = [
    "REFUSAL",
    "LocalProvider",
    "Passage",
    "extractive_answer",
    "parse_passages",
    "split_sentences",
    "terms",
]
