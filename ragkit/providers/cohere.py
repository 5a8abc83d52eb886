"""The Cohere Chat v2 provider, through the ``cohere`` SDK's ``ClientV2``.

System prompts are v2 ``system`` messages; tool calls are the assistant's ``tool_calls`` (its text
goes in ``tool_plan``) and tool results are ``role="tool"`` messages with ``tool_call_id``.
Streaming reads the v2 events (content-delta, tool-plan-delta, tool-call-start/delta,
message-end). Usage is the billed input/output tokens (the raw ``tokens`` when none are billed).
The key comes from ``CO_API_KEY`` (the SDK's own variable) or ``COHERE_API_KEY``.
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

_FINISH = {"COMPLETE": "stop", "STOP_SEQUENCE": "stop", "TOOL_CALL": "tool_calls", "MAX_TOKENS": "length"}
_RENAMES = {"stop": "stop_sequences", "top_p": "p", "top_k": "k"}


def to_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            wire.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            calls = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_json(c)}}
                for c in m.tool_calls
            ]
            message: dict[str, Any] = {"role": "assistant", "tool_calls": calls}
            if m.content:
                message["tool_plan"] = m.content
            wire.append(message)
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

    def __init__(self, model: str) -> None:
        self.model = model
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: Any = None
        self.usage = Usage()

    def feed(self, event: Any) -> str:
        kind = getattr(event, "type", None)
        delta = getattr(event, "delta", None)
        message = getattr(delta, "message", None)
        if kind == "content-delta" and message is not None and message.content is not None:
            piece = message.content.text or ""
            self.text.append(piece)
            return piece
        if kind == "tool-plan-delta" and message is not None:
            piece = message.tool_plan or ""
            self.text.append(piece)
            return piece
        if kind == "tool-call-start" and message is not None and message.tool_calls is not None:
            call = message.tool_calls
            function = call.function
            self.calls[event.index or 0] = {
                "id": call.id,
                "name": (function.name if function else "") or "",
                "args": [(function.arguments if function else "") or ""],
            }
        elif kind == "tool-call-delta" and message is not None and message.tool_calls is not None:
            function = message.tool_calls.function
            if function is not None and function.arguments:
                self.calls.setdefault(event.index or 0, {"id": "", "name": "", "args": []})["args"].append(
                    function.arguments
                )
        elif kind == "message-end" and delta is not None:
            self.finish = delta.finish_reason
            self.usage = _usage(delta.usage)
        return ""

    def result(self) -> Response:
        calls = tuple(
            make_tool_call(c["id"] or f"call_{i}", c["name"], "".join(c["args"]))
            for i, c in sorted(self.calls.items())
        )
        return Response(
            content="".join(self.text),
            tool_calls=calls,
            usage=self.usage,
            model=self.model,
            stop_reason=_finish(self.finish, bool(calls)),
        )


def classify_cohere_error(
    exc: BaseException, *, timeout: float | None = None, endpoint: str | None = None
) -> ErrorInfo | None:
    """Classify a ``cohere`` SDK exception for :mod:`ragkit.retry` (also used by the cohere embedder)."""
    import httpx
    from cohere.core.api_error import ApiError

    if isinstance(exc, ApiError) and exc.status_code is not None:
        return http_status_info(exc.status_code, exc.body, str(exc.body), exc.headers)
    if isinstance(exc, httpx.TimeoutException):
        after = f" after {timeout:g}s" if timeout else ""
        return ErrorInfo(True, None, f"request timed out{after}")
    if isinstance(exc, httpx.TransportError):
        return ErrorInfo(True, None, f"cannot connect to {endpoint or 'api.cohere.com'}: {exc}")
    return None


@providers.register("cohere")
class CohereProvider(RemoteProvider[Any, Any]):
    """``CohereProvider(model="command-r-plus-08-2024")``."""

    name = "cohere"
    default_model = "command-r-plus-08-2024"
    env_vars = ("CO_API_KEY", "COHERE_API_KEY")
    sdk_package = "cohere"
    sdk_module = "cohere"
    extra = "cohere"

    def _make_client(self) -> Any:
        import cohere

        return cohere.ClientV2(**self._client_kwargs())

    def _make_async_client(self) -> Any:
        import cohere

        return cohere.AsyncClientV2(**self._client_kwargs())

    def classify(self, exc: BaseException) -> ErrorInfo | None:
        return classify_cohere_error(exc, timeout=self.timeout, endpoint=self.base_url)

    def _request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, params: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": to_wire_messages(messages)}
        wire_tools = to_wire_tools(tools)
        if wire_tools:
            request["tools"] = wire_tools
        for key, value in self.merged_params(params).items():
            if key == "stop" and isinstance(value, str):
                value = [value]
            request[_RENAMES.get(key, key)] = value
        return request

    @staticmethod
    def _fit(method: Any, request: dict[str, Any]) -> dict[str, Any]:
        kwargs = fit_to_signature(method, request)
        extra = kwargs.pop("extra_body", None)
        if extra:  # the cohere SDK's way to send body fields it does not name
            kwargs["request_options"] = {"additional_body_parameters": extra}
        return kwargs

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        request = self._request(messages, tools, params)
        resp = self._call(lambda: self.client.chat(**self._fit(self.client.chat, request)), "chat")
        return from_chat(resp, self.model)

    async def acomplete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        request = self._request(messages, tools, params)
        resp = await self._acall(lambda: self.aclient.chat(**self._fit(self.aclient.chat, request)), "chat")
        return from_chat(resp, self.model)

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Iterator[StreamEvent]:
        request = self._request(messages, tools, params)

        def opener() -> Any:
            return self.client.chat_stream(**self._fit(self.client.chat_stream, request))

        return self._drive_stream(opener, CohereStream(self.model))

    def astream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> AsyncIterator[StreamEvent]:
        request = self._request(messages, tools, params)

        async def opener() -> Any:
            return self.aclient.chat_stream(**self._fit(self.aclient.chat_stream, request))

        return self._adrive_stream(opener, CohereStream(self.model))


__all__ = [
    "classify_cohere_error",
    "CohereProvider",
    "CohereStream",
    "from_chat",
    "to_wire_messages",
    "to_wire_tools",
]
