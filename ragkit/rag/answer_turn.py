"""A turn of an agent answering from a knowledge base, through the one turn owner.

``answer_turn`` gives the run a fresh ``CitationBook`` (so ``search_knowledge_base`` numbers the
passages of this turn) and the owner (:class:`ragkit.agent.conversation.Conversation`) the citation
resolver over that book: the text streamed, the answer returned and stored and its citations then
agree by construction. ``RAGAgent.ask``/``stream`` (``ragkit ask``, ``ragkit chat``), the server's
chat turns, the web page and MCP's ``ask`` all answer through it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ragkit.agent import Agent, AgentConfig
from ragkit.agent.conversation import Conversation, Transcript, Turn
from ragkit.agent.state import Run
from ragkit.messages import Message
from ragkit.rag.citations import CitationNumbering, InlineSources
from ragkit.rag.tool import CitationBook

#: the name a RAG answer carries in a session
AGENT_NAME = "rag"
#: what a RAG conversation stores: every message of the run, answers named ``rag``
RAG_TRANSCRIPT = Transcript(agent=AGENT_NAME)


def answer_turn(conversation: Conversation, agent: Agent | Callable[[], Agent], new: str | Sequence[Message], *,
                session_id: str | None = None, request_id: str | None = None, trace_id: str | None = None,
                system: str | None = None, config: AgentConfig | None = None,
                inline_sources: bool = False) -> Turn:
    """A turn of ``agent`` (or of the agent a callable builds when the turn starts) over ``new`` (a
    question, or messages); ``system``: more system text kept beside the agent's instructions (a
    client's own); ``config``: this turn's own agent config (a request's parameters: ``max_tokens``,
    ``temperature``, ``stop``...), else the agent's; ``inline_sources``: the answer ends with a
    numbered Sources block (for clients that drop the citations field). Without a session the
    agent's memory (if it has one) holds the conversation; with one, the session does."""
    book = CitationBook()
    in_session = session_id is not None and conversation.store is not None
    answers = [m.tool_call_id for m in new if not isinstance(m, str) and m.role == "tool" and m.tool_call_id] \
        if not isinstance(new, str) else []

    def build(history: list[Message]) -> Run:
        nonlocal agent
        if not isinstance(agent, Agent):
            agent = agent()
        memory = (config or agent.config).memory
        if in_session and memory is not None:  # the memory's window bounds what a session sends, too
            history = memory.trim(history)
        if system:
            instructions = "\n\n".join(t for t in ((config or agent.config).system_prompt, system) if t)
            history = [Message(role="system", content=instructions), *history]
        prompt = new if isinstance(new, str) else named_results(history, new)
        return agent.start(prompt, context={"book": book}, use_memory=not in_session,
                           history=history if in_session or system else None, config=config)

    numbering = CitationNumbering(book)
    resolver = InlineSources(numbering) if inline_sources else numbering
    return conversation.turn(session_id, build, resolver=resolver, request_id=request_id,
                             trace_id=trace_id, answers=answers)


def named_results(history: Sequence[Message], new: Sequence[Message]) -> list[Message]:
    """``new`` with each tool result named after the call it answers (a client sends only the
    call's id), so the model and the ``local`` provider know which tool spoke."""
    names = {c.id: c.name for m in (*history, *new) if m.role == "assistant" for c in m.tool_calls}
    return [replace(m, name=names.get(m.tool_call_id or "", m.name)) if m.role == "tool" and not m.name else m
            for m in new]


__all__ = ["AGENT_NAME", "RAG_TRANSCRIPT", "answer_turn", "named_results"]
