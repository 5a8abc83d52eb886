"""Ownership and input checks every route passes, as one app-level FastAPI dependency
(``create_app`` installs ``check_request`` for all routes, those added later too):

- an id a request names, in its path (``session_id``, ``trace_id``, ``job_id``, ``source``) or as
  ``session_id`` in its JSON body or query, must belong to the caller's key (or the caller is an
  admin): anything else is answered 404, exactly as an id that does not exist. A session named
  in a body that does not exist yet is created for the caller (so another key cannot take it),
  except where the route only acts on an existing one (``/session/end``: 404);
- uploaded documents of other keys are hidden from the request's searches
  (``library.hidden_sources``) and listings;
- a session any code creates during the request without naming an owner belongs to the
  request's key (``OwnedSessions``, the server's session store, reads ``current_owner``);
- a JSON body's text must be valid Unicode: a lone UTF-16 surrogate (``"\\ud800"``, which JSON
  allows and no database or model accepts) is a 400 naming the field; an ``Idempotency-Key``
  has at most 255 characters.

Lists (sessions, traces, documents) filter by owner in their routes: ``principal(request)``.
"""

from __future__ import annotations

import asyncio
import json
import re
from contextvars import ContextVar
from typing import Any

from fastapi import Request

from ragkit.server.auth import principal
from ragkit.server.errors import ApiError
from ragkit.server.library import hidden_sources

_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_IDEMPOTENCY_KEY = 255
ON_LOOP_BYTES = 64 * 1024  # a larger JSON body is parsed and checked in a thread, off the event loop
#: the API key id of the request being served (None: no key, or no request)
current_owner: ContextVar[str | None] = ContextVar("current_owner", default=None)
#: path parameter -> (what it names, the error code of a missing one)
OWNED_PARAMS = {"session_id": ("session", "session_not_found"), "trace_id": ("trace", "trace_not_found"),
                "job_id": ("job", "job_not_found"), "source": ("upload", "document_not_found")}


class OwnedSessions:
    """The server's session store: a session created without an owner (by a turn, by any route)
    belongs to the key of the request being served. Everything else is the wrapped store's."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def create(self, session_id: str | None = None, *, title: str = "", metadata: dict[str, Any] | None = None,
               owner: str | None = None) -> Any:
        return self._store.create(session_id, title=title, metadata=metadata,
                                  owner=owner if owner is not None else current_owner.get())


#: routes whose body ``session_id`` names a session that must exist (never created for the caller)
NAMES_EXISTING = frozenset({"/session/end"})


def not_found(kind: str, ident: str, param: str) -> ApiError:
    shown = ident if len(ident) <= 200 else ident[:200] + "…"
    noun = "document" if kind == "upload" else kind
    return ApiError(404, f"no {noun} '{shown}'", param=param, code=f"{noun}_not_found")


def _visible(state: Any, who: Any, kind: str, ident: str) -> bool:
    """Whether ``who`` may see ``ident`` (an id that does not exist counts as visible: the route
    answers its own 404, or creates it)."""
    if kind == "session":
        info = state.sessions.get(ident)
        return info is None or who.sees(info.owner)
    exists, owner = state.records.owner_of(kind, ident)
    return not exists or who.sees(owner)


def _claim_session(state: Any, who: Any, session_id: str) -> bool:
    """Create ``session_id`` for ``who`` unless it exists; whether ``who`` may use it."""
    info = state.sessions.get(session_id)
    if info is None:
        info = state.sessions.create(session_id, owner=who.owner)
    return who.sees(info.owner)


def bad_text(value: Any, where: str = "") -> str | None:
    """The path of the first string in a JSON value holding a lone surrogate, or ``None``."""
    if isinstance(value, str):
        return where or "body" if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if _SURROGATE.search(str(key)):
                return path
            found = bad_text(item, path)
            if found:
                return found
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found = bad_text(item, f"{where}.{n}" if where else str(n))
            if found:
                return found
    return None


async def _json_body(request: Request) -> tuple[Any, bool]:
    """The request's JSON body (None: none, or not JSON) and whether it is large."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method not in ("POST", "PUT", "PATCH") or not (ctype == "application/json" or ctype.endswith("+json")):
        return None, False
    raw = await request.body()
    large = len(raw) > ON_LOOP_BYTES
    try:
        return (await asyncio.to_thread(json.loads, raw) if large else json.loads(raw)), large
    except (ValueError, UnicodeDecodeError):
        return None, large  # the route's own validation names what is wrong


async def check_request(request: Request) -> None:
    state = request.app.state.ragkit
    who = principal(request)
    current_owner.set(who.owner)
    idempotency = request.headers.get("idempotency-key")
    if idempotency is not None and not 0 < len(idempotency) <= MAX_IDEMPOTENCY_KEY:
        raise ApiError(400, f"the Idempotency-Key header must have 1 to {MAX_IDEMPOTENCY_KEY} characters "
                       f"(got {len(idempotency)})", param="Idempotency-Key", code="invalid_header")
    body, large = await _json_body(request)
    field = None if body is None else await asyncio.to_thread(bad_text, body) if large else bad_text(body)
    if field is not None:
        raise ApiError(400, f"invalid field '{field}': the text holds a lone UTF-16 surrogate (an escape like "
                       "\\ud800 without its pair), which is not valid Unicode; send the text as valid UTF-8",
                       param=field, code="invalid_text")
    for param, (kind, _) in OWNED_PARAMS.items():
        ident = request.path_params.get(param)
        if isinstance(ident, str) and not await asyncio.to_thread(_visible, state, who, kind, ident):
            raise not_found(kind, ident, param)
    query_sid = request.query_params.get("session_id")
    if query_sid and not await asyncio.to_thread(_visible, state, who, "session", query_sid):
        raise not_found("session", query_sid, "session_id")
    body_sid = body.get("session_id") if isinstance(body, dict) else None
    if isinstance(body_sid, str) and 0 < len(body_sid) <= 128:
        if request.url.path in NAMES_EXISTING:  # ends a session: one that does not exist is the route's 404
            allowed = await asyncio.to_thread(_visible, state, who, "session", body_sid)
        else:
            allowed = await asyncio.to_thread(_claim_session, state, who, body_sid)
        if not allowed:
            raise not_found("session", body_sid, "session_id")
    if not who.admin:
        hidden_sources.set(await asyncio.to_thread(hidden_uploads, state.records, who))


def hidden_uploads(records: Any, who: Any) -> frozenset[str]:
    """The uploaded documents ``who`` may not see or find: other keys' (none for an admin, or the
    local user of a server without keys). ``ragkit serve`` and ``ragkit mcp`` both ask this."""
    return frozenset() if who.admin else frozenset(records.uploads_of_others(who))


__all__ = ["OWNED_PARAMS", "OwnedSessions", "bad_text", "check_request", "current_owner", "hidden_uploads",
           "not_found"]
