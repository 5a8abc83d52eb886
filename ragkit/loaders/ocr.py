"""OCR through the Tesseract command line: images and PDF pages without a usable text layer.

Nothing here imports a Python OCR package: ``tesseract`` (Debian's ``tesseract-ocr`` with its
language data) reads the image, and ``pdftoppm`` (Debian's ``poppler-utils``) renders a PDF page to
one first. Both run as child processes without a shell, each with the per-page time limit
(``ocr.page_timeout_s``) and an output cap (:data:`MAX_PAGE_CHARS`); as children of the loader
process they also live under its memory ceiling.

:class:`OcrSettings` holds the pipeline's ``ocr:`` section. One Tesseract run gives each page's
plain text and its word boxes (:class:`OcrPage`; ``ragkit.loaders.ocr_layout`` lays the words out
as lines, for tables). :class:`OcrCache` keeps what a file yielded, keyed by the hash of its bytes
(and the languages and DPI), in the index's OCR cache directory, so an unchanged file is never
OCR'd twice.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ragkit.loaders import ocr_scale
from ragkit.loaders.ocr_layout import OcrWord, parse_tsv

log = logging.getLogger(__name__)

#: the image formats read through OCR (Tesseract's image library reads them all)
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")
#: how to install the engine (Debian/Ubuntu); named in every skip that needs it
INSTALL_COMMAND = "apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils"
#: text one page may yield (characters); more is cut off (a dense page holds ~10 000)
MAX_PAGE_CHARS = 200_000
#: word boxes one page may yield (Tesseract's ``tsv`` output, bytes; a dense page's take ~100 000)
MAX_PAGE_TSV_BYTES = 16 * MAX_PAGE_CHARS
#: the OCR cache's entry format: an entry of another format is OCR'd again, never read
#: (3: images with small text are read enlarged, ``ragkit.loaders.ocr_scale``; 4: so are page-shaped
#: images whose resolution their width tells)
CACHE_FORMAT = 4
#: seconds ``tesseract --list-langs`` may take
_PROBE_TIMEOUT = 30.0

OcrMode = Literal["auto", "always", "never"]


class OcrError(Exception):
    """A page that could not be OCR'd; the message says why and what to change."""


@dataclass(frozen=True)
class OcrPage:
    """What Tesseract read on a page: its plain text (in reading order) and its words' boxes."""

    text: str
    words: tuple[OcrWord, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "words": [w.to_row() for w in self.words]}

    @classmethod
    def from_json(cls, data: object) -> OcrPage:
        """The page of a :meth:`to_json` mapping; ValueError for anything else."""
        if not isinstance(data, dict) or not isinstance(data.get("text"), str) or not isinstance(data.get("words"), list):
            raise ValueError("an OCR cache page needs text and words")
        return cls(data["text"], tuple(OcrWord.from_row(row) for row in data["words"]))


@dataclass(frozen=True)
class OcrSettings:
    """The pipeline's ``ocr:`` section (``ragkit.config.OcrSpec``) plus where its cache lives.

    ``mode``: ``auto`` OCRs images and the PDF pages without a usable text layer when the engine
    is installed; ``always`` also OCRs every PDF page (a text layer that is wrong rather than
    missing) and skips files with the install command when the engine is missing; ``never`` keeps
    images out and scanned PDFs skipped."""

    mode: OcrMode = "auto"
    languages: tuple[str, ...] = ("eng",)
    dpi: int = 300
    page_timeout_s: float = 60.0
    #: fewer letters and digits than this in an image's text: it holds no text worth indexing;
    #: in a PDF page's text layer beside an image or a page of drawing: the page is a scan
    min_chars: int = 40
    #: where OCR output is cached (the index's ``IndexLayout.ocr_cache``); None: not cached
    cache_dir: Path | None = None

    @property
    def enabled(self) -> bool:
        """Whether files go through OCR: the mode allows it and (``auto``) the engine is installed."""
        return self.mode == "always" or (self.mode == "auto" and engine_available())

    def check_engine(self, path: Path) -> None:
        """Raise :class:`OcrError` unless the engine and every language's data are installed."""
        if not engine_available():
            raise OcrError(f"the OCR engine (tesseract) is not installed; install it with: {INSTALL_COMMAND}")
        missing = [lang for lang in self.languages if lang not in installed_languages()]
        if missing:
            pkgs = " ".join(f"tesseract-ocr-{lang}" for lang in missing)
            raise OcrError(f"no Tesseract data for language(s) {', '.join(missing)} (ocr.languages); install "
                           f"them with: apt-get install {pkgs}")


