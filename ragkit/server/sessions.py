"""``/sessions``: create, list, read (with every item), end and delete conversations.

A session belongs to the API key that created it; ``ownership.check_request`` answers 404 for
another key's session before any route here runs, and the list shows the caller's only (all of
them to an admin key)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.convertors import Convertor, register_url_convertor

from ragkit.server.auth import principal
from ragkit.server.errors import ApiError, error_responses

router = APIRouter()
#: the largest page offset (SQLite and PostgreSQL take 64-bit offsets; no list is this long)
MAX_OFFSET = 1_000_000_000


class NewSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field("", max_length=200)
    metadata: dict[str, Any] = Field(default_factory=dict)


def _store(request: Request) -> Any:
    return request.app.state.ragkit.sessions


def _missing(session_id: str) -> ApiError:
    return ApiError(404, f"no session '{session_id}'", param="session_id", code="session_not_found")


def _session(info: Any) -> dict[str, Any]:
    """A session as the API shows it, its id also under the design's name ``session_id``."""
    return {**info.to_dict(), "object": "session", "session_id": info.id}


@router.post("/sessions", status_code=201)
async def create_session(request: Request, body: NewSession | None = None) -> JSONResponse:
    body = body or NewSession()
    info = await asyncio.to_thread(_store(request).create, title=body.title, metadata=body.metadata,
                                   owner=principal(request).owner)
    return JSONResponse(_session(info), status_code=201)


@router.get("/sessions")
async def list_sessions(request: Request, limit: int = Query(50, ge=1, le=500),
                        offset: int = Query(0, ge=0, le=MAX_OFFSET)) -> dict[str, Any]:
    who = principal(request)
    infos = await asyncio.to_thread(_store(request).list, limit=limit, offset=offset,
                                    owner=None if who.admin else who.owner)
    return {"object": "list", "data": [_session(i) for i in infos], "limit": limit, "offset": offset}


@router.get("/sessions/{session_id}")
async def get_session(session_id: str, request: Request) -> dict[str, Any]:
    store = _store(request)
    info = await asyncio.to_thread(store.get, session_id)
    if info is None:
        raise _missing(session_id)
    items = await asyncio.to_thread(store.get_items, session_id)
    return {**_session(info), "messages": [i.to_dict() for i in items]}


@router.post("/sessions/{session_id}/end", responses=error_responses(409))
async def end_session(session_id: str, request: Request) -> dict[str, Any]:
    store = _store(request)
    if await asyncio.to_thread(store.get, session_id) is None:
        raise _missing(session_id)
    return _session(await asyncio.to_thread(store.end, session_id))


@router.delete("/sessions/{session_id}")
async def delete_session(session_id: str, request: Request) -> dict[str, Any]:
    if not await asyncio.to_thread(_store(request).delete, session_id):
        raise _missing(session_id)
    return {"id": session_id, "object": "session.deleted", "deleted": True}


# --- the served-agent design's names for the same routes (aliases: same handlers, same rules) ---

class _SessionRef(Convertor[str]):
    """A session id in ``/session/{id}`` that is not one of the alias routes' own words, so that
    ``/session/start`` and ``/session/end`` are only those routes (and advertise only POST)."""

    regex = r"(?!(?:start|end)$)[^/]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("session_ref", _SessionRef())


class SessionRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    session_id: str = Field(min_length=1, max_length=128)


@router.post("/session/start", status_code=201)
async def start_session_alias(request: Request, body: NewSession | None = None) -> JSONResponse:
    """``POST /sessions`` under the design's name; the reply also carries ``session_id`` and
    ``started_at`` (the design's names for ``id`` and ``created_at``)."""
    response = await create_session(request, body)
    data = json.loads(bytes(response.body))
    return JSONResponse({**data, "session_id": data["id"], "started_at": data["created_at"]}, status_code=201)


@router.post("/session/end", responses=error_responses(409))
async def end_session_alias(body: SessionRef, request: Request) -> dict[str, Any]:
    """``POST /sessions/{id}/end`` with the id in the body, as the design sends it; the reply also
    carries the design's ``session_id`` and ``message_count`` (the items the session keeps)."""
    data = await end_session(body.session_id, request)
    return {**data, "session_id": data["id"], "message_count": data["items"]}


@router.get("/session/{session_id:session_ref}")
async def get_session_alias(session_id: str, request: Request) -> dict[str, Any]:
    """``GET /sessions/{id}`` under the design's name."""
    return await get_session(session_id, request)
