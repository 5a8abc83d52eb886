"""The ``SessionStore`` contract: durable conversations made of items (messages).

An item is one message of a conversation: ``role`` and ``content``, the ``agent`` that wrote it
(several agents may share a session), the ``citations`` and ``usage`` of an answer, a ``status``
(``complete``; ``incomplete`` when the client went away mid-answer, with the partial text;
``interrupted`` for a question whose turn never finished: the turn owner stores it before the run
and settles it when the run ends, so a process killed mid-turn leaves it so; or ``error``), the ``trace_id`` of the run that produced it, and the ``request_id`` that makes a
retried request idempotent. ``data`` holds anything else (tool calls, for example).

Tool-call records (``claim_tool_call``/``finish_tool_call``, keyed by session and call id) let an
agent run an approved tool exactly once even when its process dies before the session is written
(see ``ragkit.agent.guard.approval``).

Stores are synchronous (SQLite and psycopg are); async callers run them in a thread. Every
backend passes ``ragkit.testing.sessions.SessionStoreContract``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from ragkit.errors import StoreError

ITEM_STATUSES = ("complete", "incomplete", "interrupted", "error")


class SessionError(StoreError):
    """A session operation failed (unknown session, ended session, unreachable database)."""


class SessionNotFound(SessionError):
    pass


class SessionBusy(SessionError):
    """Another turn holds the session's lease (and did not finish within the wait)."""


class SessionEnded(SessionError):
    """The session has ended; a new turn needs a new session."""


def new_session_id() -> str:
    return "sess_" + uuid.uuid4().hex[:20]


@dataclass(frozen=True)
class SessionItem:
    role: str
    content: str = ""
    agent: str | None = None
    citations: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    status: str = "complete"
    trace_id: str | None = None
    request_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    seq: int = 0  # position in the session, assigned by the store (1, 2, ...)

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant", "tool"):
            raise SessionError(f"item role must be system, user, assistant or tool (got {self.role!r})")
        if self.status not in ITEM_STATUSES:
            raise SessionError(f"item status must be one of {ITEM_STATUSES} (got {self.status!r})")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionItem:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def numbered(self, seq: int) -> SessionItem:
        return replace(self, seq=seq)


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    ended_at: float | None = None
    items: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    owner: str | None = None  # who created it (a server's API key id); None: nobody in particular

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ended": self.ended}


@runtime_checkable
class SessionStore(Protocol):
    """Where conversations live. ``add_items`` creates the session when it does not exist.
    A session may record its ``owner`` (an opaque name: the server puts its API key id there)."""

    def create(self, session_id: str | None = None, *, title: str = "",
               metadata: dict[str, Any] | None = None, owner: str | None = None) -> SessionInfo: ...

    def get(self, session_id: str) -> SessionInfo | None: ...

    def list(self, *, limit: int = 50, offset: int = 0, owner: str | None = None) -> list[SessionInfo]:
        """The sessions, most recently updated first; only ``owner``'s when it is given."""
        ...

    def get_items(self, session_id: str, limit: int | None = None) -> list[SessionItem]: ...

    def add_items(self, session_id: str, items: Sequence[SessionItem]) -> list[SessionItem]: ...

    def pop_item(self, session_id: str) -> SessionItem | None: ...

    def clear(self, session_id: str) -> None: ...

    def end(self, session_id: str) -> SessionInfo: ...

    def delete(self, session_id: str) -> bool: ...

    def find_request(self, session_id: str, request_id: str) -> list[SessionItem]: ...

    def settle(self, session_id: str, *, update: Sequence[SessionItem] = (), remove: Sequence[int] = (),
               add: Sequence[SessionItem] = ()) -> list[SessionItem]:
        """End a turn in one transaction: overwrite the items ``update`` (matched by ``seq``), delete
        the items numbered ``remove``, then append ``add`` (returned numbered)."""
        ...

    def claim_tool_call(self, session_id: str, call_id: str, data: dict[str, Any]) -> dict[str, Any] | None: ...

    def finish_tool_call(self, session_id: str, call_id: str, result: dict[str, Any]) -> None: ...

    def try_lock(self, session_id: str, holder: str, ttl: float) -> bool: ...

    def unlock(self, session_id: str, holder: str) -> None: ...

    def close(self) -> None: ...


def title_from(items: Sequence[SessionItem]) -> str:
    first = next((i.content for i in items if i.role == "user" and i.content.strip()), "")
    line = " ".join(first.split())
    return line[:60] + ("…" if len(line) > 60 else "")


__all__ = ["SessionBusy", "SessionEnded", "SessionError", "SessionInfo", "SessionItem", "SessionNotFound",
           "SessionStore",
           "new_session_id", "title_from"]
