"""Find the files to index under the given roots.

A source's name is its path relative to the root it was found under (posix style). Include and
exclude globs use .gitignore syntax (``**/*.md``, ``drafts/``); ``.gitignore`` files under a root
are respected when ``respect_gitignore`` is on. ``.git`` and the index directory are never indexed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragkit.config import SourcesSpec
from ragkit.errors import ConfigError
from ragkit.loaders.assets import skip_assets


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


def make_roots(paths: Sequence[str | Path]) -> list[Root]:
    roots = []
    for raw in paths:
        p = Path(raw).expanduser()
        if not p.exists() and not p.is_symlink():
            raise ConfigError(f"path to index does not exist: {raw}")
        p = p.resolve() if p.exists() else p.absolute()
        roots.append(Root(p.parent, only=p.name) if p.is_file() else Root(p))
    return roots


def discover(roots: Sequence[Root], spec: SourcesSpec, *, skip_dirs: Sequence[Path] = ()) -> Iterator[SourceFile]:
    """The files to index; assets (images, SVG, CSS, ...) are left out in one summary line."""
    return skip_assets(_discover(roots, spec, skip_dirs), spec.asset_opt_ins)


def _discover(roots: Sequence[Root], spec: SourcesSpec, skip_dirs: Sequence[Path]) -> Iterator[SourceFile]:
    import pathspec

    include = pathspec.GitIgnoreSpec.from_lines(spec.include)
    exclude = pathspec.GitIgnoreSpec.from_lines(spec.exclude)
    skip = {p.resolve() for p in skip_dirs}
    for root in roots:
        if root.only is not None:
            yield SourceFile(root, root.path / root.only, root.only)
            continue
        yield from _walk(root, include, exclude, spec, skip)


def _walk(root: Root, include, exclude, spec: SourcesSpec, skip: set[Path]) -> Iterator[SourceFile]:  # type: ignore[no-untyped-def]
    import pathspec

    ignores: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    for dirpath, dirnames, filenames in os.walk(root.path, followlinks=spec.follow_symlinks):
        rel_dir = os.path.relpath(dirpath, root.path)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        if spec.respect_gitignore and ".gitignore" in filenames:
            lines = (Path(dirpath) / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            ignores.append((rel_dir, pathspec.GitIgnoreSpec.from_lines(lines)))
        kept = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            full = Path(dirpath, d)
            if d == ".git" or full.resolve() in skip or _ignored(rel + "/", ignores) or exclude.match_file(rel + "/"):
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if name == ".gitignore" or not include.match_file(rel) or exclude.match_file(rel):
                continue
            if _ignored(rel, ignores):
                continue
            yield SourceFile(root, Path(dirpath, name), rel)


def _ignored(rel: str, ignores: list[tuple[str, object]]) -> bool:
    for base, spec in ignores:
        if base and not rel.startswith(base + "/"):
            continue
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub):  # type: ignore[attr-defined]
            return True
    return False
