"""The Cohere Chat v2 provider, through the ``cohere`` SDK's ``ClientV2``.

System prompts are v2 ``system`` messages; tool calls are the assistant's ``tool_calls`` (its text
goes in ``tool_plan``) and tool results are ``role="tool"`` messages with ``tool_call_id``.
Streaming reads the v2 events (content-delta, tool-plan-delta, tool-call-start/delta,
message-end). Usage is the billed input/output tokens (the raw ``tokens`` when none are billed).
Keys, clients and errors: :mod:`ragkit.vendors.cohere`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.messages import Message, Response, ToolSpec, Usage
from ragkit.providers.remote import (
    RemoteProvider,
    StreamAccumulator,
    fit_to_signature,
    function_calls,
    function_tools,
    image_parts,
    make_tool_call,
)
from ragkit.registry import providers
from ragkit.vendors.cohere import COHERE

_FINISH = {"COMPLETE": "stop", "STOP_SEQUENCE": "stop", "TOOL_CALL": "tool_calls", "MAX_TOKENS": "length"}
_RENAMES = {"stop": "stop_sequences", "top_p": "p", "top_k": "k"}


def to_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            wire.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            message: dict[str, Any] = {"role": "assistant", "tool_calls": function_calls(m.tool_calls)}
            if m.content:
                message["tool_plan"] = m.content
            wire.append(message)
        else:
            wire.append({"role": m.role, "content": image_parts(m) if m.images else m.content})
    return wire


def to_wire_tools(tools: Sequence[ToolSpec] | None) -> list[dict[str, Any]] | None:
    return function_tools(tools) if tools else None


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    for source in (getattr(usage, "billed_units", None), getattr(usage, "tokens", None)):
        if source is not None and (source.input_tokens or source.output_tokens):
            return Usage(int(source.input_tokens or 0), int(source.output_tokens or 0))
    return Usage()


def _finish(reason: Any, has_calls: bool) -> str:
    if has_calls:
        return "tool_calls"
    text = str(reason or "COMPLETE")
    return _FINISH.get(text, text.lower())


def from_chat(resp: Any, model: str) -> Response:
    message = resp.message
    text = "".join(getattr(item, "text", "") or "" for item in (message.content or []) if item.type == "text")
    calls = tuple(
        make_tool_call(c.id, c.function.name or "", c.function.arguments)
        for c in (message.tool_calls or [])
        if c.function is not None
    )
    if not text and calls:
        text = message.tool_plan or ""
    return Response(
        content=text,
        tool_calls=calls,
        usage=_usage(resp.usage),
        model=model,
        stop_reason=_finish(resp.finish_reason, bool(calls)),
    )


class CohereStream(StreamAccumulator):
    """Accumulates Chat v2 stream events; tool-call argument deltas are joined by index."""

    def feed(self, event: Any) -> str:
        kind = getattr(event, "type", None)
        delta = getattr(event, "delta", None)
        message = getattr(delta, "message", None)
        if kind == "content-delta" and message is not None and message.content is not None:
            return self.piece(message.content.text)
        if kind == "tool-plan-delta" and message is not None:
            return self.piece(message.tool_plan)
        if kind in ("tool-call-start", "tool-call-delta") and message is not None and message.tool_calls is not None:
            call = message.tool_calls
            function = call.function
            start = kind == "tool-call-start"
            slot = self.slot(event.index or 0, (call.id or "") if start else "",
                             ((function.name if function else "") or "") if start else "")
            if function is not None and function.arguments:
                slot["args"].append(function.arguments)
        elif kind == "message-end" and delta is not None:
            self.stop = delta.finish_reason
            self.usage = _usage(delta.usage)
        return ""

    def stop_reason(self, has_calls: bool) -> str:
        return _finish(self.stop, has_calls)


@providers.register("cohere")
class CohereProvider(RemoteProvider):
    """``CohereProvider(model="command-r-plus-08-2024")``."""

    name = "cohere"
    parse = staticmethod(from_chat)
    stream_class = CohereStream
    vendor = COHERE
    action = "chat"
    native_response_format = True

    def wire_messages(self, messages: Sequence[Message]) -> dict[str, Any]:
        return {"messages": to_wire_messages(messages)}

    def wire_params(self, params: dict[str, Any]) -> dict[str, Any]:
        renamed = {_RENAMES.get(k, k): v for k, v in params.items() if k != "user"}  # Chat v2 has no end-user field
        if isinstance(renamed.get("stop_sequences"), str):
            renamed["stop_sequences"] = [renamed["stop_sequences"]]
        if renamed.get("tool_choice") == "required":
            renamed["tool_choice"] = "REQUIRED"
        fmt = renamed.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":  # v2: json_object with a json_schema
            renamed["response_format"] = {"type": "json_object", "json_schema": fmt["json_schema"].get("schema", {})}
        return renamed

    def send(self, client: Any, request: dict[str, Any], *, stream: bool) -> Any:
        method = client.chat_stream if stream else client.chat
        kwargs = fit_to_signature(method, request)
        extra = kwargs.pop("extra_body", None)
        if extra:  # the cohere SDK's way to send body fields it does not name
            kwargs["request_options"] = {"additional_body_parameters": extra}
        return method(**kwargs)



__all__ = ["CohereProvider", "CohereStream", "from_chat", "to_wire_messages", "to_wire_tools"]
