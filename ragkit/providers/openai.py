"""The OpenAI Chat Completions provider (and the ``ollama`` preset of it).

Speaks the Chat Completions wire format through the official ``openai`` SDK, so with
``base_url`` it serves OpenAI, Ollama, vLLM, llama.cpp's server and any OpenAI-compatible
endpoint. The SDK's own retries are disabled: :mod:`ragkit.retry` is the one mechanism.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from ragkit.providers.base import Message, Response, StreamEvent, ToolSpec, Usage
from ragkit.providers.remote import (
    RemoteProvider,
    StreamAccumulator,
    arguments_json,
    fit_to_signature,
    http_status_info,
    make_tool_call,
)
from ragkit.registry import providers
from ragkit.retry import ErrorInfo

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


def classify_openai_error(
    exc: BaseException, *, timeout: float | None = None, endpoint: str | None = None
) -> ErrorInfo | None:
    """Classify an ``openai`` SDK exception for :mod:`ragkit.retry` (also used by the openai embedder)."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        after = f" after {timeout:g}s" if timeout else ""
        return ErrorInfo(True, None, f"request timed out{after}")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return ErrorInfo(True, None, f"cannot connect to {endpoint or 'api.openai.com'}: {cause}")
    if isinstance(exc, openai.APIStatusError):
        return http_status_info(exc.status_code, exc.body, exc.message, exc.response.headers)
    if isinstance(exc, openai.APIError):  # e.g. an error event inside a stream
        return ErrorInfo(False, None, exc.message)
    return None


@providers.register("openai")
class OpenAIProvider(RemoteProvider[Any, Any]):
    """``OpenAIProvider(model="gpt-4o-mini")``; ``base_url`` for any OpenAI-compatible server."""

    name = "openai"
    default_model = "gpt-4o-mini"
    env_vars = ("OPENAI_API_KEY",)
    sdk_package = "openai"
    sdk_module = "openai"
    extra = "openai"

    def _make_client(self) -> Any:
        import openai

        return openai.OpenAI(**self._client_kwargs())

    def _make_async_client(self) -> Any:
        import openai

        return openai.AsyncOpenAI(**self._client_kwargs())

    def classify(self, exc: BaseException) -> ErrorInfo | None:
        return classify_openai_error(exc, timeout=self.timeout, endpoint=self.base_url)

    def _request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, params: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": to_wire_messages(messages)}
        wire_tools = to_wire_tools(tools)
        if wire_tools:
            request["tools"] = wire_tools
        request.update(self.merged_params(params))
        return request

    def _create(self, request: dict[str, Any]) -> Any:
        create = self.client.chat.completions.create
        return create(**fit_to_signature(create, request))

    def _acreate(self, request: dict[str, Any]) -> Any:
        create = self.aclient.chat.completions.create
        return create(**fit_to_signature(create, request))

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        request = self._request(messages, tools, params)
        completion = self._call(lambda: self._create(request), "chat completion")
        return from_completion(completion, self.model)

    async def acomplete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        request = self._request(messages, tools, params)
        completion = await self._acall(lambda: self._acreate(request), "chat completion")
        return from_completion(completion, self.model)

    def _stream_request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, params: dict[str, Any]
    ) -> dict[str, Any]:
        request = self._request(messages, tools, params)
        request.update(stream=True, stream_options={"include_usage": True})
        return request

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Iterator[StreamEvent]:
        request = self._stream_request(messages, tools, params)
        return self._drive_stream(lambda: self._create(request), OpenAIStream(self.model))

    def astream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> AsyncIterator[StreamEvent]:
        request = self._stream_request(messages, tools, params)
        return self._adrive_stream(lambda: self._acreate(request), OpenAIStream(self.model))


@providers.register("ollama")
class OllamaProvider(OpenAIProvider):
    """A preset of the OpenAI provider for a local Ollama server (no API key needed)."""

    name = "ollama"
    default_model = "llama3.2"
    env_vars = ("OLLAMA_API_KEY",)
    requires_key = False
    placeholder_key = "ollama"
    default_base_url = "http://localhost:11434/v1"

    def __init__(self, *, base_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(base_url=base_url or self.default_base_url, **kwargs)


__all__ = [
    "classify_openai_error",
    "OllamaProvider",
    "OpenAIProvider",
    "OpenAIStream",
    "from_completion",
    "to_wire_messages",
    "to_wire_tools",
]
