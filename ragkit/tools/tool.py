"""``Tool`` and the ``@tool`` decorator: a typed Python function the model can call.

The JSON schema comes from the signature (type hints, defaults) and the Google-style docstring.
Arguments are validated before the call; a bad argument, an exception or a timeout becomes a
``ToolResult`` with ``is_error=True`` whose text the model can read and act on — invoking a tool
never raises because of what the tool or the model did.

Injected parameters (a retriever, a user id) are hidden from the model. Declare them with
``@tool(inject=["retriever"])`` or an ``Injected[Retriever]`` annotation; supply their values
with ``tool.bind(retriever=r)`` or ``Agent(..., context={"retriever": r})`` / ``run(context=)``.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import inspect
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from ragkit.errors import ToolError
from ragkit.messages import ToolSpec
from ragkit.retry import RetryPolicy
from ragkit.tools import schema as _schema
from ragkit.types import Citation
from ragkit.usage import UsageStats

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
ChunkSink = Callable[[str], None]  # receives each piece a streaming (generator) tool yields


@dataclass
class ToolOutput:
    """A tool's rich return value: text for the model plus usage, citations and raw data.

    The agent sends ``content`` to the model, folds ``usage`` into ``AgentUsage.by_tool[name]``
    (and the embedding totals) and appends ``citations`` to ``AgentResult.citations``.
    """

    content: str
    usage: UsageStats | None = None
    citations: list[Citation] = field(default_factory=list)
    data: Any = None


@dataclass
class ToolResult:
    """The outcome of one invocation. ``error_kind``: validation | exception | timeout | injection.

    A streaming (generator) tool also reports ``chunks`` (pieces yielded), ``chunk_bytes`` (their
    UTF-8 size) and ``first_chunk`` (seconds from the start of the call to the first piece)."""

    name: str
    content: str
    is_error: bool = False
    error_kind: str | None = None
    output: ToolOutput | None = None
    duration: float = 0.0
    chunks: int = 0
    chunk_bytes: int = 0
    first_chunk: float | None = None
    #: how many times the tool ran (more than 1: its retry policy tried again), and why each failed try failed
    attempts: int = 1
    retried: list[str] = field(default_factory=list)

    @property
    def usage(self) -> UsageStats | None:
        return self.output.usage if self.output else None

    @property
    def citations(self) -> list[Citation]:
        return self.output.citations if self.output else []


class Tool:
    """A callable exposed to a model. Build with ``@tool`` or ``Tool(fn, ...)``."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        inject: Iterable[str] = (),
        timeout: float | None = None,
        retries: int = 0,
        retry_on: type[BaseException] | tuple[type[BaseException], ...] = Exception,
        backoff: float | RetryPolicy = 0.5,
    ) -> None:
        """``retries``: how many more times to run the tool when it raises one of ``retry_on`` (a
        timeout only when ``retry_on`` names ``TimeoutError``), waiting ``backoff`` seconds doubled
        per retry with full jitter (or a :class:`ragkit.retry.RetryPolicy`); bad arguments are never
        retried, nor a streaming tool once it has streamed."""
        if not callable(fn):
            raise ToolError(f"Tool needs a function, got {fn!r}")
        if timeout is not None and timeout <= 0:
            raise ToolError(f"tool timeout must be positive seconds or None (got {timeout})")
        self.retry_on = retry_on if isinstance(retry_on, tuple) else (retry_on,)
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= MAX_TOOL_RETRIES:
            raise ToolError(f"tool retries must be a whole number from 0 to {MAX_TOOL_RETRIES} (got {retries!r})")
        if not self.retry_on or not all(isinstance(k, type) and issubclass(k, BaseException) for k in self.retry_on):
            raise ToolError(f"retry_on must be an exception class or a tuple of them (got {retry_on!r})")
        if isinstance(backoff, RetryPolicy):
            self.retry = dataclasses.replace(backoff, max_attempts=retries + 1)
        elif isinstance(backoff, bool) or not isinstance(backoff, int | float) or backoff < 0:
            raise ToolError(f"tool backoff must be seconds >= 0 or a RetryPolicy (got {backoff!r})")
        else:
            self.retry = RetryPolicy(max_attempts=retries + 1, base_delay=float(backoff), max_delay=30.0)
        self.fn = fn
        self.name = name or fn.__name__
        if not self.name.replace("_", "a").replace("-", "a").isalnum() or len(self.name) > 64:
            raise ToolError(f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-'; pass name=")
        doc_description, param_docs = _schema.parse_docstring(inspect.getdoc(fn))
        self.description = description or doc_description or self.name.replace("_", " ")
        params, hints, self.injected = _schema.signature_params(fn, set(inject))
        self._param_names = [p.name for p in params]
        self._model = _schema.build_model(self.name, params, hints, param_docs)
        self.parameters: dict[str, Any] = _schema.json_schema(self._model)
        self.timeout = timeout
        self.is_async = inspect.iscoroutinefunction(fn)
        self.streams = inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn)
        self._bound: dict[str, Any] = {}
        self.__doc__ = fn.__doc__
        self.__name__ = self.name
        self.__wrapped__ = fn

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, params={self._param_names}, injected={sorted(self.injected)})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (bound injected values fill the gaps)."""
        return self.fn(*args, **{**self._bound, **kwargs})

    def to_spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    def bind(self, **values: Any) -> Tool:
        """A copy with injected parameters filled in: ``search.bind(retriever=r)``."""
        unknown = set(values) - self.injected
        if unknown:
            raise ToolError(
                f"tool '{self.name}': cannot bind {sorted(unknown)}; only injected parameters can be bound "
                f"({sorted(self.injected) or 'none'}); declare them with inject=[...] or Injected[...]"
            )
        clone = object.__new__(Tool)
        clone.__dict__.update(self.__dict__)
        clone._bound = {**self._bound, **values}
        return clone

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validated keyword arguments, or ``ToolArgumentError`` with a message meant for the model."""
        from pydantic import ValidationError

        if not isinstance(arguments, dict):
            raise ToolArgumentError(f"invalid arguments for tool '{self.name}': expected a JSON object, got {type(arguments).__name__}")
        try:
            obj = self._model.model_validate(arguments)  # type: ignore[attr-defined]
        except ValidationError as exc:
            raise ToolArgumentError(_schema.format_validation_error(self.name, exc, self.parameters, arguments)) from None
        return {name: getattr(obj, f"p{i}") for i, name in enumerate(self._param_names)}

    def _prepare(self, arguments: dict[str, Any], context: dict[str, Any] | None) -> dict[str, Any]:
        kwargs = self.validate(arguments)
        supplied = {**(context or {}), **self._bound}
        missing = sorted(n for n in self.injected if n not in supplied and not self._has_default(n))
        if missing:
            raise _InjectionError(
                f"tool '{self.name}' needs injected argument(s) {missing} that were not provided; "
                f"pass them with tool.bind({missing[0]}=...) or Agent(context={{'{missing[0]}': ...}})"
            )
        kwargs.update({n: supplied[n] for n in self.injected if n in supplied})
        return kwargs

    def _has_default(self, name: str) -> bool:
        return inspect.signature(self.fn).parameters[name].default is not inspect.Parameter.empty

    def invoke(self, arguments: dict[str, Any], *, context: dict[str, Any] | None = None,
               timeout: float | None = None, on_chunk: ChunkSink | None = None, retry: bool = True) -> ToolResult:
        """The sync driver of :meth:`ainvoke` (on its own event loop; in a worker thread when this
        thread already runs one). Never raises for tool or argument failures."""
        def run() -> ToolResult:
            return asyncio.run(self.ainvoke(arguments, context=context, timeout=timeout, on_chunk=on_chunk,
                                            retry=retry))

        return run_in_thread(run, None) if _loop_running() else run()

    async def ainvoke(self, arguments: dict[str, Any], *, context: dict[str, Any] | None = None,
                      timeout: float | None = None, on_chunk: ChunkSink | None = None, retry: bool = True) -> ToolResult:
        """Validate, call and convert. Async tools are awaited, sync ones run in a daemon thread;
        a generator tool (sync or async) streams: each chunk goes to ``on_chunk`` as it is made and
        the joined chunks are the result. A failure the tool's retry policy covers runs it again
        (``retry=False``: once only, e.g. a call a person approved); ``current_attempt()`` tells
        the tool which try it is."""
        start = time.perf_counter()
        limit = self.timeout if self.timeout is not None else timeout
        stream = _StreamStats(start, on_chunk)
        retried: list[str] = []
        try:
            kwargs = self._prepare(arguments, context)
        except Exception as exc:  # noqa: BLE001 - bad arguments: an observation, never retried
            return stream.stamp(self._failure(exc, limit, start))
        attempts = self.retry.max_attempts if retry else 1
        for attempt in range(1, attempts + 1):
            token = _ATTEMPT.set(attempt)
            try:
                value = await asyncio.wait_for(self._produce(kwargs, stream.sink if self.streams else on_chunk), limit)
            except Exception as exc:  # noqa: BLE001 - every failure becomes an observation
                if attempt == attempts or not self._retryable(exc) or stream.chunks:
                    return _tried(stream.stamp(self._failure(exc, limit, start)), attempt, retried)
                retried.append(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
                log.info("tool %r attempt %d/%d failed (%s); retrying", self.name, attempt, attempts, retried[-1])
                await self.retry.async_sleep(self.retry.delay(attempt - 1))
            else:
                return _tried(stream.stamp(self._success(value, start)), attempt, retried)
            finally:
                _ATTEMPT.reset(token)
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns

    def _retryable(self, exc: BaseException) -> bool:
        """Whether the retry policy covers ``exc`` (a timeout only when ``retry_on`` names it)."""
        if isinstance(exc, ToolArgumentError | _InjectionError):
            return False
        if isinstance(exc, TimeoutError | asyncio.TimeoutError):
            return any(issubclass(k, TimeoutError) for k in self.retry_on)
        return isinstance(exc, self.retry_on)

    async def _produce(self, kwargs: dict[str, Any], on_chunk: ChunkSink | None) -> Any:
        if self.is_async:
            return await self.fn(**kwargs)
        if inspect.isasyncgenfunction(self.fn):
            return "".join([_chunk(c, on_chunk) async for c in self.fn(**kwargs)])
        return await _thread_future(lambda: self._call_sync(kwargs, on_chunk))

    def _call_sync(self, kwargs: dict[str, Any], on_chunk: ChunkSink | None) -> Any:
        value = self.fn(**kwargs)
        if inspect.isgenerator(value):
            return "".join(_chunk(c, on_chunk) for c in value)
        return value

    def _success(self, value: Any, start: float) -> ToolResult:
        output = value if isinstance(value, ToolOutput) else None
        content = output.content if output else to_text(value)
        return ToolResult(self.name, content, output=output, duration=time.perf_counter() - start)

    def _failure(self, exc: BaseException, limit: float | None, start: float) -> ToolResult:
        duration = time.perf_counter() - start
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
            text, kind = f"error: tool '{self.name}' timed out after {limit:g} s; try a simpler request or another tool", "timeout"
        elif isinstance(exc, _InjectionError):
            text, kind = f"error: {exc}", "injection"
        elif isinstance(exc, ToolArgumentError):
            text, kind = f"error: {exc}", "validation"
        else:
            log.warning("tool %r raised %s: %s", self.name, type(exc).__name__, exc, exc_info=log.isEnabledFor(logging.DEBUG))
            text, kind = f"error: tool '{self.name}' raised {type(exc).__name__}: {exc}", "exception"
        return ToolResult(self.name, text, is_error=True, error_kind=kind, duration=duration)


def _tried(result: ToolResult, attempts: int, retried: list[str]) -> ToolResult:
    result.attempts, result.retried = attempts, list(retried)
    return result


#: the try of the tool call running in this context (1 for the first; see ``current_attempt``)
_ATTEMPT: contextvars.ContextVar[int] = contextvars.ContextVar("ragkit_tool_attempt", default=1)
#: the most retries ``@tool(retries=...)`` takes
MAX_TOOL_RETRIES = 10


def current_attempt() -> int:
    """Which try of the running tool call this is: 1, then 2, 3... when its retry policy runs it
    again (``ToolContext.attempt`` in an ``AgentRunner`` run says the same)."""
    return _ATTEMPT.get()


class _StreamStats:
    """Counts what a streaming tool yields (thread-safe: sync generators run in a worker thread)."""

    def __init__(self, start: float, sink: ChunkSink | None) -> None:
        self.start, self.downstream = start, sink
        self.chunks = self.bytes = 0
        self.first: float | None = None
        self._lock = threading.Lock()

    def sink(self, text: str) -> None:
        with self._lock:
            if self.first is None:
                self.first = time.perf_counter() - self.start
            self.chunks += 1
            self.bytes += len(text.encode("utf-8"))
        if self.downstream is not None:
            self.downstream(text)

    def stamp(self, result: ToolResult) -> ToolResult:
        with self._lock:
            result.chunks, result.chunk_bytes, result.first_chunk = self.chunks, self.bytes, self.first
        return result


class ToolArgumentError(ToolError):
    """The model's arguments do not match the tool's schema (the message is meant for the model)."""


class _InjectionError(ToolError):
    pass


@overload
def tool(fn: F, /) -> Tool: ...


@overload
def tool(description: str | None = None, /, *, name: str | None = None, inject: Iterable[str] = (),
         timeout: float | None = None, retries: int = 0,
         retry_on: type[BaseException] | tuple[type[BaseException], ...] = Exception,
         backoff: float | RetryPolicy = 0.5) -> Callable[[F], Tool]: ...


def tool(fn: Any = None, /, *, name: str | None = None, description: str | None = None,
         inject: Iterable[str] = (), timeout: float | None = None, retries: int = 0,
         retry_on: type[BaseException] | tuple[type[BaseException], ...] = Exception,
         backoff: float | RetryPolicy = 0.5) -> Any:
    """Turn a typed function into a ``Tool``: bare (``@tool``), with the model-facing description
    as the one positional argument (``@tool("Look up a word in the glossary")``; it replaces the
    docstring's first paragraph), or with options (``@tool(name=..., inject=[...], timeout=...)``;
    ``retries=2, retry_on=ConnectionError, backoff=0.5``: run it up to twice more when it raises
    that, see :class:`Tool`)."""
    if isinstance(fn, str):
        if description is not None:
            raise ToolError("@tool: give the description once, positionally or as description=...")
        fn, description = None, fn
    options = {"name": name, "description": description, "inject": inject, "timeout": timeout, "retries": retries,
               "retry_on": retry_on, "backoff": backoff}
    if fn is not None:
        return Tool(fn, **options)
    return lambda f: Tool(f, **options)


def as_tool(obj: Tool | Callable[..., Any]) -> Tool:
    """A Tool as is; a plain function wrapped with default options."""
    return obj if isinstance(obj, Tool) else Tool(obj)


def to_text(value: Any) -> str:
    """What the model sees for a tool's return value."""
    if value is None:
        return "(no output)"
    if isinstance(value, str):
        return value
    if hasattr(value, "model_dump_json"):
        return str(value.model_dump_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _chunk(value: Any, sink: ChunkSink | None) -> str:
    text = to_text(value) if value is not None else ""
    if sink is not None and text:
        sink(text)
    return text


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_in_thread(fn: Callable[[], Any], timeout: float | None) -> Any:
    """Run ``fn`` in a daemon thread; raise ``TimeoutError`` if it takes longer than ``timeout``.

    A timed-out thread cannot be killed; being a daemon it never blocks interpreter exit.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, daemon=True, name="ragkit-tool").start()
    if not done.wait(timeout):
        raise TimeoutError(f"did not finish within {timeout} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _thread_future(fn: Callable[[], Any]) -> asyncio.Future[Any]:
    """An awaitable for ``fn`` run in a daemon thread (unlike to_thread, never joined at exit); like
    to_thread, ``fn`` sees the caller's context variables (a server's per-request state)."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(ok: bool, value: Any) -> None:
        if not fut.done():
            fut.set_result(value) if ok else fut.set_exception(value)

    def target() -> None:
        try:
            result = (True, context.run(fn))
        except BaseException as exc:  # noqa: BLE001
            result = (False, exc)
        try:
            loop.call_soon_threadsafe(deliver, *result)
        except RuntimeError:  # the loop closed after a timeout
            pass

    threading.Thread(target=target, daemon=True, name="ragkit-tool").start()
    return fut
