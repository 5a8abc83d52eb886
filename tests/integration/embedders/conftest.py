from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from ragkit.retry import RetryPolicy
from ragkit.testing.servers import FakeCohereServer, FakeOpenAIServer
from ragkit.vendors import environment_variables

COHERE_DIM = 1024  # embed-english-v3.0's real size, so the default model needs no dimension option
OPENAI_DIM = 64


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in environment_variables():
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def policy(sleeps: list[float]) -> RetryPolicy:
    rng = random.Random(1234)
    return RetryPolicy(max_attempts=3, base_delay=0.5, sleep=sleeps.append, random=rng.random)


@pytest.fixture
def cohere_server() -> Iterator[FakeCohereServer]:
    with FakeCohereServer(dimension=COHERE_DIM) as srv:
        yield srv  # type: ignore[misc]


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(dimension=OPENAI_DIM) as srv:
        yield srv  # type: ignore[misc]
