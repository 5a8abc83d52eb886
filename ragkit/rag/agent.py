"""RAGAgent: question answering over a knowledge base, inside the general agent loop.

``ask`` runs the agent with ``search_knowledge_base`` as its tool and returns an ``AgentResult``
whose ``citations`` map every [n] in the answer to source, page and character span, numbered in
order of first appearance in the answer ([1] first); markers that do not resolve are removed, so
an answer's citations always resolve. The embedding tokens and
cost of the queries appear in the result's usage, attributed to the tool; ``index_report`` holds
what indexing cost when the agent built or updated the index itself.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.agent import Agent, AgentConfig, AgentEvent, AgentResult, ConversationMemory
from ragkit.config import PipelineSpec, load_pipeline
from ragkit.index.reader import KnowledgeBase
from ragkit.index.report import IndexReport
from ragkit.rag.prompts import SYSTEM_PROMPT
from ragkit.rag.tool import CitationBook, make_search_tool
from ragkit.types import Citation, Document

if TYPE_CHECKING:
    from ragkit.agent.definition import AgentDefinition

log = logging.getLogger(__name__)
_MARKER = re.compile(r"\[(\d+)\]")


def make_provider(name: str = "local", **options: Any) -> Any:
    from ragkit.registry import providers

    opts = {k: v for k, v in options.items() if v is not None}
    return providers.get(name)(**opts)


class RAGAgent:
    def __init__(self, kb: KnowledgeBase, *, provider: Any = "local", model: str | None = None,
                 top_k: int | None = None, system_prompt: str = SYSTEM_PROMPT,
                 config: AgentConfig | None = None, observers: Sequence[Any] = (),
                 memory: ConversationMemory | None = None, index_report: IndexReport | None = None,
                 retriever: str | Mapping[str, Any] | None = None, tools: Sequence[Any] = (),
                 **provider_options: Any) -> None:
        """``tools``: more tools beside ``search_knowledge_base``; ``config`` carries guardrails,
        policy, approval handler, coherence checker and usage limits."""
        self.kb = kb
        self.provider = make_provider(provider, model=model, **provider_options) if isinstance(provider, str) else provider
        self.index_report = index_report
        cfg = guarded_by_spec(config or AgentConfig(), kb.spec)
        self.config = replace(cfg, system_prompt=cfg.system_prompt or system_prompt, memory=memory if memory is not None else cfg.memory)
        # the pipeline's retriever unless ``retriever`` names another (e.g. "rerank", "mmr", or
        # {"type": "rerank", "base": {"type": "hybrid"}, "model": DIR})
        self.tool = make_search_tool(kb, default_top_k=top_k or kb.spec.retriever.top_k, retriever=retriever)
        self.agent = Agent(self.provider, tools=[self.tool, *tools], config=self.config, observers=observers)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_index(cls, index_dir: str | Path, **kw: Any) -> RAGAgent:
        return cls(KnowledgeBase.open(index=index_dir), **kw)

    @classmethod
    def from_pipeline(cls, pipeline: str | Path, *, index: str | Path | None = None, **kw: Any) -> RAGAgent:
        return cls(KnowledgeBase.open(pipeline=pipeline, index=index), **kw)

    @classmethod
    def from_directory(cls, path: str | Path, **kw: Any) -> RAGAgent:
        return cls.from_files([path], **kw)

    @classmethod
    def from_files(cls, paths: Iterable[str | Path], *, pipeline: str | Path | PipelineSpec | None = None,
                   index: str | Path | None = None, **kw: Any) -> RAGAgent:
        """Index ``paths`` through the pipeline (incremental: asking twice re-embeds nothing)."""
        from ragkit.index.writer import IndexingPipeline

        spec = pipeline if isinstance(pipeline, PipelineSpec) else load_pipeline(pipeline)
        report = IndexingPipeline(spec, index_dir=index).index_paths(list(paths))
        return cls(KnowledgeBase(spec, index), index_report=report, **kw)

    @classmethod
    def from_documents(cls, docs: Iterable[Document], *, pipeline: str | Path | PipelineSpec | None = None,
                       index: str | Path | None = None, **kw: Any) -> RAGAgent:
        from ragkit.index.writer import IndexingPipeline

        spec = pipeline if isinstance(pipeline, PipelineSpec) else load_pipeline(pipeline)
        report = IndexingPipeline(spec, index_dir=index).index_documents(docs)
        return cls(KnowledgeBase(spec, index), index_report=report, **kw)

    # ------------------------------------------------------------------ asking
    def warm_up(self) -> None:
        """Load the query embedding model now, so the first search is not slowed (or timed out) by it."""
        self.kb.embedder.load_for_queries()

    def ask(self, question: str) -> AgentResult:
        self.warm_up()
        book = CitationBook()
        result = self.agent.run(question, context={"book": book})
        return resolve_citations(result, book)

    def stream(self, question: str) -> Iterator[AgentEvent]:
        """Text deltas and tool events; the final ``result`` event carries resolved citations.

        Streamed text has its markers renumbered as the final result's content does (in order
        of first appearance, markers that do not resolve removed)."""
        self.warm_up()
        book = CitationBook()
        numbering = CitationNumbering(book)
        for event in self.agent.stream(question, context={"book": book}):
            if event.type == "text":
                event = replace(event, text=numbering.feed(event.text or ""))
            elif event.type == "result" and event.result is not None:
                if rest := numbering.flush():
                    yield AgentEvent("text", text=rest)
                event = replace(event, result=resolve_citations(event.result, book))
            yield event

    def reset(self) -> None:
        self.agent.reset()

    def close(self) -> None:
        self.kb.close()

    def __enter__(self) -> RAGAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def rag_definition(name: str, kb: KnowledgeBase, *, provider: Any = "local", model: str | None = None,
                   instructions: str = SYSTEM_PROMPT, description: str = "", top_k: int | None = None,
                   config: AgentConfig | None = None, **definition: Any) -> AgentDefinition:
    """An ``AgentDefinition`` that answers from ``kb`` with ``search_knowledge_base``, for an
    ``AgentRunner``; give the runner ``per_run={"book": CitationBook}`` so that each run numbers
    its own citations. The pipeline's ``agent:`` section (policy, guardrails) applies as in ``RAGAgent``."""
    from ragkit.agent.definition import AgentDefinition

    tool = make_search_tool(kb, default_top_k=top_k or kb.spec.retriever.top_k)
    return AgentDefinition(name=name, instructions=instructions, description=description, provider=provider,
                           model=model, tools=(tool, *definition.pop("tools", ())),
                           config=guarded_by_spec(config or AgentConfig(), kb.spec), **definition)


