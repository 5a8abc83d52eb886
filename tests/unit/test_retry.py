from __future__ import annotations

import asyncio
import random
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from ragkit.errors import EmbeddingError, ProviderError
from ragkit.retry import (
    ErrorInfo,
    RetryPolicy,
    acall_with_retry,
    call_with_retry,
    info_for_status,
    parse_retry_after,
    retry_after_from_headers,
    retrying,
    translate_error,
)


class FakeAPIError(Exception):
    def __init__(self, status: int | None, message: str = "boom", headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def classify(exc: BaseException) -> ErrorInfo | None:
    if not isinstance(exc, FakeAPIError):
        return None
    if exc.status is None:
        return ErrorInfo(True, None, exc.message)
    return info_for_status(exc.status, exc.message, exc.headers)


class Flaky:
    """Raises the given errors in order, then returns 'ok'."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def make_policy(sleeps: list[float], *, seed: int = 0, **kwargs: object) -> RetryPolicy:
    rng = random.Random(seed)
    return RetryPolicy(sleep=sleeps.append, random=rng.random, **kwargs)  # type: ignore[arg-type]


def test_full_jitter_backoff_is_bounded_by_exponential_ceiling() -> None:
    policy = make_policy([], base_delay=1.0, max_delay=5.0)
    ceilings = [1.0, 2.0, 4.0, 5.0, 5.0]
    for retry, ceiling in enumerate(ceilings):
        for _ in range(50):
            d = policy.delay(retry)
            assert 0.0 <= d <= ceiling


def test_full_jitter_uses_the_injected_random() -> None:
    policy = RetryPolicy(base_delay=2.0, max_delay=100.0, random=lambda: 0.25)
    assert policy.delay(0) == pytest.approx(0.5)
    assert policy.delay(3) == pytest.approx(4.0)  # 0.25 * 2 * 2**3


def test_same_seed_same_delays() -> None:
    a = make_policy([], seed=42)
    b = make_policy([], seed=42)
    assert [a.delay(i) for i in range(6)] == [b.delay(i) for i in range(6)]


def test_retry_after_is_honoured_and_capped() -> None:
    policy = RetryPolicy(retry_after_cap=10.0, random=lambda: 0.0)
    assert policy.delay(0, ErrorInfo(True, 429, retry_after=3.0)) == 3.0
    assert policy.delay(0, ErrorInfo(True, 429, retry_after=3600.0)) == 10.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [("3", 3.0), (" 1.5 ", 1.5), ("0", 0.0), ("-2", None), ("", None), (None, None), ("soon", None)],
)
def test_parse_retry_after_seconds(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value) == expected


def test_parse_retry_after_http_date() -> None:
    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)
    header = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert parse_retry_after(header, now=now) == pytest.approx(7.0)
    past = format_datetime(now - timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(past, now=now) == 0.0


def test_retry_after_ms_header_wins() -> None:
    assert retry_after_from_headers({"Retry-After-Ms": "250", "Retry-After": "9"}) == 0.25
    assert retry_after_from_headers({"Retry-After": "9"}) == 9.0
    assert retry_after_from_headers({}) is None


def test_retries_429_then_succeeds_waiting_retry_after() -> None:
    sleeps: list[float] = []
    fn = Flaky(FakeAPIError(429, "slow down", {"retry-after": "2"}))
    assert call_with_retry(fn, classify=classify, policy=make_policy(sleeps)) == "ok"
    assert fn.calls == 2
    assert sleeps == [2.0]


def test_retries_5xx_and_connection_errors_with_jittered_backoff() -> None:
    sleeps: list[float] = []
    fn = Flaky(FakeAPIError(500), FakeAPIError(None, "connection refused"), FakeAPIError(503))
    policy = make_policy(sleeps, base_delay=1.0, max_delay=60.0)
    assert call_with_retry(fn, classify=classify, policy=policy) == "ok"
    expected_rng = random.Random(0)
    assert sleeps == [expected_rng.random() * 1.0, expected_rng.random() * 2.0, expected_rng.random() * 4.0]


def test_exhausted_retries_raise_provider_error_with_status_and_message() -> None:
    sleeps: list[float] = []
    fn = Flaky(*[FakeAPIError(503, "overloaded") for _ in range(10)])
    with pytest.raises(ProviderError) as info:
        call_with_retry(fn, classify=classify, policy=make_policy(sleeps, max_attempts=3), what="chat")
    assert fn.calls == 3
    assert len(sleeps) == 2
    msg = str(info.value)
    assert "chat failed after 3 attempts" in msg
    assert "HTTP 503" in msg and "overloaded" in msg
    assert info.value.status_code == 503  # type: ignore[attr-defined]


def test_non_retryable_status_fails_at_once_with_a_fix() -> None:
    sleeps: list[float] = []
    fn = Flaky(FakeAPIError(401, "invalid api key"))
    with pytest.raises(ProviderError, match="HTTP 401: invalid api key.*check the API key"):
        call_with_retry(fn, classify=classify, policy=make_policy(sleeps))
    assert fn.calls == 1 and sleeps == []


def test_unknown_exceptions_propagate_untouched() -> None:
    fn = Flaky(KeyError("bug"))
    with pytest.raises(KeyError):
        call_with_retry(fn, classify=classify, policy=make_policy([]))
    assert fn.calls == 1


def test_error_class_is_configurable_for_embedders() -> None:
    fn = Flaky(FakeAPIError(400, "bad input"))
    with pytest.raises(EmbeddingError, match="HTTP 400"):
        call_with_retry(fn, classify=classify, policy=make_policy([]), error_cls=EmbeddingError)


def test_single_attempt_policy_does_not_retry() -> None:
    fn = Flaky(FakeAPIError(429))
    with pytest.raises(ProviderError, match="after 1 attempt "):
        call_with_retry(fn, classify=classify, policy=make_policy([], max_attempts=1))


def test_async_retry_uses_async_sleep() -> None:
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    fn = Flaky(FakeAPIError(429, headers={"retry-after": "1"}), FakeAPIError(502))

    async def call() -> str:
        return fn()

    policy = RetryPolicy(async_sleep=fake_sleep, random=lambda: 0.5, base_delay=1.0)
    assert asyncio.run(acall_with_retry(call, classify=classify, policy=policy)) == "ok"
    assert waits == [1.0, 1.0]  # Retry-After, then 0.5 * 1.0 * 2**1


def test_decorator_form() -> None:
    sleeps: list[float] = []
    fn = Flaky(FakeAPIError(500))

    @retrying(classify=classify, policy=make_policy(sleeps))
    def wrapped(x: int) -> str:
        return f"{fn()}-{x}"

    assert wrapped(3) == "ok-3"
    assert len(sleeps) == 1


def test_translate_error() -> None:
    err = translate_error(FakeAPIError(500, "died mid-stream"), classify=classify, what="stream")
    assert isinstance(err, ProviderError) and "HTTP 500: died mid-stream" in str(err)
    other = KeyError("x")
    assert translate_error(other, classify=classify, what="stream") is other


@pytest.mark.parametrize("kwargs", [{"max_attempts": 0}, {"base_delay": -1.0}])
def test_invalid_policy(kwargs: dict[str, float]) -> None:
    with pytest.raises(ProviderError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_from_max_retries() -> None:
    assert RetryPolicy.from_max_retries(3).max_attempts == 4
    with pytest.raises(ProviderError, match="max_retries must be >= 0 \\(got -1\\)"):
        RetryPolicy.from_max_retries(-1)
