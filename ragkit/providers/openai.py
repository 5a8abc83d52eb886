"""The OpenAI Chat Completions provider and its presets (``ollama``, ``vllm``, ``llamacpp``, ``gemini``).

Speaks the Chat Completions wire format, so with ``base_url`` it serves any OpenAI-compatible
endpoint. Only the wire hooks live here; keys, clients and errors are the vendor layer's
(:mod:`ragkit.vendors.openai`), retries and streaming are :class:`RemoteProvider`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.providers.base import Message, Response, ToolSpec, Usage
from ragkit.providers.remote import (
    RemoteProvider,
    StreamAccumulator,
    arguments_json,
    fit_to_signature,
    make_tool_call,
)
from ragkit.registry import providers
from ragkit.vendors.openai import GEMINI, LLAMACPP, OLLAMA, OPENAI, VLLM

_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls", "length": "length"}


def to_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """ragkit messages -> Chat Completions messages (system stays a system message)."""
    wire: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            wire.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            calls = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_json(c)}}
                for c in m.tool_calls
            ]
            wire.append({"role": "assistant", "content": m.content or None, "tool_calls": calls})
        else:
            wire.append({"role": m.role, "content": m.content})
    return wire


def to_wire_tools(tools: Sequence[ToolSpec] | None) -> list[dict[str, Any]] | None:
    if not tools:
        return None
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


def normalize_finish(reason: str | None, has_tool_calls: bool) -> str:
    if has_tool_calls:
        return "tool_calls"  # some compatible servers say "stop" even when they call tools
    return _FINISH.get(reason or "stop", reason or "stop")


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    return Usage(
        int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)
    )


def from_completion(completion: Any, model: str) -> Response:
    """A ChatCompletion -> Response."""
    if not completion.choices:
        return Response(content="", usage=_usage(completion.usage), model=completion.model or model)
    choice = completion.choices[0]
    message = choice.message
    calls = tuple(
        make_tool_call(c.id, c.function.name, c.function.arguments)
        for c in (message.tool_calls or [])
        if getattr(c, "function", None) is not None
    )
    return Response(
        content=message.content or "",
        tool_calls=calls,
        usage=_usage(completion.usage),
        model=completion.model or model,
        stop_reason=normalize_finish(choice.finish_reason, bool(calls)),
    )


class OpenAIStream(StreamAccumulator):
    """Accumulates ``chat.completion.chunk`` objects; tool-call deltas are joined by index."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage = Usage()

    def feed(self, chunk: Any) -> str:
        if getattr(chunk, "model", None):
            self.model = chunk.model
        if getattr(chunk, "usage", None) is not None:
            self.usage = _usage(chunk.usage)
        if not chunk.choices:
            return ""
        choice = chunk.choices[0]
        if choice.finish_reason:
            self.finish = choice.finish_reason
        delta = choice.delta
        for tc in getattr(delta, "tool_calls", None) or []:
            slot = self.calls.setdefault(tc.index, {"id": "", "name": "", "args": []})
            if tc.id:
                slot["id"] = tc.id
            if tc.function is not None:
                if tc.function.name:
                    slot["name"] += tc.function.name
                if tc.function.arguments:
                    slot["args"].append(tc.function.arguments)
        if delta.content:
            self.text.append(delta.content)
            return str(delta.content)
        return ""

    def result(self) -> Response:
        calls = tuple(
            make_tool_call(slot["id"] or f"call_{index}", slot["name"], "".join(slot["args"]))
            for index, slot in sorted(self.calls.items())
        )
        return Response(
            content="".join(self.text),
            tool_calls=calls,
            usage=self.usage,
            model=self.model,
            stop_reason=normalize_finish(self.finish, bool(calls)),
        )


@providers.register("openai")
class OpenAIProvider(RemoteProvider):
    """``OpenAIProvider(model="gpt-4o-mini")``; ``base_url`` for any OpenAI-compatible server."""

    name = "openai"
    vendor = OPENAI
    action = "chat completion"

    def build_request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, params: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": to_wire_messages(messages)}
        wire_tools = to_wire_tools(tools)
        if wire_tools:
            request["tools"] = wire_tools
        request.update(self.merged_params(params))
        return request

    def send(self, client: Any, request: dict[str, Any], *, stream: bool) -> Any:
        if stream:
            request = {**request, "stream": True, "stream_options": {"include_usage": True}}
        create = client.chat.completions.create
        return create(**fit_to_signature(create, request))

    def parse_response(self, raw: Any) -> Response:
        return from_completion(raw, self.model)

    def new_stream(self) -> OpenAIStream:
        return OpenAIStream(self.model)


class _Preset(OpenAIProvider):
    """A preset of the OpenAI-compatible provider: its own default URL, key variable and model."""


@providers.register("ollama")
class OllamaProvider(_Preset):
    """A local Ollama server (``ollama serve``; no API key needed)."""

    name = "ollama"
    vendor = OLLAMA


@providers.register("vllm")
class VLLMProvider(_Preset):
    """A vLLM server (``vllm serve MODEL``); pass the served model's name."""

    name = "vllm"
    vendor = VLLM


@providers.register("llamacpp")
class LlamaCppProvider(_Preset):
    """llama.cpp's ``llama-server`` (it answers with the model it was started with)."""

    name = "llamacpp"
    vendor = LLAMACPP


@providers.register("gemini")
class GeminiProvider(_Preset):
    """Google Gemini through its OpenAI-compatible endpoint."""

    name = "gemini"
    vendor = GEMINI


__all__ = [
    "GeminiProvider",
    "LlamaCppProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "OpenAIStream",
    "VLLMProvider",
    "from_completion",
    "to_wire_messages",
    "to_wire_tools",
]
