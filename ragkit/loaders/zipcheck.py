"""Zip containers (DOCX, XLSX, PPTX, EPUB, ODT) checked before their parser opens them.

:class:`ZipFormat` is how the XLSX, PPTX and EPUB loaders open a file: checked, then parsed by
their optional package, a parser's failure a :class:`LoaderError` naming the format and the fix.

:func:`check_zip` reads the archive's directory and refuses one whose members together declare
more than ``limits.max_unzipped_mb``; then it inflates every member in 1 MB steps, counting the
bytes and stopping at the same limit, so what a member actually inflates to is checked while
inflating, never after. Python's ``zipfile`` (which the parsers use) never yields more of a member
than its declared size, and a member whose data runs past it (or stops short) fails its CRC here:
reported as a damaged container. What the parser reads afterwards is bounded by the checked sizes.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ragkit.errors import LoaderError
from ragkit.loaders.base import import_extra, unreadable
from ragkit.loaders.limits import MB, LoadLimits, over_limit
from ragkit.loaders.office_binary import office_container_error

T = TypeVar("T")

_STEP = MB


def check_zip(path: Path, limits: LoadLimits, *, what: str) -> None:
    """Raise :class:`LoaderError` unless ``path`` is a zip whose members inflate, declared and
    actually, to at most ``limits.max_unzipped_mb`` together. ``what`` names the format. A file
    that is no zip at all is left to the format's parser, which names what it is."""
    cap = int(limits.max_unzipped_mb * MB)
    if not zipfile.is_zipfile(path):
        return  # not a zip at all: the format's parser says what it is instead
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            declared = sum(m.file_size for m in members)
            if declared > cap:
                raise _too_big(path, f"declares {declared / MB:,.0f} MB uncompressed", limits)
            _inflate_all(archive, members, cap, path, limits)
    except LoaderError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError,
            NotImplementedError, RuntimeError) as exc:
        reason = str(exc) or type(exc).__name__
        raise LoaderError(f"{path}: not a readable {what} (a damaged zip container: {reason}); "
                          "re-save it from the program that made it", path=str(path),
                          reason=f"unreadable {what}: {reason}") from None


def _inflate_all(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], cap: int, path: Path,
                 limits: LoadLimits) -> None:
    total = 0
    for member in members:
        if member.is_dir() or member.flag_bits & 0x1:  # encrypted members: the parser reports them
            continue
        with archive.open(member) as stream:
            while chunk := stream.read(_STEP):
                total += len(chunk)
                if total > cap:
                    raise _too_big(path, f"inflates past {cap / MB:,.0f} MB (member {member.filename})", limits)


def _too_big(path: Path, what: str, limits: LoadLimits) -> LoaderError:
    return over_limit(path, f"zip container too large uncompressed: it {what}", "max_unzipped_mb",
                      limits.max_unzipped_mb, "MB")


@dataclass(frozen=True)
class ZipFormat:
    """A zip container format read by an optional package.

    ``what`` names the format in errors ("EPUB book"); ``module``, ``package`` and ``extra``: the
    parser's module, its PyPI name and the ragkit extra that installs it; ``fix``: what to do with
    a file the parser rejects; ``office``: an Office format, whose name an OLE file may carry (a
    password-protected or old binary file: :func:`office_container_error` says which)."""

    what: str
    module: str
    package: str
    extra: str
    fix: str
    office: bool = True

    def open(self, path: Path, limits: LoadLimits, parse: Callable[[Any], T]) -> T:
        """``parse(module)`` of ``path`` once :func:`check_zip` passed and the module imported."""
        check_zip(path, limits, what=self.what)
        module = import_extra(path, self.module, package=self.package, extra=self.extra)
        try:
            return parse(module)
        except Exception as exc:  # the parser's own errors, a BadZipFile, a KeyError on a missing part
            office = office_container_error(path) if self.office else None
            raise office or unreadable(path, exc, what=self.what, fix=self.fix) from exc


__all__ = ["ZipFormat", "check_zip"]
