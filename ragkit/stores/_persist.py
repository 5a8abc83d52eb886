"""Crash-safe saving of a store's files into the directory it owns.

A save writes a new *generation* of every file (``vectors.3.npy``, ``rows.3.json``...) and then
atomically replaces ``manifest.json``, which names the current generation's files. A process
killed mid-save leaves the old manifest pointing at the old, complete files; the orphans of an
interrupted save are removed by the next save. Readers only ever open files the manifest names.

Manifest::

    {"format": 1, "store": "faiss", "dimension": 384, "generation": 3,
     "files": {"index": "index.3.faiss", "rows": "rows.3.json"}, ...store-specific keys}
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import StoreDamagedError, StoreError

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT = 1
Writer = Callable[[Path], None]


def read_manifest(path: Path | None, *, store: str, dimension: int) -> dict[str, Any] | None:
    """Return the saved manifest in ``path`` (None if nothing saved); check store kind and dimension."""
    if path is None or not (path / MANIFEST).is_file():
        return None
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreDamagedError(f"the {store} store at {path} is damaged (cannot read {MANIFEST}: {exc}); {StoreDamagedError.HINT}") from None
    if manifest.get("store") != store:
        raise StoreError(
            f"{path} holds a '{manifest.get('store')}' store, not a '{store}' store; "
            f"use type '{manifest.get('store')}' or choose another directory"
        )
    saved = int(manifest.get("dimension", -1))
    if saved != dimension:
        raise StoreError(
            f"{store}: the store at {path} holds {saved}-d vectors but {dimension}-d were requested; "
            f"use the embedder it was built with, or delete {path} to rebuild"
        )
    return manifest


def save_generation(
    path: Path, *, store: str, dimension: int, writers: Mapping[str, tuple[str, Writer]],
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write every ``name -> (suffix, writer)`` as a new generation, then switch the manifest."""
    path.mkdir(parents=True, exist_ok=True)
    old = _current_generation(path)
    gen = old + 1
    files: dict[str, str] = {}
    for name, (suffix, write) in writers.items():
        fname = f"{name}.{gen}{suffix}"
        write(path / fname)
        _fsync_file(path / fname)
        files[name] = fname
    manifest = {"format": FORMAT, "store": store, "dimension": dimension, "generation": gen,
                "files": files, **(extra or {})}
    write_json_atomic(path / MANIFEST, manifest)
    fsync_dir(path)
    _remove_orphans(path, keep=set(files.values()) | {MANIFEST})


def write_json_atomic(target: Path, obj: Any) -> None:
    """Write JSON to a temp file in the same directory, fsync, then ``os.replace``."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, ensure_ascii=False, separators=(",", ":"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def json_writer(obj: Any, *, store: str) -> Writer:
    def write(p: Path) -> None:
        try:
            text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise StoreError(
                f"{store}: metadata must be JSON-serializable to be saved ({exc}); "
                "store strings, numbers, booleans, None, lists and dicts only"
            ) from exc
        p.write_text(text, encoding="utf-8")

    return write


def npy_writer(arr: np.ndarray) -> Writer:
    def write(p: Path) -> None:
        with open(p, "wb") as fh:
            np.save(fh, arr, allow_pickle=False)

    return write


@contextmanager
def damage_guard(path: Path, *, store: str) -> Iterator[None]:
    """Turn a missing, truncated or unreadable saved file into ``StoreDamagedError`` naming it."""
    try:
        yield
    except StoreDamagedError:
        raise
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        text = str(exc).strip()
        unreadable = re.search(r"read error in (\S+?):? ", text)  # FAISS on a truncated file
        if isinstance(exc, FileNotFoundError) and exc.filename:
            what = f"{Path(exc.filename).name} is missing"
        elif unreadable:
            what = f"{Path(unreadable.group(1)).name} is truncated or corrupt"
        else:
            what = f"cannot read its files: {text.splitlines()[0][:200] if text else type(exc).__name__}"
        raise StoreDamagedError(f"the {store} store at {path} is damaged ({what}); {StoreDamagedError.HINT}") from None


def load_json(path: Path, manifest: Mapping[str, Any], name: str) -> Any:
    with open(path / manifest["files"][name], encoding="utf-8") as fh:
        return json.load(fh)


def load_npy(path: Path, manifest: Mapping[str, Any], name: str) -> np.ndarray:
    return np.load(path / manifest["files"][name], allow_pickle=False)


def _current_generation(path: Path) -> int:
    try:
        return int(json.loads((path / MANIFEST).read_text(encoding="utf-8"))["generation"])
    except (OSError, ValueError, KeyError):
        return 0


def _remove_orphans(path: Path, *, keep: set[str]) -> None:
    for p in path.iterdir():
        if p.is_file() and p.name not in keep:
            try:
                p.unlink()
            except OSError as exc:  # pragma: no cover - best effort
                log.warning("could not remove stale store file %s: %s", p, exc)


def _fsync_file(p: Path) -> None:
    with open(p, "rb") as fh:
        os.fsync(fh.fileno())


def fsync_dir(path: Path) -> None:
    if os.name != "posix":  # pragma: no cover
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class RWLock:
    """Many concurrent readers or one writer; waiting writers block new readers."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            while self._writer or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()
