"""``local``: an offline, deterministic provider with no model: it chooses a tool, then delegates
the answer to the extractive answer engine (``ragkit.rag.extractive``).

- Tools offered and the latest user message not yet followed by a tool result: it calls the most
  relevant tool (word overlap between the question and the tool's name, description and
  parameters), passing the question as the first required string parameter (to a tool that is not
  a search, only the quoted part when the question quotes one: "word count of 'a b c'" -> ``a b c``). A chat follow-up
  ("And how do I remove it?") is searched with the key words of the earlier question in place of
  its pronoun ("How do I remove a git remote?"; ``conversation_context``, ``follow_up_query``), and
  they count, at half weight, in choosing the answer when it leans on them.
- Tool results present: the passages of the results (the structured citations the search tool
  returns; a tool that returns only the passage text format is read through
  ``ragkit.rag.passages.parse_passages``) go to ``extractive_answer``: the best 1-3 sentences,
  each followed by its ``[n]`` marker, or a refusal. A search tool is asked for ``passages`` (10)
  passages and ``FURTHER`` (10) more; the further ones are read only when the first give no
  answer, so an answer found in the first ten never changes. When the draft answer from them
  cites a file (not a refusal) and the search tool takes a ``source`` glob, it searches once more
  within that file (``WITHIN``, 10 passages beyond those of the file already read) and answers
  from the first passages and those (when these give no answer, the draft's stands: the file's
  other passages, all about its topic, make each line weigh less, never withdraw an answer): the
  passage that answers is often another part of the file that matched best (the sentence before
  the one that matched, a foreword's signature at its end). Two questions asked as one ("Which
  address does it use, and how often does it measure?") are then searched part by part, ``PARTS``
  (5) passages each, which that part's own answer reads beside the others when they give it none
  (the whole question's answer never reads them): the whole question's search ranks the passages
  of the part most of its words ask. When the answer then quotes a list
  (or a sentence ending with a colon) from a passage that stops inside that list, it asks the
  tool for the passages that follow that one (``after``) and answers from the passage joined to
  them (``ragkit.rag.read_on``): a list whose items run into the next chunks keeps them all.
  Then, when the question gives a name (a capitalised word, an identifier) that no passage read
  says, nor its title, headings or file name, it searches for that name alone (``NAMES``, 10
  passages): when none of those says it either, the knowledge base does not know the thing, and
  the answer, about something else, becomes the refusal ("Google's Kotlin style guide" over a
  folder with none: the Objective-C guide's line length is no answer). A name the folder only
  writes elsewhere ("Which Kiln release …?" over Kiln's change log, which never says "Kiln") is
  found by that search, and the answer stands.
  Other tool results are reported as they are.
- A question written as a chat transcript (``user: …`` / ``assistant: …`` lines, as a legacy
  completions client sends a conversation; ``ragkit.rag.transcript``) is read as its last user
  turn, the earlier user turns as the conversation.
- No tools: a short deterministic reply.

Token usage is estimated (~4 characters per token) so cost accounting works; the model name is
``local-extractive`` (price 0).

Request parameters: ``max_tokens`` cuts the answer at a word boundary within that many (estimated)
tokens and the stop reason is ``length``; ``stop`` ends the answer before the first stop sequence;
``response_format`` is honoured natively: the answer is written into the requested JSON
(``json_object``: ``{"answer", "sources"}``; a schema: the answer in its answer-like or first
string field, the cited sources in a ``sources``/``citations``-like string list, neutral values
elsewhere). The provider is deterministic, so ``temperature``, ``top_p``, ``seed`` and the
penalties change nothing; ``tool_choice="required"`` is what it does anyway when tools are offered.

It lives in the use-case layer (``ragkit.rag``) beside the answer engine it runs, and is registered
as the provider ``local`` by name (:mod:`ragkit.provider_names`), so no component imports it.
"""

from __future__ import annotations

