"""Find the files to index under the given roots.

A source's name is its path relative to the index's *base* directory (posix style), so it is unique
across roots: the base is fixed when an index is first built from files (the common parent of that
run's roots: ``ragkit index docs`` names ``docs/a.md`` ``a.md``; ``ragkit index projA projB`` names
``projA/README.md`` and ``projB/README.md``). A root indexed later outside the base moves the base up
to the common parent and renames the sources already indexed (``README.md`` becomes
``projA/README.md`` beside ``projB/README.md``: the names indexing both at once gives), and a root
nested in an indexed one finds the same names (no file is indexed twice). Include and exclude globs match paths relative to the root and use
.gitignore syntax (``**/*.md``, ``drafts/``); ``.gitignore`` files under a root
are respected when ``respect_gitignore`` is on. ``.git`` and the index directory are never indexed,
nor a Sphinx folder's build files (``conf.py``, ``Makefile``, ``make.bat``, ``_build/``:
``ragkit.loaders.sphinx_project``).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragkit.config import SourcesSpec
from ragkit.errors import ConfigError, RagkitError
from ragkit.loaders.assets import AssetTally, skip_assets
from ragkit.loaders.sphinx_project import sphinx_build_entries


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
    assets: AssetTally | None = None,
) -> Iterator[SourceFile]:
    """Every file to index under ``roots``, each once (nested or repeated roots overlap), named
    relative to ``base``; assets (images, SVG, CSS, ...) are left out (images outside asset folders
    not while OCR is on), counted into ``assets``
    when given, else summarized in one log line."""
    return skip_assets(_discover(roots, spec, base, skip_dirs), spec.asset_opt_ins, tally=assets,
                       ocr_images=spec.ocr_images)


def _discover(roots: Sequence[Root], spec: SourcesSpec, base: Path, skip_dirs: Sequence[Path]) -> Iterator[SourceFile]:
    import pathspec

    include = pathspec.GitIgnoreSpec.from_lines(spec.include)
    exclude = pathspec.GitIgnoreSpec.from_lines(spec.exclude)
    skip = {p.resolve() for p in skip_dirs}
    seen: set[str] = set()
    for root in roots:
        found = (
            iter([root.path / root.only]) if root.only is not None else _walk(root, include, exclude, spec, skip)
        )
        for path in found:
            name = source_name(path, base)
            if name not in seen:
                seen.add(name)
                yield SourceFile(root, path, name)


def _walk(root: Root, include, exclude, spec: SourcesSpec, skip: set[Path]) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    import pathspec

    ignores: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    for dirpath, dirnames, filenames in os.walk(root.path, followlinks=spec.follow_symlinks):
        rel_dir = os.path.relpath(dirpath, root.path)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        if spec.respect_gitignore and ".gitignore" in filenames:
            lines = (Path(dirpath) / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            ignores.append((rel_dir, pathspec.GitIgnoreSpec.from_lines(lines)))
        build = sphinx_build_entries(Path(dirpath), filenames)  # a Sphinx folder's conf.py, _build/, ...
        kept = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            full = Path(dirpath, d)
            if d == ".git" or d in build or full.resolve() in skip or _ignored(rel + "/", ignores) or exclude.match_file(rel + "/"):
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if name == ".gitignore" or name in build or not include.match_file(rel) or exclude.match_file(rel):
                continue
            if _ignored(rel, ignores):
                continue
            yield Path(dirpath, name)


def _ignored(rel: str, ignores: list[tuple[str, object]]) -> bool:
    for base, spec in ignores:
        if base and not rel.startswith(base + "/"):
            continue
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub):  # type: ignore[attr-defined]
            return True
    return False
