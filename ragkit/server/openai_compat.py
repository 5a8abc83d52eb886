"""``POST /v1/chat/completions`` and ``GET /v1/models``, as the official ``openai`` SDK expects.

RAG options are top-level request fields (the SDK's ``extra_body``): ``top_k``, ``filter``,
``retriever``, ``session_id``, ``use_knowledge_base``. The answer's citations are an extension
field of the message (``message.citations``; in a stream, one dedicated chunk before the finish
chunk, ``delta.citations``), and ``usage`` adds ``embedding_tokens`` and ``cost``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ragkit.server.auth import principal
from ragkit.server.engine import Answer, TurnOptions
from ragkit.server.errors import ApiError, error_responses
from ragkit.server.library import check_filter
from ragkit.server.turns import Turn, TurnRun

log = logging.getLogger(__name__)
router = APIRouter()
FINISH = {"stop": "stop", "length": "length", "max_iterations": "length"}


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(p.get("text", "") for p in self.content if p.get("type") == "text")
        return self.content or ""


Filter = Annotated[dict[str, Any] | None, AfterValidator(check_filter)]


class RagOptions(BaseModel):
    top_k: int | None = Field(None, ge=1, le=50)
    filter: Filter = None
    retriever: Literal["dense", "bm25", "hybrid"] | None = None
    session_id: str | None = Field(None, min_length=1, max_length=128)
    use_knowledge_base: bool = True

    def turn_options(self) -> TurnOptions:
        return TurnOptions(self.top_k, self.filter, self.retriever, self.use_knowledge_base)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionRequest(RagOptions):
    model_config = ConfigDict(extra="allow")  # temperature, user, ... are accepted and ignored
    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None


def build_turn(messages: list[ChatMessage], opts: RagOptions, *, model: str, session_id: str | None,
               request_id: str | None, key_id: str | None = None) -> Turn:
    """System text aside; with a session, only the messages after the client's last assistant
    message are new (a client may send the whole history or just the new question)."""
    system = "\n\n".join(m.text() for m in messages if m.role in ("system", "developer") and m.text()) or None
    convo = [{"role": m.role, "content": m.text()} for m in messages if m.role in ("user", "assistant")]
    if not convo or convo[-1]["role"] != "user" or not convo[-1]["content"].strip():
        raise ApiError(400, "the last message must be a non-empty user message", param="messages",
                       code="invalid_messages")
    if session_id is not None:
        last_assistant = max((i for i, m in enumerate(convo) if m["role"] == "assistant"), default=-1)
        convo = convo[last_assistant + 1:]
    return Turn(messages=convo, model=model, session_id=session_id, system=system,
                options=opts.turn_options(), request_id=request_id, key_id=key_id)


def check_model(request: Request, model: str) -> None:
    served = request.app.state.ragkit.settings.served_model
    if model != served:
        raise ApiError(404, f"the model '{model}' does not exist; this server serves '{served}' "
                       "(see GET /v1/models)", param="model", code="model_not_found")


@router.get("/v1/models")
async def models(request: Request) -> dict[str, Any]:
    s = request.app.state.ragkit.settings
    return {"object": "list", "data": [{"id": s.served_model, "object": "model", "created": 0,
                                        "owned_by": "ragkit"}]}


@router.post("/v1/chat/completions", response_model=None, responses={
    200: {"description": "The completion (JSON), or with stream=true its chunks as server-sent events",
          "content": {"application/json": {"schema": {"type": "object"}}, "text/event-stream": {"schema": {"type": "string"}}}},
    **error_responses(409, 429, 502)})
async def chat_completions(body: ChatCompletionRequest, request: Request) -> JSONResponse | StreamingResponse:
    check_model(request, body.model)
    turn = build_turn(body.messages, body, model=body.model, session_id=body.session_id,
                      request_id=request.headers.get("idempotency-key"), key_id=principal(request).owner)
    run = TurnRun(request.app.state.ragkit, turn)
    try:
        await run.start()
    except BaseException:
        run.close()
        raise
    if body.stream:
        usage = bool(body.stream_options and body.stream_options.include_usage)
        return StreamingResponse(_sse(run, usage), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    try:
        answer = await run.complete()
    finally:
        run.close()
    return JSONResponse(completion(run, answer))


def _base(run: TurnRun, obj: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{run.id}", "object": obj, "created": run.created, "model": run.turn.model,
            "system_fingerprint": None}


def completion(run: TurnRun, answer: Answer) -> dict[str, Any]:
    return {**_base(run, "chat.completion"),
            "choices": [{"index": 0, "logprobs": None, "finish_reason": FINISH.get(answer.stop_reason, "stop"),
                         "message": {"role": "assistant", "content": answer.content, "refusal": None,
                                     "citations": answer.citations}}],
            "usage": answer.usage, "session_id": run.turn.session_id, "trace_id": run.id}


def _chunk(run: TurnRun, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
    data = {**_base(run, "chat.completion.chunk"),
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], **extra}
    return _sse_line(data)


def _sse_line(data: dict[str, Any]) -> str:
    return "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n"


async def _sse(run: TurnRun, include_usage: bool) -> AsyncIterator[str]:
    try:
        yield _chunk(run, {"role": "assistant", "content": ""})
        async for piece in run.events():
            if isinstance(piece, Answer):
                yield _chunk(run, {"citations": piece.citations}, session_id=run.turn.session_id, trace_id=run.id)
                yield _chunk(run, {}, FINISH.get(piece.stop_reason, "stop"))
                if include_usage:
                    yield _sse_line({**_base(run, "chat.completion.chunk"), "choices": [], "usage": piece.usage})
            else:
                yield _chunk(run, {"content": piece})
        yield "data: [DONE]\n\n"
    except ApiError as exc:
        yield _sse_line(exc.body())
    finally:
        run.close()
