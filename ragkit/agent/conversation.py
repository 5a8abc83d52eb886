"""The one owner of a conversation turn: history in, lease, run, exactly the run's new messages out.

Every conversation — ``AgentRunner`` with a ``session_id``, ``RAGAgent.ask``/``stream`` (and with
them ``ragkit ask``/``chat``, the server's ``/v1/chat/completions``, ``/chat``, the web page and
MCP's ``ask``) — runs its turns through :class:`Conversation`:

1. **lease**: the session's turn lease in the store (``try_lock``), waited for up to ``wait``
   seconds or refused at once (``SessionBusy``); an ended session is refused (``SessionEnded``);
2. **history**: the session's items under the lease (without unanswered tool calls, failed or
   interrupted turns), given to the caller's run factory, which builds the ``Run``;
3. **admit** (a step of the run, after the input guardrails): the new input *as the run sees it*
   (redacted, or a placeholder when blocked) is stored with status ``interrupted`` before the
   model sees it, so a process killed mid-turn leaves the question stored as ``interrupted``;
4. **the run**, driven by the agent's own drivers (this is a step machine around ``run_steps``:
   ``drive`` runs it with blocking calls, ``adrive`` awaits, session I/O in threads). With a
   citation resolver (the RAG use case injects its :class:`ragkit.rag.citations.CitationNumbering`)
   every text piece goes through it, streamed or not, so the answer returned and stored is exactly
   the text given out and its citations are numbered as that text shows them;
5. **commit** (one store transaction, ``SessionStore.settle``): the stored input marked complete
   and exactly the run's new messages appended, taken from the run state (``state.saved`` on),
   never found by matching text; the answer carries usage, citations, agent name and trace id.
   A paused run keeps its unanswered tool calls out until it resumes;
6. **release**, on every path: the lease is let go even when writing fails (the holder is dropped
   from this process's live holders first, so a lock row a full disk kept cannot block the next
   turn; the delete is retried by the next turn of this process). A run that raises removes its
   stored input (a failed turn stores nothing but what the caller records); ``close()`` of a turn
   cut short (the client went away) stores the input and the partial answer as ``incomplete``.

It lives in the engine layer (``agent``) so that ``AgentRunner`` can use it; what it needs of the
RAG use case (citation numbering) is passed in, never imported.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ragkit.agent.actions import Call, Steps
from ragkit.agent.result import AgentEvent, AgentResult
from ragkit.agent.state import Run
from ragkit.messages import Message
from ragkit.sessions.base import SessionBusy, SessionEnded, SessionItem
from ragkit.sessions.db import drop_holder, lock_holder
from ragkit.sessions.messages import items_to_messages, message_to_item
from ragkit.types import Citation

log = logging.getLogger(__name__)
#: seconds between two attempts at a busy session's lease
POLL = 0.05
#: stop reasons whose result text stands for an answer the model did not give (said when nothing streamed)
_NO_ANSWER = ("guardrail", "budget", "paused", "max_handoffs", "max_iterations")
_unreleased: list[tuple[Any, str, str]] = []  # (store, session, holder) whose lock delete failed


class CitationResolver(Protocol):
    """Numbers an answer's citation markers as it is given out (see ``ragkit.rag.citations``)."""

    used: list[Citation]

    def feed(self, text: str) -> str: ...

    def flush(self) -> str: ...


def _usage(result: AgentResult) -> dict[str, Any]:
    return result.usage.to_dict()


def _citations(result: AgentResult) -> list[dict[str, Any]]:
    return [c.to_dict() for c in result.citations]


@dataclass(frozen=True)
class Transcript:
    """What a turn stores of its run, and how.

    ``dialogue``: only the conversation — the user's input and the answer (with a client's tool
    calls left pending in it), not the tool round trips of the run (a chat server); otherwise every
    message of the run. ``agent``: the name written on assistant messages that name none.
    ``usage``/``citations``: how the answer's usage and citations are written."""

    dialogue: bool = False
    agent: str | None = None
    usage: Callable[[AgentResult], dict[str, Any]] = _usage
    citations: Callable[[AgentResult], list[dict[str, Any]]] = _citations


