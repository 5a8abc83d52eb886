"""One retry mechanism for every remote call: exponential backoff with full jitter.

SDK clients are created with their own retries disabled, so this module is the only place that
decides whether, and how long, to wait before trying again. It is generic: a caller passes the
callable to run and a *classifier* that turns an exception into :class:`ErrorInfo` (retryable?
which HTTP status? what did the server say? did it send ``Retry-After``?) or ``None`` for
exceptions that are not API errors at all (those propagate untouched, e.g. a bug in our code).

Waiting is ``random() * min(max_delay, base_delay * 2**retry)`` ("full jitter"), unless the
server sent ``Retry-After`` (seconds or an HTTP date; ``retry-after-ms`` too), which is honoured
up to ``retry_after_cap`` seconds. Sleep and random are injectable so tests are instant and
deterministic.
"""

from __future__ import annotations

import functools
import itertools
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, TypeVar

from ragkit.errors import ProviderError, RagkitError

T = TypeVar("T")
log = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class ErrorInfo:
    """What a classifier learned from an exception."""

    retryable: bool
    status: int | None = None  # HTTP status, None for connection errors and timeouts
    message: str = ""  # the server's message (or the connection error's)
    retry_after: float | None = None  # seconds the server asked us to wait
    hint: str = ""  # the fix to suggest instead of the generic one (e.g. "is `ollama serve` running?")

    def describe(self) -> str:
        where = f"HTTP {self.status}" if self.status is not None else "no HTTP response"
        return f"{where}: {self.message}" if self.message else where


Classifier = Callable[[BaseException], "ErrorInfo | None"]


