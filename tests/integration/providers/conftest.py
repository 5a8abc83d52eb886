from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from ragkit.messages import Message
from ragkit.retry import RetryPolicy
from ragkit.testing.remote_fixtures import Sleeps
from ragkit.vendors import environment_variables


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in environment_variables():
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def policy(sleeps: Sleeps) -> Iterator[RetryPolicy]:
    rng = random.Random(1234)
    yield RetryPolicy(
        max_attempts=3, base_delay=0.5, sleep=sleeps.append, async_sleep=sleeps.async_sleep, random=rng.random
    )


@pytest.fixture
def question() -> list[Message]:
    return [Message("system", "You are terse."), Message("user", "What is the capital of France?")]
