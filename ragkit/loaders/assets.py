"""Which files are assets (images, fonts, SVG, CSS, JS, archives, media, binaries), not documents.

Discovery leaves assets out by default: their "text" (base64, SVG path data, minified code) only
makes junk chunks that cost embedding time and crowd real passages out of results. Each run
reports them in one summary line instead of one warning per file. Mapping an asset extension to a
loader under ``loaders:`` in the pipeline opts that extension back in::

    loaders:
      .svg: unstructured

While OCR is on (``ocr:`` in the pipeline, docs/guides/ocr.md), images of the formats OCR reads
are documents, except in asset folders (``img/``, ``static/``, ``icons/``, ...: a site's pictures).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path, PurePath
from typing import Protocol, TypeVar

from ragkit.loaders.ocr import IMAGE_EXTENSIONS

log = logging.getLogger(__name__)

_KINDS: dict[str, tuple[str, ...]] = {
    "image": (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".ico", ".icns",
              ".heic", ".heif", ".avif", ".psd", ".xcf", ".cr2", ".nef", ".svg", ".svgz",
              ".eps", ".ai", ".drawio"),
    "font": (".woff", ".woff2", ".ttf", ".otf", ".eot", ".pfb", ".pfm"),
    "web asset": (".css", ".scss", ".sass", ".less", ".js", ".mjs", ".cjs", ".map", ".wasm"),
    "archive": (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar",
                ".war", ".whl", ".egg", ".deb", ".rpm", ".dmg", ".iso", ".apk"),
    "media": (".mp3", ".mp4", ".m4a", ".m4v", ".wav", ".flac", ".ogg", ".oga", ".opus", ".aac",
              ".avi", ".mov", ".mkv", ".webm", ".wmv", ".flv", ".mpg", ".mpeg"),
    "binary": (".exe", ".dll", ".so", ".dylib", ".bin", ".o", ".a", ".lib", ".obj", ".class",
               ".pyc", ".pyo", ".pyd", ".db", ".sqlite", ".sqlite3", ".duckdb", ".parquet",
               ".npy", ".npz", ".pkl", ".pickle", ".onnx", ".pt", ".safetensors", ".faiss"),
}

#: extension (lower case, with the dot) -> kind of asset; files with these are not indexed by default
ASSET_EXTENSIONS: dict[str, str] = {ext: kind for kind, exts in _KINDS.items() for ext in exts}

#: folders whose images are a site's or an app's pictures, never read by OCR
ASSET_FOLDERS = frozenset({"img", "imgs", "image", "images", "_images", "icon", "icons", "static", "_static",
                           "asset", "assets", "media", "public", "fonts", "css", "js", "node_modules"})

#: scripts that are assets only as a site's files (``_web_script``), else a library's source
SCRIPT_EXTENSIONS = frozenset({".js", ".mjs", ".cjs"})
#: folders of built or vendored code, whose scripts are never a library's source
_BUILD_FOLDERS = frozenset({"dist", "build", "_build", "_site", "site", "vendor", "vendors", "bower_components",
                            "coverage", "javascripts", "scripts", "htmlcov"})
_BUILT_SCRIPT_ENDINGS = (".min.js", "-min.js", ".bundle.js", ".chunk.js", ".min.mjs", ".min.cjs")
#: pages whose folder's scripts are the site's (``site_folders``)
PAGE_EXTENSIONS = frozenset({".html", ".htm", ".xhtml"})

#: how many extensions the summary line names before "…"
_SUMMARY_EXTS = 6


def normalize_extension(ext: str) -> str:
    """``"SVG"``, ``".svg"`` -> ``".svg"``."""
    ext = ext.strip().lower()
    return ext if ext.startswith(".") else f".{ext}"


def is_asset(path: str | Path, opted_in: Iterable[str] = (), *, site_folders: Collection[PurePath] = ()) -> bool:
    """Whether ``path`` (relative to its root) is an asset that is not indexed (its extension was
    not opted in). A script (``.js``, ``.mjs``, ``.cjs``) is one only in a site's folders
    (``static/``, ``js/``, ``dist/``, ``node_modules/``, ...), as a generated site's search
    machinery (:func:`_site_search`; ``site_folders``: the folders that hold HTML pages) or when
    minified or bundled (``app.min.js``): elsewhere it is a library's or a book's source, read
    with its comments."""
    path = PurePath(path)
    ext = path.suffix.lower()
    if ext not in ASSET_EXTENSIONS:
        return False
    if ext in SCRIPT_EXTENSIONS and not _web_script(path, site_folders):
        return False
    return ext not in {normalize_extension(e) for e in opted_in}


def _web_script(path: PurePath, site_folders: Collection[PurePath] = ()) -> bool:
    """Whether a script is a site's (in a site's folder, its search machinery, or minified or
    bundled) and not source."""
    name = path.name.lower()
    if name.endswith(_BUILT_SCRIPT_ENDINGS) or _site_search(path, site_folders):
        return True
    return any(part.lower() in ASSET_FOLDERS or part.lower() in _BUILD_FOLDERS for part in path.parts[:-1])


def _site_search(path: PurePath, site_folders: Collection[PurePath]) -> bool:
    """Whether a script is a generated site's search data or code: any script of a ``search``
    folder that holds the site's pages or sits beside them (Doxygen's ``search/all_0.js`` beside
    ``search/all_0.html``, MkDocs' ``search/main.js``), or one named for search beside the pages
    (Sphinx's ``searchindex.js``). A library's ``src/search/`` holds no pages: its scripts stay
    source."""
    folder = path.parent
    if folder.name.lower() == "search":
        return folder in site_folders or folder.parent in site_folders
    return "search" in path.name.lower() and folder in site_folders


def ocr_image(name: str | Path) -> bool:
    """Whether ``name`` (relative to its root) is an image OCR reads: one of its formats, outside
    the asset folders."""
    path = PurePath(name)
    if path.suffix.lower() not in IMAGE_EXTENSIONS:
        return False
    return not any(part.lower() in ASSET_FOLDERS for part in path.parts[:-1])


class AssetTally:
    """Counts the asset files one discovery pass left out, for a single summary line."""

    def __init__(self) -> None:
        self.by_extension: Counter[str] = Counter()

    def add(self, path: str | Path) -> None:
        self.by_extension[Path(path).suffix.lower()] += 1

    @property
    def total(self) -> int:
        return sum(self.by_extension.values())

    def summary(self) -> str | None:
        """``skipped 239 asset files (.png 183, .svg 56); opt in with ...``, or None when none."""
        if not self.by_extension:
            return None
        ranked = sorted(self.by_extension.items(), key=lambda kv: (-kv[1], kv[0]))
        parts = [f"{ext} {n}" for ext, n in ranked[:_SUMMARY_EXTS]]
        if len(ranked) > _SUMMARY_EXTS:
            parts.append("…")
        example = ".svg" if ".svg" in self.by_extension else ranked[0][0]
        noun = "file" if self.total == 1 else "files"
        return (
            f"skipped {self.total} asset {noun} ({', '.join(parts)}): images, fonts, SVG, CSS, a site's "
            f"scripts, archives and binaries are not indexed by default; opt in per extension under loaders: "
            f"in the pipeline, e.g. loaders: {{{example}: unstructured}}"
        )


class _HasPath(Protocol):
    @property
    def path(self) -> Path: ...

    @property
    def source(self) -> str: ...


F = TypeVar("F", bound=_HasPath)


def skip_assets(files: Iterable[F], opted_in: Iterable[str] = (), *, tally: AssetTally | None = None,
                ocr_images: bool = False) -> Iterator[F]:
    """Pass through the discovered files that are not assets (with ``ocr_images``, the images OCR
    reads: :func:`ocr_image`); the folders with HTML pages among them are a site's, whose search
    scripts are assets (:func:`is_asset`). The assets left out are counted into ``tally`` when one is given
    (the caller reports them: the index run puts the summary in its report); else, when the pass
    is over, one line summarizing them is logged."""
    allowed = frozenset(normalize_extension(e) for e in opted_in)
    counts = tally if tally is not None else AssetTally()
    found = list(files)
    pages = {PurePath(f.source).parent for f in found if PurePath(f.source).suffix.lower() in PAGE_EXTENSIONS}
    for f in found:
        if is_asset(f.source, allowed, site_folders=pages) and not (ocr_images and ocr_image(f.source)):
            counts.add(f.path)
            continue
        yield f
    summary = counts.summary()
    if summary and tally is None:
        log.warning("%s", summary)


__all__ = ["ASSET_EXTENSIONS", "ASSET_FOLDERS", "SCRIPT_EXTENSIONS", "AssetTally", "is_asset", "normalize_extension",
           "ocr_image", "skip_assets"]
