"""``RemoteProvider``: complete/stream/acomplete/astream written once over vendor hooks.

A vendor module (``openai.py``, ``anthropic.py``, ``cohere.py``) supplies only the hooks: its
:class:`~ragkit.vendors.Vendor` (keys, clients, error classifier), ``build_request`` (ragkit
messages -> the API's request), ``send`` (one SDK call; for the async client it returns an
awaitable or an async iterable), ``parse`` and ``stream_class`` (a
:class:`StreamAccumulator` that parses stream events). This base checks settings at construction,
merges default and per-call parameters, runs every request through :mod:`ragkit.retry`, and
drives streams: open with retries up to the first event, then relay text deltas and finish with
one ``done`` event. The async path uses the SDK's async client (no thread per request).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, TypeVar

from ragkit.errors import ProviderError
from ragkit.messages import Message, Response, StreamEvent, ToolCall, ToolSpec, Usage, count_images
from ragkit.providers.base import BaseProvider
from ragkit.providers.vision import require_vision
from ragkit.retry import ErrorInfo, RetryPolicy, acall_with_retry, call_with_retry, translate_error
from ragkit.vendors.base import Vendor, server_message

log = logging.getLogger(__name__)
T = TypeVar("T")
_END = object()


def parse_tool_arguments(raw: Any) -> tuple[dict[str, Any], str | None, str | None]:
    """Return ``(arguments, raw_arguments, parse_error)``; malformed JSON never raises."""
    if isinstance(raw, dict):
        return dict(raw), None, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, raw, None
    if not isinstance(raw, str):
        return {}, repr(raw), f"tool arguments must be a JSON object, got {type(raw).__name__}"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, raw, f"invalid JSON in tool arguments: {exc.msg} at position {exc.pos}"
    if not isinstance(value, dict):
        return {}, raw, f"tool arguments must be a JSON object, got {type(value).__name__}"
    return value, raw, None


def make_tool_call(call_id: str, name: str, raw: Any) -> ToolCall:
    arguments, raw_arguments, error = parse_tool_arguments(raw)
    if error:
        log.warning("tool call %s (%s): %s; raw arguments: %r", call_id, name, error, raw_arguments)
    return ToolCall(
        id=call_id, name=name, arguments=arguments, raw_arguments=raw_arguments, parse_error=error
    )


def arguments_json(call: ToolCall) -> str:
    """The arguments to send back to an API: the model's own raw text when it was malformed."""
    if call.parse_error and call.raw_arguments is not None:
        return call.raw_arguments
    return json.dumps(call.arguments)


def fit_to_signature(method: Callable[..., Any], request: dict[str, Any]) -> dict[str, Any]:
    """Keep the keyword arguments ``method`` accepts; send the rest in ``extra_body``.

    SDK versions differ in which sampling parameters they name (e.g. the anthropic SDK 2.x has
    no ``temperature`` argument); the API still accepts them in the JSON body.
    """
    try:
        accepted = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return request
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        return request
    kwargs = {k: v for k, v in request.items() if k in accepted}
    extra = {k: v for k, v in request.items() if k not in accepted}
    if extra:
        kwargs["extra_body"] = {**(kwargs.get("extra_body") or {}), **extra}
    return kwargs


def function_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tools in the ``{"type": "function", "function": {...}}`` shape (OpenAI and Cohere v2)."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in tools]


def function_calls(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    """An assistant's tool calls in the same shape, arguments as the JSON text the model sent."""
    return [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_json(c)}}
            for c in calls]