import glob
import hashlib
import json
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from ragkit.errors import ConfigError
from ragkit.messages import Message, Response, StreamEvent, ToolCall, ToolSpec, Usage
from ragkit.providers.base import BaseProvider
from ragkit.providers.params import resolve_refs, stop_sequences
from ragkit.rag.elision import elided_question
from ragkit.rag.extractive import REFUSAL, extractive_answer, lacks_asked_kind, terms, unsaid_names
from ragkit.rag.extractive.engine import Similarity
from ragkit.rag.extractive.parts import question_parts
from ragkit.rag.extractive.query import asked_part
from ragkit.rag.passages import Passage, parse_passages
from ragkit.rag.read_on import FOLLOWING, ends_in_list, stitched, wants_reading_on
from ragkit.rag.tool import MAX_TOP_K
from ragkit.rag.transcript import transcript_turns
from ragkit.registry import providers
from ragkit.tokens import CHARS_PER_TOKEN, estimate_tokens
from ragkit.types import Citation

log = logging.getLogger(__name__)


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


#: a quoted span: "...", '...', “...”, ‘...’ or `...` (an apostrophe inside a word opens none)
_QUOTED = re.compile(r"""(?<![\w'"`’])(?:"([^"\n]+)"|'([^'\n]+)'|“([^”\n]+)”|‘([^’\n]+)’|`([^`\n]+)`)(?!\w)""")


def quoted(question: str) -> str | None:
    """The first quoted span of ``question`` ("word count of 'a b c'" -> ``a b c``), or None."""
    match = _QUOTED.search(question)
    return next(g for g in match.groups() if g is not None) if match else None


def tool_arguments(question: str, spec: ToolSpec) -> dict[str, Any]:
    """The question for the first required string parameter; neutral values for other required ones.

    A tool that is not a search (neither its name nor that parameter's name says query) gets only
    the quoted part of the question when there is one: "word count of 'a b c'" passes ``a b c``,
    the text the question is about, not the question itself."""
    props: dict[str, Any] = spec.parameters.get("properties", {})
    args: dict[str, Any] = {}
    question_used = False
    for name in spec.parameters.get("required", []):
        schema = props.get(name, {})
        if _is_string(schema) and not question_used and "enum" not in schema:
            searches = _looks_like_search(spec.name) or name in ("query", "question", "q", "prompt")
            args[name], question_used = (question if searches else quoted(question) or question), True
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


_FOLLOW_UP = re.compile(
    r"^\W*(?:and|also|but|so|then|what about|how about)\b|\b(?:it|its|they|them|their|theirs|these|those|"
    r"he|she|him|her|his|hers)\b",
    re.IGNORECASE,
)
_SUBJECT = frozenset({"i", "we", "you"})


def _key_words(question: str) -> list[str]:
    """The words of a question that name what it is about: content words, leaving out the verb
    after a subject pronoun ("how do I *create* a new vector" -> new, vector)."""
    words = re.findall(r"[\w:.-]*\w", question)
    return [
        w for i, w in enumerate(words)
        if terms(w) and not (i > 0 and words[i - 1].lower() in _SUBJECT)
    ]


def conversation_context(question: str, earlier: Sequence[str]) -> str:
    """The key words of the earlier questions a follow-up leans on ("And how do I add elements to
    it?" after "How do I create a new vector?" -> "new vector"), or "" for a question that stands
    alone: one that neither opens with "and"/"what about" nor refers back with a pronoun, and has
    more than one content word."""
    if not earlier or (not _FOLLOW_UP.search(question) and len(set(terms(question))) > 1):
        return ""
    previous = earlier[-1]
    context = _key_words(previous)
    if len(earlier) > 1 and _FOLLOW_UP.search(previous):  # a follow-up of a follow-up
        context = _key_words(earlier[-2]) + context
    have = set(terms(question))
    out: list[str] = []
    for w in context:
        if not set(terms(w)) <= have and w not in out:
            out.append(w)
    return " ".join(out)


