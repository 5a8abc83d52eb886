"""Find the files to index under the given roots.

A source's name is its path relative to the index's *base* directory (posix style), so it is unique
across roots: the base is fixed when an index is first built from files (the common parent of that
run's roots: ``ragkit index docs`` names ``docs/a.md`` ``a.md``; ``ragkit index projA projB`` names
``projA/README.md`` and ``projB/README.md``). A root indexed later outside the base moves the base up
to the common parent and renames the sources already indexed (``README.md`` becomes
``projA/README.md`` beside ``projB/README.md``: the names indexing both at once gives), and a root
nested in an indexed one finds the same names (no file is indexed twice). Each real folder is walked
once, whatever the symlinks leading to it: real folders first, then symlinked folders not walked
yet; a link back to a folder that holds it (a cycle) or to one already walked is reported and not
followed. Include and exclude globs match paths relative to the root and use
.gitignore syntax (``**/*.md``, ``drafts/``); ``.gitignore`` files under a root
are respected when ``respect_gitignore`` is on. ``.git`` and the index directory are never indexed,
nor a Sphinx folder's build files (``conf.py``, ``Makefile``, ``make.bat``, ``_build/``:
``ragkit.loaders.sphinx_project``).
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragkit.config import SourcesSpec
from ragkit.errors import ConfigError, RagkitError
from ragkit.loaders.assets import AssetTally, skip_assets
from ragkit.loaders.sphinx_project import is_fragment, sphinx_build_entries

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Root:
    """A directory to walk, or a single file (``only`` names it)."""

    path: Path
    only: str | None = None

    @property
    def key(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class SourceFile:
    root: Root
    path: Path
    source: str


def common_base(roots: Sequence[Root]) -> Path:
    """The deepest directory holding every root (a file root counts as its folder)."""
    return Path(os.path.commonpath([str(r.path) for r in roots]))


def source_name(path: Path, base: Path) -> str:
    """The name of the file at ``path`` in an index whose base directory is ``base``."""
    return Path(os.path.relpath(path, base)).as_posix()


def is_under(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or inside it (lexically; both absolute)."""
    return path == root or root in path.parents


def check_removals(held: Mapping[Path, Sequence[str]], gone: Collection[str]) -> None:
    """Refuse a run that would remove all the sources indexed from a folder (it is empty now: an
    unmounted drive?), or more than half (and at least 3) of them, unless it was asked to prune.
    ``held``: each folder root -> the sources indexed from it; ``gone``: those about to go."""
    for folder, names in held.items():
        lost = [n for n in names if n in gone]
        if names and (len(lost) == len(names) or (len(lost) * 2 > len(names) and len(lost) >= 3)):
            what = "is empty now" if len(lost) == len(names) else f"lost {len(lost)} of its {len(names)} files"
            raise RagkitError(
                f"refusing to remove {len(lost)} of the {len(names)} sources indexed from {folder}: the folder "
                f"{what} (an unmounted drive or a moved folder?). Nothing was removed; check the path, or run "
                "again with --prune (index_paths(..., prune=True) in Python) to remove them from the index"
            )


def make_roots(paths: Sequence[str | Path]) -> list[Root]:
    roots = []
    for raw in paths:
        p = Path(raw).expanduser()
        if not p.exists() and not p.is_symlink():
            raise ConfigError(f"path to index does not exist: {raw}")
        p = p.resolve() if p.exists() else p.absolute()
        roots.append(Root(p.parent, only=p.name) if p.is_file() else Root(p))
    return roots


def discover(
    roots: Sequence[Root], spec: SourcesSpec, *, base: Path, skip_dirs: Sequence[Path] = (),
    assets: AssetTally | None = None, links: LinkNotes | None = None,
) -> Iterator[SourceFile]:
    """Every file to index under ``roots``, each once (nested or repeated roots overlap), named
    relative to ``base``; assets (images, SVG, CSS, ...) are left out (images outside asset folders
    not while OCR is on), counted into ``assets`` when given, else summarized in one log line. Each
    real folder is walked once: symlinked folders already walked (cycles among them) are noted into
    ``links``."""
    notes = links if links is not None else LinkNotes()
    return skip_assets(_discover(roots, spec, base, skip_dirs, notes), spec.asset_opt_ins, tally=assets,
                       ocr_images=spec.ocr_images)