@functools.lru_cache(maxsize=1)
def engine_available() -> bool:
    """Whether the ``tesseract`` command is on the PATH."""
    return shutil.which("tesseract") is not None


@functools.lru_cache(maxsize=1)
def installed_languages() -> frozenset[str]:
    """The languages Tesseract has data for (``tesseract --list-langs``)."""
    try:
        done = subprocess.run(["tesseract", "--list-langs"], capture_output=True, timeout=_PROBE_TIMEOUT,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip())


def ocr_image(image: Path, settings: OcrSettings) -> OcrPage:
    """The text Tesseract reads in ``image`` (at most :data:`MAX_PAGE_CHARS` characters) and its
    word boxes, from one run (its ``txt`` and ``tsv`` outputs)."""
    with tempfile.TemporaryDirectory(prefix="ragkit-ocr-") as tmp:
        base = Path(tmp) / "page"
        _run(["tesseract", str(image), str(base), "-l", "+".join(settings.languages), "--dpi", str(settings.dpi),
              "txt", "tsv"], settings, stdout=subprocess.DEVNULL, what="OCR")
        text = _read(base.with_suffix(".txt"), MAX_PAGE_CHARS * 4)[:MAX_PAGE_CHARS].strip()
        words = parse_tsv(_read(base.with_suffix(".tsv"), MAX_PAGE_TSV_BYTES))
    return OcrPage(text, tuple(words))


def read_image(image: Path, settings: OcrSettings) -> OcrPage:
    """An image file's OCR (:func:`ocr_image`), read again enlarged when its words stand too small
    for Tesseract (``ragkit.loaders.ocr_scale``): a page saved at 72-120 DPI, a photographed page.
    An image with a page's proportions is enlarged to ``ocr.dpi`` at least, also when its words
    were too small to be measured at all."""
    page = ocr_image(image, settings)
    height = ocr_scale.text_height(page.words)
    factor = ocr_scale.scale_for(height)
    if factor <= 1.0 and height is not None:
        return page
    with tempfile.TemporaryDirectory(prefix="ragkit-ocr-") as tmp:
        scaled = ocr_scale.scaled_copy(image, factor, Path(tmp), settings.dpi)
        if scaled is None:
            return page
        log.debug("%s: words %s px high, read again enlarged", image, f"{height:.0f}" if height else "unmeasured")
        return ocr_image(scaled, settings)


def _read(path: Path, limit: int) -> str:
    """The first ``limit`` bytes of a file Tesseract wrote, as text ("" when it wrote none)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def ocr_pdf_page(pdf: Path, page: int, settings: OcrSettings) -> OcrPage:
    """Page ``page`` (1-based) of ``pdf`` rendered at ``settings.dpi`` in grey, then OCR'd."""
    if shutil.which("pdftoppm") is None:
        raise OcrError(f"rendering PDF pages for OCR needs pdftoppm; install it with: {INSTALL_COMMAND}")
    with tempfile.TemporaryDirectory(prefix="ragkit-ocr-") as tmp:
        base = Path(tmp) / "page"
        _run(["pdftoppm", "-f", str(page), "-l", str(page), "-r", str(settings.dpi), "-gray", "-png",
              "-singlefile", str(pdf), str(base)], settings, stdout=subprocess.DEVNULL, what="rendering")
        image = base.with_suffix(".png")
        if not image.exists():
            raise OcrError(f"pdftoppm rendered no image of page {page}")
        return ocr_image(image, settings)


