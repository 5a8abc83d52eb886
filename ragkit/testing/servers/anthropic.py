"""A loopback server speaking the Anthropic Messages wire format.

``POST /v1/messages`` answers as a JSON ``message`` or, for ``"stream": true``, as the SSE event
sequence message_start, content_block_start/delta/stop (``text_delta`` and ``input_json_delta``),
message_delta (stop_reason and output usage) and message_stop. A scripted tool call whose
arguments are a string is streamed verbatim, so malformed JSON reaches the client as it would
from a misbehaving model; non-streamed, it is sent as the (non-object) ``input`` value.
"""

from __future__ import annotations

from typing import Any

from ragkit.testing.servers.base import (
    SSE,
    FakeServer,
    HTTPAnswer,
    JSONReply,
    RecordedRequest,
    Reply,
    TextReply,
    ToolCallReply,
    chunk_text,
    content_text,
    messages_tokens,
    reply_tokens,
    typed_event,
    word_chunks,
)

MESSAGES_PATH = "/v1/messages"

_STOP = {"stop": "end_turn", "length": "max_tokens"}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class FakeAnthropicServer(FakeServer):
    """``url`` is the bare host:port, as ``Anthropic(base_url=...)`` expects."""

    chat_path = MESSAGES_PATH

    def error_body(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def route(self, request: RecordedRequest, reply: Reply | None) -> HTTPAnswer:
        if request.path != MESSAGES_PATH:
            return JSONReply(self.error_body(404, f"unknown path {request.path}"), 404)
        body = request.body or {}
        reply, number = self.chat_turn(body, reply)
        mid = f"msg_{number}"
        model = str(body.get("model", "fake-claude"))
        prompt = messages_tokens(body.get("messages", []), content_text(body.get("system")))
        blocks, stop, output = _blocks(reply, number)
        if body.get("stream"):
            return SSE(_stream(mid, model, reply, blocks, stop, prompt, output))
        return JSONReply(
            {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": prompt, "output_tokens": output},
            }
        )


def _blocks(reply: TextReply | ToolCallReply, n: int) -> tuple[list[dict[str, Any]], str, int]:
    if isinstance(reply, TextReply):
        return (
            [{"type": "text", "text": reply.text}],
            _STOP.get(reply.finish, "end_turn"),
            reply_tokens(reply),
        )
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    for i, call in enumerate(reply.calls):
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id or f"toolu_{n}_{i}",
                "name": call.name,
                "input": call.arguments,
            }
        )
    return blocks, "tool_use", reply_tokens(reply)


def _stream(
    mid: str,
    model: str,
    reply: TextReply | ToolCallReply,
    blocks: list[dict[str, Any]],
    stop: str,
    prompt: int,
    output: int,
) -> list[tuple[str | None, Any]]:
    start = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": 1},
    }
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    calls = iter(reply.calls) if isinstance(reply, ToolCallReply) else iter(())
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(typed_event("content_block_start", index=index, content_block={"type": "text", "text": ""}))
            for piece in word_chunks(block["text"]):
                events.append(
                    typed_event("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
                )
        else:
            call = next(calls)
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            events.append(typed_event("content_block_start", index=index, content_block=head))
            for piece in chunk_text(call.arguments_json()):
                delta = {"type": "input_json_delta", "partial_json": piece}
                events.append(typed_event("content_block_delta", index=index, delta=delta))
        events.append(typed_event("content_block_stop", index=index))
    events.append(
        typed_event(
            "message_delta",
            delta={"stop_reason": stop, "stop_sequence": None},
            usage={"output_tokens": output},
        )
    )
    events.append(typed_event("message_stop"))
    return events


__all__ = ["MESSAGES_PATH", "FakeAnthropicServer"]
