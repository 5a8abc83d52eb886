"""The OpenAI Chat Completions provider and its presets (``ollama``, ``vllm``, ``llamacpp``, ``gemini``...:
one class per :class:`ragkit.provider_names.Preset`).

Speaks the Chat Completions wire format, so with ``base_url`` it serves any OpenAI-compatible
endpoint. Only the wire hooks live here; keys, clients and errors are the vendor layer's
(:mod:`ragkit.vendors.openai`), retries and streaming are :class:`RemoteProvider`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.messages import Message, Response, ToolSpec, Usage
from ragkit.provider_names import Preset, presets
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
from ragkit.vendors.openai import OPENAI, PRESETS

_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls", "length": "length"}


def to_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """ragkit messages -> Chat Completions messages (system stays a system message)."""
    wire: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            wire.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            wire.append({"role": "assistant", "content": m.content or None, "tool_calls": function_calls(m.tool_calls)})
        else:
            wire.append({"role": m.role, "content": image_parts(m) if m.images else m.content})
    return wire


def to_wire_tools(tools: Sequence[ToolSpec] | None) -> list[dict[str, Any]] | None:
    return function_tools(tools) if tools else None


def normalize_finish(reason: str | None, has_tool_calls: bool) -> str:
    if has_tool_calls:
        return "tool_calls"  # some compatible servers say "stop" even when they call tools
    return _FINISH.get(reason or "stop", reason or "stop")


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)  # prompt-cache hits, part of prompt_tokens
    return Usage(
        int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0),
        int(getattr(details, "cached_tokens", 0) or 0),
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
        reasoning=str(getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None) or ""),
    )


class OpenAIStream(StreamAccumulator):
    """Accumulates ``chat.completion.chunk`` objects; tool-call deltas are joined by index."""

    def feed(self, chunk: Any) -> str:
        if getattr(chunk, "model", None):
            self.model = chunk.model
        if getattr(chunk, "usage", None) is not None:
            self.usage = _usage(chunk.usage)
        if not chunk.choices:
            return ""
        choice = chunk.choices[0]
        self.stop = choice.finish_reason or self.stop
        delta = choice.delta
        for tc in getattr(delta, "tool_calls", None) or []:
            function = tc.function
            slot = self.slot(tc.index, tc.id or "", (function.name if function else "") or "")
            if function is not None and function.arguments:
                slot["args"].append(function.arguments)
        return self.piece(delta.content) if delta.content else ""

    def stop_reason(self, has_calls: bool) -> str:
        return normalize_finish(self.stop, has_calls)


@providers.register("openai")
class OpenAIProvider(RemoteProvider):
    """``OpenAIProvider(model="gpt-4o-mini")``; ``base_url`` for any OpenAI-compatible server."""

    name = "openai"
    parse = staticmethod(from_completion)
    stream_class = OpenAIStream
    vendor = OPENAI
    action = "chat completion"
    native_response_format = True  # response_format and tool_choice go to the API as they are

    def wire_messages(self, messages: Sequence[Message]) -> dict[str, Any]:
        return {"messages": to_wire_messages(messages)}

    def send(self, client: Any, request: dict[str, Any], *, stream: bool) -> Any:
        if stream:
            request = {**request, "stream": True, "stream_options": {"include_usage": True}}
        create = client.chat.completions.create
        return create(**fit_to_signature(create, request))



def _preset(preset: Preset) -> type[OpenAIProvider]:
    """The provider class of a preset: the OpenAI provider with its vendor's default URL, key variable
    and model, registered under the preset's name."""
    attrs = {"name": preset.name, "vendor": PRESETS[preset.name], "__doc__": preset.doc, "__module__": __name__,
             "__qualname__": preset.class_name}
    return providers.register(preset.name)(type(preset.class_name, (OpenAIProvider,), attrs))


#: every preset's provider class, by registry name (one per :func:`ragkit.provider_names.presets` entry)
PRESET_PROVIDERS: dict[str, type[OpenAIProvider]] = {
    p.name: OpenAIProvider if p.name == "openai" else _preset(p) for p in presets()
}
OllamaProvider = PRESET_PROVIDERS["ollama"]
VLLMProvider = PRESET_PROVIDERS["vllm"]
LlamaCppProvider = PRESET_PROVIDERS["llamacpp"]
GeminiProvider = PRESET_PROVIDERS["gemini"]
GroqProvider = PRESET_PROVIDERS["groq"]
MistralProvider = PRESET_PROVIDERS["mistral"]
DeepSeekProvider = PRESET_PROVIDERS["deepseek"]
OpenRouterProvider = PRESET_PROVIDERS["openrouter"]
TogetherProvider = PRESET_PROVIDERS["together"]
XAIProvider = PRESET_PROVIDERS["xai"]


__all__ = [
    "DeepSeekProvider",
    "GeminiProvider",
    "GroqProvider",
    "LlamaCppProvider",
    "MistralProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "OpenAIStream",
    "OpenRouterProvider",
    "PRESET_PROVIDERS",
    "TogetherProvider",
    "VLLMProvider",
    "XAIProvider",
    "from_completion",
    "to_wire_messages",
    "to_wire_tools",
]