def _run(cmd: list[str], settings: OcrSettings, *, stdout: object, what: str) -> None:
    """``cmd`` with no shell, one thread (``OMP_THREAD_LIMIT``) and the per-page time limit. The
    limit is also given to coreutils' ``timeout`` wrapped around it, so the command ends even when
    the loader process is killed (over its own time limit) while waiting for it."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    program = cmd[0]
    guard = shutil.which("timeout")
    if guard is not None:
        cmd = [guard, "-s", "KILL", f"{settings.page_timeout_s + 1:g}", *cmd]
    try:
        done = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,  # type: ignore[arg-type]
                              timeout=settings.page_timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise OcrError(f"{what} took longer than {settings.page_timeout_s:g} s; raise ocr.page_timeout_s in the "
                       "pipeline YAML to allow it") from None
    except OSError as exc:
        raise OcrError(f"{what} could not start {program} ({exc}); install it with: {INSTALL_COMMAND}") from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        raise OcrError(f"{what} failed ({program}: {detail[0][:200]})")


def letters(text: str) -> int:
    """How many letters and digits ``text`` has (what tells a page of text from a photo's noise)."""
    return sum(1 for ch in text if ch.isalnum())


class OcrCache:
    """What one file's OCR yielded, page by page (text and word boxes), in
    ``<cache_dir>/<sha256>-<langs>-<dpi>-v<CACHE_FORMAT>.json`` (nothing is kept when the settings
    have no ``cache_dir``). The entry says its format (``format``) and keeps its pages under
    ``entries``: an entry of another format, or one written before formats were numbered (text
    only, under ``pages``, in the file without the ``-v`` suffix), is never read as this one: the
    file is OCR'd again, and the older entries are removed."""

    def __init__(self, path: Path, settings: OcrSettings) -> None:
        self._file: Path | None = None
        self._stale: list[Path] = []
        self.pages: dict[int, OcrPage] = {}
        if settings.cache_dir is None:
            return
        stem = f"{_file_hash(path)}-{'+'.join(settings.languages)}-{settings.dpi}"
        self._file = settings.cache_dir / f"{stem}-v{CACHE_FORMAT}.json"
        self._stale = [settings.cache_dir / f"{stem}.json",
                       *(settings.cache_dir / f"{stem}-v{n}.json" for n in range(2, CACHE_FORMAT))]
        try:
            self.pages = _entry_pages(json.loads(self._file.read_text(encoding="utf-8")))
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("%s: unreadable OCR cache entry %s (%s); OCR runs again", path, self._file, exc)

    def page(self, number: int, read: Callable[[], OcrPage]) -> OcrPage:
        """The cached OCR of page ``number``, else ``read()``'s (then kept)."""
        if number not in self.pages:
            self.pages[number] = read()
            self._save()
        return self.pages[number]

    def _save(self) -> None:
        if self._file is None:
            return
        tmp = self._file.with_suffix(f".{os.getpid()}.tmp")
        entry = {"format": CACHE_FORMAT, "entries": {str(n): p.to_json() for n, p in self.pages.items()}}
        try:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self._file)
            for stale in self._stale:
                stale.unlink(missing_ok=True)
        except OSError as exc:  # a read-only index: the text is still used, only not kept
            log.warning("cannot keep OCR output in %s (%s); the file will be OCR'd again next time",
                        self._file.parent, exc.strerror or exc)


def _entry_pages(data: object) -> dict[int, OcrPage]:
    """The pages of a cache entry of this :data:`CACHE_FORMAT`; ValueError for any other."""
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise ValueError(f"format {found!r}, not {CACHE_FORMAT}")
    return {int(k): OcrPage.from_json(v) for k, v in data["entries"].items()}


def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


__all__ = [
    "IMAGE_EXTENSIONS",
    "INSTALL_COMMAND",
    "CACHE_FORMAT",
    "MAX_PAGE_CHARS",
    "MAX_PAGE_TSV_BYTES",
    "OcrCache",
    "OcrError",
    "OcrPage",
    "OcrSettings",
    "engine_available",
    "installed_languages",
    "letters",
    "ocr_image",
    "ocr_pdf_page",
    "read_image",
]
