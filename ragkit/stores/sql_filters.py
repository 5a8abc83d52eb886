"""Metadata filters compiled to SQL, once for every SQL store (duckdb, sqlite, pgvector).

The walk over a normalized filter (``ragkit.stores.filters``) is the same for every database; what
differs is how one condition reads in that database's JSON functions. A store gives a ``SQLDialect``
(four small functions and two constants) and calls ``compile_filter``; every value travels as a
parameter, never inside the SQL text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ragkit.errors import StoreError
from ragkit.stores.filters import Filter, check_supported

Fragment = tuple[str, list[Any]]
RANGE_SQL = {"$eq": "=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
_FIELD = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


def check_field(field: str) -> str:
    """``field`` if it is a safe metadata key name, else a ``StoreError`` that says what is allowed."""
    if not _FIELD.match(field):
        raise StoreError(f"invalid filter field name {field!r}: use letters, digits, '_', '-' and '.' only")
    return field


def json_path(field: str) -> str:
    """The JSON path ``$."field"`` of a checked field name (DuckDB and SQLite)."""
    return f'$."{check_field(field)}"'


def canonical_json(value: Any) -> str:
    """A list or object filter value as the JSON text the SQL stores compare a stored value with."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def needs_number_or_string(op: str, value: Any) -> StoreError:
    return StoreError(f"filter operator {op!r} needs a number or a string (got {value!r})")


@dataclass(frozen=True)
class SQLDialect:
    """How one database says each condition; ``key`` is what ``path`` made of the field name."""

    path: Callable[[str], Any]                    # field name -> key passed to the others
    eq: Callable[[Any, Any], Fragment]            # key, value
    compare: Callable[[Any, str, Any], Fragment]  # key, operator ($gt ...), number or string
    glob: Callable[[Any, str], Fragment]          # key, fnmatch pattern
    true_sql: str = "TRUE"
    false_sql: str = "FALSE"


def compile_filter(flt: Filter | None, supported: Iterable[str], store: str, dialect: SQLDialect) -> Fragment:
    """Return ``(where_sql, params)`` for ``flt``; ``dialect.true_sql`` when there is no filter."""
    norm = check_supported(flt, supported, store)
    parts: list[str] = []
    params: list[Any] = []
    for field, cond in norm.items():
        key = dialect.path(field)
        for op, value in cond.items():
            if op == "$eq":
                sql, p = dialect.eq(key, value)
            elif op == "$in":
                pieces = [dialect.eq(key, v) for v in value]
                sql = "(" + " OR ".join(s for s, _ in pieces) + ")" if pieces else dialect.false_sql
                p = [x for _, ps in pieces for x in ps]
            elif op == "$glob":
                sql, p = dialect.glob(key, str(value))
            else:
                sql, p = dialect.compare(key, op, value)
            parts.append(sql)
            params.extend(p)
    return (" AND ".join(parts) or dialect.true_sql), params
