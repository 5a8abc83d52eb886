"""``POST /chat``: the platform endpoint. Send one ``message`` (or a full or partial ``messages``
history); a session is created when none is given; the reply is ``{response, session_id, trace}``
with the answer's citations and usage beside them. It takes the same model parameters as
``/v1/chat/completions`` (``temperature``, ``top_p``, ``max_tokens``, ``stop``, ``response_format``,
``system_prompt``...: ``server/params.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from pydantic import ConfigDict, Field

from ragkit.server.auth import principal
from ragkit.server.errors import ApiError, error_responses
from ragkit.server.openai_compat import RagOptions, build_turn, start_turn
from ragkit.server.wire_messages import ChatMessage
from ragkit.sessions.base import new_session_id

router = APIRouter()


class ChatRequest(RagOptions):
    model_config = ConfigDict(extra="forbid")
    message: str | None = Field(None, min_length=1)
    messages: list[ChatMessage] | None = None


@router.post("/chat", responses=error_responses(409, 429, 502))
async def chat(body: ChatRequest, request: Request) -> dict[str, Any]:
    if (body.message is None) == (body.messages is None):
        raise ApiError(400, "send either 'message' (the new question) or 'messages' (a history ending with "
                       "the new question)", param="message", code="invalid_request")
    messages = body.messages or [ChatMessage(role="user", content=body.message)]
    state = request.app.state.ragkit
    session_id = body.session_id or new_session_id()
    if body.session_id is None:  # a new session, the caller's (a named one was claimed by ownership.py)
        await asyncio.to_thread(state.sessions.create, session_id, owner=principal(request).owner)
    turn = build_turn(messages, body, model=state.settings.served_model, session_id=session_id,
                      request_id=request.headers.get("idempotency-key"), key_id=principal(request).owner)
    run = await start_turn(request, turn)
    try:
        answer = await run.complete()
    finally:
        run.close()
    calls = {"tool_calls": answer.tool_calls} if answer.tool_calls else {}  # client tools to run, OpenAI's shape
    calls.update({"refusal": answer.refusal} if answer.refusal else {})  # no answer in the response_format
    return {"response": answer.content, "session_id": session_id, "citations": answer.citations, **calls,
            "usage": answer.usage,
            "trace": {"id": run.id, "steps": answer.trace.get("steps", []), "duration": answer.trace.get("duration"),
                      "tool_calls": answer.trace.get("tool_calls", []), "usage": answer.usage}}