RunFactory = Callable[[list[Message]], Run]


class Conversation:
    """Turns over a ``SessionStore`` (``None``: turns without a session, nothing stored).

    ``lease``: seconds a turn holds its session (a holder that died on this host loses it at once);
    ``wait``: seconds a turn waits for a busy session (0 refuses at once)."""

    def __init__(self, store: Any = None, *, lease: float = 600.0, wait: float = 0.0,
                 transcript: Transcript | None = None) -> None:
        self.store, self.lease, self.wait = store, lease, wait
        self.transcript = transcript or Transcript()

    def turn(self, session_id: str | None, run: RunFactory, *, resolver: CitationResolver | None = None,
             request_id: str | None = None, trace_id: str | None = None, history: bool = True,
             answers: Sequence[str] = ()) -> Turn:
        """One turn of ``session_id``: ``run(history)`` builds its ``Run`` (the history is loaded under
        the lease; ``history=False`` for a run that continues a saved state). ``answers``: ids of
        the tool calls the new input answers (a client's tool results): the history keeps the
        assistant message that made them."""
        return Turn(self, session_id if self.store is not None else None, run, resolver=resolver,
                    request_id=request_id, trace_id=trace_id, load_history=history, answers=answers)


@dataclass
class _Progress:
    emitted: list[str] = field(default_factory=list)  # the text given out so far
    ahead: list[tuple[int, SessionItem]] = field(default_factory=list)  # (message index, stored input)
    begun: bool = False  # the lease is held and the history loaded
    started: bool = False  # the run began (so an early end is an incomplete turn)
    admitted: bool = False  # the input passed the input guardrails (and, with a session, is stored)
    done: bool = False