async def _asyncio_sleep(seconds: float) -> None:
    """``asyncio.sleep``, imported on first use: importing asyncio costs every CLI command ~50 ms."""
    import asyncio

    await asyncio.sleep(seconds)


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to try and how long to wait. ``max_attempts`` counts the first try."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    retry_after_cap: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)
    async_sleep: Callable[[float], Awaitable[None]] = field(default=_asyncio_sleep, repr=False, compare=False)
    random: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ProviderError(
                f"max_attempts must be at least 1 (got {self.max_attempts}); use 1 to disable retries"
            )
        if self.base_delay < 0 or self.max_delay < 0 or self.retry_after_cap < 0:
            raise ProviderError(
                "retry delays must be >= 0 (got base_delay="
                f"{self.base_delay}, max_delay={self.max_delay}, retry_after_cap={self.retry_after_cap})"
            )

    @classmethod
    def from_max_retries(cls, max_retries: int, **kwargs: Any) -> RetryPolicy:
        """``max_retries=3`` means up to 4 attempts in all."""
        if max_retries < 0:
            raise ProviderError(f"max_retries must be >= 0 (got {max_retries}); use 0 to disable retries")
        return cls(max_attempts=max_retries + 1, **kwargs)

    def delay(self, retry: int, info: ErrorInfo | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first retry)."""
        if info is not None and info.retry_after is not None:
            return max(0.0, min(info.retry_after, self.retry_after_cap))
        ceiling = min(self.max_delay, self.base_delay * (2.0**retry))
        return self.random() * ceiling


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Parse a ``Retry-After`` header: delta-seconds or an HTTP date. ``None`` when absent/invalid."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if seconds >= 0 else None
    try:
        import email.utils  # not at module level: with asyncio, ~60 ms of every CLI command's start-up

        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = now or datetime.now(timezone.utc)
    return max(0.0, (when - current).total_seconds())


def retry_after_from_headers(headers: Mapping[str, str] | None) -> float | None:
    """``retry-after-ms`` (OpenAI's) wins over ``retry-after``; header names are case-insensitive."""
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    return parse_retry_after(lowered.get("retry-after"))


def info_for_status(status: int, message: str, headers: Mapping[str, str] | None = None) -> ErrorInfo:
    """Classify an HTTP status: 429, 408/409/425 and 5xx are retryable."""
    retryable = status in RETRYABLE_STATUSES or status >= 500
    return ErrorInfo(retryable, status, message, retry_after_from_headers(headers))


def _give_up(
    info: ErrorInfo, attempts: int, what: str, error_cls: type[RagkitError], exc: BaseException
) -> RagkitError:
    if info.retryable:
        fix = "try again later, or raise max_retries"
        head = f"{what} failed after {attempts} attempt{'s' if attempts != 1 else ''}"
    else:
        fix = _fix_for_status(info.status)
        head = f"{what} failed"
    err = error_cls(f"{head} ({info.describe()}); {info.hint or fix}")
    err.status_code = info.status  # type: ignore[attr-defined]
    err.attempts = attempts  # type: ignore[attr-defined]
    err.__cause__ = exc
    return err


def _fix_for_status(status: int | None) -> str:
    if status in (401, 403):
        return "check the API key and that it may use this model"
    if status == 404:
        return "check the model name (--model) and the endpoint (--base-url)"
    if status is not None and 400 <= status < 500:
        return "check the request parameters"
    return "check the endpoint and your network"


class Attempt:
    """One try of a retried call: a context manager that classifies what the call raised.

    On a retryable failure it swallows the exception and sets ``delay``; on a final one it raises
    the translated error; an unclassified exception propagates untouched.
    """

    def __init__(self, retry: Retry, number: int) -> None:
        self.retry, self.number, self.delay = retry, number, 0.0

    def __enter__(self) -> Attempt:
        return self

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        if exc is None or not isinstance(exc, Exception):
            return False
        self.delay = self.retry.after_failure(exc, self.number)
        return True


class Retry:
    """The decisions of a retried call, free of I/O: iterate for attempts (see :func:`call_with_retry`)."""

    def __init__(self, *, classify: Classifier, policy: RetryPolicy | None = None, what: str = "request",
                 error_cls: type[RagkitError] = ProviderError) -> None:
        self.classify, self.policy, self.what, self.error_cls = classify, policy or RetryPolicy(), what, error_cls

    def __iter__(self) -> Iterator[Attempt]:
        return (Attempt(self, n) for n in itertools.count())

    def after_failure(self, exc: BaseException, attempt: int) -> float:
        """The delay before the next attempt, or raise the final error."""
        info = self.classify(exc)
        if info is None:
            raise exc
        if not info.retryable or attempt + 1 >= self.policy.max_attempts:
            raise _give_up(info, attempt + 1, self.what, self.error_cls, exc) from exc
        delay = self.policy.delay(attempt, info)
        log.warning("%s: %s; retry %d of %d in %.2fs", self.what, info.describe(), attempt + 1,
                    self.policy.max_attempts - 1, delay)
        return delay


def call_with_retry(fn: Callable[[], T], **options: Any) -> T:
    """Run ``fn`` until it succeeds, retrying what ``classify`` calls retryable. ``options`` are
    :class:`Retry`'s: ``classify`` (required), ``policy``, ``what``, ``error_cls``."""
    retry = Retry(**options)
    for attempt in retry:
        with attempt:
            return fn()
        retry.policy.sleep(attempt.delay)
    raise AssertionError("unreachable")  # pragma: no cover - the attempts never run out


async def acall_with_retry(fn: Callable[[], Awaitable[T]], **options: Any) -> T:
    """The async driver of the same :class:`Retry` decisions; waits with ``policy.async_sleep``."""
    retry = Retry(**options)
    for attempt in retry:
        with attempt:
            return await fn()
        await retry.policy.async_sleep(attempt.delay)
    raise AssertionError("unreachable")  # pragma: no cover


def translate_error(
    exc: BaseException, *, classify: Classifier, what: str, error_cls: type[RagkitError] = ProviderError
) -> BaseException:
    """Turn an API exception raised outside a retry loop (e.g. mid-stream) into ``error_cls``."""
    info = classify(exc)
    if info is None:
        return exc
    return _give_up(ErrorInfo(False, info.status, info.message, hint=info.hint), 1, what, error_cls, exc)


def retrying(
    *,
    classify: Classifier,
    policy: RetryPolicy | None = None,
    what: str | None = None,
    error_cls: type[RagkitError] = ProviderError,
) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorator form of :func:`call_with_retry` for synchronous functions."""

    def deco(func: Callable[..., T]) -> Callable[..., T]:
        label = what or func.__qualname__

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            return call_with_retry(
                lambda: func(*args, **kwargs),
                classify=classify,
                policy=policy,
                what=label,
                error_cls=error_cls,
            )

        return wrapper

    return deco


__all__ = [
    "Classifier",
    "ErrorInfo",
    "RETRYABLE_STATUSES",
    "RetryPolicy",
    "Attempt",
    "Retry",
    "acall_with_retry",
    "call_with_retry",
    "info_for_status",
    "parse_retry_after",
    "retry_after_from_headers",
    "retrying",
    "translate_error",
]
