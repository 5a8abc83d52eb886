"""``POST /v1/completions``: OpenAI's legacy text completions, for clients that still call it
(LlamaIndex's ``OpenAILike`` with its defaults). The prompt is asked as one question, exactly like
a chat turn (the knowledge base, sessions, the same model parameters); the answer is
``choices[0].text`` with the citations beside it (``choices[0].citations``; a ``response_format`` the
model never matched: empty text and ``choices[0].refusal`` saying why). One prompt per request;
``echo``, ``suffix``, ``best_of > 1``, ``n > 1`` and ``logprobs`` are refused with a 400 naming
them. Unlike OpenAI's legacy default of 16 tokens, a request without ``max_tokens`` is not cut.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ConfigDict, Field

from ragkit.server.auth import principal
from ragkit.server.chat_turn import TurnRun
from ragkit.server.engine import Answer
from ragkit.server.errors import ApiError, error_responses
from ragkit.server.openai_compat import (
    FINISH,
    SSE_HEADERS,
    RagOptions,
    StreamOptions,
    build_turn,
    check_model,
    inline_trace,
    sse_line,
    start_turn,
)
from ragkit.server.wire_messages import ChatMessage

router = APIRouter()


class CompletionRequest(RagOptions):
    model_config = ConfigDict(extra="allow")
    model: str | None = None
    prompt: str | list[Any] = Field(...)
    stream: bool = False
    stream_options: StreamOptions | None = None
    best_of: int | None = None
    echo: bool | None = None
    suffix: str | None = None


def _prompt(value: str | list[Any]) -> str:
    prompts = [value] if isinstance(value, str) else value
    if len(prompts) != 1:
        raise ApiError(400, f"send one prompt per request (got {len(prompts)}); ragkit answers one question "
                       "at a time", param="prompt", code="invalid_prompt")
    if not isinstance(prompts[0], str):
        raise ApiError(400, "the prompt must be text, not token ids", param="prompt", code="invalid_prompt")
    return prompts[0]


@router.post("/v1/completions", response_model=None, responses={
    200: {"description": "The completion (JSON), or with stream=true its chunks as server-sent events",
          "content": {"application/json": {"schema": {"type": "object"}}, "text/event-stream": {"schema": {"type": "string"}}}},
    **error_responses(409, 429, 502)})
async def completions(body: CompletionRequest, request: Request) -> JSONResponse | StreamingResponse:
    model = check_model(request, body.model)
    if body.tools:
        raise ApiError(400, "legacy text completions take no tools; send them to /v1/chat/completions",
                       param="tools", code="unsupported_parameter")
    prompt = ChatMessage(role="user", content=_prompt(body.prompt))
    turn = build_turn([prompt], body, model=model, session_id=body.session_id,
                      request_id=request.headers.get("idempotency-key"), key_id=principal(request).owner)
    run = await start_turn(request, turn)
    if body.stream:
        usage = bool(body.stream_options and body.stream_options.include_usage)
        return StreamingResponse(_sse(run, usage, body.trace), media_type="text/event-stream", headers=SSE_HEADERS)
    try:
        answer = await run.complete()
    finally:
        run.close()
    return JSONResponse({**_base(run), "choices": [_choice(answer.content, FINISH.get(answer.stop_reason, "stop"),
                                                           citations=answer.citations, **_refusal(answer))],
                         "usage": answer.usage, "session_id": run.turn.session_id, "trace_id": run.id,
                         **inline_trace(run, answer, body.trace)})


def _base(run: TurnRun) -> dict[str, Any]:
    return {"id": f"cmpl-{run.id}", "object": "text_completion", "created": run.created, "model": run.turn.model,
            "system_fingerprint": None}


def _refusal(answer: Answer) -> dict[str, Any]:
    return {"refusal": answer.refusal} if answer.refusal else {}


def _choice(text: str, finish: str | None, **extra: Any) -> dict[str, Any]:
    return {"text": text, "index": 0, "logprobs": None, "finish_reason": finish, **extra}


async def _sse(run: TurnRun, include_usage: bool, trace: bool) -> AsyncIterator[str]:
    try:
        async for piece in run.events():
            if isinstance(piece, Answer):
                yield sse_line({**_base(run), "choices": [_choice("", FINISH.get(piece.stop_reason, "stop"),
                                                                  citations=piece.citations, **_refusal(piece))],
                                "session_id": run.turn.session_id, "trace_id": run.id,
                                **inline_trace(run, piece, trace)})
                if include_usage:
                    yield sse_line({**_base(run), "choices": [], "usage": piece.usage})
            else:
                yield sse_line({**_base(run), "choices": [_choice(piece, None)]})
        yield "data: [DONE]\n\n"
    except ApiError as exc:
        yield sse_line(exc.body())
    finally:
        run.close()