class Turn:
    """One turn (see the module docstring): ``events``/``aevents`` drive it, ``close()`` ends it."""

    def __init__(self, owner: Conversation, session_id: str | None, factory: RunFactory, *,
                 resolver: CitationResolver | None, request_id: str | None, trace_id: str | None,
                 load_history: bool, answers: Sequence[str] = ()) -> None:
        self.owner, self.session_id, self.factory, self.resolver = owner, session_id, factory, resolver
        self.answers = tuple(answers)
        self.request_id, self.trace_id, self.load_history = request_id, trace_id, load_history
        self.history: list[Message] = []
        self.replayed: SessionItem | None = None  # the stored answer of a request already answered
        self.run: Run | None = None
        self.result: AgentResult | None = None
        self._holder: str | None = None
        self._progress = _Progress()

    @property
    def text(self) -> str:
        """The answer's text given out so far."""
        return "".join(self._progress.emitted)

    @property
    def store(self) -> Any:
        return self.owner.store if self.session_id is not None else None

    @property
    def input(self) -> list[Message] | None:
        """The turn's new input as the run saw it (redacted by the input guardrails, a placeholder
        for what they blocked); None before the guardrails have screened it."""
        run = self.run
        if run is None or not (self._progress.admitted or self.result is not None):
            return None
        return [m for m in run.state.messages[run.state.new_from:] if m.role in ("user", "tool")]

    @property
    def cut_short(self) -> bool:
        """The run began and has not finished (``close()`` now stores it as incomplete)."""
        return self._progress.started and not self._progress.done

    def begin(self) -> None:
        """Take the lease and load the history now (else the drivers do it first); raises
        ``SessionBusy``/``SessionEnded`` before any event."""
        from ragkit.agent.drivers import drive

        if self.store is not None and not self._progress.begun:
            for _ in drive(self._lease(), None):  # type: ignore[arg-type]
                pass

    async def abegin(self) -> None:
        """``begin``, awaited (the session I/O in threads)."""
        from ragkit.agent.drivers import adrive

        if self.store is not None and not self._progress.begun:
            async for _ in adrive(self._lease(), None):  # type: ignore[arg-type]
                pass

    # ------------------------------------------------------------------ drivers
    def events(self, *, streaming: bool) -> Iterator[AgentEvent]:
        """Drive the turn with blocking calls: text deltas, tool events, then one ``result``."""
        from ragkit.agent.drivers import drive

        try:
            yield from drive(self.steps(streaming), None)  # type: ignore[arg-type]
        finally:
            self.close()

    async def aevents(self, *, streaming: bool) -> AsyncIterator[AgentEvent]:
        """The same turn, awaited (session I/O in threads)."""
        from ragkit.agent.drivers import adrive

        try:
            async for event in adrive(self.steps(streaming), None):  # type: ignore[arg-type]
                yield event
        finally:
            self.close()

    # ------------------------------------------------------------------ the machine
    def steps(self, streaming: bool) -> Steps[None]:
        """The turn as a step machine around ``run_steps`` (see the module docstring)."""
        from ragkit.agent.loop import run_steps

        if self.store is not None and not self._progress.begun:
            yield from self._lease()
        if self.replayed is not None:
            yield AgentEvent("text", text=self.replayed.content)
            yield AgentEvent("result", result=AgentResult(content=self.replayed.content))
            self._progress.done = True
            return
        run = self.run = self.factory(list(self.history))
        if self.trace_id is None:
            self.trace_id = run.run_id
        if self.store is not None:
            if self.load_history:
                run.state.saved = run.state.new_from  # system prompt and history: not this turn's to write
            run.state.session_id = self.session_id
        run.admit = self._admit
        self._progress.started = True
        try:
            yield from self._relay(run_steps(run, streaming), streaming)
        except Exception:
            self._failed()
            rest = self.resolver.flush() if self.resolver is not None and self.result is None else ""
            if rest:  # the text given out before the failure, whole (no marker was waiting for it)
                yield self._give(AgentEvent("text", text=rest))
            raise

    def _lease(self) -> Steps[None]:
        deadline = time.monotonic() + self.owner.wait
        self._holder = lock_holder(f"turn-{uuid.uuid4().hex[:12]}")
        while not (yield Call(self._begin)):
            if time.monotonic() >= deadline:
                self._let_go()
                waited = f" (waited {self.owner.wait:g} s)" if self.owner.wait else ""
                raise SessionBusy(f"session {self.session_id!r} is busy: another turn is answering in it{waited}; "
                                  "retry when it has finished, or use another session")
            yield Call(lambda: time.sleep(POLL), afn=lambda: asyncio.sleep(POLL))
        self._progress.begun = True

    def _begin(self) -> bool:
        """Check the session, take its lease, load its history (or find the request answered)."""
        store, sid = self.store, self.session_id
        assert sid is not None and self._holder is not None
        _retry_unreleased()
        info = store.get(sid)
        if info is None:
            store.create(sid)
        elif info.ended:
            self._let_go()
            raise SessionEnded(f"session {sid} has ended; start a new session")
        if not store.try_lock(sid, self._holder, self.owner.lease):
            return False
        if self.request_id is not None and self.load_history:
            done = [i for i in store.find_request(sid, self.request_id) if i.role == "assistant" and i.status == "complete"]
            if done:
                self.replayed = done[-1]
                return True
        if self.load_history:
            kept = [i for i in store.get_items(sid) if i.status not in ("error", "interrupted")
                    and (i.content or i.data.get("tool_calls") or i.role == "tool")]
            self.history = items_to_messages(kept, answered=self.answers)
        return True

    def _admit(self, run: Run) -> Steps[None]:
        """Store the new input as the run sees it, before the model does (status ``interrupted``)."""
        if self.store is not None:
            yield Call(lambda: self._write_ahead(run))
        self._progress.admitted = True

    def _write_ahead(self, run: Run) -> None:
        st = run.state
        start = end = st.saved
        while end < len(st.messages) and st.messages[end].role in ("user", "tool"):
            end += 1
        if end == start:
            return
        items = [self._item(m, status="interrupted") for m in st.messages[start:end]]
        stored = self.store.add_items(self.session_id, items)
        self._progress.ahead = list(zip(range(start, end), stored, strict=True))
        st.saved, st.written = end, st.written + len(stored)

    def _relay(self, steps: Steps[None], streaming: bool) -> Steps[None]:
        """Pass the run's actions through; text through the resolver; at the result, commit."""
        reply: Any = None
        error: BaseException | None = None
        while True:
            try:
                item = steps.throw(error) if error is not None else steps.send(reply)
            except StopIteration:
                return
            reply = error = None
            if not isinstance(item, AgentEvent):
                try:
                    reply = yield item
                except Exception as exc:  # handed back to the run, which decides
                    error = exc
                continue
            if item.type == "text" and self.resolver is not None:
                if text := self.resolver.feed(item.text):
                    yield self._give(replace(item, text=text))
            elif item.type == "text":
                yield self._give(item)
            elif item.type == "result" and item.result is not None:
                result, rest = self._finish(item.result, streaming)
                if rest:
                    yield self._give(AgentEvent("text", item.iteration, text=rest))
                self.result = result  # the run is over: from here a failure keeps its input stored
                if self.store is not None:
                    yield Call(lambda result=result: self._commit(result))  # type: ignore[misc]
                self._progress.done = True
                yield replace(item, result=result)
            else:
                yield item

    def _give(self, event: AgentEvent) -> AgentEvent:
        self._progress.emitted.append(event.text)
        return event

    def _finish(self, result: AgentResult, streaming: bool) -> tuple[AgentResult, str]:
        """The result as given out: its text numbered by the resolver (the streamed text, whole)."""
        said = self._progress.emitted
        if self.resolver is None:
            rest = result.content if streaming and not said and result.stop_reason in _NO_ANSWER else ""
            return result, rest
        rest = self.resolver.flush()
        if not streaming or (not said and not rest and result.stop_reason in _NO_ANSWER):
            rest += self.resolver.feed(result.content) + self.resolver.flush()
        content = "".join(said) + rest if streaming else rest
        if not streaming and content != result.content:
            content = content.strip()
        return replace(result, content=content, citations=list(self.resolver.used)), rest if streaming else ""

    # ------------------------------------------------------------------ writing
    def _item(self, message: Message, **fields: Any) -> SessionItem:
        t, run = self.owner.transcript, self.run
        if message.role == "assistant" and message.agent is None and t.agent is not None:
            message = replace(message, agent=t.agent)
        rid = self.request_id if self.request_id is not None else run.run_id if run is not None else None
        return message_to_item(message, trace_id=self.trace_id, request_id=rid, **fields)

    def _commit(self, result: AgentResult) -> None:
        """Settle the stored input and write the rest of the run's new messages (one transaction),
        then release the lease. A paused run keeps its unanswered tool calls for when it resumes."""
        run = self.run
        assert run is not None
        st = run.state
        paused = result.stop_reason == "paused"
        upto = len(st.messages) - 1 if paused else len(st.messages)
        self._write(self._new_items(st.messages[st.saved:upto], result, answered=not paused), upto)
        self._release()

    def write(self, *, upto: int) -> None:
        """Write the run's messages up to ``upto`` now, mid-run (before a handoff's input filter
        rewrites them: the session keeps the whole conversation)."""
        if self.store is None or self.run is None:
            return
        st = self.run.state
        self._write([self._item(m) for m in st.messages[st.saved:upto] if m.role != "system"], upto)

    def _write(self, items: list[SessionItem], upto: int) -> None:
        st = self.run.state  # type: ignore[union-attr]
        there = 0 if self.load_history else len(self.store.find_request(self.session_id, self._rid())) - st.written
        add = items[max(0, there):]  # a retried resume finds what its first attempt wrote
        self.store.settle(self.session_id, update=self._settled(st.messages), add=add)
        self._progress.ahead = []
        st.saved, st.written = upto, st.written + len(items)

    def _rid(self) -> str:
        return self.request_id or (self.run.run_id if self.run is not None else "")

    def _settled(self, messages: Sequence[Message], status: str = "complete") -> list[SessionItem]:
        """The stored input, complete now, as the run ends with it (a handoff's guardrails may have
        redacted it further)."""
        return [replace(stored, content=messages[i].content, status=status) for i, stored in self._progress.ahead]

    def _new_items(self, messages: Sequence[Message], result: AgentResult, *, answered: bool) -> list[SessionItem]:
        """The items of ``messages`` (the run's, from ``state.saved``): all of them, or for a dialogue
        the input and the final assistant message; the answer carries the result's text, usage and
        citations, or says why there is none (a guardrail, a budget)."""
        t = self.owner.transcript
        kept = [m for m in messages if m.role != "system"]
        final = kept[-1] if kept and kept[-1].role == "assistant" else None
        if t.dialogue:
            calls_here = {c.id for m in kept if m.role == "assistant" for c in m.tool_calls}
            kept = [m for m in kept if m.role == "user" or (m.role == "tool" and m.tool_call_id not in calls_here)]
            if result.client_calls:  # the answer is the client's tool calls (its own calls ran in this turn)
                final = Message(role="assistant", content=result.content, tool_calls=tuple(result.client_calls))
            kept += [final] if final is not None else []
        items = [self._item(m) for m in kept]
        if not answered:
            return items
        answer = {"usage": t.usage(result), "citations": t.citations(result)}
        if final is not None:
            items[-1] = replace(items[-1], content=result.content, **answer)
        else:
            items.append(self._item(Message(role="assistant", content=result.content), **answer))
        return items

    # ------------------------------------------------------------------ ending
    def _failed(self) -> None:
        """A run that raised: its stored input is taken back (a failed turn stores nothing). When the
        run had finished and writing its end failed (a full disk), the input stays ``interrupted``."""
        self._progress.done = True
        if self._progress.ahead and self.store is not None and self.result is None:
            try:
                self.store.settle(self.session_id, remove=[s.seq for _, s in self._progress.ahead])
                self._progress.ahead = []
            except Exception:  # noqa: BLE001 - the input stays stored as interrupted
                log.exception("turn of session %s: could not take back its input; it stays stored as interrupted",
                              self.session_id)
        self._release()

    def close(self) -> None:
        """End the turn however it went (always called; idempotent): a run cut short stores its
        input and the text given out so far as ``incomplete``; the lease is released."""
        try:
            p = self._progress
            if (p.started and not p.done and p.admitted and self.result is None  # (a result: its commit runs)
                    and self.store is not None and self.run is not None):
                p.done = True
                log.info("turn of session %s ended before its answer was complete; stored as incomplete",
                         self.session_id)
                partial = message_to_item(Message(role="assistant", content=self.text, agent=self.owner.transcript.agent),
                                          status="incomplete", trace_id=self.trace_id, request_id=self._rid())
                self.store.settle(self.session_id, update=self._settled(self.run.state.messages), add=[partial])
                p.ahead = []
        finally:
            self._release()

    def _release(self) -> None:
        holder, self._holder = self._holder, None
        if holder is None or self.session_id is None:
            return
        drop_holder(holder)
        try:
            self.store.unlock(self.session_id, holder)
        except Exception:  # noqa: BLE001 - e.g. a full disk: this process's next turn takes the lease over
            log.exception("session %s: could not release the turn lease; it is retried", self.session_id)
            _unreleased.append((self.store, self.session_id, holder))

    def _let_go(self) -> None:
        if self._holder is not None:
            drop_holder(self._holder)
            self._holder = None


def _retry_unreleased() -> None:
    """Delete the lock rows earlier turns of this process could not (best effort)."""
    for entry in list(_unreleased):
        store, sid, holder = entry
        try:
            store.unlock(sid, holder)
        except Exception:  # noqa: BLE001 - still failing: try again at the next turn
            continue
        if entry in _unreleased:
            _unreleased.remove(entry)


__all__ = ["CitationResolver", "Conversation", "RunFactory", "Transcript", "Turn"]
