"""Response caches for the agent: in-memory LRU with TTL, a persistent DuckDB table, and Redis
(or Valkey) shared by several processes and hosts.

The agent consults the cache for ``complete()`` calls only (streaming bypasses it). The key is
the SHA-256 of (provider name, model, system prompt, messages, tools, temperature and the other
generation parameters), so any change to what the model would see is a miss. A hit still counts
its tokens in the run's usage, at zero cost.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ragkit.errors import ConfigError, MissingDependencyError, StoreError
from ragkit.messages import Message, Response, ToolCall, ToolSpec, Usage

Clock = Callable[[], float]


@dataclass(frozen=True)
class CacheStats:
    hits: int = 0
    misses: int = 0
    size: int = 0
    evictions: int = 0

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "hit_rate": self.hit_rate}


@runtime_checkable
class ResponseCache(Protocol):
    """What the agent needs from a cache."""

    def get(self, key: str) -> Response | None: ...

    def set(self, key: str, response: Response) -> None: ...

    def clear(self) -> None: ...

    @property
    def stats(self) -> CacheStats: ...


def cache_key(
    *,
    provider: str,
    model: str,
    system_prompt: str | None,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None,
    temperature: float | None,
    params: dict[str, Any] | None = None,
) -> str:
    """SHA-256 hex of everything that determines a completion."""
    payload = {
        "provider": provider,
        "model": model,
        "system": system_prompt,
        "messages": [m.to_dict() for m in messages],
        "tools": [asdict(t) for t in tools or ()],
        "temperature": temperature,
        "params": params or {},
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def response_to_dict(response: Response) -> dict[str, Any]:
    return asdict(response)


def response_from_dict(data: dict[str, Any]) -> Response:
    calls = tuple(ToolCall(**c) for c in data.get("tool_calls", ()))
    usage = Usage(**data.get("usage", {}))
    return Response(
        content=data.get("content", ""), tool_calls=calls, usage=usage,
        model=data.get("model", ""), stop_reason=data.get("stop_reason", "stop"),
    )


class InMemoryCache:
    """Thread-safe LRU cache with optional time-to-live (seconds)."""

    def __init__(self, *, max_entries: int = 1024, ttl: float | None = None, clock: Clock = time.monotonic) -> None:
        if max_entries < 1:
            raise ConfigError(f"max_entries must be at least 1 (got {max_entries})")
        if ttl is not None and ttl <= 0:
            raise ConfigError(f"ttl must be positive seconds or None for no expiry (got {ttl})")
        self.max_entries = max_entries
        self.ttl = ttl
        self._clock = clock
        self._data: OrderedDict[str, tuple[float, Response]] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = self._evictions = 0

    def get(self, key: str) -> Response | None:
        with self._lock:
            item = self._data.get(key)
            if item is not None and self.ttl is not None and self._clock() - item[0] > self.ttl:
                del self._data[key]
                item = None
            if item is None:
                self._misses += 1
                return None
            self._data.move_to_end(key)
            self._hits += 1
            return item[1]

    def set(self, key: str, response: Response) -> None:
        with self._lock:
            self._data[key] = (self._clock(), response)
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)
                self._evictions += 1

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)

    @property
    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._hits, self._misses, len(self._data), self._evictions)


class DuckDBCache:
    """Persistent cache in a DuckDB file (or a table in an existing connection, e.g. the catalog)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        connection: Any = None,
        table: str = "response_cache",
        ttl: float | None = None,
        clock: Clock = time.time,
    ) -> None:
        if (path is None) == (connection is None):
            raise ConfigError("DuckDBCache needs exactly one of path= (a .duckdb file) or connection=")
        if not table.isidentifier():
            raise ConfigError(f"cache table name must be an identifier (got {table!r})")
        import duckdb

        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._con = connection if connection is not None else duckdb.connect(str(path))
        self._owns = connection is None
        self.table, self.ttl, self._clock = table, ttl, clock
        self._lock = threading.Lock()
        self._hits = self._misses = 0
        with self._lock:
            self._con.execute(
                f"CREATE TABLE IF NOT EXISTS {table} (key VARCHAR PRIMARY KEY, value VARCHAR, created DOUBLE)"
            )

    def get(self, key: str) -> Response | None:
        with self._lock:
            row = self._con.execute(f"SELECT value, created FROM {self.table} WHERE key = ?", [key]).fetchone()
            if row is not None and self.ttl is not None and self._clock() - row[1] > self.ttl:
                self._con.execute(f"DELETE FROM {self.table} WHERE key = ?", [key])
                row = None
            if row is None:
                self._misses += 1
                return None
            self._hits += 1
        return response_from_dict(json.loads(row[0]))

    def set(self, key: str, response: Response) -> None:
        value = json.dumps(response_to_dict(response), ensure_ascii=False)
        with self._lock:
            self._con.execute(
                f"INSERT OR REPLACE INTO {self.table} VALUES (?, ?, ?)", [key, value, self._clock()]
            )

    def clear(self) -> None:
        with self._lock:
            self._con.execute(f"DELETE FROM {self.table}")

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0])

    @property
    def stats(self) -> CacheStats:
        return CacheStats(self._hits, self._misses, len(self))

    def close(self) -> None:
        if self._owns:
            with self._lock:
                self._con.close()


