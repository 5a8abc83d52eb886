"""The rows of a segment (``ragkit.stores._segment``): each row's id, metadata and, for a payload
that keeps one, its text, as one JSON line.

A segment folder keeps them in blocks of up to ``BLOCK_ROWS`` lines, each block compressed on its
own with zlib (``rows.z``; ``rows.blocks.npy`` holds each block's first row and byte offset), so
a row is read by decompressing its block, and a merge copies the blocks whose rows all survive
as they are (only blocks with dead rows are decompressed and written again). Text and JSON
metadata compress about 2.5×, and the store and the BM25 index each keep a copy.

Segments written before blocks keep ``rows.jsonl`` (one line per row) with ``rows.idx.npy``
(each line's offset); they are read as they are and rewritten as blocks when merged.
"""

from __future__ import annotations

import json
import os
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import StoreError

#: a block's rows: a hit reads (decompresses) one block; larger blocks compress better
BLOCK_ROWS = 64
#: zlib's fastest level: rows are compressed when a flush writes them (most merges copy blocks)
LEVEL = 1
BLOCKS_FILE = "rows.z"
BLOCK_INDEX = "rows.blocks.npy"
LEGACY_FILE = "rows.jsonl"
#: decompressed blocks each ``Rows`` keeps (a search reads a few rows per segment)
_CACHED_BLOCKS = 8