def _discover(
    roots: Sequence[Root], spec: SourcesSpec, base: Path, skip_dirs: Sequence[Path], links: LinkNotes
) -> Iterator[SourceFile]:
    import pathspec

    include = pathspec.GitIgnoreSpec.from_lines(spec.include)
    exclude = pathspec.GitIgnoreSpec.from_lines(spec.exclude)
    skip = {p.resolve() for p in skip_dirs}
    seen: set[str] = set()
    for root in roots:
        found = (
            iter([root.path / root.only]) if root.only is not None else _walk(root, include, exclude, spec, skip, links)
        )
        for path in found:
            name = source_name(path, base)
            if name not in seen:
                seen.add(name)
                yield SourceFile(root, path, name)


def _walk(  # type: ignore[no-untyped-def]
    root: Root, include, exclude, spec: SourcesSpec, skip: set[Path], links: LinkNotes
) -> Iterator[Path]:
    """The files under ``root``, each real folder walked once: the real folders first (depth
    first, sorted), then the symlinked folders whose target was not walked yet; a link to a
    folder already walked (a cycle when the target holds the link) is noted, not followed."""
    import pathspec

    ignores: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    walked: dict[tuple[int, int], str] = {}
    sphinx: set[str] = set()  # the folders (relative) inside a Sphinx source folder
    if (key := _dir_key(root.path)) is not None:
        walked[key] = ""
    linked: deque[tuple[Path, str]] = deque()
    stack: list[tuple[Path, str]] = [(root.path, "")]
    while stack or linked:
        if not stack:
            path, rel = linked.popleft()
            if not _first_visit(path, rel, walked, links):
                continue
            stack.append((path, rel))
        dirpath, rel_dir = stack.pop()
        dirnames, filenames = _entries(dirpath, spec.follow_symlinks)
        if spec.respect_gitignore and ".gitignore" in filenames:
            lines = (dirpath / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            ignores.append((rel_dir, pathspec.GitIgnoreSpec.from_lines(lines)))
        build = sphinx_build_entries(dirpath, filenames)  # a Sphinx folder's conf.py, _build/, ...
        if build or (rel_dir and rel_dir.rpartition("/")[0] in sphinx):
            sphinx.add(rel_dir)  # in a Sphinx source folder: its fragments are read where pages include them
        for name in filenames:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if name == ".gitignore" or name in build or not include.match_file(rel) or exclude.match_file(rel):
                continue
            if rel_dir in sphinx and is_fragment(name):
                continue
            if _ignored(rel, ignores):
                continue
            yield dirpath / name
        children = []
        for d, is_link in dirnames:
            rel = f"{rel_dir}/{d}" if rel_dir else d
            full = dirpath / d
            if d == ".git" or d in build or full.resolve() in skip or _ignored(rel + "/", ignores) or exclude.match_file(rel + "/"):
                continue
            if is_link:
                linked.append((full, rel))
            elif _first_visit(full, rel, walked, links):
                children.append((full, rel))
        stack.extend(reversed(children))


class LinkNotes:
    """The symlinked folders one discovery pass did not follow, one line each (``a: a symlink to
    . (a folder holding it: a cycle); not followed``), also logged as warnings."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        self.lines.append(line)
        log.warning("%s", line)


def _entries(dirpath: Path, follow_links: bool) -> tuple[list[tuple[str, bool]], list[str]]:
    """The sub-folders (name, is a symlink) and the other entries of ``dirpath``, sorted; a
    symlinked folder only when links are followed (a dangling or looping link is a file, which
    its loader check reports). An unreadable folder is logged and has no entries."""
    try:
        with os.scandir(dirpath) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        log.warning("cannot read the folder %s (%s); its files are left out", dirpath, exc.strerror or exc)
        return [], []
    dirs, files = [], []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
            is_link = is_dir and entry.is_symlink()
        except OSError:
            is_dir = is_link = False
        if not is_dir:
            files.append(entry.name)
        elif follow_links or not is_link:
            dirs.append((entry.name, is_link))
    return dirs, files


def _dir_key(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _first_visit(path: Path, rel: str, walked: dict[tuple[int, int], str], links: LinkNotes) -> bool:
    """Whether the folder at ``path`` (shown as ``rel``) is walked: not when it is one already
    walked (reached again through a symlink), which is noted."""
    key = _dir_key(path)
    if key is None:
        return False
    if key not in walked:
        walked[key] = rel
        return True
    target = os.readlink(path) if path.is_symlink() else str(path.resolve())
    if is_under(path.parent.resolve(), path.resolve()):
        links.add(f"{rel}: a symlink to {target} (a folder that holds the link: a cycle); not followed")
    else:
        links.add(f"{rel}: a symlink to {target}, a folder already walked as {walked[key] or '.'}; not followed")
    return False


def _ignored(rel: str, ignores: list[tuple[str, object]]) -> bool:
    for base, spec in ignores:
        if base and not rel.startswith(base + "/"):
            continue
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub):  # type: ignore[attr-defined]
            return True
    return False
