"""Uploaded files are written to the upload area all or nothing, one batch (one request) at a time.

``UploadBatch`` stages every file of a request in ``<index>/upload-staging`` (outside the upload
area, so no ingest job ever sees half a batch), then moves them into place; a failure on any file
(a full disk, a name that became a folder meanwhile) puts back what the batch replaced and removes
what it added, so a failed request leaves the upload area as it found it. Before anything is
written, ``clashes`` names a file that would take the place of a folder (or the reverse).
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)


def clashes(root: Path, names: Sequence[str]) -> tuple[str, str] | None:
    """``(name, why)`` for the first upload name that cannot be a file in ``root``: a folder of
    uploads has that name, an uploaded file has the name of one of its folders, or two names of
    the batch collide that way."""
    wanted = set(names)
    for name in names:
        parts = name.split("/")
        for n in range(1, len(parts)):
            folder = "/".join(parts[:n])
            if folder in wanted:
                return name, f"'{folder}' is also uploaded as a file in this request"
            if (root / folder).is_file():
                return name, f"'{folder}' is already an uploaded document, so it cannot be a folder"
        if (root / name).is_dir():
            return name, f"'{name}' is already a folder of uploaded documents"
    return None


class UploadBatch:
    """Files staged for the upload area ``root``; ``commit()`` moves them all in or none, and
    ``rollback()`` undoes a commit until ``finish()`` drops the files it replaced."""

    def __init__(self, root: Path, staging: Path) -> None:
        self.root, self.staging = root, staging
        self._staged: list[tuple[Path, Path]] = []  # (temporary file, target)
        self._done: list[tuple[Path, Path | None]] = []  # (target, the file it replaced, kept aside)
        self._made: list[Path] = []  # folders the batch created

    def stage(self, target: Path, data: bytes) -> None:
        self.staging.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.staging, prefix="upload-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._staged.append((Path(tmp), target))

    def commit(self) -> None:
        """Move every staged file into place; on any failure undo the batch and raise."""
        try:
            for tmp, target in self._staged:
                self._mkdirs(target.parent)
                kept = None
                if target.is_file():
                    kept = Path(tempfile.mkdtemp(dir=self.staging, prefix="replaced-")) / "file"
                    os.replace(target, kept)
                self._done.append((target, kept))
                os.replace(tmp, target)
        except BaseException:
            self.rollback()
            raise

    def finish(self) -> None:
        """The batch stands: drop the files it replaced."""
        for _, kept in self._done:
            if kept is not None:
                kept.unlink(missing_ok=True)
                kept.parent.rmdir()
        self._done, self._made = [], []

    def rollback(self) -> None:
        for target, kept in reversed(self._done):
            try:
                if kept is not None:
                    os.replace(kept, target)
                    kept.parent.rmdir()
                elif target.is_file():
                    target.unlink()
            except OSError:
                log.exception("could not undo the upload of %s", target.name)
        for folder in reversed(self._made):
            try:
                folder.rmdir()
            except OSError:
                pass
        for tmp, _ in self._staged:
            tmp.unlink(missing_ok=True)
        self._done, self._made = [], []

    def discard(self) -> None:
        """Drop the staged files (before or instead of a commit)."""
        for tmp, _ in self._staged:
            tmp.unlink(missing_ok=True)

    def _mkdirs(self, folder: Path) -> None:
        missing = []
        while folder != self.root and not folder.exists():
            missing.append(folder)
            folder = folder.parent
        for made in reversed(missing):
            try:
                made.mkdir()
            except FileExistsError:
                if made.is_dir():
                    continue  # another upload made it meanwhile: a folder both share, not this batch's to remove
                raise
            self._made.append(made)


__all__ = ["UploadBatch", "clashes"]