_BACK_REFERENCE = re.compile(r"\b(?:(it|them|they|these|those)|(its|their))\b", re.IGNORECASE)
_OPENING = re.compile(r"^\W*(?:and|also|but|so|then)\s+", re.IGNORECASE)
_OBJECT = re.compile(r"\b(?:i|we|you|to)\s+[a-z][\w-]*\s+(?P<object>[^?!.]+)", re.IGNORECASE)


def follow_up_query(question: str, earlier: Sequence[str]) -> str:
    """The search query of a chat follow-up: its pronoun replaced by what the earlier question was
    about, as that question said it ("And how do I remove it?" after "How do I add a git
    remote?" -> "how do I remove a git remote?"), else the question with the earlier question's
    key words after it (``conversation_context``); a question that stands alone as it is. "What
    about X?" is the earlier question asked about X (``ragkit.rag.elision``)."""
    reframed = elided_question(question, earlier)
    if reframed:
        return reframed
    context = conversation_context(question, earlier)
    if not context:
        return question
    match = _BACK_REFERENCE.search(question)
    if match is None:
        return f"{question} {context}"
    said = _OBJECT.search(earlier[-1]) if not _FOLLOW_UP.search(earlier[-1]) else None
    subject = said.group("object").strip() if said else context
    subject = subject if match.group(1) else f"{subject}'s"
    query = _OPENING.sub("", question[: match.start()] + subject + question[match.end() :])
    return query[:1].upper() + query[1:]


#: passages the local provider asks a search tool for: more than a model's prompt should carry
#: (reading costs nothing here, and the answerer discounts later ranks itself); with 10 instead of
#: the pipeline's 5 the cited page rose from 22 to 25 of 30 on MkDocs' documentation (docs/benchmarks/quality.md)
PASSAGES = 10
#: passages asked for beyond those read first: read only when the first ``passages`` give no answer
#: (a refusal costs the user more than reading on; an answer found first is never changed). The
#: answer a paper's abstract or definitions section holds often sits just below the top 10.
FURTHER = 10
#: passages of the best passage's document searched for after the first search, and read with
#: the first ``passages`` (those not among them): the answer is often another part of that file
WITHIN = 10
#: passages each part of two questions asked as one is searched for, alone, and read with the first
#: ``passages``: the whole question's search ranks the passages of the part most of its words ask
PARTS = 5


