"""One file through its loader, bounded: the pipeline's loaders, the limits, and whatever a loader
raises turned into a skip that names the file and the reason.

:func:`load_file` is the load itself, run in the indexer's loading thread for the text formats and
in the loader process (``load_worker.py``) for the parsed ones, where the time limit and the memory
ceiling hold as well.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ragkit import registry
from ragkit.config import PipelineSpec, check_options
from ragkit.errors import LoaderError
from ragkit.index.layout import IndexLayout
from ragkit.loaders.limits import LoadLimits, bounded_documents, over_limit
from ragkit.types import Document

if TYPE_CHECKING:
    from ragkit.loaders.base import Loader

log = logging.getLogger(__name__)
_ZIP_MAGIC = b"PK\x03\x04"


class PipelineLoaders:
    """The loaders of a pipeline: each built once with the options its ``loaders:`` entry gives
    (checked) and the pipeline's ``limits:``, and handed the same mapping for the files inside
    what it reads (a mail's attachments: ``Loader.use_inner_loaders``)."""

    def __init__(self, spec: PipelineSpec) -> None:
        self.spec = spec
        self.overrides = spec.loader_overrides()
        self.limits = spec.sources.limits.load_limits()
        self.ocr = spec.ocr.settings(cache_dir=IndexLayout(spec.index).ocr_cache)
        self._loaders: dict[str, Loader] = {}

    def name_for(self, path: Path) -> str | None:
        from ragkit.loaders.base import loader_name_for

        return loader_name_for(path, {k: v.type for k, v in self.overrides.items()})

    def get(self, name: str, ext: str) -> Loader:
        key = f"{name}:{ext}"
        if key not in self._loaders:
            spec = self.overrides.get(ext)
            opts = spec.options if spec is not None and spec.type == name else {}
            cls = registry.loaders.get(name)
            check_options(cls, opts, section=f"loaders.{ext}", kind="loader", name=name, origin=self.spec.origin)
            loader = cls(**opts)
            loader.use_limits(self.limits)
            loader.use_ocr(self.ocr)
            loader.use_inner_loaders(self.inner)
            self._loaders[key] = loader
        return self._loaders[key]

    def tag(self, name: str) -> str:
        """What the catalog records as the loader of a file ``name`` reads: the name, and its
        ``Loader.version`` after an ``@`` when over 1 (a file read by another tag is read again)."""
        version = registry.loaders.get(name).version
        return name if version == 1 else f"{name}@{version}"

    def inner(self, path: Path) -> tuple[str, Loader] | None:
        """The loader of a file inside another (a mail's attachment), by the same mapping."""
        name = self.name_for(path)
        return (name, self.get(name, path.suffix.lower())) if name is not None else None


def tag_name(tag: str) -> str:
    """The loader name in a catalog's loader tag (``PipelineLoaders.tag``)."""
    return tag.partition("@")[0]


def load_file(loaders: PipelineLoaders, name: str, path: Path, source: str, *,
              check_zip: bool = True) -> tuple[list[Document], list[str]]:
    """``path`` read by the loader ``name`` under the pipeline's limits: its documents and the
    warnings the loader logged about it (a table it dropped). Raises :class:`LoaderError` for
    anything that stops the file, whatever the loader raised. ``check_zip``: a zip given to a
    loader that does not check zip containers itself is checked first (``False`` for the loaders
    that only read text, which refuse binary files anyway)."""
    loader = loaders.get(name, path.suffix.lower())
    warnings: list[str] = []
    _Warnings.collecting.messages = warnings
    try:
        if check_zip and not loader.checks_zip and _is_zip(path):
            from ragkit.loaders import zipcheck

            zipcheck.check_zip(path, loaders.limits, what=f"{path.suffix or 'zip'} file")
        docs = bounded_documents(loader.load(path, source=source), path, loaders.limits)
    except LoaderError as exc:
        if _ran_out_of_memory(exc):  # a parser's wrapped allocation failure
            raise out_of_memory(path, loaders.limits) from None
        raise
    except MemoryError:
        raise out_of_memory(path, loaders.limits) from None
    except RecursionError:
        raise LoaderError(f"{path}: the {name} loader gave up: the file nests too deep to read "
                          "(RecursionError); exclude it or simplify it", path=str(path),
                          reason="unreadable: nested too deep") from None
    except Exception as exc:  # noqa: BLE001 - any loader failure is this file's, never the run's
        log.debug("the %s loader failed on %s", name, path, exc_info=True)
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise LoaderError(f"{path}: the {name} loader could not read it ({what}); re-save the file "
                          "from the program that made it, or exclude it", path=str(path),
                          reason=f"loader failed: {what}") from None
    finally:
        _Warnings.collecting.messages = None
    return docs, [m.removeprefix(f"{path}: ") for m in warnings]


def out_of_memory(path: Path | str, limits: LoadLimits) -> LoaderError:
    return over_limit(path, "loading it needed more memory than allowed", "max_memory_mb",
                      limits.max_memory_mb, "MB")


def _ran_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by a failed allocation (``MemoryError``, or zlib's "Unable to
    allocate output buffer", which a parser may have wrapped as a damaged file)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, MemoryError) or "nable to allocate" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _is_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == _ZIP_MAGIC
    except OSError:
        return False


class _Warnings(logging.Handler):
    """Collects what ``ragkit.loaders`` logs at WARNING and above in a thread while that thread
    has a list in ``collecting.messages`` (one handler for the process)."""

    collecting = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        messages = getattr(self.collecting, "messages", None)
        if messages is not None:
            messages.append(record.getMessage())


logging.getLogger("ragkit.loaders").addHandler(_Warnings(logging.WARNING))


__all__ = ["PipelineLoaders", "load_file", "out_of_memory"]
