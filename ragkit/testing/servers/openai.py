"""A loopback server speaking the OpenAI Chat Completions and Embeddings wire format.

``POST /v1/chat/completions`` answers as JSON, or as an SSE stream of ``chat.completion.chunk``
objects ending in ``data: [DONE]`` when the request says ``"stream": true`` (with a final usage
chunk when ``stream_options.include_usage`` is set). ``POST /v1/embeddings`` returns hashed-word
vectors, as float lists or base64 float32 as ``encoding_format`` asks (the openai SDK asks for
base64 by default), with ``usage.prompt_tokens``.
"""

from __future__ import annotations

import base64
from typing import Any

from ragkit.testing.servers.base import (
    SSE,
    EmbeddingServer,
    HTTPAnswer,
    JSONReply,
    RecordedRequest,
    Reply,
    TextReply,
    ToolCallReply,
    call_id,
    chunk_text,
    count_tokens,
    function_calls,
    hashed_vector,
    messages_tokens,
    reply_tokens,
    word_chunks,
)

CHAT_PATH = "/v1/chat/completions"
EMBED_PATH = "/v1/embeddings"


class FakeOpenAIServer(EmbeddingServer):
    """``url`` ends in ``/v1``, as ``OpenAI(base_url=...)`` expects."""

    chat_path = CHAT_PATH
    embeddings_path = EMBED_PATH
    url_prefix = "/v1"

    def error_body(self, status: int, message: str) -> Any:
        kind = (
            "rate_limit_exceeded"
            if status == 429
            else "server_error"
            if status >= 500
            else "invalid_request_error"
        )
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}

    def route(self, request: RecordedRequest, reply: Reply | None) -> HTTPAnswer:
        if request.path == CHAT_PATH:
            return self._chat(request.body or {}, reply)
        if request.path == EMBED_PATH:
            return self._embeddings(request.body or {})
        return JSONReply(self.error_body(404, f"unknown path {request.path}"), 404)

    # ------------------------------------------------------------ chat
    def _chat(self, body: dict[str, Any], reply: Reply | None) -> HTTPAnswer:
        reply, number = self.chat_turn(body, reply)
        cid = f"chatcmpl-{number}"
        model = str(body.get("model", "fake-model"))
        prompt = messages_tokens(body.get("messages", []))
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return SSE(_stream_events(cid, model, reply, prompt, include_usage))
        message, finish, completion = _message(reply, number)
        return JSONReply(
            {
                "id": cid,
                "object": "chat.completion",
                "created": 1700000000,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": _usage(prompt, completion),
            }
        )

    # ------------------------------------------------------------ embeddings
    def _embeddings(self, body: dict[str, Any]) -> HTTPAnswer:
        texts = _inputs(body.get("input"))
        dimension = int(body.get("dimensions") or self.dimension)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = hashed_vector(text, dimension)
            embedding: Any = base64.b64encode(vector.tobytes()).decode() if as_base64 else vector.tolist()
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = sum(count_tokens(t) for t in texts)
        return JSONReply(
            {
                "object": "list",
                "data": data,
                "model": str(body.get("model", "fake-embedding")),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _message(reply: TextReply | ToolCallReply, n: int) -> tuple[dict[str, Any], str, int]:
    if isinstance(reply, TextReply):
        return {"role": "assistant", "content": reply.text}, reply.finish, reply_tokens(reply)
    message = {"role": "assistant", "content": reply.text or None, "tool_calls": function_calls(reply, n)}
    return message, "tool_calls", reply_tokens(reply)


def _stream_events(
    cid: str, model: str, reply: TextReply | ToolCallReply, prompt: int, include_usage: bool
) -> list[tuple[str | None, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return None, {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [choice],
        }

    n = int(cid.rsplit("-", 1)[1])
    events = [chunk({"role": "assistant", "content": ""})]
    for piece in word_chunks(reply.text) if reply.text else []:
        events.append(chunk({"content": piece}))
    _, finish, completion = _message(reply, n)
    if isinstance(reply, ToolCallReply):
        for i, call in enumerate(reply.calls):
            start = {
                "index": i,
                "id": call_id(call, n, i),
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            events.append(chunk({"tool_calls": [start]}))
            for piece in chunk_text(call.arguments_json()):
                events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    events.append(chunk({}, finish))
    if include_usage:
        events.append(
            (
                None,
                {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": 1700000000,
                    "model": model,
                    "choices": [],
                    "usage": _usage(prompt, completion),
                },
            )
        )
    events.append((None, "[DONE]"))
    return events


def _inputs(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        if value and all(isinstance(v, int) for v in value):
            return [" ".join(f"t{v}" for v in value)]
        return [v if isinstance(v, str) else " ".join(f"t{t}" for t in v) for v in value]
    return []


__all__ = ["CHAT_PATH", "EMBED_PATH", "FakeOpenAIServer"]
