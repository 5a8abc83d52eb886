"""RAGAgent: question answering over a knowledge base, inside the general agent loop.

``ask`` runs the agent with ``search_knowledge_base`` as its tool and returns an ``AgentResult``
whose ``citations`` map every [n] in the answer to source, page and character span, numbered in
order of first appearance in the answer ([1] first); markers that do not resolve are removed, so
an answer's citations always resolve (:mod:`ragkit.rag.citations`, the one resolver). Every
question is a turn of the one turn owner (:func:`ragkit.rag.answer_turn.answer_turn`): with
``sessions=`` and a ``session_id`` the conversation lives in a session store (lease, history,
exactly the run's messages written). The embedding tokens and cost of the queries appear in the
result's usage, attributed to the tool; ``index_report`` holds what indexing cost when the agent
built or updated the index itself.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.agent import Agent, AgentConfig, AgentEvent, AgentResult, ConversationMemory
from ragkit.agent.conversation import Conversation, Turn
from ragkit.config import PipelineSpec, load_pipeline
from ragkit.errors import AgentError
from ragkit.index.reader import KnowledgeBase
from ragkit.index.report import IndexReport
from ragkit.messages import Image, Message
from ragkit.rag.answer_turn import RAG_TRANSCRIPT, answer_turn
from ragkit.rag.citations import CitationNumbering, resolve_citations
from ragkit.rag.prompts import SYSTEM_PROMPT
from ragkit.rag.similarity import embedding_similarity
from ragkit.rag.tool import make_search_tool
from ragkit.types import Document
from ragkit.wiring import check_min_score

if TYPE_CHECKING:
    from ragkit.agent.multi.definition import AgentDefinition

log = logging.getLogger(__name__)


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
                 sessions: Any = None, session_wait: float = 60.0, session_lease: float = 600.0,
                 min_score: float | None = None, **provider_options: Any) -> None:
        """``tools``: more tools beside ``search_knowledge_base``; ``min_score``: the lowest score a
        passage may have, in the retriever's units (else the retriever spec's); ``config`` carries guardrails,
        policy, approval handler, coherence checker and usage limits; ``sessions``: a
        ``SessionStore`` that keeps conversations by ``session_id`` (a turn waits up to
        ``session_wait`` seconds for a session another turn holds, and holds it for at most
        ``session_lease``)."""
        self.kb = kb
        self.provider = make_provider(provider, model=model, **provider_options) if isinstance(provider, str) else provider
        # the offline answerer weighs meaning too, by a local model: one behind a priced (or unpriced)
        # API is never called at answer time, where its tokens and its latency would be unasked for
        if (getattr(self.provider, "similarity", False) is None and kb.embedder.semantic
                and kb.embedder.price_per_million == 0):
            self.provider.similarity = embedding_similarity(kb.embedder)
        self.index_report = index_report
        cfg = guarded_by_spec(config or AgentConfig(), kb.spec)
        self.config = replace(cfg, system_prompt=cfg.system_prompt or system_prompt, memory=memory if memory is not None else cfg.memory)
        # the pipeline's retriever unless ``retriever`` names another (e.g. "rerank", "mmr", or
        # {"type": "rerank", "base": {"type": "hybrid"}, "model": DIR})
        self.tool = make_search_tool(kb, default_top_k=top_k or kb.spec.retriever.top_k, retriever=retriever,
                                     default_min_score=check_min_score(min_score))
        self.agent = Agent(self.provider, tools=[self.tool, *tools], config=self.config, observers=observers)
        self.conversation = Conversation(sessions, lease=session_lease, wait=session_wait, transcript=RAG_TRANSCRIPT)

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

    def turn(self, question: str | Sequence[Message], *, session_id: str | None = None,
             images: Sequence[Image] = ()) -> Turn:
        """One turn (not started): ``events(streaming=...)`` drives it (see ``ragkit.agent.conversation``).
        ``images``: shown to the model with the question (a vision model; see ``ragkit.messages.Image``)."""
        if images:
            if not isinstance(question, str):
                raise AgentError("images= goes with a question string; put the images in your Message(images=...)")
            question = [Message(role="user", content=question, images=tuple(images))]
        return answer_turn(self.conversation, self.agent, question, session_id=session_id)

    def ask(self, question: str, *, session_id: str | None = None, images: Sequence[Image] = ()) -> AgentResult:
        """The answer, its citations numbered as it shows them; with ``session_id`` a turn of that
        session (needs ``sessions=``); ``images`` are shown to the model with the question."""
        self.warm_up()
        result = None
        for event in self.turn(question, session_id=session_id, images=images).events(streaming=False):
            result = event.result or result
        assert result is not None, "a turn always ends with a result"
        return result

    def stream(self, question: str, *, session_id: str | None = None,
               images: Sequence[Image] = ()) -> Iterator[AgentEvent]:
        """Text deltas and tool events; the final ``result`` event's content is exactly the text
        streamed, with its citations (markers renumbered in order of first appearance as they
        stream, markers that do not resolve removed). A run stopped before any text (a guardrail,
        a budget) streams its explanation."""
        self.warm_up()
        yield from self.turn(question, session_id=session_id, images=images).events(streaming=True)

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
    from ragkit.agent.multi.definition import AgentDefinition

    tool = make_search_tool(kb, default_top_k=top_k or kb.spec.retriever.top_k)
    return AgentDefinition(name=name, instructions=instructions, description=description, provider=provider,
                           model=model, tools=(tool, *definition.pop("tools", ())),
                           config=guarded_by_spec(config or AgentConfig(), kb.spec), **definition)


def guarded_by_spec(config: AgentConfig, spec: PipelineSpec) -> AgentConfig:
    """The pipeline's ``agent:`` section fills in a policy and guardrails the config does not set."""
    if config.policy is None and spec.agent.policy is not None:
        from ragkit.agent.values import ToolPolicy

        config = replace(config, policy=ToolPolicy.from_dict(spec.agent.policy, origin=f"{spec.origin}: agent.policy"))
    if config.guardrails is None and spec.agent.guardrails:
        from ragkit.guardrails import default_guardrails

        config = replace(config, guardrails=default_guardrails())
    return config


__all__ = ["CitationNumbering", "RAGAgent", "guarded_by_spec", "make_provider", "rag_definition", "resolve_citations"]