@providers.register("local")
class LocalProvider(BaseProvider):
    """Offline and deterministic; see the module docstring for what it does."""

    name = "local"
    native_response_format = True

    def __init__(
        self, *, model: str = "local-extractive", max_sentences: int = 3, min_coverage: float = 0.3,
        passages: int | None = PASSAGES, similarity: Similarity | None = None,
    ) -> None:
        if not 1 <= max_sentences <= 10:
            raise ConfigError(f"max_sentences must be between 1 and 10 (got {max_sentences})")
        if not 0 < min_coverage <= 1:
            raise ConfigError(f"min_coverage must be in (0, 1] (got {min_coverage})")
        if passages is not None and not 1 <= passages <= 20:
            raise ConfigError(f"passages must be between 1 and 20, or None for the search tool's default (got {passages})")
        self.model = model
        self.max_sentences = max_sentences
        self.min_coverage = min_coverage
        self.passages = passages
        #: how near in meaning sentences are to the question (``RAGAgent`` gives its knowledge
        #: base's embedding model); without it sentences are weighed by the words they share only
        self.similarity = similarity

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        users = [i for i, m in enumerate(messages) if m.role == "user"]
        last_user = users[-1] if users else -1
        question = messages[last_user].content if last_user >= 0 else ""
        earlier = [messages[i].content for i in users[:-1]]
        if (turns := transcript_turns(question)) is not None:  # a conversation sent as one prompt
            question, earlier = turns[0], earlier + turns[1]
        # "What about X?" asks the earlier question again about X: searched and answered as that
        question = elided_question(question, earlier) or question
        context = conversation_context(question, earlier)
        results = [m for m in messages[last_user + 1 :] if m.role == "tool"]
        if tools and not results and question:
            query = follow_up_query(question, earlier)
            spec = choose_tool(query, list(tools))
            digest = hashlib.sha256(f"{len(messages)}\0{question}\0{spec.name}".encode()).hexdigest()[:16]
            args = tool_arguments(query, spec)
            if self.passages is not None and _looks_like_search(spec.name) and "top_k" in spec.parameters.get(
                    "properties", {}):
                # reading costs it nothing (it weighs rank itself); the further ones only after a refusal
                args["top_k"] = min(MAX_TOP_K, self.passages + FURTHER)
            call = ToolCall(id=f"call_{digest}", name=spec.name, arguments=args)
            return self._response(messages, tools, "", (call,))
        if results:
            # the earlier question's words weigh in the answer only when this one leans on them
            # (a pronoun, or no subject of its own); "And how do I commit with a message?" does not
            leans = bool(_BACK_REFERENCE.search(question)) or len(set(terms(question))) <= 1
            answer = self._answer(question, results, context if leans else "")
            if tools and (scoped := _scoped_call(follow_up_query(question, earlier), list(tools), results, answer,
                                                 self.passages)):
                return self._response(messages, tools, "", (scoped,))
            if tools and (searches := _parts_calls(follow_up_query(question, earlier), list(tools), results)):
                return self._response(messages, tools, "", searches)
            if tools and (more := _read_on_call(follow_up_query(question, earlier), list(tools), results, answer)):
                return self._response(messages, tools, "", (more,))
            if tools and (check := _names_call(question, list(tools), results, answer)):
                return self._response(messages, tools, "", (check,))
            if lacks_asked_kind(question, answer) or _names_unsaid(question, results):
                # the last answer, once no other search may bring the date or the name
                log.debug("refused: the answer lacks the date, number or name asked for, or a name the question"
                          " gives is in no passage")
                answer = REFUSAL
        else:
            answer = "I am ragkit's offline local provider: I answer from tool results, and no tool was used here."
        if params.get("response_format"):
            answer = json_answer(params["response_format"], answer, _cited_sources(answer, results))
        answer, stop = _cut(answer, stop_sequences(params.get("stop")), params.get("max_tokens"))
        return self._response(messages, tools, answer, stop_reason=stop)

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Iterator[StreamEvent]:
        response = self.complete(messages, tools, **params)
        for piece in re.findall(r"\S+\s*", response.content):
            yield StreamEvent("text", text=piece)
        yield StreamEvent("done", response=response)

    def _answer(self, question: str, results: Sequence[Message], context: str = "") -> str:
        searched = [m for m in results if not m.content.startswith("error:")]
        read_on = [c for m in searched if _is_read_on(m) for c in m.citations]  # joined to the passage they continue
        # each part's own search (two questions asked as one) is read for that part's answer alone
        parts = tuple(_passages(m, read_on) for m in sorted((m for m in searched if _is_part(m)),
                                                            key=lambda m: (m.tool_call_id or "")[-1])) or None
        searched = [m for m in searched if not _is_read_on(m) and not _is_names_check(m) and not _is_part(m)]
        passages = [p for m in searched[:1] for p in _passages(m, read_on)]
        within = [p for m in searched[1:] for p in _passages(m, read_on)]  # the cited file's, from the second search
        if passages or within:
            first = passages[: self.passages] if self.passages is not None else list(passages)
            first += [p for p in within if p.number not in {f.number for f in first}]
            passages += [p for p in within if p.number not in {f.number for f in passages}]

            def answer_from(ps: Sequence[Passage]) -> str:
                return extractive_answer(question, ps, max_sentences=self.max_sentences, min_coverage=self.min_coverage,
                                         context=context, similarity=self.similarity,
                                         part_passages=parts if parts and len(parts) == 2 else None)

            answer = answer_from(first)
            if answer == REFUSAL and len(first) < len(passages):  # no answer in the first ones: read on
                answer = answer_from(passages)
            if answer == REFUSAL and within:  # the cited file's other passages never withdraw the draft's answer
                draft = [p for m in searched[:1] for p in _passages(m, read_on)]
                answer = answer_from(draft[: self.passages] if self.passages is not None else draft)
            return answer
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
        stop_reason: str = "stop",
    ) -> Response:
        seen = "".join(m.content + "".join(json.dumps(c.arguments) for c in m.tool_calls) for m in messages)
        seen += "".join(json.dumps(t.parameters) + t.description for t in tools or ())
        produced = content + "".join(json.dumps(c.arguments) for c in calls)
        usage = Usage(input_tokens=estimate_tokens(seen), output_tokens=estimate_tokens(produced))
        return Response(
            content=content,
            tool_calls=calls,
            usage=usage,
            model=self.model,
            stop_reason="tool_calls" if calls else stop_reason,
        )


