"""reStructuredText's ``include`` directive, resolved inside the documentation folder.

Sphinx projects keep shared text in files they include: BorgBackup's usage pages are one line,
``.. include:: prune.rst.inc``, and the option tables live in the ``.rst.inc`` file. Read without
its includes, such a page is its examples only. docutils' own file insertion is off (it would read
any path, ``/etc/passwd`` included), so ``resolve_includes`` does the inserting first, the way
Sphinx does, bounded:

- the path is relative to the including file, or to the Sphinx source folder when it starts with
  ``/`` (Sphinx's rule); the file must be inside that source folder (the nearest folder above with
  a Sphinx ``conf.py``, else the including file's own folder), so ``../../etc/passwd`` is dropped;
- ``:start-line:``, ``:end-line:``, ``:start-after:`` and ``:end-before:`` select part of the file;
  ``:literal:`` and ``:code:`` insert it as a literal block; the text takes the directive's indentation;
- an included file's own includes are resolved too, ``MAX_DEPTH`` deep, and a file that includes
  itself (directly or not) is not read again;
- at most ``MAX_INCLUDE_BYTES`` per included file and ``budget`` bytes for all of one document's
  includes together (``sources.limits.max_included_mb``: a page that includes one file a thousand
  times does not become a thousand copies of it; 0 drops every include);
- docutils' standard definition files (``.. include:: <isonum.txt>``) and any include that cannot
  be resolved (missing, outside the folder, binary, too large, past the budget) are dropped, with
  a debug log line naming it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from ragkit.loaders.included import Included, read_included

log = logging.getLogger(__name__)

MAX_INCLUDE_BYTES = 256 * 1024
MAX_DEPTH = 4
# (each line's end is stripped in code: a lazy group before trailing blanks is quadratic on a long line)
_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+include::[ \t]*(?P<arg>\S.*)$")
_OPTION = re.compile(r"^[ \t]+:(?P<name>[\w-]+):(?P<value>.*)$")


@dataclass
class _Budget:
    left: int
    chain: tuple[Path, ...] = field(default_factory=tuple)
    read: list[Included] | None = None  # the files read, with their bytes, shared by every level


def resolve_includes(text: str, path: Path, *, budget: int, read: list[Included] | None = None) -> str:
    """``text`` (the reStructuredText file ``path``) with its ``include`` directives replaced by
    the text they name, at most ``budget`` bytes of it, or dropped (see the module docstring); the
    files read are appended to ``read``."""
    if "include::" not in text:
        return text
    from ragkit.loaders.sphinx_project import sphinx_source_root

    here = path.resolve()
    root = (sphinx_source_root(path) or path.parent).resolve()
    return _resolve(text, here, root, _Budget(budget, chain=(here,), read=read))


def _resolve(text: str, path: Path, root: Path, budget: _Budget) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        options: dict[str, str] = {}
        i += 1
        while i < len(lines) and (o := _OPTION.match(lines[i])) and len(o.group()) - len(o.group().lstrip()) > len(m["indent"]):
            options[o["name"]] = o["value"].strip()
            i += 1
        body = _included(m["arg"].strip(), options, path, root, budget)
        if body is None:
            log.debug("%s: dropped include of %s (cannot be resolved inside %s)", path, m["arg"].strip(), root)
            continue
        out.extend(f"{m['indent']}{ln}" if ln.strip() else "" for ln in body.splitlines())
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _included(arg: str, options: dict[str, str], path: Path, root: Path, budget: _Budget) -> str | None:
    if arg.startswith("<") or len(budget.chain) > MAX_DEPTH:
        return None  # docutils' standard definitions (<isonum.txt>) or too deep
    target = (root / arg.lstrip("/") if arg.startswith("/") else path.parent / arg).resolve()
    if not target.is_relative_to(root) or target in budget.chain:
        return None
    if (text := read_included(target, min(MAX_INCLUDE_BYTES, budget.left), budget.read)) is None:
        return None
    budget.left -= len(text.encode("utf-8"))
    body = _select(text, options)
    if body is None:
        return None
    if "literal" in options or "code" in options:
        return "::\n\n" + "\n".join(f"    {ln}" for ln in body.splitlines()) + "\n"
    inner = _Budget(budget.left, (*budget.chain, target), budget.read)
    body = _resolve(body, target, root, inner)
    budget.left = inner.left
    return body


def _select(text: str, options: dict[str, str]) -> str | None:
    """The part of an included file its options name; None when a marker is not in it."""
    lines = text.splitlines()
    try:
        start = int(options.get("start-line") or 0)
        end = int(options["end-line"]) if options.get("end-line") else len(lines)
    except ValueError:
        return None
    text = "\n".join(lines[start:end])
    if after := options.get("start-after"):
        if after not in text:
            return None
        text = text.split(after, 1)[1]
    if before := options.get("end-before"):
        if before not in text:
            return None
        text = text.split(before, 1)[0]
    return text


__all__ = ["MAX_DEPTH", "MAX_INCLUDE_BYTES", "resolve_includes"]