class Rows:
    """The ids and metadata of a segment's rows: in memory, a block file or a JSON-lines file."""

    def __init__(self, lines: list[bytes] | None = None, file: Path | None = None) -> None:
        self._lines = lines
        self._offsets: np.ndarray | None = None  # JSON lines: each line's offset
        self._starts: np.ndarray | None = None  # blocks: each block's first row (and the row count)
        self._ends: np.ndarray | None = None  # blocks: each block's byte offset (and the file's size)
        self._data: Any = None
        self._cache: dict[int, list[bytes]] = {}
        self._cache_lock = threading.Lock()
        if file is not None and file.name == BLOCKS_FILE:
            index = np.load(file.with_name(BLOCK_INDEX), allow_pickle=False)
            self._starts, self._ends = index[:, 0], index[:, 1]
            self._data = _map(file, int(self._ends[-1]))
        elif file is not None:
            self._offsets = np.load(file.with_suffix(".idx.npy"), allow_pickle=False)
            self._data = _map(file, int(self._offsets[-1]))

    @classmethod
    def open(cls, folder: Path) -> Rows:
        """The rows of the segment in ``folder`` (blocks, or an older segment's JSON lines)."""
        blocks = folder / BLOCKS_FILE
        return cls(file=blocks if blocks.is_file() or (folder / BLOCK_INDEX).is_file() else folder / LEGACY_FILE)

    @staticmethod
    def encode(doc_id: str, meta: Mapping[str, Any], *extra: Any) -> bytes:
        """One row as a JSON line (JSON escapes every newline: a line never holds a raw one)."""
        try:
            return json.dumps([doc_id, meta, *extra], ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        except (TypeError, ValueError) as exc:
            raise StoreError(f"metadata for {doc_id!r} is not JSON-serializable ({exc}); store strings, numbers, "
                             "booleans, None, lists and dicts only") from None

    def __len__(self) -> int:
        if self._lines is not None:
            return len(self._lines)
        if self._starts is not None:
            return int(self._starts[-1])
        return len(self._offsets) - 1  # type: ignore[arg-type]

    def line(self, i: int) -> bytes:
        if self._lines is not None:
            return self._lines[i]
        if self._starts is not None:
            b = int(np.searchsorted(self._starts, i, side="right")) - 1
            return self._block(b)[i - int(self._starts[b])]
        assert self._offsets is not None
        return bytes(self._data[int(self._offsets[i]) : int(self._offsets[i + 1])])

    def get(self, i: int) -> tuple[str, dict[str, Any]]:
        """The row's id and metadata."""
        doc = json.loads(self.line(i))
        return doc[0], doc[1]

    def record(self, i: int) -> list[Any]:
        """The whole row as written (``[id, metadata, ...]``: a payload may keep more, e.g. a text)."""
        return list(json.loads(self.line(i)))

    def lines(self) -> Iterator[bytes]:
        """Every row's line, in order (a block file: each block decompressed once)."""
        if self._starts is None:
            yield from (self.line(i) for i in range(len(self)))
            return
        for b in range(len(self._starts) - 1):
            yield from self._decode(b)

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for line in self.lines():
            doc = json.loads(line)
            yield doc[0], doc[1]

    def _decode(self, b: int) -> list[bytes]:
        assert self._ends is not None
        raw = bytes(self._data[int(self._ends[b]) : int(self._ends[b + 1])])
        return zlib.decompress(raw).split(b"\n")

    def _block(self, b: int) -> list[bytes]:
        with self._cache_lock:
            found = self._cache.get(b)
        if found is not None:
            return found
        found = self._decode(b)
        with self._cache_lock:
            if len(self._cache) >= _CACHED_BLOCKS:
                self._cache.pop(next(iter(self._cache)))
            self._cache[b] = found
        return found

    def live_blocks(self, live: np.ndarray) -> Iterator[tuple[int, bytes | None, list[bytes]]]:
        """This segment's ``live`` rows (sorted row numbers) block by block, for a merge:
        ``(rows, compressed block, [])`` for a block whose rows are all live (copied as it is),
        ``(rows, None, lines)`` for the live lines of any other block."""
        if self._starts is None or self._ends is None:
            for a in range(0, live.size, BLOCK_ROWS):
                part = live[a : a + BLOCK_ROWS]
                yield int(part.size), None, [self.line(int(i)) for i in part]
            return
        cuts = np.searchsorted(live, self._starts)
        for b in range(len(self._starts) - 1):
            n_live, size = int(cuts[b + 1] - cuts[b]), int(self._starts[b + 1] - self._starts[b])
            if n_live == size:
                yield size, bytes(self._data[int(self._ends[b]) : int(self._ends[b + 1])]), []
            elif n_live:
                lines = self._decode(b)
                first = int(self._starts[b])
                yield n_live, None, [lines[int(i) - first] for i in live[cuts[b] : cuts[b + 1]]]


def compress(lines: Sequence[bytes]) -> bytes:
    """One block of rows."""
    return zlib.compress(b"\n".join(lines), LEVEL)


def blocks_of(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """``lines`` as blocks of ``BLOCK_ROWS`` rows: (rows, compressed block)."""
    part: list[bytes] = []
    for line in lines:
        part.append(line)
        if len(part) == BLOCK_ROWS:
            yield len(part), compress(part)
            part = []
    if part:
        yield len(part), compress(part)


def merged_blocks(parts: Sequence[tuple[Rows, np.ndarray]]) -> Iterator[tuple[int, bytes]]:
    """The live rows of ``parts`` (rows, sorted live row numbers) concatenated, as blocks: whole
    live blocks copied, the other live lines gathered into new blocks."""
    pending: list[bytes] = []
    for rows, live in parts:
        for n, block, lines in rows.live_blocks(live):
            if block is not None:
                if pending:
                    yield len(pending), compress(pending)
                    pending = []
                yield n, block
                continue
            pending.extend(lines)
            while len(pending) >= BLOCK_ROWS:
                yield BLOCK_ROWS, compress(pending[:BLOCK_ROWS])
                pending = pending[BLOCK_ROWS:]
    if pending:
        yield len(pending), compress(pending)


def write_blocks(folder: Path, blocks: Iterable[tuple[int, bytes]]) -> None:
    """Write ``blocks`` (rows, compressed block) as the segment's rows, and fsync them."""
    index = [(0, 0)]
    with open(folder / BLOCKS_FILE, "wb") as fh:
        for n, block in blocks:
            fh.write(block)
            index.append((index[-1][0] + n, index[-1][1] + len(block)))
        fh.flush()
        os.fsync(fh.fileno())
    save_npy(folder / BLOCK_INDEX, np.asarray(index, dtype=np.int64))


def save_npy(file: Path, arr: np.ndarray) -> None:
    """Write ``arr`` to ``file`` and fsync it."""
    with open(file, "wb") as fh:
        np.save(fh, arr, allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())


def _map(file: Path, size: int) -> Any:
    return np.memmap(file, dtype=np.uint8, mode="r", shape=(size,)) if size else np.empty(0, np.uint8)


__all__ = ["BLOCK_ROWS", "Rows", "blocks_of", "compress", "merged_blocks", "save_npy", "write_blocks"]
