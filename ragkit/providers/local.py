"""``local``: an offline, deterministic provider with no model — extractive answers from tools.

- Tools offered and the latest user message not yet followed by a tool result: it calls the most
  relevant tool (word overlap between the question and the tool's name, description and
  parameters), passing the question as the first required string parameter.
- Tool results present: it composes an *extractive* answer. Results in the RAG format
  (``[n] source: ... | score: ...`` header lines, each followed by passage text) are split into
  sentences; each sentence is scored by the IDF-weighted share of the question's content words it
  contains (stopwords removed, light suffix stemming; numbers and capitalised names weigh more).
  The best 1-3 sentences are written each followed by its ``[n]`` marker. When no sentence shares
  enough meaningful content with the question, it says the knowledge base has no answer.
  Other tool results are reported as they are.
- No tools: a short deterministic reply.

Passage text is data: nothing in it is ever followed as an instruction — the only thing text can
do is be quoted if it is relevant to the question. Token usage is estimated (~4 characters per
token) so cost accounting works; the model name is ``local-extractive`` (price 0).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.errors import ConfigError
from ragkit.providers.base import BaseProvider, Message, Response, StreamEvent, ToolCall, ToolSpec, Usage
from ragkit.registry import providers

REFUSAL = "The knowledge base does not contain an answer to this question."

_STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each else few for from further get gets
got had has have having he her here hers him his how i if in into is it its itself just know let like
make me more most much must my need no nor not now of off on once only or other our ours out over own
please same say says long take takes many often she should show so some such tell than that the their theirs them then there these
they this those through to too under until up us use used using very want was way we were what when
where which while who whom why will with would you your yours explain describe give find list s t
""".split())
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_HEADER = re.compile(r"^\[(\d+)\]\s*(.*)$")
_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
# sentences addressed to an AI rather than stating facts are never quoted as answers
_INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override)\b[^.]{0,60}\b(instructions?|prompts?|rules|guidelines)\b"
    r"|\b(system prompt|you are now|as an ai)\b", re.IGNORECASE)
_SUFFIXES = (("ational", "ate"), ("ation", ""), ("ies", "y"), ("sses", "ss"), ("ing", ""), ("edly", ""),
             ("ed", ""), ("ly", ""), ("es", ""), ("s", ""))


def stem(word: str) -> str:
    """A light, deterministic suffix stripper (install/installed/installing -> install)."""
    w = word.lower().replace("’", "'").split("'")[0]
    for suffix, repl in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss" if suffix == "s" else "\0"):
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