def image_parts(message: Message) -> list[dict[str, Any]]:
    """A message with images as content parts of the ``image_url`` shape (OpenAI, its compatible
    endpoints such as Gemini's, and Cohere v2): its text, then one part per image (an ``http(s)``
    URL, or the bytes as a ``data:`` URL)."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
    for image in message.images:
        url: dict[str, Any] = {"url": image.as_url(), **({"detail": image.detail} if image.detail else {})}
        parts.append({"type": "image_url", "image_url": url})
    return parts


class StreamAccumulator:
    """Parses one vendor's stream events into a Response: ``feed`` each event (it returns the text
    delta, or ""), then ``result``. This base keeps the text, the tool calls (argument fragments
    joined per index), the usage and the vendor's stop reason; ``stop_reason`` maps the latter."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.stop: Any = None
        self.usage = Usage()

    def feed(self, event: Any) -> str:
        raise NotImplementedError

    def stop_reason(self, has_calls: bool) -> str:
        raise NotImplementedError

    def piece(self, text: str | None) -> str:
        """Record a text delta and return it."""
        self.text.append(text or "")
        return text or ""

    def slot(self, index: int, call_id: str = "", name: str = "") -> dict[str, Any]:
        """The tool call at ``index`` (created on first sight): ``id``, ``name`` and ``args`` fragments."""
        slot = self.calls.setdefault(index, {"id": "", "name": "", "args": []})
        slot["id"] = call_id or slot["id"]
        slot["name"] += name
        return slot

    def result(self) -> Response:
        calls = tuple(make_tool_call(slot["id"] or f"call_{index}", slot["name"], "".join(slot["args"]))
                      for index, slot in sorted(self.calls.items()))
        return Response(content="".join(self.text), tool_calls=calls, usage=self.usage, model=self.model,
                        stop_reason=self.stop_reason(bool(calls)))


