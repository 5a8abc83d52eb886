"""Response caches: key, LRU, TTL, stats, thread safety, DuckDB persistence."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ragkit.cache import DuckDBCache, InMemoryCache, ResponseCache, cache_key
from ragkit.errors import ConfigError
from ragkit.messages import Message, Response, ToolCall, ToolSpec, Usage

MSGS = [Message(role="user", content="hi")]
SPEC = ToolSpec("search", "Search.", {"type": "object", "properties": {}})


def key(**overrides: object) -> str:
    args: dict = dict(provider="openai", model="gpt-4o", system_prompt="s", messages=MSGS, tools=[SPEC], temperature=0.0)
    args.update(overrides)
    return cache_key(**args)


def test_key_covers_every_input() -> None:
    base = key()
    assert len(base) == 64 and base == key()
    variants = [key(provider="anthropic"), key(model="gpt-4o-mini"), key(system_prompt="t"),
                key(messages=[Message(role="user", content="hello")]), key(tools=[]), key(temperature=0.5),
                key(params={"max_tokens": 5})]
    assert len({base, *variants}) == len(variants) + 1


def test_lru_eviction_ttl_and_stats() -> None:
    now = [0.0]
    cache = InMemoryCache(max_entries=2, ttl=10, clock=lambda: now[0])
    assert isinstance(cache, ResponseCache)
    cache.set("a", Response("A"))
    cache.set("b", Response("B"))
    assert cache.get("a") == Response("A")  # a is now most recent
    cache.set("c", Response("C"))  # evicts b
    assert cache.get("b") is None and cache.get("c") == Response("C")
    now[0] = 11
    assert cache.get("a") is None  # expired
    stats = cache.stats
    assert (stats.hits, stats.misses, stats.evictions) == (2, 2, 1) and stats.hit_rate == 0.5
    with pytest.raises(ConfigError, match="max_entries must be at least 1"):
        InMemoryCache(max_entries=0)


def test_in_memory_cache_is_thread_safe() -> None:
    cache = InMemoryCache(max_entries=50)
    start = threading.Barrier(4, timeout=10)

    def worker(n: int) -> None:
        start.wait()
        for i in range(500):
            cache.set(f"{n}-{i % 60}", Response(str(i)))
            cache.get(f"{(n + 1) % 4}-{i % 60}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50 and cache.stats.hits + cache.stats.misses == 2000


def test_duckdb_cache_persists_tool_calls_and_usage(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "responses.duckdb"
    response = Response("", tool_calls=(ToolCall("c1", "search", {"q": "x"}),), usage=Usage(5, 2),
                        model="gpt-4o", stop_reason="tool_calls")
    cache = DuckDBCache(path)
    cache.set("k", response)
    cache.close()
    reopened = DuckDBCache(path)
    assert reopened.get("k") == response and reopened.get("missing") is None
    assert reopened.stats.hits == 1 and reopened.stats.misses == 1 and len(reopened) == 1
    reopened.clear()
    assert len(reopened) == 0
    reopened.close()


def test_duckdb_cache_ttl_and_shared_connection(tmp_path: Path) -> None:
    import duckdb

    con = duckdb.connect(str(tmp_path / "catalog.duckdb"))
    now = [100.0]
    cache = DuckDBCache(connection=con, ttl=5, clock=lambda: now[0])
    cache.set("k", Response("v"))
    assert cache.get("k") == Response("v")
    now[0] = 106
    assert cache.get("k") is None
    with pytest.raises(ConfigError, match="exactly one of path"):
        DuckDBCache()
    con.close()
