"""``/traces``: every turn's typed agent trace (model and tool calls, durations, tokens, cost),
whichever worker served it; paged and filterable by session. A list carries its page as ``data``
and the total as ``total``, and the same under the design's names, ``traces`` and ``count``."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query, Request

from ragkit.server.auth import principal
from ragkit.server.errors import ApiError
from ragkit.server.sessions import MAX_OFFSET

router = APIRouter()


@router.get("/traces")
async def list_traces(request: Request, session_id: str | None = Query(None, min_length=1, max_length=128),
                      limit: int = Query(20, ge=1, le=200),
                      offset: int = Query(0, ge=0, le=MAX_OFFSET)) -> dict[str, Any]:
    records = request.app.state.ragkit.records
    data, total = await asyncio.to_thread(records.traces, session_id=session_id, limit=limit, offset=offset,
                                          who=principal(request))
    return {"object": "list", "data": data, "total": total, "limit": limit, "offset": offset,
            "has_more": offset + len(data) < total, "traces": data, "count": total}  # the design's names too


@router.get("/traces/{trace_id}")
async def get_trace(trace_id: str, request: Request) -> dict[str, Any]:
    trace = await asyncio.to_thread(request.app.state.ragkit.records.trace, trace_id, principal(request))
    if trace is None:
        raise ApiError(404, f"no trace '{trace_id}'", param="trace_id", code="trace_not_found")
    return trace
