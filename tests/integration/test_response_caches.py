"""Every response cache passes one contract: in-memory LRU, DuckDB, and Redis on a real server."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragkit.cache import DuckDBCache, InMemoryCache, RedisCache
from ragkit.errors import ConfigError, StoreError
from ragkit.testing.cache_contract import ANSWER, ResponseCacheContract
from ragkit.testing.servers_db import redis_server


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TestInMemoryCache(ResponseCacheContract):
    def make_cache(self, tmp_path: Path, *, ttl: float | None = None) -> Any:
        self.clock = FakeClock()
        return InMemoryCache(ttl=ttl, clock=self.clock)

    def advance(self, seconds: float) -> None:
        self.clock.now += seconds


class TestDuckDBCache(ResponseCacheContract):
    def make_cache(self, tmp_path: Path, *, ttl: float | None = None) -> Any:
        self.clock = FakeClock()
        return DuckDBCache(tmp_path / "cache.duckdb", ttl=ttl, clock=self.clock)

    def advance(self, seconds: float) -> None:
        self.clock.now += seconds


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.mark.network_local
class TestRedisCache(ResponseCacheContract):
    @pytest.fixture(autouse=True)
    def _server(self, redis_url: str) -> Iterator[None]:
        self.url, self.prefix, self.made = redis_url, f"t{uuid.uuid4().hex[:12]}:", []
        yield
        for cache in self.made:
            cache.close()

    def make_cache(self, tmp_path: Path, *, ttl: float | None = None) -> Any:
        cache = RedisCache(self.url, prefix=self.prefix, ttl=ttl)
        self.made.append(cache)
        return cache

    def reopen(self, cache: Any, tmp_path: Path) -> Any:
        return self.make_cache(tmp_path)  # a second client, as another process or host has

    def advance(self, seconds: float) -> None:
        time.sleep(seconds)  # the server expires the key itself

    def test_prefixes_keep_caches_apart(self, tmp_path: Path) -> None:
        mine, theirs = self.make_cache(tmp_path), RedisCache(self.url, prefix=self.prefix + "other:")
        self.made.append(theirs)
        mine.set("k", ANSWER)
        assert theirs.get("k") is None
        theirs.clear()
        assert mine.get("k") is not None




def test_redis_cache_errors_name_the_server_and_the_setting() -> None:
    from ragkit.testing.servers import free_port

    cache = RedisCache(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    with pytest.raises(StoreError, match="the Redis cache at redis://127.0.0.1:.* failed to read"):
        cache.get("k")
    with pytest.raises(ConfigError, match="ttl must be positive"):
        RedisCache(ttl=0)
