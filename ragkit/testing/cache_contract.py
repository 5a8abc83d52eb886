"""``ResponseCacheContract``: the conformance suite every response cache passes.

A pytest mixin; a backend's test class builds the cache (``make_cache``), says how time passes
for it (``advance``: move an injected clock, or sleep for a server-side TTL) and may return a
second instance over the same data (``reopen``: another process or host would have one)::

    class TestRedis(ResponseCacheContract):
        def make_cache(self, tmp_path, *, ttl=None):
            return RedisCache(self.url, prefix=f"t{uuid.uuid4().hex}:", ttl=ttl)
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from ragkit.cache import ResponseCache
from ragkit.messages import Response, ToolCall, Usage
from ragkit.testing.threads import run_in_threads

ANSWER = Response("Refunds take 5 days [1].", usage=Usage(12, 7), model="gpt-4o-mini")
TOOL_TURN = Response("", tool_calls=(ToolCall("c1", "search", {"query": "refunds", "top_k": 3}),),
                     usage=Usage(5, 2), model="gpt-4o-mini", stop_reason="tool_calls")


class ResponseCacheContract:
    def make_cache(self, tmp_path: Path, *, ttl: float | None = None) -> Any:
        raise NotImplementedError

    def advance(self, seconds: float) -> None:
        raise NotImplementedError

    def reopen(self, cache: Any, tmp_path: Path) -> Any | None:
        return None

    def test_is_a_response_cache(self, tmp_path: Path) -> None:
        assert isinstance(self.make_cache(tmp_path), ResponseCache)

    def test_round_trip_miss_and_stats(self, tmp_path: Path) -> None:
        cache = self.make_cache(tmp_path)
        assert cache.get("k1") is None
        cache.set("k1", ANSWER)
        cache.set("k2", TOOL_TURN)
        assert cache.get("k1") == ANSWER and cache.get("k2") == TOOL_TURN
        stats = cache.stats
        assert (stats.hits, stats.misses, stats.size) == (2, 1, 2) and stats.hit_rate == 2 / 3
        cache.set("k1", TOOL_TURN)  # overwrite
        assert cache.get("k1") == TOOL_TURN

    def test_clear(self, tmp_path: Path) -> None:
        cache = self.make_cache(tmp_path)
        for i in range(5):
            cache.set(f"k{i}", ANSWER)
        cache.clear()
        assert cache.stats.size == 0 and cache.get("k0") is None

    def test_entries_expire_after_ttl(self, tmp_path: Path) -> None:
        cache = self.make_cache(tmp_path, ttl=0.3)
        cache.set("k", ANSWER)
        assert cache.get("k") == ANSWER
        self.advance(0.6)
        assert cache.get("k") is None

    def test_shared_by_another_instance(self, tmp_path: Path) -> None:
        cache = self.make_cache(tmp_path)
        other = self.reopen(cache, tmp_path)
        if other is None:
            return
        cache.set("k", TOOL_TURN)
        assert other.get("k") == TOOL_TURN

    def test_concurrent_use(self, tmp_path: Path) -> None:
        cache = self.make_cache(tmp_path)

        def work(n: int) -> None:
            for i in range(50):
                cache.set(f"{n}-{i}", Response(f"{n}-{i}"))
                got = cache.get(f"{n}-{i}")
                assert got is not None and got.content == f"{n}-{i}"

        errors = run_in_threads(partial(work, n) for n in range(4))
        assert not errors and cache.stats.hits >= 200

    def test_the_agent_answers_a_repeated_question_from_the_cache(self, tmp_path: Path) -> None:
        from ragkit.agent import Agent, AgentConfig
        from ragkit.testing.scripted import ScriptedProvider

        cache = self.make_cache(tmp_path)
        provider = ScriptedProvider(["Paris."])
        agent = Agent(provider, config=AgentConfig(cache=cache))
        assert agent.run("Capital of France?").content == "Paris."
        again = agent.run("Capital of France?")  # the script has no second turn: only the cache can answer
        assert again.content == "Paris." and again.trace.of_type("cache_hit") and len(provider.calls) == 1