class RedisCache:
    """A cache in Redis or Valkey (``ragkit[redis]``), shared by every process and host that uses
    the same server and ``prefix``. Entries expire on the server after ``ttl`` seconds (None: never).
    ``stats`` counts this instance's hits and misses; ``size`` is the number of entries under the
    prefix on the server.

        cache = RedisCache("redis://cache-host:6379/0", ttl=3600)
    """

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, prefix: str = "ragkit:response:",
                 ttl: float | None = None, client: Any = None) -> None:
        if ttl is not None and ttl <= 0:
            raise ConfigError(f"ttl must be positive seconds or None for no expiry (got {ttl})")
        if not prefix:
            raise ConfigError("RedisCache needs a non-empty key prefix (clear() deletes every key under it)")
        if client is None:
            try:
                import redis
            except ImportError as exc:
                raise MissingDependencyError("redis", "redis", "the Redis response cache") from exc
            client = redis.Redis.from_url(url)
        self._client, self.url, self.prefix, self.ttl = client, url, prefix, ttl
        self._lock = threading.Lock()
        self._hits = self._misses = 0

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as exc:
            if type(exc).__module__.startswith("redis"):
                raise StoreError(f"the Redis cache at {self.url} failed to {what}: {exc}; is the server running?") from exc
            raise

    def get(self, key: str) -> Response | None:
        raw = self._call("read", lambda: self._client.get(self.prefix + key))
        with self._lock:
            if raw is None:
                self._misses += 1
                return None
            self._hits += 1
        return response_from_dict(json.loads(raw))

    def set(self, key: str, response: Response) -> None:
        value = json.dumps(response_to_dict(response), ensure_ascii=False)
        px = None if self.ttl is None else max(1, int(self.ttl * 1000))
        self._call("write", lambda: self._client.set(self.prefix + key, value, px=px))

    def _keys(self) -> list[Any]:
        return list(self._call("list keys", lambda: list(self._client.scan_iter(match=self.prefix + "*", count=500))))

    def clear(self) -> None:
        keys = self._keys()
        for i in range(0, len(keys), 500):
            self._call("delete", lambda batch=keys[i:i + 500]: self._client.delete(*batch))

    def __len__(self) -> int:
        return len(self._keys())

    @property
    def stats(self) -> CacheStats:
        size = len(self)
        with self._lock:
            return CacheStats(self._hits, self._misses, size)

    def close(self) -> None:
        self._client.close()


__all__ = [
    "CacheStats",
    "DuckDBCache",
    "RedisCache",
    "InMemoryCache",
    "ResponseCache",
    "cache_key",
    "response_from_dict",
    "response_to_dict",
]
