"""HTML headings in Markdown (``<h3 name="config">Does it support config files?</h3>``, a README's
``<h1 align="center">``) written as the ATX headings they are, so the Markdown splitter gives the
text under them its heading path. Code blocks are left as written; a heading with no text (a logo
image) leaves nothing."""

from __future__ import annotations

import html
import re

_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[ \t]*$", re.DOTALL | re.MULTILINE)
_HEADING = re.compile(r"^[ \t]{0,3}<h([1-6])\b[^>\n]*>(.{0,2000}?)</h\1\s*>[ \t]*$", re.DOTALL | re.MULTILINE | re.IGNORECASE)
_TAG = re.compile(r"<[^<>]{0,2000}>")


def html_headings(text: str) -> str:
    """``text`` with its block-level HTML headings written as ``#`` headings, outside code."""
    if "<h" not in text and "<H" not in text:
        return text
    parts = []
    last = 0
    for fence in _FENCED.finditer(text):
        parts.append(_HEADING.sub(_atx, text[last : fence.start()]))
        parts.append(fence.group())
        last = fence.end()
    parts.append(_HEADING.sub(_atx, text[last:]))
    return "".join(parts)


def _atx(m: re.Match[str]) -> str:
    words = " ".join(html.unescape(_TAG.sub(" ", m.group(2))).split())
    return f"{'#' * int(m.group(1))} {words}" if words else ""


__all__ = ["html_headings"]
