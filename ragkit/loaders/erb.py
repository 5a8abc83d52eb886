"""Embedded Ruby in Markdown pages (``*.html.md.erb``, as Middleman sites and the GOV.UK Tech
Docs Template write them): the page's front matter fills the tags that print it, and any other
tag is taken out.

``# <%= current_page.data.title %>`` is the page's title, which its front matter gives
(``title: How to arrange IT Health Checks``); indexed as written, the title heading is the tag
and chunks and answers quote it. A tag that prints something else (``<%= partial "x" %>``) or
runs code (``<% if … %>``) shows nothing the file holds: it is dropped, and a line that holds
only such tags goes too. An opening ``<%`` with no ``%>`` after it is text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: the file names read so (the extension before ``.erb`` is the template's output format)
SUFFIX = ".md.erb"

_PAGE_DATA = re.compile(r"\s*current_page\.data(?:\.(?P<key>\w+)|\[[:'\"](?P<sym>\w+)['\"]?\])\s*")


def render_erb(body: str, front: Mapping[str, object]) -> str:
    """``body`` with its ERB tags replaced: a front-matter value printed (``current_page.data.title``)
    becomes the value, any other tag nothing. One pass: each tag is read from its ``<%`` to the
    first ``%>`` after it."""
    out: list[str] = []
    line_has_text = False  # the output line so far holds more than tags and blanks
    at = 0
    while (start := body.find("<%", at)) >= 0 and (end := body.find("%>", start + 2)) >= 0:
        before = body[at:start]
        out.append(before)
        newline = before.rfind("\n")
        if newline >= 0:
            line_has_text = bool(before[newline + 1:].strip())
        elif before.strip():
            line_has_text = True
        value = _printed(body[start + 2:end], front)
        out.append(value)
        line_has_text = line_has_text or bool(value.strip())
        at = end + 2
        if not line_has_text and (body.startswith("\n", at) or at == len(body)):
            _drop_line_start(out)  # a line of tags alone: gone, with its line break
            at += 1
    out.append(body[at:])
    return "".join(out)


def _printed(code: str, front: Mapping[str, object]) -> str:
    """What the tag ``<%code%>`` shows of the page: a front-matter value it prints, else nothing."""
    if not code.startswith("="):
        return ""
    data = _PAGE_DATA.fullmatch(code[1:].strip("-"))
    found = front.get(data.group("key") or data.group("sym")) if data else None
    return str(found) if isinstance(found, str | int | float) else ""


def _drop_line_start(out: list[str]) -> None:
    """Remove the blanks the current output line opened with (it held only tags)."""
    while out:
        last = out.pop()
        newline = last.rfind("\n")
        if newline >= 0:
            out.append(last[:newline + 1])
            return


__all__ = ["SUFFIX", "render_erb"]