def guarded_by_spec(config: AgentConfig, spec: PipelineSpec) -> AgentConfig:
    """The pipeline's ``agent:`` section fills in a policy and guardrails the config does not set."""
    if config.policy is None and spec.agent.policy is not None:
        from ragkit.agent.policy import ToolPolicy

        config = replace(config, policy=ToolPolicy.from_dict(spec.agent.policy, origin=f"{spec.origin}: agent.policy"))
    if config.guardrails is None and spec.agent.guardrails:
        from ragkit.guardrails import default_guardrails

        config = replace(config, guardrails=default_guardrails())
    return config


class CitationNumbering:
    """Renumbers an answer's ``[n]`` markers in order of first appearance ([1] first, then [2]…),
    removes markers that no search returned, and leaves brackets inside code (``v[100]``, fenced
    blocks) alone. ``text`` takes a whole answer; ``feed``/``flush`` take it in streamed pieces
    (a piece is held back while it ends inside a marker or inside code) and give the same result."""

    def __init__(self, book: CitationBook) -> None:
        self.book = book
        self.used: list[Citation] = []
        self._new: dict[int, int] = {}
        self._pending = ""

    def _marker(self, m: re.Match[str]) -> str:
        number = int(m.group(2))
        if number not in self._new:
            c = self.book.get(number)
            if c is None:
                log.warning("the answer cites [%s], which no search returned; marker removed", number)
                return ""  # with the space before it
            self.used.append(replace(c, number=len(self.used) + 1))
            self._new[number] = len(self.used)
        return f"{m.group(1)}[{self._new[number]}]"

    def text(self, text: str) -> str:
        pieces = _CODE.split(text)
        for i in range(0, len(pieces), 2):
            pieces[i] = _SPACED_MARKER.sub(self._marker, pieces[i])
        return "".join(pieces)

    def feed(self, delta: str) -> str:
        self._pending += delta
        cut = len(self._pending)
        if partial := re.search(r"[ \t]*(?:\[\d*)?$", self._pending):
            cut = partial.start()
        head = self._pending[:cut].rstrip("`")  # a run of backticks may be an unfinished fence
        cut = len(head)
        if head.count("```") % 2:
            cut = head.rindex("```")
        elif head.replace("```", "").count("`") % 2:
            cut = head.rindex("`")
        head, self._pending = self._pending[:cut], self._pending[cut:]
        return self.text(head)

    def flush(self) -> str:
        head, self._pending = self._pending, ""
        return self.text(head)


_SPACED_MARKER = re.compile(r"([ \t]*)\[(\d+)\]")
_CODE = re.compile(r"(```.*?(?:```|$)|`[^`\n]*`)", re.DOTALL)


def resolve_citations(result: AgentResult, book: CitationBook) -> AgentResult:
    """Keep the citations the answer uses, numbered in order of first appearance; drop markers
    that do not resolve."""
    numbering = CitationNumbering(book)
    content = numbering.text(result.content)
    if content != result.content:
        content = content.strip()
    return replace(result, content=content, citations=numbering.used)
