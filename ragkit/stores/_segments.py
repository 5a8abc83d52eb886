"""Append-only segments, tombstones and background merges: the layout of the faiss store's
``auto``/``flat`` indexes and of the BM25 index, so a flush costs what it adds.

A ``SegmentLog`` owns a directory::

    segments.json    the manifest: format, kind, seq, segments (name, seq, rows), tombstones
    s000012/         one immutable segment: rows.z + rows.blocks.npy (id and metadata per row, in
                     compressed blocks: ``ragkit.stores._rows``), keys.npy (a 64-bit hash of each
                     id), and the payload's own files
    t000015.json     the ids deleted (or replaced) by the commit of seq 15

Writes (``add``/``delete``) collect in memory; ``persist`` seals them into one new segment and one
tombstone file, then atomically replaces the manifest (``seq`` + 1). Nothing already written is
rewritten, so a commit costs what it adds. A tombstone of seq ``t`` hides the rows with its ids
in every segment of seq < ``t`` (an upsert writes the new row and tombstones the old one in the
same commit). Reading merges the segments' answers.

Segments pile up, so a background thread at low priority (niceness 19: it takes the CPU the
writer leaves) merges them (tiered: ``merge_factor`` segments of one
size class into one; a segment with many dead rows is rewritten alone): it writes the merged
segment from a snapshot, then swaps it into the manifest; searches never wait for it. Merged
segments get the payload's search structure (an IVF index for vectors). A kill at any instant
leaves the previous manifest and complete, immutable files; folders and files the manifest does
not name are removed by the next commit.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import StoreDamagedError, StoreError
from ragkit.stores._rows import blocks_of, merged_blocks, write_blocks
from ragkit.stores._segment import (
    Payload,
    PayloadKind,
    Rows,
    Segment,
    fsync_dir,
    id_keys,
    remove,
    save_npy,
    write_json,
)

log = logging.getLogger(__name__)

MANIFEST = "segments.json"
#: the manifest's format: 3 keeps rows in compressed blocks; a format 2 log (rows as JSON lines) is
#: read as it is, and its segments become blocks as they are merged
FORMAT = 3
READ_FORMATS = (2, 3)
#: merge this many segments of one size class into one
MERGE_FACTOR = 8
#: a segment whose dead rows exceed this share is rewritten alone
DEAD_RATIO = 0.3
#: the smallest size class (rows): smaller segments all count as this one
BASE_ROWS = 1024
#: no merge writes a segment of more rows (as Lucene's maximum merged segment size): a merge's time
#: and memory stay bounded whatever the index's size, and one added file never pays for a cascade
#: that rewrites the whole index; segments near the cap are final (search visits each, cheaply)
MAX_MERGED_ROWS = 262_144
#: unpersisted rows of a store without a path are sealed into a segment at this size
SEAL_ROWS = 50_000


@dataclass
class _Tomb:
    seq: int
    ids: list[str]
    keys: np.ndarray


class SegmentLog:
    """Segments of one payload kind in ``path`` (or in memory when ``path`` is None)."""

    def __init__(
        self, path: Path | None, kind: PayloadKind, *, header: Mapping[str, Any], label: str,
        merge_factor: int = MERGE_FACTOR, background: bool = True, max_merged_rows: int = MAX_MERGED_ROWS,
    ) -> None:
        self.path, self.kind, self.header, self.label = path, kind, dict(header), label
        self.merge_factor = merge_factor
        self.max_merged_rows = max_merged_rows
        self.background = background
        self.seq = 0
        self._next = 1
        self.segments: list[Segment] = []
        self._tombs: list[_Tomb] = []
        self._pending: dict[str, tuple[bytes, Any]] = {}  # id -> (row line, payload row)
        self._pending_dead: dict[str, None] = {}  # ids to tombstone at the next commit
        self._pending_seg: Segment | None = None
        self._lock = threading.RLock()  # the in-memory state
        self._manifest_lock = threading.Lock()
        self._merger: threading.Thread | None = None
        self._stop = threading.Event()
        self._reserved: set[str] = set()
        self._force = False  # reset(): the next persist writes a manifest even with nothing pending
        self.merge_error: BaseException | None = None
        if path is not None and (path / MANIFEST).is_file():
            self._open()

    # ------------------------------------------------------------------ opening
    def _open(self) -> None:
        assert self.path is not None
        for attempt in range(3):  # a concurrent merge may remove files between reading the manifest and them
            try:
                self._load(json.loads((self.path / MANIFEST).read_text(encoding="utf-8")))
                return
            except FileNotFoundError as exc:
                if attempt == 2:
                    raise StoreDamagedError(f"the {self.label} at {self.path} is damaged ({Path(str(exc.filename)).name} "
                                            f"is missing); {StoreDamagedError.HINT}") from None
            except (OSError, ValueError, KeyError) as exc:
                raise StoreDamagedError(f"the {self.label} at {self.path} is damaged (cannot read it: {exc}); "
                                        f"{StoreDamagedError.HINT}") from None

    def _load(self, manifest: Mapping[str, Any]) -> None:
        assert self.path is not None
        if manifest.get("format") not in READ_FORMATS or manifest.get("kind") != self.kind.name:
            raise StoreError(f"{self.path} holds a {manifest.get('kind')!r} segment log (format "
                             f"{manifest.get('format')}), not {self.kind.name!r}")
        self.stored_header = dict(manifest.get("header") or {})
        self.seq, self._next = int(manifest["seq"]), int(manifest["next"])
        segments = []
        for s in manifest["segments"]:
            folder = self.path / s["name"]
            rows = Rows.open(folder)
            if len(rows) != int(s["rows"]):
                raise ValueError(f"{s['name']} holds {len(rows)} rows, the manifest says {s['rows']}")
            keys = np.load(folder / "keys.npy", mmap_mode="r")
            segments.append(Segment(s["name"], int(s["seq"]), rows, keys, self.kind.load(folder, len(rows))))
        tombs = []
        for t in manifest["tombstones"]:
            ids = json.loads((self.path / t["file"]).read_text(encoding="utf-8"))
            tombs.append(_Tomb(int(t["seq"]), ids, id_keys(ids)))
        self.segments, self._tombs = segments, tombs

    # ------------------------------------------------------------------ writes
    def add(self, ids: Sequence[str], lines: Sequence[bytes], rows: Sequence[Any]) -> None:
        keys = id_keys(ids)
        with self._lock:
            self._tombstone_sealed(ids, keys)
            for doc_id, line, row in zip(ids, lines, rows, strict=True):
                self._pending.pop(doc_id, None)  # re-added: moves to the end
                self._pending[doc_id] = (line, row)
            self._pending_seg = None
        if self.path is None and len(self._pending) >= SEAL_ROWS:
            self.persist()

    def delete(self, ids: Sequence[str]) -> None:
        keys = id_keys(ids)
        with self._lock:
            changed = False
            for doc_id in ids:
                if self._pending.pop(doc_id, None) is not None:
                    changed = True
            self._tombstone_sealed(ids, keys)
            if changed:
                self._pending_seg = None

    def _tombstone_sealed(self, ids: Sequence[str], keys: np.ndarray) -> None:
        """The sealed rows of ``ids`` (``keys``, their id keys) become pending deletions, hidden now
        (under the lock)."""
        for seg in self.segments:
            held = seg.holds(keys)
            if held.any():
                for n in np.flatnonzero(held):
                    self._pending_dead[ids[n]] = None
                self._hide(seg, keys[held])

    def _hide(self, seg: Segment, keys: np.ndarray) -> None:
        """Mark the rows of ``seg`` with ``keys`` dead in memory (when its dead rows are known)."""
        if not seg.dead_known:
            return
        hit = np.isin(seg.keys, keys)
        if hit.any():
            seg.dead = hit if seg.dead is None else (seg.dead | hit)

    def reset(self) -> None:
        """Forget every segment (they stay on disk, named by the manifest, until the next
        ``persist`` writes a manifest without them); for a log rebuilt from its own rows."""
        self.wait_merges()
        with self._lock:
            self.segments, self._tombs = [], []
            self._pending, self._pending_dead, self._pending_seg = {}, {}, None
            self._force = True

    def dirty(self) -> bool:
        return bool(self._pending or self._pending_dead)

    def persist(self) -> None:
        """Seal the pending rows into a segment and the pending deletions into a tombstone file,
        then switch the manifest (in memory only when there is no path)."""
        with self._lock:
            if not self.dirty() and not self._force:
                return
            self._force = False
            seq = self.seq + 1
            pending, dead = self._pending, list(self._pending_dead)
            name = self._reserve() if pending else None
        seg = self._seal(name, seq, pending) if name else None
        tomb = _Tomb(seq, dead, id_keys(dead)) if dead else None
        with self._lock:
            if self.path is not None and tomb is not None:
                write_json(self.path / f"t{seq:06d}.json", tomb.ids)
            if seg is not None:
                self.segments.append(seg)
            if tomb is not None:
                self._tombs.append(tomb)
            self.seq = seq
            self._pending, self._pending_dead, self._pending_seg = {}, {}, None
            self._commit()
            if name:
                self._reserved.discard(name)
        self.maybe_merge()

    def _seal(self, name: str, seq: int, pending: Mapping[str, tuple[bytes, Any]]) -> Segment:
        ids = list(pending)
        lines = [pending[i][0] for i in ids]
        payload = self.kind.build([pending[i][1] for i in ids])
        return self._materialize(name, seq, lines, id_keys(ids), payload)

    def _materialize(self, name: str, seq: int, lines: Sequence[bytes] | Iterator[bytes] | None, keys: np.ndarray,
                     payload: Payload, blocks: Iterator[tuple[int, bytes]] | None = None) -> Segment:
        """The segment, written to its folder when the log has a path (its rows given as ``lines``,
        or, by a merge, as compressed ``blocks``)."""
        if self.path is None:
            assert lines is not None
            return Segment(name, seq, Rows(lines=list(lines)), keys, payload, dead_known=True)
        folder = self.path / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        write_blocks(folder, blocks if blocks is not None else blocks_of(lines or ()))
        save_npy(folder / "keys.npy", keys)
        payload.write(folder)
        fsync_dir(folder)
        seg = Segment(name, seq, Rows.open(folder), np.load(folder / "keys.npy", mmap_mode="r"),
                      self.kind.load(folder, len(keys)), dead_known=True)
        return seg

    def _reserve(self) -> str:
        name = f"s{self._next:06d}"
        self._next += 1
        self._reserved.add(name)
        return name

    def _commit(self) -> None:
        """Write the manifest for the in-memory state (call with ``_lock``), then drop what it no
        longer names: merged-away segments, tombstones no segment is older than, orphans."""
        if self.segments:
            oldest = min(s.seq for s in self.segments)
            self._tombs = [t for t in self._tombs if t.seq > oldest]
        else:
            self._tombs = []
        if self.path is None:
            return
        manifest = {
            "format": FORMAT, "kind": self.kind.name, "header": self.header, "seq": self.seq, "next": self._next,
            "segments": [{"name": s.name, "seq": s.seq, "rows": len(s)} for s in self.segments],
            "tombstones": [{"seq": t.seq, "file": f"t{t.seq:06d}.json", "n": len(t.ids)} for t in self._tombs],
        }
        with self._manifest_lock:
            write_json(self.path / MANIFEST, manifest)
            fsync_dir(self.path)
            keep = {MANIFEST} | {s.name for s in self.segments} | {f"t{t.seq:06d}.json" for t in self._tombs}
            for p in self.path.iterdir():
                owner = p.name[1:].split(".")[0] if p.name.startswith(".") else p.name
                if p.name not in keep and owner not in self._reserved:
                    remove(p)

    # ------------------------------------------------------------------ reading
    def live_segments(self) -> list[Segment]:
        """Every segment (the unpersisted rows as the last one), dead rows computed."""
        with self._lock:
            segs = list(self.segments)
            if self._pending:
                if self._pending_seg is None:
                    ids = list(self._pending)
                    self._pending_seg = Segment(
                        "pending", self.seq + 1, Rows(lines=[self._pending[i][0] for i in ids]), id_keys(ids),
                        self.kind.build([self._pending[i][1] for i in ids]), dead_known=True)
                segs.append(self._pending_seg)
            for seg in segs:
                if not seg.dead_known:
                    self._compute_dead(seg)
        return segs

    def _compute_dead(self, seg: Segment) -> None:
        """Rows of ``seg`` hidden by tombstones newer than it and by pending deletions."""
        seg.dead = _dead_mask(seg, [t for t in self._tombs if t.seq > seg.seq], list(self._pending_dead))
        seg.dead_known = True

    def count(self) -> int:
        return sum(len(s) - s.n_dead() for s in self.live_segments())

    def ids(self) -> set[str]:
        return set(self.iter_ids())

    def iter_ids(self) -> Iterator[str]:
        """The live ids, segment by segment (nothing but the current row is held)."""
        for seg in self.live_segments():
            for n, (doc_id, _) in enumerate(seg.rows):
                if seg.dead is None or not seg.dead[n]:
                    yield doc_id

    # ------------------------------------------------------------------ merging
    def maybe_merge(self) -> None:
        """Start a background merge when segments have piled up (one at a time; a merge that
        ends starts the next, so a backlog drains without waiting for another commit)."""
        with self._lock:
            if self._merger is not None and self._merger.is_alive() and self._merger is not threading.current_thread():
                return
            picked = self._pick()
            if not picked:
                return
            name = self._reserve()
            if self.background:  # the merger is set before the lock is released: one merge at a time
                merger = threading.Thread(target=self._merge_guarded, args=(picked, name),
                                          name=f"ragkit-merge-{self.kind.name}", daemon=True)
                # started before it is set, so ``wait_merges`` never sees a merger that is not alive
                # yet and returns with the merge to come (the thread waits for this lock first)
                merger.start()
                self._merger = merger
                return
        self._merge(picked, name)

    def _pick(self) -> list[Segment]:
        """Tiered: the first size class holding ``merge_factor`` segments (the oldest, or when
        they would pass ``max_merged_rows`` the smallest that fit under it); else a segment that
        is mostly dead; else a sealed segment of at least ``max_merged_rows / merge_factor`` rows
        that lacks its payload's search structure (a restore's, or a large flush's), alone."""
        classes: dict[int, list[Segment]] = {}
        for seg in self.segments:
            classes.setdefault(_size_class(len(seg), self.merge_factor), []).append(seg)
        for cls in sorted(classes):
            if len(classes[cls]) >= self.merge_factor:
                picked = sorted(classes[cls], key=lambda s: s.seq)[: self.merge_factor]
                if sum(len(seg) for seg in picked) <= self.max_merged_rows:
                    return picked
                fits, rows = [], 0  # the smallest of the class that fit under the cap together
                for seg in sorted(classes[cls], key=lambda s: (len(s), s.seq)):
                    if rows + len(seg) > self.max_merged_rows:
                        break
                    fits.append(seg)
                    rows += len(seg)
                if len(fits) >= 2:
                    return sorted(fits, key=lambda s: s.seq)
        for seg in self.segments:
            if seg.dead_known and seg.n_dead() > DEAD_RATIO * len(seg):
                return [seg]
        for seg in self.segments:  # a large sealed segment would wait for its class to fill unindexed
            if len(seg) >= self.max_merged_rows // self.merge_factor and self.kind.unindexed(seg.payload):
                return [seg]
        return []

    def _merge_guarded(self, picked: list[Segment], name: str) -> None:
        lower_thread_priority()
        try:
            self._merge(picked, name)
        except BaseException as exc:  # reported by wait_merges; the inputs stay as they were
            log.warning("%s: merging %d segments failed: %s", self.label, len(picked), exc)
            self.merge_error = exc
            with self._lock:
                self._reserved.discard(name)

    def _merge(self, picked: list[Segment], name: str) -> None:
        with self._lock:
            snap = self.seq
            committed = list(self._tombs)
        # the rows alive as committed at ``snap`` (pending deletions are not committed yet)
        live = []
        for seg in picked:
            dead = _dead_mask(seg, [t for t in committed if seg.seq < t.seq <= snap], [])
            live.append(np.arange(len(seg)) if dead is None else np.flatnonzero(~dead))
        if self._stop.is_set():
            with self._lock:
                self._reserved.discard(name)
            return
        if not any(idx.size for idx in live):  # every row deleted: the segments go, nothing is written
            self._swap(picked, None, name)
            return
        scratch = self.path / f".{name}.vectors.npy" if self.path is not None else None
        try:
            payload, order = self.kind.merge([(seg.payload, idx) for seg, idx in zip(picked, live, strict=True)], scratch)
        except BaseException:
            if scratch is not None:
                scratch.unlink(missing_ok=True)
            raise
        part = np.concatenate([np.full(idx.size, n, dtype=np.int32) for n, idx in enumerate(live)])
        row = np.concatenate(live) if live else np.empty(0, dtype=np.int64)
        if order is not None:
            part, row = part[order], row[order]
        keys = np.concatenate([np.asarray(seg.keys)[idx] for seg, idx in zip(picked, live, strict=True)])
        if order is not None:
            keys = keys[order]
        if order is None and self.path is not None:  # the live rows in order: whole blocks are copied
            blocks = merged_blocks([(seg.rows, idx) for seg, idx in zip(picked, live, strict=True)])
            merged = self._materialize(name, snap, None, keys, payload, blocks=blocks)
        else:
            lines = (picked[p].rows.line(int(r)) for p, r in zip(part.tolist(), row.tolist(), strict=True))
            merged = self._materialize(name, snap, lines, keys, payload)
        merged.dead_known = False  # tombstones written since the snapshot apply to it
        self._swap(picked, merged, name)

    def _swap(self, picked: list[Segment], merged: Segment | None, name: str) -> None:
        """Replace ``picked`` by ``merged`` (None: by nothing) in the manifest, then merge on."""
        with self._lock:
            if self._stop.is_set():
                self._reserved.discard(name)
                if self.path is not None:
                    remove(self.path / name)
                return
            gone = {id(s) for s in picked}
            self.segments = [s for s in self.segments if id(s) not in gone] + ([merged] if merged is not None else [])
            if merged is not None:
                self._compute_dead(merged)
            self._commit()
            self._reserved.discard(name)
        log.debug("%s: merged %d segments into %s (%d rows)", self.label, len(picked), name,
                  len(merged) if merged is not None else 0)
        self.maybe_merge()

    def wait_merges(self, *, cancel: bool = False) -> None:
        """Wait for the running merge (``cancel``: ask it to stop; its work is discarded)."""
        if cancel:
            self._stop.set()
        while True:
            merger = self._merger
            if merger is None or not merger.is_alive():
                break
            merger.join()
        self._stop.clear()

    def describe(self) -> dict[str, Any]:
        segs = self.live_segments()
        return {"segments": len([s for s in segs if s.name != "pending"]), "seq": self.seq,
                "rows": sum(len(s) for s in segs), "dead": sum(s.n_dead() for s in segs),
                "tombstone_files": len(self._tombs)}


