"""Fixtures shared by the remote conformance suites (``ProviderContract``, ``EmbedderContract``):
no ambient API keys, a loopback wire server, and a retry policy that records its waits."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from ragkit.retry import RetryPolicy
from ragkit.testing.servers import FakeServer
from ragkit.vendors import environment_variables


class Sleeps(list[float]):
    """Records requested waits instead of sleeping (sync and async)."""

    async def async_sleep(self, seconds: float) -> None:
        self.append(seconds)


class RemoteFixtures:
    server_class: ClassVar[type[FakeServer]]
    server_options: ClassVar[dict[str, Any]] = {}

    @pytest.fixture(autouse=True)
    def _no_ambient_keys(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for var in environment_variables():
            monkeypatch.delenv(var, raising=False)

    @pytest.fixture
    def server(self) -> Iterator[Any]:
        with self.server_class(**self.server_options) as srv:
            yield srv

    @pytest.fixture
    def sleeps(self) -> Sleeps:
        return Sleeps()

    @pytest.fixture
    def policy(self, sleeps: Sleeps) -> RetryPolicy:
        """Three attempts, waits recorded in ``sleeps``, seeded jitter."""
        rng = random.Random(1234)
        return RetryPolicy(max_attempts=3, base_delay=0.5, sleep=sleeps.append, async_sleep=sleeps.async_sleep,
                           random=rng.random)


__all__ = ["RemoteFixtures", "Sleeps"]
