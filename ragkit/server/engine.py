"""The server's one adapter to the agent: a turn in, text deltas and a final ``Answer`` out.

Everything the server needs from ``ragkit.agent``, ``ragkit.rag`` and ``ragkit.providers`` is
imported here and nowhere else in ``ragkit/server``. Each turn builds a ``RAGAgent`` over the
knowledge base as the request scoped it (top_k, filter, retriever), runs its agent with
``Agent.astream`` and resolves the answer's [n] markers with the run's ``CitationBook``, exactly
as ``RAGAgent.stream`` does. The provider is built once per process and shared by all turns.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.agent import Agent, AgentConfig, AgentResult
from ragkit.errors import RagkitError
from ragkit.messages import Message
from ragkit.rag.agent import RAGAgent, guarded_by_spec, make_provider, resolve_citations
from ragkit.rag.prompts import SYSTEM_PROMPT
from ragkit.rag.tool import CitationBook
from ragkit.server.library import Library

log = logging.getLogger(__name__)
MAX_CACHED_AGENTS = 32
_MARKER = re.compile(r"\[(\d+)\]")
_OPEN_MARKER = re.compile(r"\[\d*")


@dataclass(frozen=True)
class TurnOptions:
    top_k: int | None = None
    filter: dict[str, Any] | None = None
    retriever: str | None = None
    use_knowledge_base: bool = True


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


class Engine:
    def __init__(self, library: Library, *, provider: str, model: str | None = None, base_url: str | None = None,
                 provider_options: dict[str, Any] | None = None) -> None:
        self.library = library
        options = dict(provider_options or {})
        if base_url:
            options["base_url"] = base_url
        self.provider = make_provider(provider, model=model, **options)
        self._agents: dict[tuple[Any, ...], tuple[Agent, str]] = {}
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return f"{self.provider.name}:{self.provider.model}"

    def warm_up(self) -> None:
        """Open the index, load the embedding model, build the default agent and run one search
        now, so that no question pays for them (a worker's first search loads the store and the
        retriever: hundreds of ms on a busy machine, for every question waiting behind it)."""
        self.library.kb.embedder.load()
        self._agent(TurnOptions())
        try:
            self.library.search("warm-up", k=1, filter=None, kind=None)
        except RagkitError as exc:  # an empty index, for one: the server still serves
            log.info("warm-up search failed (%s); the first question will open the retriever", exc)

    def _agent(self, options: TurnOptions) -> tuple[Agent, str]:
        """An agent for these options, reused while the index is the same one: agents keep no
        per-run state (no memory; the citation book is passed per run)."""
        kb = self.library.kb
        key = (id(kb), options.top_k, json.dumps(options.filter, sort_keys=True), options.retriever,
               options.use_knowledge_base)
        with self._lock:
            if key not in self._agents:
                if len(self._agents) >= MAX_CACHED_AGENTS or any(k[0] != id(kb) for k in self._agents):
                    self._agents.clear()
                self._agents[key] = self._build(options)
            return self._agents[key]

    def _build(self, options: TurnOptions) -> tuple[Agent, str]:
        if not options.use_knowledge_base:
            config = guarded_by_spec(AgentConfig(system_prompt=None), self.library.kb.spec)  # the agent: section
            return Agent(self.provider, config=config), ""
        kb = self.library.scoped(options.filter, options.retriever)
        rag = RAGAgent(kb, provider=self.provider, top_k=options.top_k)
        return rag.agent, rag.config.system_prompt or SYSTEM_PROMPT

    def screen_input(self, text: str, options: TurnOptions) -> str:
        """``text`` through the input guardrails of the agent for ``options`` (for a turn cut short
        before its run's answer; a complete turn has ``Answer.input``)."""
        guards = self._agent(options)[0].config.guardrails
        if guards is None or not guards.has("input"):
            return text
        screened = guards.check("input", text)
        return screened.content if screened.blocked is None else blocked_input(screened.blocked.reason)

    async def stream(self, messages: Sequence[dict[str, Any]], options: TurnOptions,
                     system: str | None = None) -> AsyncIterator[str | Answer]:
        """Yield the answer's text deltas, then one ``Answer`` (resolved citations, usage, trace).

        ``messages`` are ``{"role", "content"}`` dicts (history, then the new user message);
        ``system`` is the client's own system text, kept beside the RAG instructions."""
        agent, instructions = self._agent(options)
        prompt = [Message(role=m["role"], content=m["content"]) for m in messages]
        system_text = "\n\n".join(t for t in (instructions, system) if t)
        if system_text:
            prompt.insert(0, Message(role="system", content=system_text))
        book = CitationBook()
        markers = MarkerFilter(lambda n: book.get(n) is not None)
        sent: list[str] = []
        async for event in agent.astream(prompt, context={"book": book}):
            if event.type == "text" and event.text:
                text = markers.feed(event.text)
            elif event.type == "result" and event.result is not None:
                text = markers.flush()
                if not sent and not text and event.result.stop_reason not in ("stop", "length"):
                    text = event.result.content  # stopped before any text (guardrail, budget, ...): say why
                if text:
                    sent.append(text)
                    yield text
                # the answer is exactly what was streamed, so streamed and not streamed agree
                yield _answer(resolve_citations(event.result, book), "".join(sent))
                continue
            else:
                continue
            if text:
                sent.append(text)
                yield text


class MarkerFilter:
    """Drops ``[n]`` markers that do not resolve from a text stream, as ``resolve_citations``
    does for a whole answer: text from an open ``[`` is held back until the marker is complete."""

    def __init__(self, resolves: Callable[[int], bool]) -> None:
        self.resolves = resolves
        self._held = ""

    def feed(self, text: str) -> str:
        buf, out = self._held + text, []
        self._held = ""
        while buf:
            start = buf.find("[")
            if start < 0:
                out.append(buf)
                break
            out.append(buf[:start])
            m = _MARKER.match(buf, start)
            if m is None:
                if _OPEN_MARKER.fullmatch(buf, start):  # "[" or "[12" at the end: wait for more
                    self._held = buf[start:]
                    break
                out.append("[")
                buf = buf[start + 1:]
                continue
            if self.resolves(int(m.group(1))):
                out.append(m.group(0))
            else:
                log.warning("the answer cites [%s], which no search returned; marker removed", m.group(1))
            buf = buf[m.end():]
        return "".join(out)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return held


def _answer(result: AgentResult, content: str) -> Answer:
    u = result.usage
    usage = {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens,
             "total_tokens": u.input_tokens + u.output_tokens, "embedding_tokens": u.embedding_tokens,
             "cost": round(u.total_cost, 10)}
    citations = [{"n": c.number, "source": c.source, "page": c.page, "start": c.start, "end": c.end,
                  "text": c.text} for c in result.citations]
    trace = {**result.trace.to_dict(), "usage": u.to_dict(), "stop_reason": result.stop_reason,
             "tool_calls": [{"name": t.name, "arguments": t.arguments, "is_error": t.is_error,
                             "duration": t.duration} for t in result.tool_calls]}
    return Answer(content=content, citations=citations, usage=usage, trace=trace,
                  trace_id=result.trace.run_id, stop_reason=result.stop_reason, input=_run_input(result))


def blocked_input(reason: str) -> str:
    return f"[blocked by the input guardrails: {reason}]"


def _run_input(result: AgentResult) -> str | None:
    """The run's last user message (redacted by the input guardrails, if any); a placeholder for
    one the input guardrails blocked (it is neither kept nor sent to the model on later turns)."""
    if getattr(result, "stage", None) == "input":  # a GuardrailTripped on the input
        return blocked_input(result.reason)  # type: ignore[attr-defined]
    return next((m.content for m in reversed(result.messages) if m.role == "user"), None)
