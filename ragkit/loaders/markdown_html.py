"""HTML headings in Markdown (``<h3 name="config">Does it support config files?</h3>``, a README's
``<h1 align="center">``) written as the ATX headings they are, so the Markdown splitter gives the
text under them its heading path. Code blocks are left as written; a heading with no text (a logo
image) leaves nothing. One pass over the lines: a heading may span ``MAX_HEADING_LINES``."""

from __future__ import annotations

import html
import re

MAX_HEADING_LINES = 6
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_OPEN = re.compile(r"^[ \t]{0,3}<h([1-6])\b", re.IGNORECASE)
_TAG = re.compile(r"<[^<>]{0,2000}>")


def html_headings(text: str) -> str:
    """``text`` with its block-level HTML headings written as ``#`` headings, outside code."""
    if "<h" not in text and "<H" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = _FENCE.match(line)
        if fence:  # inside code: a fence of the same character, at least as long, closes it
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = ""
        elif marker:
            fence = marker.group(1)
        else:
            heading = _heading(lines, i)
            if heading is not None:
                level, words, i = heading
                if words:
                    out.append(f"{'#' * level} {words}")
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _heading(lines: list[str], i: int) -> tuple[int, str, int] | None:
    """``(level, text, next line)`` for an HTML heading starting at line ``i``, else None."""
    opened = _OPEN.match(lines[i])
    if not opened:
        return None
    close = re.compile(rf"</h{opened.group(1)}\s*>[ \t]*$", re.IGNORECASE)
    for j in range(i, min(i + MAX_HEADING_LINES, len(lines))):
        if close.search(lines[j]):
            inner = "\n".join(lines[i : j + 1])
            words = " ".join(html.unescape(_TAG.sub(" ", inner)).split())
            return int(opened.group(1)), words, j + 1
    return None


__all__ = ["html_headings"]