def _cut(text: str, stops: Sequence[str], max_tokens: int | None) -> tuple[str, str]:
    """The answer before the first stop sequence, then within ``max_tokens`` estimated tokens (4
    characters each, cut at a word boundary); the stop reason is ``length`` when it was cut there."""
    hits = [i for i in (text.find(s) for s in stops) if i >= 0]
    if hits:
        text = text[:min(hits)]
    if max_tokens is None or estimate_tokens(text) <= max_tokens:
        return text, "stop"
    head = text[:max_tokens * CHARS_PER_TOKEN]
    space = head.rstrip().rfind(" ")
    return (head[:space] if space > 0 else head).rstrip(), "length"


_ANSWER_NAMES = ("answer", "response", "text", "content", "summary", "result", "reply", "output")
_SOURCE_NAMES = ("source", "citation", "reference", "document")


def _cited_sources(answer: str, results: Sequence[Message]) -> list[str]:
    """The sources of the passages the answer cites, in order of first citation."""
    by_number = {c.number: c.source for m in results for c in m.citations}
    out: list[str] = []
    for n in re.findall(r"\[(\d+)\]", answer):
        source = by_number.get(int(n))
        if source and source not in out:
            out.append(source)
    return out


def json_answer(response_format: dict[str, Any], answer: str, sources: list[str]) -> str:
    """The answer written into the JSON the request asks for (see the module docstring)."""
    spec = response_format.get("json_schema") if response_format.get("type") == "json_schema" else None
    if not isinstance(spec, dict):
        return json.dumps({"answer": answer, "sources": sources}, ensure_ascii=False)
    return json.dumps(_fill(resolve_refs(spec.get("schema") or {}), answer, sources, {"used": False}),
                      ensure_ascii=False)


def _fill(schema: dict[str, Any], answer: str, sources: list[str], state: dict[str, bool], name: str = "") -> Any:
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        schema = next((o for o in options if o.get("type") != "null"), options[0])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object" if "properties" in schema else "string")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    lowered = name.lower()
    if kind == "object":
        props = schema.get("properties", {})
        order = sorted(props, key=lambda k: (not any(a in k.lower() for a in _ANSWER_NAMES), list(props).index(k)))
        filled = {key: _fill(props[key], answer, sources, state, key) for key in order}
        return {key: filled[key] for key in props}
    if kind == "array":
        if any(s in lowered for s in _SOURCE_NAMES) and (schema.get("items") or {}).get("type") == "string":
            return list(sources)
        return []
    if kind == "string":
        if "source" in lowered:
            return sources[0] if sources else ""
        if not state["used"] or any(a in lowered for a in _ANSWER_NAMES):
            state["used"] = True
            return answer
        return ""
    return schema.get("default", {"integer": 0, "number": 0.0, "boolean": False, "null": None}.get(kind))


#: after a refusal, search within the first-ranked document (``_scoped_call``)
_SCOPE_REFUSAL = True


