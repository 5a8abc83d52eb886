"""A document's authors as its text or front matter states them: YAML front matter ``author:`` or
``authors:`` (a name, a list of names, or mappings with a ``name``), else a field line among the
first lines of the text, before its first section ("* **Author**: Kirill Rakhman", "Authors: Ada
Quill, Tom Reed", a book chapter's "*Author: Fangzhou Li*" in italics), as design proposals, RFCs and reports head their text. The names are read as
written, without e-mail addresses and with a link's text for the link (``[Ada](https://…)`` is
"Ada"); a proposal's later "Authors:" list of contributors is not its byline."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ragkit.loaders.pdf_paper import line_names

#: how many lines after the title a byline field may start
FIELD_LINES = 15
#: how long a byline may be: a longer field is prose, not names
MAX_CHARS = 300
#: how much of the text's start is read for the field: its first lines, never the whole text again
HEAD_CHARS = 8192

_FIELD = re.compile(
    r"^ {0,3}(?:[-*+][ \t]+)?(?:\*\*|__|[*_](?=\w))?(?:Authors?|Written by)(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*(?P<names>\S.*)$",
    re.IGNORECASE,
)
#: a second-level heading, an underline or a code fence: the text has begun
_SECTION = re.compile(r"^(?:#{2,6}[ \t]|[=\-~^*]{3,}[ \t]*$|\s*(?:```|~~~))")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMAIL = re.compile(r"\s*<[^>@\s]+@[^>\s]+>")


def front_matter_authors(front: Mapping[str, object]) -> str | None:
    """The names in front matter ``author``/``authors``, joined with ", ", or None."""
    value = front.get("authors", front.get("author"))
    items = value if isinstance(value, list) else [value]
    names = [item.get("name") if isinstance(item, Mapping) else item for item in items]
    return _clean(", ".join(str(n) for n in names if isinstance(n, str | int) and str(n).strip()))


def field_authors(body: str) -> str | None:
    """The names of an "Author(s):" field among the text's first :data:`FIELD_LINES` lines after
    its title, before its first section or code, or None."""
    lines = body[:HEAD_CHARS].lstrip("\n").splitlines()[: FIELD_LINES + 1]  # the head alone, whatever the file's size
    for number, line in enumerate(lines):
        if number and _SECTION.match(line):
            return None
        if match := _FIELD.match(line):
            return _clean(match.group("names"))
    return None


#: how long a line of names may be
_NAMES_LINE_CHARS = 120
#: a handle or a note in brackets after a name ("Saif ElSherei (0x5A1F)"): not part of it
_BRACKETED = re.compile(r"\s*[(\[][^()\[\]]{1,40}[)\]]")
_JOINERS = frozenset({",", ";", "&", "and"})


def names_line(text: str) -> str | None:
    """The people a line names when it names nothing else, as a title slide's line under its title
    does ("Jane Doe", "Saif ElSherei (0x5A1F) & Ian Kronquist": the bracketed handle left out), or
    None (a sentence, a date, a subtitle with a digit or in lower case). The names are read as a
    paper's byline is (``pdf_paper.line_names``); every other word of the line must be a joiner."""
    if len(text) > 2 * _NAMES_LINE_CHARS:  # a paragraph, not a line of names: never scanned whole
        return None
    line = " ".join(_BRACKETED.sub("", text).split())
    if len(line) > _NAMES_LINE_CHARS or line[-1:] in (",", ";", "&"):  # a line that goes on is no byline alone
        return None
    names = line_names(line)
    named = [w for n in names for w in n.split()]
    rest = [w for w in line.replace(",", " , ").replace(";", " ; ").split() if w.lower() not in _JOINERS]
    return line if names and rest == named else None


def _clean(names: str) -> str | None:
    names = _EMAIL.sub("", _LINK.sub(r"\1", names)).replace("**", "").replace("__", "").strip(" \t,;*_")
    return names if names and len(names) <= MAX_CHARS else None


__all__ = ["FIELD_LINES", "HEAD_CHARS", "MAX_CHARS", "field_authors", "front_matter_authors", "names_line"]
