"""``chroma`` store: a Chroma collection, embedded (``PersistentClient``) or over HTTP.

Options (pipeline YAML): ``mode: embedded | http`` (default embedded, in the store's directory),
``host`` and ``port`` for http mode, ``collection`` (default ``ragkit``). Telemetry is always off.
The collection uses the cosine space, so ``score = 1 - distance``; Chroma's HNSW makes results
approximate.

Chroma metadata holds only str/int/float/bool, so other values (lists, dicts, ``None``) are stored
as JSON strings and the names of those keys under ``_ragkit_json``; they are decoded on the way
out, and equality filters on them compare the same JSON text. Range operators work on numbers
only (a Chroma limit); ``$glob`` is not supported.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import ConfigError, MissingDependencyError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import Capabilities, check_query, check_vectors
from ragkit.stores.filters import Filter, check_supported
from ragkit.types import SearchHit
from ragkit.wiring import keyword_options

log = logging.getLogger(__name__)

NAME = "chroma"
FILTER_OPS = frozenset({"$eq", "$in", "$gt", "$gte", "$lt", "$lte"})
JSON_KEYS = "_ragkit_json"
DIM_KEY = "ragkit_dimension"
_COLLECTION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$")
_PLAIN = (str, int, float, bool)


def encode_metadata(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """Chroma-storable metadata: non-scalar values become JSON text, listed under ``_ragkit_json``."""
    out: dict[str, Any] = {}
    encoded: list[str] = []
    for key, value in meta.items():
        if isinstance(value, _PLAIN):
            out[key] = value
        else:
            out[key] = _dumps(value)
            encoded.append(key)
    if encoded:
        out[JSON_KEYS] = _dumps(encoded)
    return out or None


def decode_metadata(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    out = dict(meta or {})
    for key in json.loads(out.pop(JSON_KEYS, "[]")):
        out[key] = json.loads(out[key])
    return out


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"chroma: metadata must be JSON-serializable ({exc}); got {value!r}") from exc


def _scalar(value: Any) -> Any:
    return value if isinstance(value, _PLAIN) else _dumps(value)


def compile_where(flt: Filter | None) -> dict[str, Any] | None:
    """Translate a ragkit filter into a Chroma ``where``; ``None`` means no filter.

    Raises ``_NoMatch`` for a filter that cannot match anything (an empty ``$in``).
    """
    norm = check_supported(flt, FILTER_OPS, NAME)
    clauses: list[dict[str, Any]] = []
    for field, cond in norm.items():
        for op, value in cond.items():
            if op == "$in":
                values = [_scalar(v) for v in value]
                if not values:
                    raise _NoMatch
                clauses.append(_in_clause(field, values))
            elif op == "$eq":
                clauses.append({field: {"$eq": _scalar(value)}})
            else:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise StoreError(f"the chroma store compares numbers only: {op!r} on field "
                                     f"{field!r} got {value!r}; use a number or another store")
                clauses.append({field: {op: value}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _in_clause(field: str, values: list[Any]) -> dict[str, Any]:
    kinds = {type(v) for v in values}
    if len(kinds) == 1:
        return {field: {"$in": values}}
    eqs = [{field: {"$eq": v}} for v in values]  # Chroma wants one type per $in list
    return {"$or": eqs}


class _NoMatch(Exception):
    """The filter matches nothing; no need to ask Chroma."""


@stores.register(NAME)
class ChromaStore:
    """A Chroma collection (``type: chroma``), embedded or remote."""

    @keyword_options("store", "chroma")
    def __init__(
        self, *, dimension: int, path: Path | None = None, collection: str = "ragkit", host: str = "localhost",
        mode: str = "embedded", port: int | str = 8000,
    ) -> None:
        self._opts = _validate_options({"mode": mode, "host": host, "port": port, "collection": collection})
        if dimension < 1:
            raise StoreError(f"dimension must be at least 1 (got {dimension})")
        self.dimension = dimension
        self._path = Path(path) if path is not None else None
        self._closed = False
        self._lock = threading.Lock()
        self._client = self._make_client()
        self._collection = self._open_collection()
        max_batch = int(self._call("get_max_batch_size", self._client.get_max_batch_size))
        self.capabilities = Capabilities(
            filter_ops=FILTER_OPS, max_batch=max_batch,
            persistent=self._opts["mode"] == "http" or self._path is not None, approximate=True,
        )

    # -- setup -----------------------------------------------------------------------------
    def _make_client(self) -> Any:
        try:
            import chromadb
            from chromadb.config import Settings
        except ImportError as exc:
            raise MissingDependencyError("chromadb", "chroma", "the chroma store") from exc
        settings = Settings(anonymized_telemetry=False)
        if self._opts["mode"] == "http":
            host, port = self._opts["host"], self._opts["port"]
            try:
                return chromadb.HttpClient(host=host, port=port, settings=settings)
            except Exception as exc:  # noqa: BLE001 - chromadb raises several kinds here
                raise StoreError(
                    f"chroma: cannot reach the chroma server at {host}:{port} ({exc}); start it "
                    f"(`chroma run --host {host} --port {port}`) or fix the store's host/port options"
                ) from exc
        if self._path is None:
            return chromadb.EphemeralClient(settings=settings)
        self._path.mkdir(parents=True, exist_ok=True)
        return self._call("open", lambda: chromadb.PersistentClient(path=str(self._path), settings=settings))

    def _open_collection(self) -> Any:
        name = self._opts["collection"]
        col = self._call("open collection", lambda: self._client.get_or_create_collection(
            name, configuration={"hnsw": {"space": "cosine"}},
            metadata={DIM_KEY: self.dimension}, embedding_function=None))
        have = (col.metadata or {}).get(DIM_KEY, self.dimension)
        space = ((col.configuration or {}).get("hnsw") or {}).get("space", "cosine")
        if have != self.dimension:
            raise StoreError(
                f"chroma: collection {name!r} holds {have}-d vectors but the store was opened with "
                f"dimension {self.dimension}; use the embedder the index was built with, or another collection"
            )
        if space != "cosine":
            raise StoreError(f"chroma: collection {name!r} uses the {space!r} space; ragkit needs "
                             f"'cosine' (use another collection name)")
        return col

    def _call(self, what: str, fn: Any) -> Any:
        if self._closed:
            raise StoreError("chroma: the store is closed; open a new one")
        try:
            return fn()
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - chromadb's errors have no common base
            where = (f"{self._opts['host']}:{self._opts['port']}" if self._opts["mode"] == "http"
                     else str(self._path or "memory"))
            raise StoreError(f"chroma: {what} failed ({where}): {type(exc).__name__}: {exc}") from exc

    # -- VectorStore -----------------------------------------------------------------------
    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> None:
        x = check_vectors(vectors, self.dimension, len(ids), NAME)
        if len(metadata) != len(ids):
            raise StoreError(f"chroma: got {len(ids)} ids but {len(metadata)} metadata dicts")
        last = {str(i): n for n, i in enumerate(ids)}  # duplicate ids in one call: the last one wins
        keep = sorted(last.values())
        size = self.capabilities.max_batch or len(keep)
        with self._lock:
            for start in range(0, len(keep), size):
                part = keep[start:start + size]
                part_ids = [str(ids[n]) for n in part]
                metas = self._replacing([encode_metadata(metadata[n]) for n in part], part_ids)
                self._call("upsert", lambda ids_=part_ids, x_=x[part], m_=metas: self._collection.upsert(
                    ids=ids_, embeddings=x_, metadatas=m_))

    def _replacing(self, metas: list[dict[str, Any] | None], ids: list[str]) -> list[dict[str, Any] | None]:
        """Chroma's upsert merges metadata; setting the old keys to None makes it a replacement."""
        old = self._call("get", lambda: self._collection.get(ids=ids, include=["metadatas"]))
        previous = dict(zip(old["ids"], old["metadatas"] or [], strict=True))
        out: list[dict[str, Any] | None] = []
        for i, meta in zip(ids, metas, strict=True):
            stale = set(previous.get(i) or {}) - set(meta or {})
            out.append({**dict.fromkeys(stale), **(meta or {})} or None)
        return out

    def search(self, vector: np.ndarray, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        q = check_query(vector, self.dimension, k, NAME)
        try:
            where = compile_where(filter)
        except _NoMatch:
            return []
        n = min(k, self.count())
        if n == 0:
            return []
        res = self._call("query", lambda: self._collection.query(
            query_embeddings=q.reshape(1, -1), n_results=n, where=where, include=["metadatas", "distances"]))
        ids, dists, metas = res["ids"][0], res["distances"][0], res["metadatas"][0]
        hits = [SearchHit(id=i, score=1.0 - float(d), metadata=decode_metadata(m))
                for i, d, m in zip(ids, dists, metas, strict=True)]
        return sorted(hits, key=lambda h: -h.score)

    def delete(self, ids: Sequence[str]) -> None:
        unique = list(dict.fromkeys(str(i) for i in ids))
        size = self.capabilities.max_batch or len(unique) or 1
        with self._lock:
            for start in range(0, len(unique), size):
                part = unique[start:start + size]
                self._call("delete", lambda part=part: self._collection.delete(ids=part))

    def clear(self) -> None:
        self.delete(sorted(self.ids()))

    def ids(self) -> set[str]:
        out: set[str] = set()
        size = self.capabilities.max_batch or 5000
        offset = 0
        while True:
            got = self._call("get", lambda offset=offset: self._collection.get(
                include=[], limit=size, offset=offset))["ids"]
            out.update(got)
            if len(got) < size:
                return out
            offset += size

    def count(self) -> int:
        return int(self._call("count", self._collection.count))

    def persist(self) -> None:
        """Chroma writes through on every call; nothing to flush."""

    def close(self) -> None:
        self._closed = True
        self._collection = None
        self._client = None

    def __repr__(self) -> str:
        return f"ChromaStore(dimension={self.dimension}, mode={self._opts['mode']!r})"


def _validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    opts = dict(options)
    if opts["mode"] not in ("embedded", "http"):
        raise ConfigError(f"chroma option mode must be 'embedded' or 'http' (got {opts['mode']!r})")
    port = opts["port"]
    if isinstance(port, str) and port.isdigit():
        port = opts["port"] = int(port)
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise ConfigError(f"chroma option port must be a TCP port number 1-65535 (got {port!r})")
    if not isinstance(opts["host"], str) or not opts["host"]:
        raise ConfigError(f"chroma option host must be a host name (got {opts['host']!r})")
    if not isinstance(opts["collection"], str) or not _COLLECTION.match(opts["collection"]):
        raise ConfigError(
            f"chroma option collection must be 3-512 characters of letters, digits, '.', '_' or '-', "
            f"starting and ending with a letter or digit (got {opts['collection']!r})"
        )
    return opts