def _scoped_call(query: str, tools: Sequence[ToolSpec], results: Sequence[Message], answer: str,
                 read: int | None = None) -> ToolCall | None:
    """After the first search and a draft answer from it, a second search within the document the
    draft cites first (the search tool's ``source`` glob, matching that file alone): the passage
    that answers is often another part of that file (the sentence before the one that matched, a
    foreword's signature at its end). After a refusal, within the document the first search ranked
    first: a short page cut at its headings answers in a section the search did not return (its
    "Cause" under the "Symptoms" that matched). None when that search was made, the first search
    failed or gave no structured citations (passage numbers that hold across searches), or the
    tool cannot be limited to a source."""
    if len(results) != 1 or not _looks_like_search(results[0].name or "") or (answer == REFUSAL and not _SCOPE_REFUSAL):
        return None
    # numbered by chunk across searches (the search tool's structured citations), not per call
    sources = {c.number: c.source for c in results[0].citations}
    cited = [sources.get(int(n), "") for n in re.findall(r"\[(\d+)\]", answer)][:1]
    if answer == REFUSAL:  # the first-ranked document's other parts (a short page's "Cause" section)
        cited = [results[0].citations[0].source] if results[0].citations else []
    if not cited or not cited[0]:
        return None
    spec = next((t for t in tools if t.name == results[0].name), None)
    properties = spec.parameters.get("properties", {}) if spec else {}
    if spec is None or "source" not in properties:
        return None
    top = cited[0]
    args = {**tool_arguments(query, spec), "source": glob.escape(top)}
    if "top_k" in properties:
        shown = results[0].citations[:read] if read is not None else results[0].citations
        args["top_k"] = min(MAX_TOP_K, WITHIN + sum(c.source == top for c in shown))
    digest = hashlib.sha256(f"{query}\0{top}\0{spec.name}".encode()).hexdigest()[:16]
    return ToolCall(id=f"call_{digest}_within", name=spec.name, arguments=args)


def _read_on_call(query: str, tools: Sequence[ToolSpec], results: Sequence[Message], answer: str) -> ToolCall | None:
    """After the draft answer, one search for the passages that follow the passage it cites
    first (the search tool's ``after``), when it quotes a list that passage cuts off
    (``ragkit.rag.read_on``). None after such a search, for a refusal, a first search that gave
    no structured citations, or a tool that cannot read on."""
    if answer == REFUSAL or not results or any(_is_read_on(m) for m in results) \
            or not _looks_like_search(results[0].name or ""):
        return None
    numbers = re.findall(r"\[(\d+)\]", answer)
    cites = {c.number: c for m in results for c in m.citations}
    cited = cites.get(int(numbers[0])) if numbers else None
    spec = next((t for t in tools if t.name == results[0].name), None)
    properties = spec.parameters.get("properties", {}) if spec else {}
    if spec is None or cited is None or "after" not in properties or not wants_reading_on(answer, cited):
        return None
    args = {**tool_arguments(query, spec), "after": cited.number}
    if "top_k" in properties:
        args["top_k"] = FOLLOWING
    digest = hashlib.sha256(f"{query}\0{cited.chunk_id}\0{spec.name}".encode()).hexdigest()[:16]
    return ToolCall(id=f"call_{digest}{_READ_ON}", name=spec.name, arguments=args)


def _parts_calls(query: str, tools: Sequence[ToolSpec], results: Sequence[Message]) -> tuple[ToolCall, ...]:
    """For two questions asked as one ("How often does the sensor measure in its slow mode, and
    what is the sensor's bus address?", ``question_parts``), one search for each part alone
    (the second with the first's subject for its pronoun, as a chat follow-up's: ``follow_up_query``),
    ``PARTS`` passages each: the whole question's search ranks the passages of the part that most of
    its words ask, and the other part's passage may be none of them. After the first search (and
    the search within its cited file), once; none for a question that asks one thing, a failed
    first search, or a tool that is not a search."""
    if not results or any(_is_part(m) for m in results) or not _looks_like_search(results[0].name or "") \
            or results[0].content.startswith("error:") or (parts := question_parts(query)) is None:
        return ()
    spec = next((t for t in tools if t.name == results[0].name), None)
    if spec is None:
        return ()
    first, second = parts
    calls = []
    for n, part in enumerate((first, follow_up_query(second, [asked_part(first)])), 1):
        args = tool_arguments(part, spec)
        if "top_k" in spec.parameters.get("properties", {}):
            args["top_k"] = PARTS
        digest = hashlib.sha256(f"{query}\0{n}\0{spec.name}".encode()).hexdigest()[:16]
        calls.append(ToolCall(id=f"call_{digest}{_PART}{n}", name=spec.name, arguments=args))
    return tuple(calls)


