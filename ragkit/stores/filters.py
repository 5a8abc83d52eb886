"""Metadata filters, one small language shared by every store and retriever.

A filter is a dict of ``field -> condition``; all fields must match (AND). A condition is either
a plain value (equality) or a dict of operators::

    {"source": "guide.md"}                       # equality
    {"source": {"$in": ["a.md", "b.md"]}}        # membership
    {"page": {"$gte": 2, "$lt": 5}}              # numeric range
    {"source": {"$glob": "docs/*.md"}}           # shell-style glob (stores that support it)

Stores declare which operators they support in ``Capabilities.filter_ops``; a filter that uses
anything else is rejected with ``StoreError`` instead of being silently ignored.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

from ragkit.errors import StoreError

Filter = Mapping[str, Any]
ALL_OPS = frozenset({"$eq", "$in", "$gt", "$gte", "$lt", "$lte", "$glob"})
_RANGE = {"$gt": lambda a, b: a > b, "$gte": lambda a, b: a >= b,
          "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b}


def normalize(flt: Filter | None) -> dict[str, dict[str, Any]]:
    """Return ``{field: {op: value}}``; plain values become ``$eq``. Validates shape."""
    if not flt:
        return {}
    if not isinstance(flt, Mapping):
        raise StoreError(f"a filter must be a mapping of field -> condition (got {flt!r})")
    out: dict[str, dict[str, Any]] = {}
    for key, cond in flt.items():
        if isinstance(cond, Mapping):
            for op, val in cond.items():
                if op not in ALL_OPS:
                    raise StoreError(
                        f"unknown filter operator {op!r} on field {key!r}; "
                        f"allowed: {', '.join(sorted(ALL_OPS))}"
                    )
                if op == "$in" and (isinstance(val, (str, bytes)) or not isinstance(val, Iterable)):
                    raise StoreError(f"'$in' on field {key!r} needs a list (got {val!r})")
            out[key] = dict(cond)
        else:
            out[key] = {"$eq": cond}
    return out


def check_supported(flt: Filter | None, supported: Iterable[str], store: str) -> dict[str, dict[str, Any]]:
    """Normalize ``flt`` and raise if it uses an operator the store cannot evaluate."""
    norm = normalize(flt)
    allowed = set(supported)
    for key, cond in norm.items():
        for op in cond:
            if op not in allowed:
                raise StoreError(
                    f"the {store} store does not support the filter operator {op!r} "
                    f"(field {key!r}); it supports: {', '.join(sorted(allowed)) or 'no filters'}"
                )
    return norm


def matches(metadata: Mapping[str, Any], norm: Mapping[str, Mapping[str, Any]]) -> bool:
    """Evaluate a normalized filter against one metadata dict (reference semantics)."""
    for key, cond in norm.items():
        if key not in metadata:
            return False
        have = metadata[key]
        for op, want in cond.items():
            if op == "$eq" and have != want:
                return False
            if op == "$in" and have not in list(want):
                return False
            if op == "$glob" and not fnmatch.fnmatchcase(str(have), str(want)):
                return False
            if op in _RANGE:
                try:
                    if not _RANGE[op](have, want):
                        return False
                except TypeError:
                    return False
    return True
