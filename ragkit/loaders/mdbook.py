"""mdBook's include directives in Markdown, resolved against the book.

An mdBook chapter pulls text from other files: ``{{#include ../listings/main.rs}}``,
``{{#rustdoc_include file.rs:2:5}}``, ``{{#include file.rs:anchor}}``. Indexed as written, the
directive line would be searched and quoted instead of the code it stands for. ``resolve_includes``
replaces each directive line with the lines it names, the way mdBook does:

- the path is relative to the Markdown file and must stay inside the book (the nearest folder
  above with a ``book.toml``, else the Markdown file's own folder): ``../../etc/passwd`` is dropped;
- a range ``:2:5``, ``:3:``, ``::5`` or ``:7`` (one line), or an anchor ``:name`` (the lines between
  ``ANCHOR: name`` and ``ANCHOR_END: name``); ``ANCHOR`` marker lines never reach the text;
- at most ``MAX_INCLUDE_BYTES`` per included file and the ``budget`` for all of a chapter's
  includes (``sources.limits.max_included_mb``; 0 drops every include); an included Markdown file's own directives are
  resolved too, ``MAX_DEPTH`` deep, and a file that includes itself (directly or not) is not read again;
- ``\\{{#include …}}`` (escaped) is text: it is kept without its backslash, as mdBook shows it;
- a directive that cannot be resolved (a missing file, a path outside the book, an unknown anchor,
  a binary or too large file) is dropped, with a debug log line naming it.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from ragkit.loaders.included import Included, read_included

log = logging.getLogger(__name__)

MAX_INCLUDE_BYTES = 256 * 1024
MAX_DEPTH = 4
_BOOK_SEARCH_DEPTH = 8  # how many folders above a chapter are looked through for book.toml
_DIRECTIVE = re.compile(r"(?P<escape>\\?)\{\{#(?P<kind>include|rustdoc_include|playground)\s+(?P<arg>[^}]+?)\s*\}\}")
_ANCHOR = re.compile(r"\bANCHOR(?:_END)?:\s*[\w-]+")


def book_root(path: Path) -> Path:
    """The folder of the book ``path`` belongs to: the nearest one above with a ``book.toml``,
    else ``path``'s own folder."""
    for folder in list(path.resolve().parents)[:_BOOK_SEARCH_DEPTH]:
        if (folder / "book.toml").is_file():
            return folder
    return path.resolve().parent


def resolve_includes(text: str, path: Path, *, budget: int, root: Path | None = None,
                     read: list[Included] | None = None) -> str:
    """``text`` (the Markdown file ``path``) with its include directives replaced by the text
    they name, at most ``budget`` bytes of it all together, or dropped (see the module docstring);
    the files read are appended to ``read``."""
    if "{{#" not in text:
        return text
    return _resolve(text, path.resolve(), root or book_root(path), (path.resolve(),), [budget], read)


def _resolve(text: str, path: Path, root: Path, chain: tuple[Path, ...], left: list[int],
             read: list[Included] | None) -> str:
    def replace(m: re.Match[str]) -> str:
        if m.group("escape"):  # "\{{#include x}}": the directive written as text, as mdBook shows it
            return m.group()[1:]
        found = _included(m.group("arg"), path, root, chain, left, read)
        if found is None:
            log.debug("%s: dropped %s (cannot be resolved inside %s)", path, m.group(), root)
            return ""
        return found

    return _DIRECTIVE.sub(replace, text)


def _included(arg: str, path: Path, root: Path, chain: tuple[Path, ...], left: list[int],
              read: list[Included] | None) -> str | None:
    name, _, selector = arg.strip().partition(":")
    target = (path.parent / name).resolve()
    if not target.is_relative_to(root) or target in chain or len(chain) > MAX_DEPTH:
        return None
    if (text := read_included(target, min(MAX_INCLUDE_BYTES, left[0]), read)) is None:
        return None
    left[0] -= len(text.encode("utf-8"))
    lines = _select(text.splitlines(), selector)
    if lines is None:
        return None
    body = "\n".join(ln for ln in lines if not _ANCHOR.search(ln))
    if target.suffix.lower() in (".md", ".markdown"):
        body = _resolve(body, target, root, (*chain, target), left, read)
    return body


def _select(lines: list[str], selector: str) -> list[str] | None:
    """The lines a selector names: none (all), a range ``2:5``/``3:``/``:5``, one line ``7``, or
    an anchor's lines; None when an anchor is not in the file."""
    selector = selector.strip()
    if not selector:
        return lines
    start, sep, end = selector.partition(":")
    if re.fullmatch(r"\d*", start) and re.fullmatch(r"\d*", end) and (start or end):
        first = max(int(start or 1), 1)
        last = int(end) if end else (len(lines) if sep else first)
        return lines[first - 1:last]
    begin = next((i for i, ln in enumerate(lines) if re.search(rf"\bANCHOR:\s*{re.escape(selector)}\b", ln)), None)
    if begin is None:
        return None
    stop = next((i for i, ln in enumerate(lines) if re.search(rf"\bANCHOR_END:\s*{re.escape(selector)}\b", ln)),
                len(lines))
    return lines[begin + 1:stop]


__all__ = ["MAX_INCLUDE_BYTES", "book_root", "resolve_includes"]
