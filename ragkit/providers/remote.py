"""What every remote (SDK-backed) provider shares: API keys, parameters, retries, streaming.

A subclass supplies the SDK client factories, a classifier of the SDK's exceptions, and the
translation of messages/responses; this base resolves the API key from the environment at
construction (a clear error naming the variable when it is missing), merges default and
per-call parameters, runs every request through :mod:`ragkit.retry`, and drives native streams
through an accumulator that yields text deltas and finally one ``done`` event.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import logging
import os
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from ragkit.errors import MissingDependencyError, ProviderError
from ragkit.providers.base import BaseProvider, Response, StreamEvent, ToolCall
from ragkit.retry import ErrorInfo, RetryPolicy, acall_with_retry, call_with_retry, translate_error

log = logging.getLogger(__name__)
C = TypeVar("C")
A = TypeVar("A")
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


class StreamAccumulator:
    """Feeds on a vendor's stream events; ``feed`` returns a text delta (or ""), ``result`` the Response."""

    def feed(self, event: Any) -> str:
        raise NotImplementedError

    def result(self) -> Response:
        raise NotImplementedError


class RemoteProvider(BaseProvider, Generic[C, A]):
    """Base of the SDK-backed providers. Subclasses set the class attributes and hooks below."""

    name = "remote"
    default_model = ""
    env_vars: tuple[str, ...] = ()  # the first one is the one named in errors
    sdk_package = ""
    sdk_module = ""
    extra = ""
    requires_key = True
    placeholder_key = "unused"  # sent when requires_key is False and no key is configured

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
        **params: Any,
    ) -> None:
        if self.sdk_module and importlib.util.find_spec(self.sdk_module) is None:
            raise MissingDependencyError(self.sdk_package, self.extra, f"the '{self.name}' provider")
        self.model = model or self.default_model
        if not self.model:
            raise ProviderError(f"the '{self.name}' provider needs a model name; pass model='...'")
        if timeout <= 0:
            raise ProviderError(f"timeout must be > 0 seconds (got {timeout})")
        if temperature is not None and not 0 <= temperature <= 2:
            raise ProviderError(f"temperature must be between 0 and 2 (got {temperature})")
        if max_tokens is not None and max_tokens < 1:
            raise ProviderError(f"max_tokens must be at least 1 (got {max_tokens})")
        self.api_key = self._resolve_key(api_key)
        self.base_url = base_url
        self.timeout = float(timeout)
        # ``retry`` (e.g. with an injected sleep) wins; otherwise max_retries sets the attempts
        self.retry_policy = retry if retry is not None else RetryPolicy.from_max_retries(max_retries)
        self.default_params: dict[str, Any] = {
            k: v
            for k, v in {"temperature": temperature, "max_tokens": max_tokens, **params}.items()
            if v is not None
        }
        self._client: C | None = None
        self._aclients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, A] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}(model={self.model!r}{where})"

    # ------------------------------------------------------------ configuration
    def _resolve_key(self, api_key: str | None) -> str:
        if api_key:
            return api_key
        for var in self.env_vars:
            value = os.environ.get(var)
            if value:
                return value
        if not self.requires_key:
            return self.placeholder_key
        var = self.env_vars[0]
        others = f" (or {', '.join(self.env_vars[1:])})" if len(self.env_vars) > 1 else ""
        raise ProviderError(
            f"no API key for the '{self.name}' provider: the environment variable {var}{others} is not set; "
            f"set it with `export {var}=...` or pass api_key='...'"
        )

    def merged_params(self, params: dict[str, Any]) -> dict[str, Any]:
        merged = {**self.default_params, **{k: v for k, v in params.items() if v is not None}}
        return merged

    # ------------------------------------------------------------ clients (lazy; async per event loop)
    @property
    def client(self) -> C:
        if self._client is None:
            self._client = self._make_client()
        return self._client

    @property
    def aclient(self) -> A:
        loop = asyncio.get_running_loop()
        client = self._aclients.get(loop)
        if client is None:
            client = self._make_async_client()
            self._aclients[loop] = client
        return client

    def close(self) -> None:
        """Close the synchronous SDK client's connections (a new one is made on next use)."""
        client, self._client = self._client, None
        closer = getattr(client, "close", None)
        if callable(closer):
            closer()
        self._aclients.clear()

    def _client_kwargs(self) -> dict[str, Any]:
        """SDK client arguments; the SDK's own retries are off (``ragkit.retry`` is the one mechanism)."""
        kwargs: dict[str, Any] = {"api_key": self.api_key, "timeout": self.timeout, "max_retries": 0}
        if self.base_url:
            kwargs["base_url"] = self.base_url
        return kwargs

    def _make_client(self) -> C:
        raise NotImplementedError

    def _make_async_client(self) -> A:
        raise NotImplementedError

    def classify(self, exc: BaseException) -> ErrorInfo | None:
        """Map an SDK exception to ErrorInfo; None for anything that is not an API error."""
        raise NotImplementedError

    # ------------------------------------------------------------ retries
    def _what(self, action: str) -> str:
        return f"{self.name} {action} (model {self.model!r})"

    def _call(self, fn: Callable[[], T], action: str) -> T:
        return call_with_retry(fn, classify=self.classify, policy=self.retry_policy, what=self._what(action))

    async def _acall(self, fn: Callable[[], Awaitable[T]], action: str) -> T:
        return await acall_with_retry(
            fn, classify=self.classify, policy=self.retry_policy, what=self._what(action)
        )

    # ------------------------------------------------------------ streaming drivers
    def _drive_stream(
        self, opener: Callable[[], Iterable[Any]], acc: StreamAccumulator
    ) -> Iterator[StreamEvent]:
        """Open (with retries, up to the first event), then relay deltas; errors mid-stream are not retried."""

        def open_and_peek() -> tuple[Any, Iterator[Any]]:
            iterator = iter(opener())
            return next(iterator, _END), iterator

        first, iterator = self._call(open_and_peek, "stream")
        event = first
        try:
            while event is not _END:
                delta = acc.feed(event)
                if delta:
                    yield StreamEvent("text", text=delta)
                event = next(iterator, _END)
        except Exception as exc:
            raise translate_error(exc, classify=self.classify, what=self._what("stream")) from exc
        yield StreamEvent("done", response=acc.result())

    async def _adrive_stream(
        self, opener: Callable[[], Awaitable[Any]], acc: StreamAccumulator
    ) -> AsyncIterator[StreamEvent]:
        async def open_and_peek() -> tuple[Any, AsyncIterator[Any]]:
            iterator = (await opener()).__aiter__()
            return await anext(iterator, _END), iterator

        first, iterator = await self._acall(open_and_peek, "stream")
        event = first
        try:
            while event is not _END:
                delta = acc.feed(event)
                if delta:
                    yield StreamEvent("text", text=delta)
                event = await anext(iterator, _END)
        except Exception as exc:
            raise translate_error(exc, classify=self.classify, what=self._what("stream")) from exc
        yield StreamEvent("done", response=acc.result())


def http_status_info(status: int, body: Any, fallback: str, headers: Any) -> ErrorInfo:
    """ErrorInfo from an HTTP error, digging the server's own message out of the usual body shapes."""
    from ragkit.retry import info_for_status

    return info_for_status(status, server_message(body) or fallback, dict(headers or {}))


def server_message(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if body.get("message"):
            return str(body["message"])
    if isinstance(body, str):
        return body
    return ""


__all__ = [
    "RemoteProvider",
    "StreamAccumulator",
    "arguments_json",
    "fit_to_signature",
    "http_status_info",
    "make_tool_call",
    "parse_tool_arguments",
    "server_message",
]