def _question_weights(question: str) -> dict[str, float]:
    """Boost factors: numbers x2, capitalised names (not sentence-initial) x1.5, else 1."""
    boosts: dict[str, float] = {}
    words = _WORD.findall(question)
    for i, raw in enumerate(words):
        low = raw.lower()
        if low in _STOPWORDS or (len(low) < 2 and not low.isdigit()):
            continue
        boost = 2.0 if any(c.isdigit() for c in raw) else 1.5 if raw[0].isupper() and i > 0 else 1.0
        key = stem(low)
        boosts[key] = max(boosts.get(key, 0.0), boost)
    return boosts


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


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage; markdown headings dropped, bullets and wrapped lines handled."""
    blocks: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            blocks.append("")
            continue
        item = re.sub(r"^([-*+•]|\d+[.)])\s+", "", stripped)
        if item != stripped or not blocks or not blocks[-1] or blocks[-1][-1] in ".!?:":
            blocks.append(item)
        else:
            blocks[-1] += " " + item
    sentences = [s.strip() for b in blocks if b for s in _SENT_SPLIT.split(b)]
    return [s for s in sentences if len(s.split()) >= 3 or any(c.isdigit() for c in s)]


@dataclass
class _Candidate:
    score: float
    matched: int
    rank: int
    position: int
    sentence: str
    number: int


def extractive_answer(question: str, passages: Sequence[Passage], *, max_sentences: int = 3,
                      min_coverage: float = 0.3) -> str:
    """The best 1-3 sentences with ``[n]`` markers, or the refusal (see the module docstring)."""
    boosts = _question_weights(question)
    if not boosts or not passages:
        return REFUSAL
    units = [(rank, pos, s, p.number, set(terms(s)), set(terms(p.meta.get("heading", ""))))
             for rank, p in enumerate(passages) for pos, s in enumerate(split_sentences(p.text))]
    if not units:
        return REFUSAL
    n = len(units)
    df = {t: sum(1 for u in units if t in u[4]) for t in boosts}
    rare = math.log((n + 1) / 1.5)  # the weight of a term found in one sentence
    weight = {t: boosts[t] * (math.log((n + 1) / (df[t] + 0.5)) if df[t] else rare) for t in boosts}
    total = sum(weight.values())
    candidates = []
    for rank, pos, sentence, number, own, heading in units:
        hits = own & boosts.keys()
        context_hits = (heading - own) & boosts.keys()
        if not hits or _INJECTION.search(sentence):
            continue
        score = (sum(weight[t] for t in hits) + 0.5 * sum(weight[t] for t in context_hits)) / total
        matched = len(hits) + len(context_hits)
        # one shared word must carry most of the question's weight; two or more, a fair share
        if score >= (min_coverage if matched >= 2 or len(boosts) == 1 else max(min_coverage, 0.55)):
            candidates.append(_Candidate(score, matched, rank, pos, sentence, number))
    candidates.sort(key=lambda c: (-c.score, c.rank, c.position))
    if not candidates:
        return REFUSAL
    best = candidates[0].score
    chosen: list[_Candidate] = []
    for cand in candidates:
        if len(chosen) == max_sentences or cand.score < max(min_coverage, 0.6 * best):
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
            neutral = {"string": question, "integer": 1, "number": 1.0, "boolean": False, "array": [], "object": {}}
            args[name] = neutral.get(schema.get("type", "string"), question)
    return args


@providers.register("local")
class LocalProvider(BaseProvider):
    """Offline and deterministic; see the module docstring for what it does."""

    name = "local"

    def __init__(self, *, model: str = "local-extractive", max_sentences: int = 3, min_coverage: float = 0.3) -> None:
        if not 1 <= max_sentences <= 10:
            raise ConfigError(f"max_sentences must be between 1 and 10 (got {max_sentences})")
        if not 0 < min_coverage <= 1:
            raise ConfigError(f"min_coverage must be in (0, 1] (got {min_coverage})")
        self.model = model
        self.max_sentences = max_sentences
        self.min_coverage = min_coverage

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Response:
        last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        question = messages[last_user].content if last_user >= 0 else ""
        results = [m for m in messages[last_user + 1:] if m.role == "tool"]
        if tools and not results and question:
            spec = choose_tool(question, list(tools))
            digest = hashlib.sha256(f"{len(messages)}\0{question}\0{spec.name}".encode()).hexdigest()[:16]
            call = ToolCall(id=f"call_{digest}", name=spec.name, arguments=tool_arguments(question, spec))
            return self._response(messages, tools, "", (call,))
        if results:
            return self._response(messages, tools, self._answer(question, results))
        reply = "I am ragkit's offline local provider: I answer from tool results, and no tool was used here."
        return self._response(messages, tools, reply)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Iterator[StreamEvent]:
        response = self.complete(messages, tools, **params)
        for piece in re.findall(r"\S+\s*", response.content):
            yield StreamEvent("text", text=piece)
        yield StreamEvent("done", response=response)

    def _answer(self, question: str, results: Sequence[Message]) -> str:
        passages = [p for m in results if not m.content.startswith("error:") for p in parse_passages(m.content)]
        if passages:
            return extractive_answer(question, passages, max_sentences=self.max_sentences,
                                     min_coverage=self.min_coverage)
        errors = [m.content for m in results if m.content.startswith("error:")]
        if errors and len(errors) == len(results):
            return f"I could not answer because the tool failed: {errors[0].removeprefix('error:').strip()}"
        if any(_looks_like_search(m.name or "") for m in results):
            return REFUSAL
        return "\n".join(f"The {m.name or 'tool'} tool returned: {m.content}" for m in results
                         if not m.content.startswith("error:"))

    def _response(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, content: str,
                  calls: tuple[ToolCall, ...] = ()) -> Response:
        seen = sum(len(m.content) + sum(len(json.dumps(c.arguments)) for c in m.tool_calls) for m in messages)
        seen += sum(len(json.dumps(t.parameters)) + len(t.description) for t in tools or ())
        produced = len(content) + sum(len(json.dumps(c.arguments)) for c in calls)
        usage = Usage(input_tokens=(seen + 3) // 4, output_tokens=(produced + 3) // 4)
        return Response(content=content, tool_calls=calls, usage=usage, model=self.model,
                        stop_reason="tool_calls" if calls else "stop")


def _looks_like_search(name: str) -> bool:
    return any(word in name.lower() for word in ("search", "retriev", "knowledge"))


__all__ = ["REFUSAL", "LocalProvider", "Passage", "extractive_answer", "parse_passages", "split_sentences", "terms"]
