"""AsciiDoc files (``.adoc``, ``.asciidoc``, ``.asc``, loader ``asciidoc``), read with no extra package.

The loader writes AsciiDoc out as Markdown-structured text, so the splitter cuts at its sections
and names them, one pass over the lines:

- ``= Title``, ``== Section`` … (and a two-line title underlined with ``=``, ``-``, ``~``, ``^``
  or ``+`` of about its length) become ``#``, ``##`` … headings; the first top-level one is the
  ``title``.
- Listing and literal blocks (``----``, ``....``) become fenced code, their lines kept as
  written (a ``*`` or ``=`` line inside is code, not a list or a heading).
- Comment lines (``//``) and comment blocks (``////``) are left out, as are block attribute and
  anchor lines (``[source,yaml]``, ``[[id]]``, ``[#148]``), ``include::``, ``ifdef::``/``endif::``
  and ``toc::`` lines, and the delimiters of example, sidebar, quote, open and passthrough blocks.
- ``* item`` and ``. item`` lists (``**``, ``..`` nested) become Markdown lists; a block title
  (``.Title``) a paragraph of its own; a table with a header row (``%header``, or a first line
  holding a whole row with a blank line after it) a Markdown pipe table, any other table's rows lines
  of cells joined by ``|``; a row every ``cols`` cells (else as many as its first line has),
  whether a row or a cell is written a line.
- Attribute entries (``:name: value``) are read and left out, and a reference (``{name}``) to one
  is replaced by its value, to a character attribute (``{nbsp}``, ``{plus}``) by the character;
  one defined elsewhere (a book's index file) stays as written, as Asciidoctor shows it.
- A cross reference reads as its text (``<<id,text>>``, ``xref:file.adoc[text]``), else its
  target; a link as its text (``https://…[text]``, ``link:…[text]``), else its address;
  ``kbd:[…]``, ``btn:[…]``, ``pass:[…]`` as what they hold (the HTML in ``pass:[…]`` as its text);
  a line's hard break (`` +``) goes.
- An index term reads as Asciidoctor shows it: a concealed one (``(((Dulwich)))``) goes, a flow
  one (``((Dulwich))``) is its text; a curved quote (``"`gc`"``) its text in quotes, a curved
  apostrophe (``it`'s``) an apostrophe.
- An ``.asc`` file that is an OpenPGP key or signature (ASCII armor), not AsciiDoc, is skipped
  with that reason.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.errors import LoaderError
from ragkit.loaders.base import MarkupLoader
from ragkit.loaders.markdown_html import html_text
from ragkit.registry import loaders

_HEADING = re.compile(r"(={1,6}|#{1,6})[ \t]+(\S.*)")  # matched on the line without its trailing spaces
_UNDERLINES = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_UNDERLINE = re.compile(r"([=~^+-])\1+[ \t]*")
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--)[ \t]*")
_CODE_DELIMITERS = ("-", ".")
_TABLE = re.compile(r"[|!,:]={3,}[ \t]*")
_ATTRIBUTE_ENTRY = re.compile(r":(!?)([\w][\w-]*)(!?):(?:[ \t]+(.*))?")  # ... as is a heading
_BLOCK_ATTRIBUTES = re.compile(r"(?:\[[^\[\]]*\]|\[\[[^\[\]]*\]\])(?:[ \t]*(?:\[[^\[\]]*\]|\[\[[^\[\]]*\]\]))*")
_DIRECTIVE = re.compile(r"(?:include|ifdef|ifndef|ifeval|endif|toc)::[^\[\n]*\[[^\n]*\][ \t]*")
_BLOCK_TITLE = re.compile(r"\.([^.\s].*)")
_LIST = re.compile(r"[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,9}\.)[ \t]+(\S.*)")
_DESCRIPTION = re.compile(r"(\S.*?)(:{2,4}|;;)(?:[ \t]+(.*))?")
_REFERENCE = re.compile(r"\{([\w][\w-]*)\}")
_CROSS_REFERENCE = re.compile(r"<<([^<>,\n]{1,500})(?:,[ \t]*([^<>\n]{1,500}))?>>")
_MACRO = re.compile(r"\b(?:xref|link|mailto|kbd|btn|menu|pass|footnote|image|icon|anchor):+([^\s\[\]]{0,2000})"
                    r"\[([^\[\]\n]{0,2000})\]")
_COLS = re.compile(r"""\bcols\s*=\s*["']?([^"'\]]*)""")
_CELL_SPEC = re.compile(r"(?:^|(?<=\s))(?:\d+[+*]|[\d.<^>]*[aehlmdsv])(?=\|)")  # "2+|", "a|": a cell's style
_URL_TEXT = re.compile(r"\b(https?://[^\s\[\]<>]{1,2000})\[([^\[\]\n]{0,2000})\]")
_HARD_BREAK = re.compile(r"[ \t]\+$")
_CONCEALED_INDEX = re.compile(r"\(\(\([^()\n]{0,500}\)\)\)")
_FLOW_INDEX = re.compile(r"\(\(([^()\n]{1,500})\)\)")
_CURVED_QUOTE = re.compile(r"([\"'])`([^`\n]{1,500})`\1")
_CURVED_APOSTROPHE = re.compile(r"(?<=\w)`'")
_ARMOR = re.compile(r"\s*-----BEGIN PGP [A-Z ]{1,40}-----")
#: Asciidoctor's character attributes
_CHARACTERS = {
    "nbsp": " ", "sp": " ", "empty": "", "zwsp": "", "amp": "&", "lt": "<", "gt": ">", "plus": "+",
    "startsb": "[", "endsb": "]", "vbar": "|", "apos": "'", "quot": '"', "backslash": "\\",
    "two-colons": "::", "two-semicolons": ";;", "cpp": "C++", "pp": "++", "deg": "°", "caret": "^",
    "tilde": "~", "asterisk": "*", "backtick": "`", "brvbar": "¦", "ldquo": "“", "rdquo": "”",
    "lsquo": "‘", "rsquo": "’", "wj": "",
}


@loaders.register("asciidoc")
class AsciiDocLoader(MarkupLoader):
    """One document of an AsciiDoc file: its text with AsciiDoc markup turned into Markdown."""

    name = "asciidoc"
    mime = "text/asciidoc"
    version = 5  # 2: index terms dropped, curved quotes as quotes; 3: HTML in ``pass:[…]`` read as its text;
    # 4: ``authors`` from a signature under the last paragraph; 5: a table with a header row as a pipe table

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        if _ARMOR.match(text):  # ``.asc`` is also the extension of an armored key or signature
            raise LoaderError(f"{path}: an OpenPGP key or signature (ASCII armor), not AsciiDoc text",
                              path=str(path), reason="OpenPGP armor, not AsciiDoc")
        return asciidoc_to_markdown(text)


def asciidoc_to_markdown(adoc: str) -> tuple[str, str | None]:
    """``adoc`` as Markdown-structured text, and its title (``None`` without one)."""
    out: list[str] = []
    title: str | None = None
    values: dict[str, str] = {}
    block = ""  # the delimiter of the code or comment block the line is in
    table: _Table | None = None
    attributes = ""  # the block attribute line above the line read ("[cols="1,2"]")
    lines = adoc.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if block:
            if stripped == block:
                out.append("" if block.startswith("/") else "```")
                block = ""
            elif not block.startswith("/"):
                out.append(line)
            continue
        delimiter = _DELIMITER.fullmatch(stripped)
        if delimiter and not _underlines(stripped, lines, i):
            mark = delimiter.group(1)
            if mark[0] in _CODE_DELIMITERS and mark != "--":
                block = mark
                out.append("```")
            elif mark[0] == "/":
                block = mark
            else:  # an example, sidebar, quote, open or passthrough block: its text, no delimiters
                out.append("")
            continue
        if _TABLE.fullmatch(stripped):
            if table is None:
                table = _Table(_columns(attributes), _header_option(attributes))
            else:
                out.extend(_table_lines(table, values))
                table = None
            out.append("")
            continue
        level = 0 if table is not None else _underlines(stripped, lines, i)
        if level and out:
            if level == 1 and title is None:
                title = _inline(lines[i - 1].strip(), values)
            out[-1] = f"{'#' * level} {_inline(lines[i - 1].strip(), values)}"
            continue
        if stripped.startswith("//"):
            continue  # a comment
        entry = _ATTRIBUTE_ENTRY.fullmatch(line.rstrip())
        if entry:
            if entry.group(1) or entry.group(3):
                values.pop(entry.group(2), None)
            else:
                values[entry.group(2)] = _inline(entry.group(4) or "", values)
            continue
        if _BLOCK_ATTRIBUTES.fullmatch(stripped) or _DIRECTIVE.fullmatch(stripped):
            attributes = stripped
            continue
        attributes = "" if stripped else attributes
        if stripped == "+":
            out.append("")  # a list continuation: the block after it belongs to the item
            continue
        if table is not None:
            table.add(stripped)
            continue
        out.append(_line(line, values))
        if title is None and out[-1].startswith("# "):
            title = out[-1][2:]
    if table is not None:
        out.extend(_table_lines(table, values))
    if block and not block.startswith("/"):
        out.append("```")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n", title


class _Table:
    """The rows of a table being read: cells gathered across lines (a row a line, ``|a |b``, or a
    cell a line, ``|a``), a row every ``width`` cells (the ``cols`` attribute's count, else the
    first line's); a line that starts no cell goes on with the last one. Its first row is a header
    when the block's options say so (``%header``), or, unless they say ``noheader``, when the
    table's first line holds a whole row and a blank line follows it, as Asciidoctor reads it."""

    def __init__(self, width: int, header: bool | None = None) -> None:
        self.width = width
        self.header = header
        self.lines = 0
        self.first = 0  # the cells of the table's first line
        self.cells: list[list[str]] = []  # each cell's lines
        self.rows: list[list[str]] = []

    def add(self, stripped: str) -> None:
        """Read ``stripped``, the next line of the table."""
        self.lines += 1
        if self.lines == 2 and self.header is None:
            self.header = not stripped and self.first >= 2 and self.first == self.width
        line = _CELL_SPEC.sub("", stripped)
        if not line.startswith("|"):
            if stripped and self.cells:
                self.cells[-1].append(stripped)
            elif stripped:
                self.cells.append([stripped])
            return
        self.rows.extend(self._rows())
        cells = [[c.strip()] for c in line.split("|")[1:]]
        self.width = self.width or len(cells)
        self.first = self.first or (len(cells) if self.lines == 1 else 0)
        self.cells.extend(cells)

    def close(self) -> list[list[str]]:
        rows = [*self.rows, *self._rows()]
        return [*rows, [" ".join(c) for c in self.cells]] if self.cells else rows

    def _rows(self) -> list[list[str]]:
        width = max(self.width, 1)
        whole = len(self.cells) - len(self.cells) % width
        rows = [[" ".join(c) for c in self.cells[i:i + width]] for i in range(0, whole, width)]
        del self.cells[:whole]
        return rows


def _columns(attributes: str) -> int:
    """The number of columns a table's ``cols`` attribute gives ("1,2,3", "3*", "2*,1"), else 0."""
    spec = _COLS.search(attributes)
    if not spec:
        return 0
    counts = [int(m.group(1)) if (m := re.match(r"\s*(\d+)\*", entry)) else 1 for entry in spec.group(1).split(",")]
    return min(sum(counts), 1000) if spec.group(1).strip() else 0


def _header_option(attributes: str) -> bool | None:
    """Whether a table's block attributes make its first row a header (``%header``,
    ``options="header"``) or not (``noheader``); None when they say neither."""
    if "noheader" in attributes:
        return False
    return True if _HEADER_OPTION.search(attributes) else None


_HEADER_OPTION = re.compile(r"%header\b|\boptions\s*=\s*[\"']?[^\"'\]]*\bheader\b|\bopts\s*=\s*[\"']?[^\"'\]]*\bheader\b")


def _table_lines(table: _Table, values: dict[str, str]) -> list[str]:
    """A table as Markdown: a pipe table under its header row when it has one (so each row's
    cells are read with their columns' names: "Package Name: libaio1t64"), else its rows as lines
    of cells joined by ``|``, each a paragraph of its own."""
    rows = [[_inline(c, values).replace("|", "\\|") for c in row] for row in table.close()]
    if table.header and len(rows) >= 2 and all(len(row) == len(rows[0]) for row in rows):
        lines = [f"| {' | '.join(row)} |" for row in rows]
        return [lines[0], "|" + " --- |" * len(rows[0]), *lines[1:], ""]
    joined = (" | ".join(c for c in row if c) for row in rows)
    return [part for text in joined if text for part in (text, "")]


def _underlines(stripped: str, lines: list[str], i: int) -> int:
    """The level of the two-line title whose underline is line ``i`` (``stripped``), or 0: a line
    of one of ``= - ~ ^ +`` within a character of the length of the text line above it, which
    starts its paragraph and has a letter."""
    if not _UNDERLINE.fullmatch(stripped) or i == 0:
        return 0
    above = lines[i - 1].strip()
    if (abs(len(above) - len(stripped)) > 1 or not any(c.isalpha() for c in above) or _DELIMITER.fullmatch(above)
            or _BLOCK_ATTRIBUTES.fullmatch(above) or _DIRECTIVE.fullmatch(above)
            or above.startswith(("//", ":", "*", ".", "|", "=", "-", "["))
            or (i >= 2 and lines[i - 2].strip() and not _BLOCK_ATTRIBUTES.fullmatch(lines[i - 2].strip()))):
        return 0
    return _UNDERLINES[stripped[0]]


def _line(line: str, values: dict[str, str]) -> str:
    heading = _HEADING.fullmatch(line.rstrip())
    if heading:  # "== Title ==": the closing marks go
        marks, title = heading.groups()
        if title.endswith(marks) and title[: -len(marks)].rstrip() != title[: -len(marks)]:
            title = title[: -len(marks)].rstrip()
        return f"{'#' * len(marks)} {_inline(title, values)}"
    item = _LIST.fullmatch(line)
    if item:
        mark = item.group(1)
        depth = len(mark) - 1 if mark[0] in "*." and not mark[0].isdigit() else 0
        bullet = "1." if mark[0] == "." or mark[0].isdigit() else "-"
        return f"{'  ' * depth}{bullet} {_inline(item.group(2), values)}"
    title = _BLOCK_TITLE.fullmatch(line)
    if title:  # a paragraph of its own
        return f"{_inline(title.group(1), values)}\n"
    described = _DESCRIPTION.fullmatch(line.strip())
    if described and not line[:1].isspace() and "://" not in described.group(1):
        term, rest = _inline(described.group(1), values), _inline(described.group(3) or "", values)
        return f"{term}: {rest}".rstrip()
    return _inline(line, values)


def _inline(text: str, values: dict[str, str]) -> str:
    text = _HARD_BREAK.sub("", text)
    text = _FLOW_INDEX.sub(r"\1", _CONCEALED_INDEX.sub("", text))
    text = _CURVED_APOSTROPHE.sub("'", _CURVED_QUOTE.sub(r"\1\2\1", text))
    text = _REFERENCE.sub(lambda m: values.get(m.group(1), _CHARACTERS.get(m.group(1), m.group(0))), text)
    text = _CROSS_REFERENCE.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    text = _MACRO.sub(lambda m: html_text(m.group(2)) if m.group(0).startswith("pass") else m.group(2) or m.group(1), text)
    return _URL_TEXT.sub(lambda m: m.group(2) or m.group(1), text)