class RemoteProvider(BaseProvider):
    """Base of the SDK-backed providers. Subclasses set ``vendor`` and implement the four hooks."""

    name = "remote"
    vendor: ClassVar[Vendor]
    action = "request"  # what one call is called in errors ("chat completion", "message", ...)
    parse: ClassVar[Callable[[Any, str], Response]]  # (the SDK's response, model) -> Response
    stream_class: ClassVar[type[StreamAccumulator]]  # parses the SDK's stream events

    def __init__(
        self,
        *,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        temperature: float | None = None,
        max_tokens: int | None = None,
        retry: RetryPolicy | None = None,
        native_tools: bool = True,
        **params: Any,
    ) -> None:
        """``native_tools=False``: for a model without tool calling, describe the tools in the system
        prompt and read ``TOOL_CALL`` JSON from its text (:mod:`ragkit.providers.text_tools`)."""
        self.native_tools = bool(native_tools)
        self.vendor.require_sdk(f"the '{self.name}' provider")
        self.model = model or self.vendor.default_model
        if not self.model:
            raise ProviderError(
                f"the '{self.name}' provider needs a model name; pass --model NAME (model='NAME' in Python)"
            )
        if timeout <= 0:
            raise ProviderError(f"timeout must be > 0 seconds (got {timeout})")
        if temperature is not None and not 0 <= temperature <= 2:
            raise ProviderError(f"temperature must be between 0 and 2 (got {temperature})")
        if max_tokens is not None and max_tokens < 1:
            raise ProviderError(f"max_tokens must be at least 1 (got {max_tokens})")
        self.api_key = self.vendor.api_key(api_key, what=f"the '{self.name}' provider", error_cls=ProviderError)
        self.base_url = base_url or self.vendor.base_url
        self.timeout = float(timeout)
        # ``retry`` (e.g. with an injected sleep) wins; otherwise max_retries sets the attempts
        self.retry_policy = retry if retry is not None else RetryPolicy.from_max_retries(max_retries)
        self.default_params: dict[str, Any] = {
            k: v
            for k, v in {"temperature": temperature, "max_tokens": max_tokens, **params}.items()
            if v is not None
        }
        self._client: Any = None
        self._aclients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}(model={self.model!r}{where})"

    # ------------------------------------------------------------ vendor hooks
    def wire_messages(self, messages: Sequence[Message]) -> dict[str, Any]:
        """The request fields that carry the conversation (``messages``, maybe ``system``)."""
        raise NotImplementedError

    def wire_tools(self, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        return function_tools(tools)

    def wire_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Sampling parameters under the API's names (default: as given)."""
        return params

    def send(self, client: Any, request: dict[str, Any], *, stream: bool) -> Any:
        """One SDK call with ``client`` (sync or async); ``stream`` asks for the event stream."""
        raise NotImplementedError

    def parse_response(self, raw: Any) -> Response:
        return type(self).parse(raw, self.model)

    def new_stream(self) -> StreamAccumulator:
        return self.stream_class(self.model)

    def finish(self, response: Response, messages: Sequence[Message], tools: Sequence[ToolSpec] | None) -> Response:
        """The response as the agent gets it: its usage counting the request's images; with
        ``native_tools=False``, its TOOL_CALL text parsed."""
        if images := count_images(messages):
            response = dataclasses.replace(response, usage=dataclasses.replace(response.usage, images=images))
        if self.native_tools or not tools:
            return response
        from ragkit.providers.text_tools import with_text_tool_calls

        return with_text_tool_calls(response, tools, messages)

    # ------------------------------------------------------------ configuration
    def merged_params(self, params: dict[str, Any]) -> dict[str, Any]:
        return {**self.default_params, **{k: v for k, v in params.items() if v is not None}}

    def build_request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, params: dict[str, Any]
    ) -> dict[str, Any]:
        require_vision(self, messages)  # images to a model that cannot see them: refused before the call
        if tools and not self.native_tools:
            from ragkit.providers.text_tools import text_tool_messages

            messages, tools = text_tool_messages(messages, tools), None
        request: dict[str, Any] = {"model": self.model, **self.wire_messages(messages)}
        if tools:
            request["tools"] = self.wire_tools(tools)
        request.update(self.wire_params(self.merged_params(params)))
        return request

    def classify(self, exc: BaseException) -> ErrorInfo | None:
        return self.vendor.classify(exc, timeout=self.timeout, endpoint=self.base_url)

    # ------------------------------------------------------------ clients (lazy; async per event loop)
    def _new_client(self, asynchronous: bool) -> Any:
        return self.vendor.client(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                  asynchronous=asynchronous)

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._new_client(False)
        return self._client

    @property
    def aclient(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._aclients.get(loop)
        if client is None:
            client = self._aclients[loop] = self._new_client(True)
        return client

    def close(self) -> None:
        """Close the synchronous SDK client's connections (a new one is made on next use)."""
        client, self._client = self._client, None
        closer = getattr(client, "close", None)
        if callable(closer):
            closer()
        self._aclients.clear()

    # ------------------------------------------------------------ the four calls
    def _what(self, action: str) -> str:
        return f"{self.name} {action} (model {self.model!r})"

    def _retry(self, action: str) -> dict[str, Any]:
        return {"classify": self.classify, "policy": self.retry_policy, "what": self._what(action)}

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Response:
        request = self.build_request(messages, tools, params)
        return self.finish(self.parse_response(call_with_retry(lambda: self.send(self.client, request, stream=False),
                                                               **self._retry(self.action))), messages, tools)

    async def acomplete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Response:
        request = self.build_request(messages, tools, params)
        return self.finish(self.parse_response(await acall_with_retry(
            lambda: _awaited(self.send(self.aclient, request, stream=False)), **self._retry(self.action))), messages, tools)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Iterator[StreamEvent]:
        """Opens with retries up to the first event; an error mid-stream is not retried."""
        request, acc = self.build_request(messages, tools, params), self.new_stream()
        first, rest = call_with_retry(lambda: _peek(self.send(self.client, request, stream=True)), **self._retry("stream"))
        with self._mid_stream():
            for event in _chain(first, rest):
                if delta := acc.feed(event):
                    yield StreamEvent("text", text=delta)
        yield StreamEvent("done", response=self.finish(acc.result(), messages, tools))

    async def astream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> AsyncIterator[StreamEvent]:
        request, acc = self.build_request(messages, tools, params), self.new_stream()
        first, rest = await acall_with_retry(lambda: _apeek(self.send(self.aclient, request, stream=True)), **self._retry("stream"))
        with self._mid_stream():
            async for event in _achain(first, rest):
                if delta := acc.feed(event):
                    yield StreamEvent("text", text=delta)
        yield StreamEvent("done", response=self.finish(acc.result(), messages, tools))

    @contextlib.contextmanager
    def _mid_stream(self) -> Iterator[None]:
        try:
            yield
        except Exception as exc:
            error = translate_error(exc, classify=self.classify, what=self._what("stream"))
            if error is exc:
                raise
            raise error from exc


async def _awaited(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _peek(source: Iterable[Any]) -> tuple[Any, Iterator[Any]]:
    iterator = iter(source)
    return next(iterator, _END), iterator


async def _apeek(source: Any) -> tuple[Any, AsyncIterator[Any]]:
    iterator = (await _awaited(source)).__aiter__()
    return await anext(iterator, _END), iterator


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    if first is not _END:
        yield first
        yield from rest


async def _achain(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    if first is not _END:
        yield first
        async for event in rest:
            yield event


__all__ = [
    "RemoteProvider",
    "StreamAccumulator",
    "arguments_json",
    "function_calls",
    "function_tools",
    "fit_to_signature",
    "image_parts",
    "make_tool_call",
    "parse_tool_arguments",
    "server_message",
]
