"""A document's authors as its text or front matter states them: YAML front matter ``author:`` or
``authors:`` (a name, a list of names, or mappings with a ``name``), else a field line among the
first lines of the text, before its first section ("* **Author**: Kirill Rakhman", "Authors: Ada
Quill, Tom Reed", a book chapter's "*Author: Fangzhou Li*" in italics), as design proposals, RFCs and reports head their text,
else the signature under a foreword's or a letter's last paragraph ("Brian Holt" over "Senior
Program Manager" and "Microsoft"). The names are read as
written, without e-mail addresses and with a link's text for the link (``[Ada](https://…)`` is
"Ada"); a proposal's later "Authors:" list of contributors is not its byline."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ragkit.loaders.markdown_html import without_html_comments
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


#: how much of the text's end is read for a signature
TAIL_CHARS = 2048
#: how many lines a signature may have: the name, then a role, an organisation, a place or a date
_SIGNATURE_LINES = 5
#: how long a signature's line after the name may be
_SIGNATURE_LINE_CHARS = 60
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_LINE_TAG = re.compile(r"<br\s*/?>|</?[a-zA-Z][^<>]{0,80}>")  # "Brian Holt<br>", "<em>MIT</em>"
_LINE_BLOCK = re.compile(r"^\|[ \t]?")  # reStructuredText's line block: "| David Clark"
_SENTENCE_END = re.compile(r"[.!?)\"\u201d\u2019]\s*$")


def closing_signature(text: str) -> str | None:
    """The person who signs ``text``: its last paragraph, when it is a short block of lines whose
    first names people and nothing else ("Brian Holt" / "Senior Program Manager" / "Microsoft";
    "— Jane Doe"; "David Clark" / "MIT" / "October 2020") under a paragraph of prose, as a
    foreword, a preface or a letter ends; else None. A closing list of names (contributors, a
    credits list) is no signature: its lines are list items, or the paragraph before is no prose."""
    tail = without_html_comments(text[-TAIL_CHARS:]).strip()
    paragraphs = [p for p in _PARAGRAPH_BREAK.split(tail) if p.strip()]
    if len(paragraphs) < 2:
        return None
    lines = [_LINE_BLOCK.sub("", _LINE_TAG.sub("", line)).strip() for line in paragraphs[-1].splitlines()]
    lines = [line for line in lines if line]
    before = paragraphs[-2].strip()
    if (not 1 <= len(lines) <= _SIGNATURE_LINES or not _SENTENCE_END.search(before)
            or before.startswith(("-", "*", "+", "|", "#"))):
        return None
    if any(len(line) > _SIGNATURE_LINE_CHARS or line.endswith((".", ":", ",", ";")) for line in lines[1:]):
        return None  # a sentence, not a role or a place under a name
    return names_line(lines[0].lstrip("\u2014\u2013-~ "))


#: a section of the document's authors: "## Authors", "### Author(s)", "## Written by"
_AUTHORS_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(?:Authors?|Author\(s\)|Written by)[ \t#]*$", re.IGNORECASE | re.MULTILINE)
#: how many lines of names an authors section may have, and how much of the text after its heading is read
_AUTHORS_LINES = 12
_AUTHORS_CHARS = 4096
_ITEM_MARK = re.compile(r"^(?:[-*+]|\d{1,3}[.)])[ \t]+")
_REFERENCE_LINK = re.compile(r"\[([^\]]*)\]\[[^\]]*\]")  # "[Russell R. Rutledge][]"
#: where a name ends and what is said of it begins: "Tim Yao, Nokia", "**Jo Ng**. Author, maintainer"
_AFTER_NAME = re.compile(r",|\.\s|\s[-\u2013\u2014]\s|\s(?:from|at)\s")


def section_authors(body: str) -> str | None:
    """The names listed under the text's one "Authors" heading ("## Author(s)" over "- Tim Yao,
    Nokia" and "- Diogo Fregonese (Robert Bosch GmbH)", as a pattern catalogue or a design
    record closes), each item a person, or None: when the section says anything but names (a
    sentence, code, a field's description), or the text has no such heading or several (a
    change log's "### Authors" under each release)."""
    found = list(_AUTHORS_HEADING.finditer(body))
    if len(found) != 1:
        return None
    end = found[0].end()
    names: list[str] = []
    for line in body[end:end + _AUTHORS_CHARS].splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#") or len(names) == _AUTHORS_LINES:
            break
        text = _REFERENCE_LINK.sub(r"\1", _LINK.sub(r"\1", _EMAIL.sub("", _ITEM_MARK.sub("", line))))
        text = text.replace("**", "").replace("__", "").strip()
        first = _AFTER_NAME.split(text, maxsplit=1)[0]
        # an item is one person, what follows a comma their organisation ("Tim Yao, Nokia"); a line
        # of its own may name several ("Ada Quill, Tom Reed")
        named = names_line(first) or names_line(text) if _ITEM_MARK.match(line) else names_line(text) or names_line(first)
        if named is None:
            return None  # not a list of people
        names.append(" ".join(_BRACKETED.sub("", named).split()))
    return _clean(", ".join(names)) if names else None


def _clean(names: str) -> str | None:
    names = _EMAIL.sub("", _LINK.sub(r"\1", names)).replace("**", "").replace("__", "").strip(" \t,;*_")
    return names if names and len(names) <= MAX_CHARS else None


__all__ = ["FIELD_LINES", "HEAD_CHARS", "MAX_CHARS", "TAIL_CHARS", "closing_signature", "field_authors",
           "front_matter_authors", "names_line", "section_authors"]
