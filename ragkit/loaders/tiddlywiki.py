"""TiddlyWiki tiddlers (``.tid``; loader ``tiddlywiki``), read with no extra package.

A tiddler file is a block of fields (``title: Upgrading``, ``tags: …``, ``created: …``), a blank
line, then its text in TiddlyWiki's wikitext. Read as plain text, the fields were a sentence of
timestamps and an answer quoted the markup (``''bold''``, ``[[Link|Target]]``,
``{{$:/core/images/chevron-down}}``). The loader takes the title from the fields and writes the
text out as Markdown-structured text, one pass over the lines:

- ``!`` … ``!!!!!!`` headings become ``#`` … ``######``; ``''bold''``, ``//italic//``,
  ``__underline__``, ``^^super^^`` and ``,,sub,,`` their text; ``[[Text|Target]]`` reads as its
  text, ``[[Target]]`` as the target, ``[ext[Text|URL]]`` as its text; images, transclusions
  (``{{…}}``, ``{{{…}}}``), macro calls (``<<…>>``), widgets (``<$list …>``), HTML comments and
  the pragmas above the text (``\\define`` … ``\\end``) go.
- ``*`` and ``#`` lists (nested by repeating the mark) become Markdown lists, a quote in an item
  (``#>``) a line of that item, ``; term`` then ``: definition`` a ``- term: definition`` item,
  ``<<<`` blocks and ``>`` lines quotes.
- A table's rows (``|a|b|``) become Markdown rows: a row ending ``|h``, or whose cells all start
  with ``!``, is the header (with the separator under it), a row ending ``|c`` the caption (a
  ``Table:`` line after the table), ``|k`` (a class) goes.
- Fenced code (```` ``` ````) is kept as it is, markup inside it untouched.

A tiddler whose ``type`` field says Markdown is kept as written; a script, a style sheet or JSON
is fenced as code; an image tiddler holds no text and is skipped with that reason.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from ragkit.errors import LoaderError
from ragkit.loaders.base import MarkupLoader
from ragkit.loaders.markdown_html import without_html_comments
from ragkit.registry import loaders

_FIELD = re.compile(r"^([\w$.:/-]{1,80}):[ \t]?(.*)$")
_HEADING = re.compile(r"^(!{1,6})[ \t]*(.*)$")
_LIST = re.compile(r"^([*#;:]+>?)[ \t]*(.*)$")
_FENCE = re.compile(r"^\s*```")
_PRAGMA = re.compile(r"^\\(?:define|procedure|function|widget|import|rules|whitespace|parameters|relink)\b")
_MULTILINE_PRAGMA = re.compile(r"^\\(?:define|procedure|function|widget)\b[^\n]*\)\s*$")
_END = re.compile(r"^\\end\b")
# each mark's text holds none of the mark's characters: an unclosed mark costs a scan to the next one
_BOLD = re.compile(r"''([^'\n]{1,500})''")
_ITALIC = re.compile(r"(?<![:/\w])//([^/\n]{1,500})//")
_MARKS = re.compile(r"__([^_\n]{1,500})__|\^\^([^^\n]{1,500})\^\^|,,([^,\n]{1,500}),,")
_IMAGE = re.compile(r"\[img(?:[ \t][^\[\]\n]{0,300})?\[[^\[\]\n]{0,2000}\]\]")
_EXTERNAL = re.compile(r"\[ext\[([^\[\]|\n]{1,500}?)(?:\|[^\[\]\n]{0,2000})?\]\]")
_INTERNAL = re.compile(r"\[\[([^\[\]|\n]{1,500}?)(?:\|([^\[\]\n]{0,500}))?\]\]")
_TRANSCLUSION = re.compile(r"\{\{\{[^{}\n]{0,2000}\}\}\}|\{\{[^{}\n]{0,500}\}\}")
_MACRO = re.compile(r"<<[^<>\n]{0,500}>>")
_WIDGET = re.compile(r"</?\$[\w.-]{1,80}(?:\s(?:\"[^\"\n]{0,2000}\"|'[^'\n]{0,2000}'|[^<>\"'\n]){0,2000})?/?>")
_UNLINKED = re.compile(r"~(?=[A-Z])")
_ROW = re.compile(r"^\|(.*)\|([hcfk]?)\s*$")
_CODE_TYPES = ("application/javascript", "application/json", "text/css", "text/javascript")


@loaders.register("tiddlywiki")
class TiddlyWikiLoader(MarkupLoader):
    """One document of a tiddler: its title from its fields, its wikitext as Markdown."""

    name = "tiddlywiki"
    mime = "text/vnd.tiddlywiki"

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        fields, body = split_fields(text)
        kind = fields.get("type", "").strip().lower()
        if kind.startswith("image/"):
            raise LoaderError(f"{path}: an image tiddler ({kind}) holds no text", path=str(path),
                              reason="image tiddler")
        if kind in ("text/x-markdown", "text/markdown"):
            markdown = body
        elif kind in _CODE_TYPES:
            markdown = f"```\n{body.strip(chr(10))}\n```\n"
        else:
            markdown = tiddlywiki_to_markdown(body)
        return markdown, fields.get("title") or None


def split_fields(text: str) -> tuple[dict[str, str], str]:
    """A tiddler's fields (the ``name: value`` lines before the first blank line) and its text;
    a file that does not open with a field has none."""
    lines = text.split("\n")
    fields: dict[str, str] = {}
    for i, line in enumerate(lines):
        if not line.strip():
            return (fields, "\n".join(lines[i + 1 :])) if fields else ({}, text)
        match = _FIELD.match(line)
        if match is None:
            return {}, text
        fields[match.group(1).lower()] = match.group(2).strip()
    return fields, ""


def tiddlywiki_to_markdown(wiki: str) -> str:
    """``wiki`` (TiddlyWiki wikitext) as Markdown-structured text (see the module docstring)."""
    out: list[str] = []
    lines = without_html_comments(wiki).split("\n")
    i = _after_pragmas(lines)
    fenced, quoted, term = False, False, ""
    table: list[str] = []
    caption = ""
    for line in lines[i:]:
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        row = _ROW.match(line.strip())
        if row:
            caption = _table_row(row, table) or caption
            continue
        if table:
            out += [*table, *([f"Table: {caption}"] if caption else []), ""]
            table, caption = [], ""
        if line.strip().startswith("<<<"):
            quoted = not quoted
            continue
        if line.strip() == '"""':
            continue
        if term and not line.startswith(":"):
            out.append(f"- {term}")
            term = ""
        heading = _HEADING.match(line)
        listed = _LIST.match(line)
        if heading:
            out.append(f"{'#' * len(heading.group(1))} {_inline(heading.group(2))}")
        elif listed and listed.group(1)[-1] == ";":
            term = _inline(listed.group(2))
        elif listed and listed.group(1)[-1] == ":":
            text = _inline(listed.group(2))
            out.append(f"- {term}: {text}" if term else text)
            term = ""
        elif listed and listed.group(2) and listed.group(1)[-1] == ">":  # a quote in the item above: its text
            out.append(f"{'  ' * (len(listed.group(1)) - 1)}{_inline(listed.group(2))}")
        elif listed and listed.group(2):
            marks = listed.group(1)
            bullet = "1." if marks[-1] == "#" else "-"
            out.append(f"{'  ' * (len(marks) - 1)}{bullet} {_inline(listed.group(2))}")
        else:
            text = _inline(line)
            out.append(f"> {text}" if quoted and text else text)
    if term:
        out.append(f"- {term}")
    if table:
        out += [*table, *([f"Table: {caption}"] if caption else [])]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    return text.strip() + "\n"


