"""Python-Markdown's indented blocks (the admonitions, collapsible notes and content tabs of MkDocs
and Material for MkDocs) read as the page shows them.

Such a block is a marker line with its text indented four columns under it:

- ``!!! tip`` / ``!!! danger "Deprecated"`` (an admonition), ``??? note`` / ``???+ note`` (one
  that folds, pymdownx.details);
- ``=== "Z shell"`` (a content tab, pymdownx.tabbed; ``===+`` and ``===!`` too).

Read as CommonMark, the indented text is a code block and the marker a line of punctuation: the
zsh command under ``=== "Z shell"`` lost the tab's name, and a tip's sentence was code. Here the
marker becomes a label line (the title when there is one, else the kind: ``Tip:``, ``Z shell:``;
an explicit empty title ``""`` none) and the block's lines are dedented; blocks nest, and a line
indented less than its block closes it. Markers inside fenced code stay as written. One pass over
the lines, so any text is read in linear time.
"""

from __future__ import annotations

import re

from ragkit.loaders.mdx import admonition_label

#: blocks nested deeper than this are read as text indented under the last one
MAX_DEPTH = 16
_WIDTH = 4  # the columns a block's text is indented by
_MARKER = re.compile(
    r"(?:(?P<admonition>!!!|\?\?\?\+?)[ \t]+(?P<kind>[A-Za-z][\w-]{0,40})(?:[ \t]+[A-Za-z][\w-]{0,40}){0,8}"
    r"|(?P<tab>===\+?!?|===!\+?))[ \t]*(?:\"(?P<title>[^\"\n]{0,300})\")?[ \t]*")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")


def render_indented_blocks(text: str) -> str:
    """``text`` (Markdown) with its ``!!!``, ``???`` and ``===`` blocks as a label line and their
    dedented text (see the module docstring)."""
    if "!!!" not in text and "???" not in text and "===" not in text:
        return text
    out: list[str] = []
    depth, fence = 0, ""
    for line in text.split("\n"):
        if depth and line.strip():
            columns = _indent(line)
            if columns < _WIDTH * depth:  # the block (and any inside it) ends here
                depth = columns // _WIDTH
                fence = ""
                out.append("")
        body = _dedented(line, _WIDTH * depth) if depth else line
        marker = _FENCE.match(body)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) \
                    and not body.strip(" \t`~"):
                fence = ""
        elif marker:
            fence = marker.group(1)
        elif depth < MAX_DEPTH and (label := _label(body)) is not None:
            out += ["", *label]
            depth += 1
            continue
        out.append(body)
    return "\n".join(out)


def _label(line: str) -> list[str] | None:
    """The label line of the block ``line`` opens ([] for an explicit empty title), or None when
    it opens none (a setext heading's ``===`` underline opens none: a tab needs its title)."""
    match = _MARKER.fullmatch(line)
    if match is None or match.group("tab") and match.group("title") is None:
        return None
    title = match.group("title")
    if title is not None:
        return [f"{title.strip()}:"] if title.strip() else []
    kind = match.group("kind").lower()
    return [f"{admonition_label(kind) or kind.capitalize()}:"]


def _indent(line: str) -> int:
    """The columns of ``line``'s leading blanks, a tab to the next multiple of four."""
    columns = 0
    for char in line:
        if char == " ":
            columns += 1
        elif char == "\t":
            columns += _WIDTH - columns % _WIDTH
        else:
            break
    return columns


def _dedented(line: str, columns: int) -> str:
    """``line`` without ``columns`` columns of its leading blanks (a blank line stays blank)."""
    taken = 0
    for i, char in enumerate(line):
        if taken >= columns or char not in " \t":
            return line[i:] if taken <= columns else " " * (taken - columns) + line[i:]
        taken += 1 if char == " " else _WIDTH - taken % _WIDTH
    return ""


__all__ = ["MAX_DEPTH", "render_indented_blocks"]
