"""MediaWiki pages (``.mediawiki``, ``.wiki``, ``.wikitext``; loader ``mediawiki``), read with no extra package.

A wiki exported to files keeps its markup: read as text, an answer quoted it (``'''version 0.3 or
greater'''``, ``[[protocol]]``) and a table was rows of ``|`` and ``||`` that no sentence holds.
The loader writes the page out as Markdown-structured text, so the splitter cuts at its sections
and names them, one pass over the lines:

- ``== Section ==`` … ``====== Section ======`` become ``#`` … ``######`` headings (one level up:
  a page's sections start at ``==``); the page's title is its file name, underscores read as spaces.
- ``'''bold'''`` and ``''italic''`` are their text; ``[[Page|label]]`` reads as its label,
  ``[[Page]]`` as the page's name, ``[[Category:…]]``, ``[[File:…]]`` and ``[[Image:…]]`` go;
  ``[https://… label]`` is its label, a bare ``[https://…]`` its address.
- ``{{template|…}}`` goes, but for a template over several lines whose parameters are named
  (an infobox), whose ``| name = value`` lines become ``- name: value`` items; a page whose braces
  do not balance keeps its templates as written.
- ``* item``, ``# item`` (``**``, ``##`` nested) become Markdown lists, ``; term : definition``
  a ``term: definition`` line and ``:`` indents plain text.
- A table (``{| … |}``) becomes a Markdown table: ``|-`` starts a row, ``|`` and ``||`` separate
  its cells, ``!`` and ``!!`` its header cells, ``|+`` its caption (a paragraph above it); a cell's
  attributes (``style="…" |``) go.
- ``<pre>``, ``<source>`` and ``<syntaxhighlight>`` blocks and lines indented by a space become
  fenced code; ``<ref>…</ref>``, HTML comments and magic words (``__TOC__``) go; ``<code>`` is a
  code span, ``<nowiki>`` its text, other tags their text (``ragkit.loaders.markdown_html``);
  ``#REDIRECT [[Page]]`` reads "Redirects to Page.".
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.loaders.base import MarkupLoader
from ragkit.loaders.markdown_html import html_text, without_html_comments
from ragkit.registry import loaders

_HEADING = re.compile(r"(={1,6})[ \t]*(.*?)[ \t]*\1[ \t]*$")
_BOLD_ITALIC = re.compile(r"'{2,5}")
_INTERNAL = re.compile(r"\[\[([^\[\]|\n]{1,500})(?:\|([^\[\]\n]{0,500}))?\]\]")
_DROPPED_LINK = re.compile(r"(?i)^:?(?:category|file|image|media)\s*:")
_EXTERNAL = re.compile(r"\[((?:https?|ftp|mailto|irc|news):[^\s\[\]]{1,2000})(?:[ \t]+([^\[\]\n]{1,500}))?\]")
_REF = re.compile(r"(?is)<ref\b[^>/]{0,300}/>|<ref\b[^>]{0,300}>.{0,5000}?</ref\s*>")
_MAGIC = re.compile(r"__[A-Z]{2,30}__")
_CODE_TAG = re.compile(r"(?i)<(?:code|tt|kbd|var)>([^<\n]{0,500})</(?:code|tt|kbd|var)>")
_NOWIKI = re.compile(r"(?i)</?nowiki\s*/?>")
_BREAK = re.compile(r"(?i)<br\s*/?>")
_CODE_OPEN = re.compile(r"(?i)^\s*<(pre|source|syntaxhighlight)\b[^>]{0,200}>(.*)$")
_REDIRECT = re.compile(r"(?i)^\s*#redirect\s*\[\[([^\[\]|\n]{1,500})(?:\|[^\]\n]*)?\]\]")
_LIST = re.compile(r"^([*#:;]+)[ \t]*(.*)$")
_PARAMETER = re.compile(r"^\s*\|\s*([^=|{}\n]{1,80}?)\s*=\s*(.*)$")
_CELL_ATTRIBUTES = re.compile(r"^\s*[\w-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'|[\w#%.-]+)(?:\s+[\w-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'|[\w#%.-]+))*\s*\|(?!\|)")


@loaders.register("mediawiki")
class MediaWikiLoader(MarkupLoader):
    """One document of a MediaWiki page: its text with wiki markup turned into Markdown."""

    name = "mediawiki"
    mime = "text/x-wiki"

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        return mediawiki_to_markdown(text), path.stem.replace("_", " ")


def mediawiki_to_markdown(wiki: str) -> str:
    """``wiki`` (MediaWiki markup) as Markdown-structured text."""
    wiki = _REF.sub("", without_html_comments(wiki))
    out: list[str] = []
    lines = _without_templates(wiki.split("\n"))
    code_end: str | None = None  # the closing tag of the code block we are in
    table: list[list[str]] | None = None  # the rows of the table we are in
    spaced = False  # inside lines indented by a space (preformatted)
    for line in lines:
        if code_end is not None:
            end = line.lower().find(f"</{code_end}")
            if end < 0:
                out.append(line)
                continue
            out += [line[:end], "```"] if line[:end].strip() else ["```"]
            code_end = None
            continue
        if table is not None:
            if line.strip().startswith("|}"):
                out += _table_lines(table)
                table = None
                continue
            _table_line(line.strip(), table, out)
            continue
        if line.startswith(" ") and line.strip():  # preformatted text
            if not spaced:
                out.append("```")
                spaced = True
            out.append(line[1:])
            continue
        if spaced:
            out.append("```")
            spaced = False
        opened = _CODE_OPEN.match(line)
        if opened:
            tag, rest = opened.group(1).lower(), opened.group(2)
            end = rest.lower().find(f"</{tag}")
            out.append("```")
            if end >= 0:
                out += [rest[:end], "```"] if rest[:end].strip() else ["```"]
            else:
                out += [rest] if rest.strip() else []
                code_end = tag
            continue
        if line.strip().startswith("{|"):
            table = []
            continue
        out.append(_line(line))
    if code_end is not None or spaced:
        out.append("```")
    if table is not None:
        out += _table_lines(table)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    return text.strip() + "\n"


def _line(line: str) -> str:
    redirect = _REDIRECT.match(line)
    if redirect:
        return f"Redirects to {redirect.group(1).strip()}."
    heading = _HEADING.match(line)
    if heading and heading.group(2):
        level = max(1, len(heading.group(1)) - 1)
        return f"{'#' * level} {_inline(heading.group(2))}"
    listed = _LIST.match(line)
    if listed and line.strip():
        marks, rest = listed.group(1), _inline(listed.group(2))
        depth = "  " * (len(marks) - 1)
        if marks[-1] == ";":  # "; term : definition"
            term, _, definition = rest.partition(" : ")
            return f"{depth}- {term.strip()}: {definition.strip()}" if definition else f"{depth}- {term.strip()}"
        if marks[-1] == ":":  # an indented line, no list
            return rest
        return f"{depth}{'1.' if marks[-1] == '#' else '-'} {rest}"
    return _inline(line)


def _inline(text: str) -> str:
    """A line's inline markup as its text: links, bold and italic, tags, magic words."""
    text = _INTERNAL.sub(_internal_link, text)
    text = _EXTERNAL.sub(lambda m: m.group(2) or m.group(1), text)
    text = _CODE_TAG.sub(lambda m: f"`{m.group(1)}`", text)
    text = _BREAK.sub(" ", _NOWIKI.sub("", text))
    text = _MAGIC.sub("", _BOLD_ITALIC.sub("", text))
    return html_text(text) if "<" in text else text