def _after_pragmas(lines: list[str]) -> int:
    """The first line after the pragmas that open a tiddler's text (``\\define x() …`` on one line,
    or up to its ``\\end``; ``\\import``, ``\\rules``, …)."""
    ends = [k for k, line in enumerate(lines) if _END.match(line.strip())]  # found once: no line is read twice
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line:
            i += 1
            continue
        if not _PRAGMA.match(line):
            break
        after = bisect.bisect_right(ends, i)
        if _MULTILINE_PRAGMA.match(line) and after < len(ends):  # its body follows, up to "\end"
            i = ends[after] + 1
        else:
            i += 1
    return i


def _table_row(row: re.Match[str], table: list[str]) -> str:
    """Add a table row (``|a|b|``, its suffix ``h`` a header, ``c`` a caption, ``k`` a class) to
    ``table`` as a Markdown row; the caption's text, if the row is one."""
    cells = [_inline(c.strip()) for c in row.group(1).split("|")]
    suffix = row.group(2)
    if suffix == "c":
        return " ".join(c for c in cells if c)
    if suffix == "k":
        return ""
    header = suffix == "h" or all(c.startswith("!") for c in row.group(1).split("|") if c.strip())
    cells = [c.lstrip("!").strip() for c in cells]
    table.append("| " + " | ".join(cells) + " |")
    if header and len(table) == 1:
        table.append("|" + " --- |" * len(cells))
    return ""


def _inline(text: str) -> str:
    text = _IMAGE.sub("", text)
    text = _EXTERNAL.sub(r"\1", text)
    text = _INTERNAL.sub(r"\1", text)
    text = _WIDGET.sub("", _MACRO.sub("", _TRANSCLUSION.sub("", text)))
    text = _BOLD.sub(r"\1", text)
    text = _ITALIC.sub(r"\1", text)
    text = _MARKS.sub(lambda m: m.group(1) or m.group(2) or m.group(3), text)
    text = _UNLINKED.sub("", text)  # "~TiddlyWiki": a CamelCase word kept from being a link
    return re.sub(r"[ \t]{2,}", " ", text).strip()


__all__ = ["TiddlyWikiLoader", "split_fields", "tiddlywiki_to_markdown"]