_PART = "_part"  # the id suffix of a part's search (and of its result), before the part's number
_READ_ON = "_after"  # the id suffix of a read-on search's call (and so of its result)
_NAMES = "_names"  # the id suffix of the search for names the passages read do not say
NAMES = 10  # passages that search asks for


def _names_call(question: str, tools: Sequence[ToolSpec], results: Sequence[Message], answer: str) -> ToolCall | None:
    """After the last search for the answer, one search for the names the question gives that
    no passage read says (``unsaid_names``: "Google's Kotlin style guide" over the Objective-C
    guide's passages), so an answer about something else is not given as one about it. None for
    a refusal, after that search, or when every name was read."""
    if answer == REFUSAL or not results or any(_is_names_check(m) for m in results) \
            or not _looks_like_search(results[0].name or ""):
        return None
    missing = unsaid_names(question, _read(results))
    spec = next((t for t in tools if t.name == results[0].name), None)
    if not missing or spec is None:
        return None
    args = tool_arguments(" ".join(missing), spec)
    if "top_k" in spec.parameters.get("properties", {}):
        args["top_k"] = NAMES
    digest = hashlib.sha256(f"{question}\0{' '.join(missing)}\0{spec.name}".encode()).hexdigest()[:16]
    return ToolCall(id=f"call_{digest}{_NAMES}", name=spec.name, arguments=args)


def _names_unsaid(question: str, results: Sequence[Message]) -> bool:
    """Whether, the search for them made, a name the question gives is said by no passage read:
    the knowledge base does not know the thing, so the answer found is not about it."""
    return any(_is_names_check(m) for m in results) and bool(unsaid_names(question, _read(results)))


def _read(results: Sequence[Message]) -> list[Passage]:
    return [p for m in results if not m.content.startswith("error:") for p in _passages(m)]


def _is_names_check(m: Message) -> bool:
    return (m.tool_call_id or "").endswith(_NAMES)


def _is_part(m: Message) -> bool:
    return bool(re.search(rf"{_PART}\d$", m.tool_call_id or ""))


def _is_read_on(m: Message) -> bool:
    return (m.tool_call_id or "").endswith(_READ_ON)


def _looks_like_search(name: str) -> bool:
    return any(word in name.lower() for word in ("search", "retriev", "knowledge"))


def _passages(m: Message, read_on: Sequence[Citation] = ()) -> list[Passage]:
    """The passages of a tool result: its structured citations (the search tool's), each joined
    to the passages of ``read_on`` that continue it, else the passage text format parsed (a tool
    that returns only text). A passage that stops inside a list right before one that ``read_on``
    continues is joined to both: the list's lead and first item, then the items the draft quoted
    from the passage search ranked first."""
    if not m.citations:
        return parse_passages(m.content)
    cites = list(m.citations)
    if read_on:
        joined = {c.number: stitched(c, read_on) for c in cites}
        extended = [c for c in cites if joined[c.number] != c.text]
        cites = [replace(c, text=joined[c.number] if c in extended
                         else stitched(c, [*extended, *read_on]) if ends_in_list(c.text) else c.text) for c in cites]
    return [p for p in (Passage.from_citation(c) for c in cites) if p.text.strip()]


__all__ = ["LocalProvider", "choose_tool", "conversation_context", "follow_up_query", "quoted", "tool_arguments"]
