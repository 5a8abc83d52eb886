"""The server's one adapter to the agent: a turn in, text deltas and a final ``Answer`` out.

Everything the server needs from ``ragkit.agent``, ``ragkit.rag`` and ``ragkit.providers`` is
imported here and nowhere else in ``ragkit/server``. A turn is a turn of the one turn owner
(:mod:`ragkit.agent.conversation`) built by the RAG use case (:func:`ragkit.rag.answer_turn.answer_turn`): the
session's lease and history, the run of a ``RAGAgent`` over the knowledge base as the request
scoped it (top_k, filter, retriever), every text piece through the one citation resolver (so the
streamed text, the stored answer, the returned citations and the page's ``[n]`` agree by
construction), and exactly the turn's question and answer written to the session. The provider is
built once per process and shared by all turns.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ragkit.agent import Agent, AgentConfig, AgentResult
from ragkit.agent.conversation import Conversation, Transcript, Turn
from ragkit.agent.structured import MAX_OUTPUT_RETRIES, OutputFormat
from ragkit.errors import RagkitError
from ragkit.messages import Message
from ragkit.providers.params import check_refused
from ragkit.providers.remote import function_calls, make_tool_call
from ragkit.rag.agent import RAGAgent, guarded_by_spec, make_provider
from ragkit.rag.answer_turn import AGENT_NAME, answer_turn
from ragkit.server.library import Library
from ragkit.sessions.messages import items_to_messages, message_to_item

log = logging.getLogger(__name__)
MAX_CACHED_AGENTS = 32


@dataclass(frozen=True)
class TurnOptions:
    top_k: int | None = None
    filter: dict[str, Any] | None = None
    retriever: str | None = None
    use_knowledge_base: bool = True
    min_score: float | None = None  # the lowest score a passage may have, in the retriever's units
    # the request's model parameters: ``AgentConfig`` fields, and those honoured only when neutral
    config: dict[str, Any] = field(default_factory=dict, compare=False)
    refusable: dict[str, Any] = field(default_factory=dict, compare=False)
    citations: str | None = None  # "inline" | "field"; None: the server's --citations


@dataclass
class Answer:
    content: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)
    trace_id: str = ""
    stop_reason: str = "stop"
    # the new user message as the run saw it: after the input guardrails (redacted), or a
    # placeholder when they blocked it; what a session stores instead of the raw question
    input: str | None = None
    # the client's tools the model called (OpenAI's shape), for the client to run; stop_reason "tool_calls"
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    # why there is no answer in the request's response_format (OpenAI's ``refusal``); content is then ""
    refusal: str | None = None


def usage_of(result: AgentResult) -> dict[str, Any]:
    """The answer's usage as the API shows it (OpenAI's names, plus embedding tokens and cost)."""
    u = result.usage
    return {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens,
            "total_tokens": u.input_tokens + u.output_tokens, "embedding_tokens": u.embedding_tokens,
            "cost": None if u.total_cost is None else round(u.total_cost, 10), "unpriced": list(u.unpriced)}


def citations_of(result: AgentResult) -> list[dict[str, Any]]:
    """The answer's citations as the API shows them (``n`` is the answer's ``[n]``)."""
    return [{"n": c.number, "source": c.source, "page": c.page, "page_unit": c.page_unit, "start": c.start, "end": c.end, "text": c.text}
            for c in result.citations]


#: what a served session keeps of a turn: the question as the run saw it and the answer
TRANSCRIPT = Transcript(dialogue=True, agent=AGENT_NAME, usage=usage_of, citations=citations_of)


class Engine:
    def __init__(self, library: Library, *, provider: str, model: str | None = None, base_url: str | None = None,
                 provider_options: dict[str, Any] | None = None, sessions: Any = None, session_wait: float = 60.0,
                 session_lease: float = 600.0, citations: str = "field", tools: Sequence[Any] = ()) -> None:
        """``citations``: "inline" ends every answer with a numbered Sources block (a request's
        ``citations`` field overrides it); "field" keeps them in the extension field only.
        ``tools``: server-side tools the agent may call beside the knowledge base."""
        self.library = library
        self.citations = citations
        self.tools = list(tools)
        options = dict(provider_options or {})
        if base_url:
            options["base_url"] = base_url
        self.provider = make_provider(provider, model=model, **options)
        self.conversation = Conversation(sessions, lease=session_lease, wait=session_wait, transcript=TRANSCRIPT)
        self._agents: dict[tuple[Any, ...], Agent] = {}
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return f"{self.provider.name}:{self.provider.model}"

    def warm_up(self) -> None:
        """Open the index, load the embedding model, build the default agent and run one search
        now, so that no question pays for them (a worker's first search loads the store and the
        retriever: hundreds of ms on a busy machine, for every question waiting behind it)."""
        self.library.kb.embedder.load_for_queries()
        self._agent(TurnOptions())
        try:
            self.library.search("warm-up", k=1, filter=None, kind=None)
        except RagkitError as exc:  # an empty index, for one: the server still serves
            log.info("warm-up search failed (%s); the first question will open the retriever", exc)

    def _agent(self, options: TurnOptions) -> Agent:
        """An agent for these options, reused while the index is the same one: agents keep no
        per-run state (no memory; the citation book is made per turn)."""
        kb = self.library.kb
        key = (id(kb), options.top_k, json.dumps(options.filter, sort_keys=True), options.retriever,
               options.use_knowledge_base, options.min_score)
        with self._lock:
            if key not in self._agents:
                if len(self._agents) >= MAX_CACHED_AGENTS or any(k[0] != id(kb) for k in self._agents):
                    self._agents.clear()
                self._agents[key] = self._build(options)
            return self._agents[key]

    def _build(self, options: TurnOptions) -> Agent:
        if not options.use_knowledge_base:
            config = guarded_by_spec(AgentConfig(system_prompt=None), self.library.kb.spec)  # the agent: section
            return Agent(self.provider, tools=self.tools, config=config)
        kb = self.library.scoped(options.filter, options.retriever)
        return RAGAgent(kb, provider=self.provider, top_k=options.top_k, tools=self.tools,
                        min_score=options.min_score).agent

    def prepare(self, options: TurnOptions) -> Agent:
        """The agent of a turn with the request's model parameters, checked before any answer is
        sent: a parameter ragkit or the provider cannot honour, or a value out of range, raises
        ``ConfigError`` naming it (a 400)."""
        check_refused(options.refusable)
        agent = self._agent(options)
        return agent.configured(**options.config) if options.config else agent

    def turn(self, messages: Sequence[dict[str, Any]], options: TurnOptions, system: str | None = None, *,
             session_id: str | None = None, request_id: str | None = None, trace_id: str | None = None) -> Turn:
        """A turn (not started) over ``messages`` (``{"role", "content"}`` dicts: the new ones, or
        without a session the client's whole conversation); ``system``: the client's own system text,
        kept beside the RAG instructions. The agent carries the request's model parameters."""
        new = [to_message(m) for m in messages]
        inline = (options.citations or self.citations) == "inline" and not options.config.get("response_format")
        return answer_turn(self.conversation, lambda: self.prepare(options), new, session_id=session_id,
                           request_id=request_id, trace_id=trace_id, system=system, inline_sources=inline)

    def adopt_history(self, turn: Turn, messages: Sequence[dict[str, Any]]) -> None:
        """A begun turn (its lease held) of a session with no history yet: ``messages`` (a client's
        conversation before its new messages) are stored as the session's history and given to the
        run, so a platform that keeps its own history is answered with it, and its next turn in
        the session is not sent it twice."""
        if turn.store is None or turn.replayed is not None or turn.history:
            return
        stored = turn.store.add_items(turn.session_id, [message_to_item(to_message(m)) for m in messages])
        turn.history = items_to_messages(stored, answered=turn.answers)

    async def stream(self, messages: Sequence[dict[str, Any]], options: TurnOptions,
                     system: str | None = None) -> AsyncIterator[str | Answer]:
        """A turn without a session: its text deltas, then one ``Answer`` (MCP's ``ask``)."""
        turn = self.turn(messages, options, system)
        async for event in turn.aevents(streaming=True):
            if event.type == "text" and event.text:
                yield event.text
            elif event.type == "result" and event.result is not None:
                yield answer_of(event.result, input=input_of(turn))


def answer_of(result: AgentResult, *, input: str | None = None) -> Answer:
    """The ``Answer`` of a finished turn's result (its text is exactly the text given out), with
    ``input``: the user message as the run saw it (``input_of(turn)``)."""
    trace = {**result.trace.to_dict(), "usage": result.usage.to_dict(), "stop_reason": result.stop_reason,
             "tool_calls": [{"name": t.name, "arguments": t.arguments, "is_error": t.is_error,
                             "duration": t.duration} for t in result.tool_calls]}
    return Answer(content=result.content, citations=citations_of(result), usage=usage_of(result), trace=trace,
                  trace_id=result.trace.run_id, stop_reason=result.stop_reason, input=input,
                  tool_calls=function_calls(result.client_calls))


def structured(options: TurnOptions) -> bool:
    """Whether the turn asks for structured output (a ``response_format`` other than text)."""
    return OutputFormat.of(options.config.get("response_format")) is not None


def refused(answer: Answer, options: TurnOptions) -> Answer:
    """The answer of a turn whose model never matched its ``response_format`` (stop reason
    ``invalid_output``): no content, a ``refusal`` saying what was wrong (OpenAI's shape for a
    structured answer that cannot be given); the rejected text is kept in the trace."""
    fmt = OutputFormat.of(options.config.get("response_format"))
    error = fmt.check(answer.content)[1] if fmt is not None else None
    why = (f"no answer in the requested response_format: after {MAX_OUTPUT_RETRIES + 1} attempts the model's "
           f"answer still failed the check ({error or 'invalid output'}); its last answer is in the trace")
    return replace(answer, content="", refusal=why, trace={**answer.trace, "rejected_output": answer.content})


def to_message(m: dict[str, Any]) -> Message:
    """A turn message (``server/wire_messages``: role, content, maybe tool calls or the id of the
    call a tool result answers) as the agent's ``Message``."""
    calls = tuple(make_tool_call(c["id"], c["name"], c["arguments"]) for c in m.get("tool_calls", ()))
    return Message(role=m["role"], content=m["content"], tool_calls=calls, tool_call_id=m.get("tool_call_id"),
                   images=tuple(m.get("images", ())))


def input_of(turn: Turn) -> str | None:
    """The turn's last user message as the run saw it (redacted, or the placeholder of a blocked
    one); None when the run never screened it."""
    seen = turn.input
    return next((m.content for m in reversed(seen) if m.role == "user"), None) if seen else None


__all__ = ["Answer", "Engine", "TurnOptions", "answer_of", "citations_of", "input_of", "refused", "structured",
           "usage_of"]
