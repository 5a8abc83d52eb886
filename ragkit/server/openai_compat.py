"""``POST /v1/chat/completions`` and ``GET /v1/models``, as the official ``openai`` SDK expects.

RAG options are top-level request fields (the SDK's ``extra_body``): ``top_k``, ``filter``,
``retriever``, ``min_score``, ``session_id``, ``use_knowledge_base``, ``citations``. The model parameters
(``server/params.py``) reach the agent and its provider; ``n > 1`` and ``logprobs`` are a 400. The
answer's citations are an extension field of the message (``message.citations``; in a stream, one
dedicated chunk before the finish chunk, ``delta.citations``), and ``usage`` adds
``embedding_tokens`` and ``cost``. The request's ``tools`` are the client's: a call of one ends
the response with ``finish_reason: "tool_calls"`` (streamed as OpenAI's tool-call deltas).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import AfterValidator, ConfigDict, Field

from ragkit.server.auth import principal
from ragkit.server.chat_turn import Turn, TurnRun
from ragkit.server.engine import Answer, TurnOptions
from ragkit.server.errors import ApiError, error_responses
from ragkit.server.library import check_filter
from ragkit.server.params import ModelParams, WireModel
from ragkit.server.wire_messages import ChatMessage, conversation, new_messages

log = logging.getLogger(__name__)
router = APIRouter()
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
FINISH = {"stop": "stop", "length": "length", "max_iterations": "length", "tool_calls": "tool_calls"}


Filter = Annotated[dict[str, Any] | None, AfterValidator(check_filter)]


class RagOptions(ModelParams):
    top_k: int | None = Field(None, ge=1, le=50)
    filter: Filter = None
    retriever: Literal["dense", "bm25", "hybrid"] | None = None
    min_score: float | None = Field(None, allow_inf_nan=False, strict=True)  # the knowledge base's, as on /search
    session_id: str | None = Field(None, min_length=1, max_length=128)
    use_knowledge_base: bool = True
    citations: Literal["field", "inline"] | None = None  # None: the server's --citations

    def turn_options(self) -> TurnOptions:
        return TurnOptions(self.top_k, self.filter, self.retriever, self.use_knowledge_base, min_score=self.min_score,
                           config=self.config_changes(), refusable=self.refusable(), citations=self.citations)


class StreamOptions(WireModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionRequest(RagOptions):
    model_config = ConfigDict(extra="allow")  # fields of newer API versions are accepted
    model: str | None = None  # the served model when left out
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None


def build_turn(messages: list[ChatMessage], opts: RagOptions, *, model: str, session_id: str | None,
               request_id: str | None, key_id: str | None = None) -> Turn:
    """System text aside (with the design's ``system_prompt``); the turn's new messages (see
    ``wire_messages``: with a session, those after the client's last assistant message; the ones
    before them become the history of a session that has none yet)."""
    convo, system = conversation(messages)
    system = "\n\n".join(t for t in (system, opts.system_prompt) if t) or None
    new = new_messages(convo, session_id is not None)
    return Turn(messages=new, model=model, session_id=session_id, system=system, options=opts.turn_options(),
                request_id=request_id, key_id=key_id, earlier=convo[:len(convo) - len(new)])


def check_model(request: Request, model: str | None) -> str:
    """The model a request names (the served one when it names none); any other is a 404."""
    served: str = request.app.state.ragkit.settings.served_model
    if model is not None and model != served:
        raise ApiError(404, f"the model '{model}' does not exist; this server serves '{served}' "
                       "(see GET /v1/models)", param="model", code="model_not_found")
    return served


async def start_turn(request: Request, turn: Turn) -> TurnRun:
    """Check the turn's parameters (a 400 before any answer is sent), then start it."""
    state = request.app.state.ragkit
    await asyncio.to_thread(state.engine.prepare, turn.options)
    run = TurnRun(state, turn)
    try:
        await run.start()
    except BaseException:
        run.close()
        raise
    return run


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
    model = check_model(request, body.model)
    turn = build_turn(body.messages, body, model=model, session_id=body.session_id,
                      request_id=request.headers.get("idempotency-key"), key_id=principal(request).owner)
    run = await start_turn(request, turn)
    if body.stream:
        usage = bool(body.stream_options and body.stream_options.include_usage)
        return StreamingResponse(_sse(run, usage, body.trace), media_type="text/event-stream",
                                 headers=SSE_HEADERS)
    try:
        answer = await run.complete()
    finally:
        run.close()
    return JSONResponse(completion(run, answer, body.trace))


def _base(run: TurnRun, obj: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{run.id}", "object": obj, "created": run.created, "model": run.turn.model,
            "system_fingerprint": None}


def completion(run: TurnRun, answer: Answer, trace: bool = False) -> dict[str, Any]:
    message = {"role": "assistant", "content": None if answer.refusal else answer.content, "refusal": answer.refusal,
               "citations": answer.citations}
    if answer.tool_calls:  # the client's tools to run: OpenAI's shape, content null when the model said nothing
        message.update(content=answer.content or None, tool_calls=answer.tool_calls)
    return {**_base(run, "chat.completion"),
            "choices": [{"index": 0, "logprobs": None, "finish_reason": FINISH.get(answer.stop_reason, "stop"),
                         "message": message}],
            "usage": answer.usage, "session_id": run.turn.session_id, "trace_id": run.id,
            **inline_trace(run, answer, trace)}


def inline_trace(run: TurnRun, answer: Answer, wanted: bool) -> dict[str, Any]:
    """``{"trace": {...}}`` when the request asked for ``trace: true`` (the run's steps, tool
    calls, usage and stop reason, as ``GET /traces/{trace_id}`` keeps them), else nothing."""
    return {"trace": {"id": run.id, **answer.trace}} if wanted else {}


def tool_call_deltas(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Streamed tool calls in OpenAI's delta format: per call, one delta opening it (index, id,
    type, name, empty arguments), then one with its arguments."""
    deltas = []
    for index, call in enumerate(calls):
        deltas.append({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                       "function": {"name": call["function"]["name"], "arguments": ""}}]})
        deltas.append({"tool_calls": [{"index": index, "function": {"arguments": call["function"]["arguments"]}}]})
    return deltas


def _chunk(run: TurnRun, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
    data = {**_base(run, "chat.completion.chunk"),
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], **extra}
    return sse_line(data)


def sse_line(data: dict[str, Any]) -> str:
    return "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n"


async def _sse(run: TurnRun, include_usage: bool, trace: bool = False) -> AsyncIterator[str]:
    try:
        yield _chunk(run, {"role": "assistant", "content": ""})
        async for piece in run.events():
            if isinstance(piece, Answer):
                for delta in tool_call_deltas(piece.tool_calls):
                    yield _chunk(run, delta)
                if piece.refusal:
                    yield _chunk(run, {"refusal": piece.refusal})
                yield _chunk(run, {"citations": piece.citations}, session_id=run.turn.session_id, trace_id=run.id,
                             **inline_trace(run, piece, trace))
                yield _chunk(run, {}, FINISH.get(piece.stop_reason, "stop"))
                if include_usage:
                    yield sse_line({**_base(run, "chat.completion.chunk"), "choices": [], "usage": piece.usage})
            else:
                yield _chunk(run, {"content": piece})
        yield "data: [DONE]\n\n"
    except ApiError as exc:
        yield sse_line(exc.body())
    finally:
        run.close()
