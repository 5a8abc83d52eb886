"""The keys of the texts one model's embedding cache holds, kept in memory by the writing catalog.

A lookup of a batch's texts in the cache, and the insert of the vectors it lacked, each scanned the
cache's whole hash column in DuckDB: per call of 256 texts, 15 ms of CPU at 100,000 cached texts
and 68 ms at a million for the lookup, 26 and 88 ms for the insert (an anti-join), so a chunk's
cost grew with the index. With the keys here (the first 64 bits of each text hash, 8 bytes a
text, read once per run when the cache is first asked), a lookup asks DuckDB only for the texts
whose key the cache may hold (none, when a build adds new texts), and an insert of texts the
lookup found missing is a plain ``INSERT``. A key held may (very rarely) be another text: DuckDB
has the last word on those.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

#: keys added since the last fold are a set; past this many they join the sorted array
FOLD = 65_536


def key_of(text_hash: str) -> int:
    """The 64-bit key of a text hash: its first 16 hex digits (a hash that is not hex, as a test's
    own, is hashed)."""
    try:
        return int(text_hash[:16], 16) & 0xFFFF_FFFF_FFFF_FFFF
    except ValueError:
        return int.from_bytes(hashlib.blake2b(text_hash.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


class CacheKeys:
    """The keys of one model's cached texts: a sorted array, plus a set of those added since."""

    def __init__(self, keys: np.ndarray, *, fold: int = FOLD) -> None:
        self._sorted = np.sort(np.asarray(keys, dtype=np.uint64))
        self._recent: set[int] = set()
        self._fold = fold

    def __len__(self) -> int:
        return int(self._sorted.shape[0]) + len(self._recent)

    def may_hold(self, keys: Iterable[int]) -> list[bool]:
        """For each key: whether the cache may hold its text (False: it certainly does not)."""
        wanted = list(keys)
        if not wanted:
            return []
        arr = np.fromiter(wanted, dtype=np.uint64, count=len(wanted))
        s = self._sorted
        if s.size:
            pos = np.minimum(np.searchsorted(s, arr), s.size - 1)
            held = (s[pos] == arr).tolist()
        else:
            held = [False] * len(wanted)
        return [h or k in self._recent for h, k in zip(held, wanted, strict=True)]

    def add(self, keys: Iterable[int]) -> None:
        """Keys of texts just put into the cache."""
        self._recent.update(keys)
        if len(self._recent) >= self._fold:
            new = np.fromiter(self._recent, dtype=np.uint64, count=len(self._recent))
            new.sort()
            self._sorted = np.insert(self._sorted, np.searchsorted(self._sorted, new), new)
            self._recent = set()


__all__ = ["FOLD", "CacheKeys", "key_of"]
