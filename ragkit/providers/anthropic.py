"""The Anthropic Messages API provider, through the ``anthropic`` SDK.

System prompts go to the top-level ``system`` field; tool calls are ``tool_use`` content blocks
and tool results are ``tool_result`` blocks inside a user message (consecutive results, and any
user text that directly follows them, are merged into one user message, as the API requires
alternating roles). Streaming uses the raw event stream (not the SDK's helper, which would raise
on malformed tool JSON): ``input_json_delta`` fragments are joined per content block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ragkit.messages import Image, Message, Response, ToolSpec, Usage
from ragkit.providers.params import stop_sequences
from ragkit.providers.remote import (
    RemoteProvider,
    StreamAccumulator,
    fit_to_signature,
    make_tool_call,
)
from ragkit.registry import providers
from ragkit.vendors.anthropic import ANTHROPIC

DEFAULT_MAX_TOKENS = 1024
_STOP = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if content else []


def _append(wire: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Append a message, merging it into the previous one when the role repeats."""
    if wire and wire[-1]["role"] == role:
        wire[-1]["content"] = _blocks(wire[-1]["content"]) + blocks
    else:
        wire.append({"role": role, "content": blocks})


def image_block(image: Image) -> dict[str, Any]:
    """An image as a Messages API ``image`` block (base64 bytes, or a URL the API fetches)."""
    if image.url is not None:
        return {"type": "image", "source": {"type": "url", "url": image.url}}
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.base64}}


def to_wire(messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """ragkit messages -> (system prompt, Messages API messages)."""
    system = [m.content for m in messages if m.role == "system" and m.content]
    wire: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.tool_call_id or "", "content": m.content}
            _append(wire, "user", [block])
        elif m.role == "assistant":
            blocks = _blocks(m.content) + [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in m.tool_calls
            ]
            _append(wire, "assistant", blocks or [{"type": "text", "text": ""}])
        else:
            _append(wire, "user", [*map(image_block, m.images), *_blocks(m.content)] or [{"type": "text", "text": ""}])
    for message in wire:  # plain single-text messages stay plain strings
        content = message["content"]
        if len(content) == 1 and content[0]["type"] == "text":
            message["content"] = content[0]["text"]
    return ("\n\n".join(system) if system else None), wire


def to_wire_tools(tools: Sequence[ToolSpec] | None) -> list[dict[str, Any]] | None:
    if not tools:
        return None
    return [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools]


def _input_tokens(usage: Any) -> int:
    total = 0
    for attr in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        total += int(getattr(usage, attr, 0) or 0)
    return total


def _cache_reads(usage: Any) -> int:
    """Input tokens read from the prompt cache (cache writes are billed as input here: the registry
    has no cache-write price)."""
    return int(getattr(usage, "cache_read_input_tokens", 0) or 0)


def from_message(message: Any, model: str) -> Response:
    text = "".join(b.text for b in message.content if b.type == "text")
    calls = tuple(make_tool_call(b.id, b.name, b.input) for b in message.content if b.type == "tool_use")
    usage = Usage(_input_tokens(message.usage), int(message.usage.output_tokens or 0), _cache_reads(message.usage))
    stop = "tool_calls" if calls else _STOP.get(message.stop_reason or "end_turn", message.stop_reason)
    return Response(
        content=text, tool_calls=calls, usage=usage, model=message.model or model, stop_reason=stop,
        reasoning="".join(getattr(b, "thinking", "") or "" for b in message.content if b.type == "thinking")
    )


class AnthropicStream(StreamAccumulator):
    """Accumulates raw Messages stream events."""

    def feed(self, event: Any) -> str:
        kind = event.type
        if kind == "message_start":
            self.model = event.message.model or self.model
            usage = event.message.usage
            self.usage = Usage(_input_tokens(usage), int(usage.output_tokens or 0), _cache_reads(usage))
        elif kind == "content_block_start" and event.content_block.type == "tool_use":
            self.slot(event.index, event.content_block.id, event.content_block.name)
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                return self.piece(delta.text)
            if delta.type == "input_json_delta" and event.index in self.calls:
                self.calls[event.index]["args"].append(delta.partial_json)
        elif kind == "message_delta":
            self.stop = event.delta.stop_reason or self.stop
            if event.usage is not None:
                tokens_in = _input_tokens(event.usage) if getattr(event.usage, "input_tokens", None) else None
                self.usage = Usage(self.usage.input_tokens if tokens_in is None else tokens_in,
                                   int(event.usage.output_tokens or 0),
                                   self.usage.cached_input_tokens if tokens_in is None else _cache_reads(event.usage))
        return ""

    def stop_reason(self, has_calls: bool) -> str:
        return "tool_calls" if has_calls else _STOP.get(self.stop or "end_turn", self.stop or "stop")


@providers.register("anthropic")
class AnthropicProvider(RemoteProvider):
    """``AnthropicProvider(model="claude-3-5-haiku-latest")``; ``max_tokens`` defaults to 1024."""

    name = "anthropic"
    parse = staticmethod(from_message)
    stream_class = AnthropicStream
    vendor = ANTHROPIC
    action = "message"
    unsupported_params: ClassVar[dict[str, str]] = {
        name: f"the Messages API has no '{name}'; leave it out" for name in
        ("seed", "presence_penalty", "frequency_penalty")}

    def wire_messages(self, messages: Sequence[Message]) -> dict[str, Any]:
        system, wire = to_wire(messages)
        return {"messages": wire, **({"system": system} if system else {})}

    def wire_tools(self, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        return to_wire_tools(tools) or []

    def wire_params(self, params: dict[str, Any]) -> dict[str, Any]:
        wire = {"max_tokens": DEFAULT_MAX_TOKENS, **params}
        if "stop" in wire:
            wire["stop_sequences"] = stop_sequences(wire.pop("stop"))
        if "user" in wire:
            wire["metadata"] = {**(wire.get("metadata") or {}), "user_id": wire.pop("user")}
        if wire.get("tool_choice") == "required":
            wire["tool_choice"] = {"type": "any"}
        return wire

    def send(self, client: Any, request: dict[str, Any], *, stream: bool) -> Any:
        create = client.messages.create
        return create(**fit_to_signature(create, {**request, "stream": True} if stream else request))



__all__ = ["AnthropicProvider", "AnthropicStream", "from_message", "image_block", "to_wire", "to_wire_tools"]
