"""The files of one segment (``ragkit.stores._segments``): its rows (ids and metadata, read
lazily: ``ragkit.stores._rows``), the 64-bit key of each id, and the helpers every payload writes
its files with."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragkit.stores import _persist
from ragkit.stores._rows import Rows, save_npy
from ragkit.stores.filters import matches


def id_keys(ids: Sequence[str]) -> np.ndarray:
    """A 64-bit hash per id (membership tests without holding the ids)."""
    out = np.empty(len(ids), dtype=np.uint64)
    for n, i in enumerate(ids):
        out[n] = int.from_bytes(hashlib.blake2b(i.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
    return out


class Payload(Protocol):
    """What a segment holds beside its rows (vectors, postings); immutable once built."""

    def __len__(self) -> int: ...

    def write(self, folder: Path) -> None: ...


class PayloadKind(Protocol):
    """Builds, loads and merges one kind of payload."""

    name: str

    def build(self, rows: list[Any]) -> Payload: ...

    def load(self, folder: Path, n: int) -> Payload: ...

    def merge(self, parts: Sequence[tuple[Payload, np.ndarray]], scratch: Path | None) -> tuple[Payload, np.ndarray | None]:
        """The live rows (``np.ndarray`` of row numbers per part) as one payload, and the order in
        which the concatenated rows are stored (None: as given). ``scratch``: a file the payload
        may write its bulk into (in the log's directory; ``write`` moves it into the segment)."""
        ...

    def unindexed(self, payload: Payload) -> bool:
        """Whether a merge of this payload alone would give it the search structure it lacks (a
        large sealed segment: its rows were persisted at once, not merged)."""
        ...


@dataclass
class Segment:
    name: str
    seq: int
    rows: Rows
    keys: np.ndarray  # id hash per row
    payload: Any
    #: rows hidden by tombstones (None until computed; None after computing = nothing dead)
    dead: np.ndarray | None = None
    dead_known: bool = False
    _sorted: np.ndarray | None = None
    #: per-segment caches of its readers (filter masks), valid as long as the segment (immutable)
    cache: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    def sorted_keys(self) -> np.ndarray:
        if self._sorted is None:
            self._sorted = np.sort(self.keys)
        return self._sorted

    def holds(self, keys: np.ndarray) -> np.ndarray:
        """Which of ``keys`` this segment may hold (a 64-bit hash match)."""
        s = self.sorted_keys()
        if not s.size or not keys.size:
            return np.zeros(keys.shape[0], dtype=bool)
        pos = np.minimum(np.searchsorted(s, keys), s.size - 1)
        return np.asarray(s[pos] == keys)

    def n_dead(self) -> int:
        return 0 if self.dead is None else int(self.dead.sum())

    def allowed(self, norm: Mapping[str, Any] | None) -> np.ndarray | None:
        """The live rows matching the normalized filter ``norm`` (None: every row), as a mask."""
        live = None if self.dead is None else ~self.dead
        if not norm:
            return live
        key = json.dumps(norm, sort_keys=True, default=repr)
        found = self.cache.get(key)
        if found is None:
            found = np.fromiter((matches(meta, norm) for _, meta in self.rows), dtype=bool, count=len(self))
            if len(self.cache) > 32:
                self.cache.pop(next(iter(self.cache)))
            self.cache[key] = found
        return found if live is None else (found & live)


#: the manifest and tombstone files are written as the single-file stores write theirs
write_json = _persist.write_json_atomic
fsync_dir = _persist.fsync_dir


def remove(p: Path) -> None:
    """Remove a file or a folder (best effort: a leftover is removed by a later commit)."""
    try:
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    except OSError:  # pragma: no cover - best effort
        pass




__all__ = ["Payload", "PayloadKind", "Rows", "Segment", "id_keys", "remove", "save_npy", "write_json", "fsync_dir"]