def _internal_link(m: re.Match[str]) -> str:
    target, label = m.group(1).strip(), m.group(2)
    if _DROPPED_LINK.match(target):
        return ""
    return (label if label is not None and label.strip() else target.lstrip(":")).strip()


def _without_templates(lines: list[str]) -> list[str]:
    """The lines with ``{{…}}`` templates taken out: a template over several lines whose
    parameters are named keeps them as ``- name: value`` items (an infobox). One pass over the
    characters; a page whose braces do not balance keeps its templates as written."""
    out: list[str] = []
    depth = 0
    for line in lines:
        start_depth = depth
        kept: list[str] = []  # the line's text outside templates
        i = 0
        while i < len(line):
            pair = line[i:i + 2]
            if pair == "{{":
                depth, i = depth + 1, i + 2
            elif pair == "}}" and depth:
                depth, i = depth - 1, i + 2
            else:
                if depth == 0:
                    kept.append(line[i])
                i += 1
        named = _PARAMETER.match(line) if start_depth == 1 and depth >= 1 else None
        if named:
            value = named.group(2).strip()
            if value and "{{" not in value and "}}" not in value:
                out.append(f"- {named.group(1).strip()}: {value}")
            continue
        text = "".join(kept)
        if text.strip() or start_depth == depth == 0:
            out.append(text)
    return out if depth == 0 else lines


def _table_line(line: str, table: list[list[str]], out: list[str]) -> None:
    """One line of a table: a new row, a caption, or cells of the current row."""
    if line.startswith("|-"):
        table.append([])
        return
    if line.startswith("|+"):
        out.append(_inline(line[2:].strip()))
        return
    if line.startswith("!"):  # header cells: the first row is the header
        cells = re.split(r"!!|\|\|", line[1:])
    elif line.startswith("|"):
        cells = line[1:].split("||")
    else:  # a cell's text goes on over lines
        if table and table[-1]:
            table[-1][-1] = f"{table[-1][-1]} {_inline(line)}".strip()
        return
    if not table:
        table.append([])
    table[-1] += [_inline(_CELL_ATTRIBUTES.sub("", cell, count=1)).strip() for cell in cells]


def _table_lines(table: list[list[str]]) -> list[str]:
    """A table's rows as a Markdown table (its first row the header), between blank lines."""
    rows = [row for row in table if any(row)]
    if not rows:
        return []
    width = max(len(row) for row in rows)
    lines = [""]
    for k, row in enumerate(rows):
        cells = [c.replace("|", "\\|") for c in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if k == 0:
            lines.append("|" + " --- |" * width)
    return [*lines, ""]


__all__ = ["MediaWikiLoader", "mediawiki_to_markdown"]
