"""Emacs Org-mode files (``.org``, loader ``org``), read with no extra package.

Org is plain text with light markup; the loader writes it out as Markdown-structured text so the
splitter cuts at its headings: ``** Heading :tag:`` becomes ``## Heading`` (a ``TODO``/``DONE``
keyword and the tags dropped), ``#+begin_src``/``#+begin_example`` blocks become fenced code (a
``*`` or ``#`` line inside them is code, not a heading), other ``#+begin_…``/``#+end_…`` lines
and ``#+KEYWORD:`` lines are dropped (``#+title:`` becomes the ``title``, ``#+author:`` the
``authors``), as are comment lines
(``# …``) and drawers (``:PROPERTIES:`` … ``:END:``). A link ``[[target][description]]`` reads as
its description, ``[[target]]`` as its target; ``=verbatim=`` and ``~code~`` read as Markdown code
spans (`` `org-eval-light` ``), so a setting's name is a literal, as in the other markups. One pass
over the lines.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.loaders.base import MarkupLoader
from ragkit.loaders.bylines import front_matter_authors
from ragkit.registry import loaders

_TAGS = re.compile(r":[\w@#%:]+:")
_KEYWORD = re.compile(r"\s*#\+(\w+):\s?(.*)", re.IGNORECASE)
#: an ``#+author:`` line among the file's head (:data:`AUTHOR_HEAD` characters), its names
_AUTHOR = re.compile(r"^[ \t]*#\+author:[ \t]*(\S[^\n]*)$", re.IGNORECASE | re.MULTILINE)
AUTHOR_HEAD = 4000
_BLOCK = re.compile(r"\s*#\+(begin|end)_(\w+)", re.IGNORECASE)
_DRAWER = re.compile(r"\s*:[\w-]+:\s*")
_LINK = re.compile(r"\[\[([^][\n]{1,4000})\](?:\[([^][\n]{0,4000})\])?\]")  # no bracket inside: one try per "[["
_CODE_BLOCKS = frozenset({"src", "example"})
#: Org's verbatim and code markup, ``=org-eval-light=`` and ``~C-c C-c~``: a marker after a line's
#: start, a space or an opening mark, text that neither begins nor ends with a space, the same marker
#: before a space, punctuation or the line's end (bounded: one try per marker)
_INLINE_CODE = re.compile(r"(?<![^\s\-({'\"])([=~])(?=\S)([^\n]{0,300}?\S)\1(?=[\s\-.,:!?;'\")}\[]|$)")


@loaders.register("org")
class OrgLoader(MarkupLoader):
    """One document of an ``.org`` file: its text with Org markup turned into Markdown."""

    name = "org"
    mime = "text/x-org"
    version = 4  # 2: ``authors`` from a signature under the last paragraph; 3: ``=verbatim=`` as a code span;
    # 4: ``authors`` from ``#+author:``

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        return org_to_markdown(text)

    def declared_authors(self, text: str) -> str | None:
        """The names of the ``#+author:`` lines in the file's head (``#+AUTHOR: Ann Lee``)."""
        return front_matter_authors({"authors": [m.group(1) for m in _AUTHOR.finditer(text[:AUTHOR_HEAD])]})


def org_to_markdown(org: str) -> tuple[str, str | None]:
    """``org`` as Markdown-structured text, and its ``#+title:`` (``None`` without one)."""
    out: list[str] = []
    title: str | None = None
    code = False  # inside a src/example block
    drawer = False
    for line in org.splitlines():
        block = _BLOCK.match(line)
        if block:
            if block.group(2).lower() in _CODE_BLOCKS:
                code = block.group(1).lower() == "begin"
                out.append("```")
            continue
        if code:
            out.append(line)
            continue
        if drawer:
            drawer = line.strip().upper() != ":END:"
            continue
        if _DRAWER.fullmatch(line) and line.strip().upper() != ":END:":
            drawer = True
            continue
        keyword = _KEYWORD.match(line)
        if keyword:
            if keyword.group(1).lower() == "title" and title is None:
                title = keyword.group(2).strip() or None
            continue
        if line.startswith("#") and (len(line) == 1 or line[1].isspace()):
            continue  # a comment
        out.append(_line(line))
    if code:
        out.append("```")
    return "\n".join(out).strip() + "\n", title


def _line(line: str) -> str:
    line = _LINK.sub(lambda m: m.group(2) or m.group(1), line)
    line = _INLINE_CODE.sub(_code_span, line)
    stars = len(line) - len(line.lstrip("*"))
    if not stars or not line[stars:stars + 1].isspace():
        return line
    words = line[stars:].split()
    if words and words[0] in ("TODO", "DONE"):
        words = words[1:]
    if words and _TAGS.fullmatch(words[-1]):
        words = words[:-1]
    return f"{'#' * min(stars, 6)} {' '.join(words)}"


def _code_span(m: re.Match[str]) -> str:
    """Org's ``=verbatim=`` or ``~code~`` as a Markdown code span (two backticks around text holding one)."""
    text = m.group(2)
    return f"`` {text} ``" if "`" in text else f"`{text}`"