def _dead_mask(seg: Segment, tombs: Sequence[_Tomb], extra: Sequence[str]) -> np.ndarray | None:
    """The rows of ``seg`` whose ids ``tombs`` or ``extra`` name (a key match is confirmed on the id,
    so a 64-bit hash collision hides nothing); None when there are none."""
    ids = [i for t in tombs for i in t.ids] + list(extra)
    if not ids:
        return None
    keys = np.concatenate([t.keys for t in tombs] + [id_keys(list(extra))])
    hit = np.isin(np.asarray(seg.keys), keys)
    if not hit.any():
        return None
    wanted = set(ids)
    for n in np.flatnonzero(hit):
        if seg.rows.get(int(n))[0] not in wanted:
            hit[n] = False
    return hit if hit.any() else None


#: the niceness a background merge runs at: it takes the CPU the writer and the searches leave
#: (on 2 cores a merge at normal priority stole half the machine from the flushes beside it)
MERGE_NICENESS = 19


def lower_thread_priority() -> None:
    """Run the calling thread at ``MERGE_NICENESS`` (Linux sets a niceness per thread; elsewhere,
    or when not allowed, nothing changes)."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, max(MERGE_NICENESS, os.getpriority(os.PRIO_PROCESS, tid)))
    except (AttributeError, OSError) as exc:  # no per-thread niceness here
        log.debug("a merge runs at the writer's priority: %s", exc)


def _size_class(rows: int, factor: int) -> int:
    cls, size = 0, BASE_ROWS
    while rows > size:
        size *= factor
        cls += 1
    return cls


__all__ = ["MANIFEST", "Payload", "PayloadKind", "Rows", "Segment", "SegmentLog", "id_keys", "lower_thread_priority", "save_npy"]

