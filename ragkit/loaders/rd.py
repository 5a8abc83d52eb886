"""R documentation files (``.Rd``; loader ``rd``), read with no extra package.

Rd is the LaTeX-like markup of an R package's help pages (``man/*.Rd``; "Writing R Extensions",
section 2, and "Parsing Rd files"): ``\\name{…}`` commands with brace groups, ``%`` comments and the
escapes ``\\{ \\} \\\\ \\%``. Read as plain text, an answer quoted the markup (``\\item{interval}{…}``,
``\\code{\\link{tide_height}}``) and a usage block ran into the prose. The loader writes a page out as
Markdown-structured text under one heading, the page's:

- The page opens with ``# topic: Title`` (``\\name``, then ``\\title``): the heading path of every
  chunk names the function it documents, which a page's own title often does not ("Tide Height
  at a Station"); the ``title`` is the ``\\title`` text (else the topic name).
- ``\\description``, ``\\usage``, ``\\arguments``, ``\\value``, ``\\details``, ``\\format``,
  ``\\source``, ``\\note``, ``\\author``, ``\\references``, ``\\seealso`` and ``\\examples`` are
  labelled by their name ("Value: A numeric vector …", "Arguments:" over the items), in the order
  R's help shows them (the description first, whatever order roxygen2 wrote), as are
  ``\\section{Title}{…}`` and ``\\subsection``. Labels, not headings: a help page is short, and cut
  at every section its chunks were a line each ("Value: …"), apart from the function they are of
  and from each other (a note and the usage it qualifies). ``\\alias``, ``\\keyword``, ``\\concept``,
  ``\\docType``, ``\\encoding`` and ``\\newcommand`` definitions are left out.
- ``\\usage`` and ``\\examples`` are fenced ``r`` code, written as R writes them in its text help:
  ``\\method{print}{tide}(x)`` as ``print(x)`` under ``## S3 method for class 'tide'``, ``\\dots`` as
  ``...``, ``\\dontrun{…}`` between ``## Not run:`` and ``## End(Not run)``, ``\\donttest`` as its
  code, ``\\dontshow`` and ``\\testonly`` left out; ``\\preformatted`` is fenced code too.
- ``\\arguments``' and ``\\value``'s ``\\item{x, y}{…}`` become items ``- `x, y`: …``, a
  ``\\describe`` list's ``- term: …``; ``\\itemize`` and ``\\enumerate`` ``-`` and ``1.`` lists, a
  nested list indented by four spaces under its item; ``\\tabular{lr}{a \\tab b \\cr …}`` a
  Markdown table whose first row is its header.
- Inline: ``\\code``, ``\\verb``, ``\\samp``, ``\\kbd``, ``\\option``, ``\\env``, ``\\file``,
  ``\\command`` and ``\\linkS4class`` are code spans; ``\\emph``, ``\\strong``, ``\\var``, ``\\pkg``
  and their kin their text; ``\\sQuote``/``\\dQuote`` the text in quotes; ``\\link`` its text,
  ``\\href`` its text, ``\\url``/``\\email`` the address, ``\\doi{d}`` ``doi:d``; ``\\eqn``/``\\deqn``
  their plain-text form when given (else the LaTeX as written); ``\\R`` R, ``\\dots`` ``...``,
  ``\\cr`` a line break; ``\\if{text}{…}`` and ``\\ifelse`` keep the text help's branch, and
  ``\\out``, ``\\Sexpr`` (computed when the package is built) and ``\\figure`` go. An unknown
  command (a package's own macro) reads as the text of its brace groups.

The file is read in one pass: a tokenizer and an explicit stack of open brace groups, no
recursion while parsing. Past 50 nested groups the text is kept as written (the writer recurses
over the groups, so the cap bounds it); braces left open are closed at the end of the file, a
stray ``}`` is text, nothing raises. R strings in code (``"{"``) hold braces that do not count,
as R's own parser reads them.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from ragkit.loaders.base import MarkupLoader, code_fence
from ragkit.registry import loaders

#: nested brace groups parsed as markup; deeper ones are written out as they are
MAX_DEPTH = 50

# private-use placeholders: a line break (\cr), a cell separator (\tab), and the two ends of a
# comment that goes on a line of its own above the code line holding it (an S3 method's class)
_CR, _TAB, _NOTE, _END_NOTE = "\ue010", "\ue011", "\ue012", "\ue013"
_PLACEHOLDERS = dict.fromkeys(map(ord, _CR + _TAB + _NOTE + _END_NOTE))

#: one token: an escape, a command, a brace, a comment, a quote or R comment mark, other text
_TOKEN = re.compile(r"\\([\\{}%])|\\([A-Za-z][A-Za-z0-9]*)|([{}])|(%[^\n]*)|([\"'`#])|([^\\{}%\"'`#]+|\\)")
#: an R string closed on the line it opens (``%`` ends a line as a comment, even in a string)
_STRINGS = {q: re.compile(q + r"(?:[^" + q + r"\\\n%]|\\[^\n])*" + q) for q in "\"'`"}
_STRING_ESCAPE = re.compile(r"\\([\\{}%])")
_OPTION = re.compile(r"\[([^\]\n{}\\]{0,500})\]")  # \link[pkg:topic]{…}, \Sexpr[results=rd]{…}
_NEXT_ARG = re.compile(r"[ \t]{0,40}\n?[ \t]{0,40}\{")  # \item{x} {…}: a later argument after a space
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SPACES = re.compile(r"[ \t\n]+")
_NOTE_TEXT = re.compile(_NOTE + "([^" + _END_NOTE + "]*)" + _END_NOTE)
_FORMATS = re.compile(r"[\s,]+")

#: the page's sections and their headings
_SECTIONS = {
    "description": "Description", "arguments": "Arguments", "value": "Value", "details": "Details",
    "format": "Format", "source": "Source", "note": "Note", "author": "Author(s)", "references": "References",
    "seealso": "See Also",
}
_CODE_SECTIONS = {"usage": "Usage", "synopsis": "Usage", "examples": "Examples"}
#: the order R's help shows the sections in, whatever order the file writes them (roxygen2 writes
#: the usage and arguments first): the description right under the title, so the page's first
#: chunk says what the topic is ("`sentences` is a collection of …" under "Sample character vectors")
_ORDER = {name: rank for rank, name in enumerate((
    "description", "usage", "synopsis", "arguments", "format", "details", "value", "section", "note", "author",
    "source", "references", "seealso", "examples"))}
_OTHER = _ORDER["section"]  # a page's own sections, and any other command, keep their place among them
_DROPPED = frozenset({
    "alias", "keyword", "concept", "docType", "encoding", "Rdversion", "RdOpts", "newcommand", "renewcommand",
    "out", "Sexpr", "figure", "dontshow", "testonly",
})
_SPANS = frozenset({"code", "verb", "samp", "kbd", "option", "env", "file", "command", "linkS4class"})
_SYMBOLS = {"R": "R", "dots": "...", "ldots": "...", "cr": _CR, "tab": _TAB, "sspace": " "}
_LISTS = frozenset({"itemize", "enumerate"})
_ITEM_LISTS = frozenset({"describe", "arguments", "value"})
#: commands whose argument is R code (braces in it kept, strings read as R reads them) or is
#: written as it is, markup and all (a URL, LaTeX mathematics, verbatim text)
_R_LIKE = frozenset({"usage", "synopsis", "examples", "code", "dontrun", "donttest", "dontshow", "testonly"})
_VERBATIM = frozenset({"alias", "url", "verb", "preformatted", "out", "Sexpr", "newcommand", "renewcommand",
                       "Rdversion", "RdOpts", "special", "eqn", "deqn", "figure"})
#: the arguments a command takes; any other takes the brace groups written directly after it
_ARITY = {
    **dict.fromkeys((*_SYMBOLS, *_SPANS, *_SECTIONS, *_CODE_SECTIONS, "link", "emph", "strong", "bold", "dfn",
                     "cite", "acronym", "abbr", "var", "pkg", "CRANpkg", "url", "email", "doi", "sQuote", "dQuote",
                     "name", "title", "alias", "keyword", "concept", "docType", "encoding", "itemize", "enumerate",
                     "describe", "preformatted", "dontrun", "donttest", "dontshow", "testonly", "out", "Sexpr",
                     "special"), 1),
    "section": 2, "subsection": 2, "method": 2, "S3method": 2, "S4method": 2, "href": 2, "if": 2, "ifelse": 3,
    "enc": 2, "tabular": 2, "eqn": 2, "deqn": 2, "figure": 2, "newcommand": 2, "renewcommand": 2,
}
_SPACED_ARGS = frozenset({"item", "section", "subsection", "if", "ifelse"})  # \section{T} {…} still one command
_OPTIONED = frozenset({"link", "Sexpr", "figure"})
_MAX_ARGS = 9


@loaders.register("rd")
class RdLoader(MarkupLoader):
    """One document of an R documentation file: its sections as Markdown headings."""

    name = "rd"
    mime = "text/x-rd"

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        return rd_to_markdown(text)


def rd_to_markdown(rd: str) -> tuple[str, str | None]:
    """``rd`` (an R documentation file) as Markdown-structured text, and its ``\\title`` (else its
    ``\\name``; ``None`` without either)."""
    return _render(_parse(rd.translate(_PLACEHOLDERS)))


# ---------------------------------------------------------------------- parsing
@dataclass
class _Group:
    """A brace group: an argument (``braced`` False) or a bare ``{…}`` of the text."""

    mode: str  # "latex" (markup), "r" (R code) or "verbatim"
    braced: bool = False
    nodes: list[_Node] = field(default_factory=list)


@dataclass
class _Command:
    name: str
    args: list[_Group] = field(default_factory=list)


_Node = str | _Group | _Command


class _Frame:
    """An open group while parsing: its group, the command it is an argument of, its pending text."""

    __slots__ = ("command", "group", "text")

    def __init__(self, group: _Group, command: _Command | None = None) -> None:
        self.group, self.command = group, command
        self.text: list[str] = []

    def flush(self) -> None:
        if self.text:
            self.group.nodes.append("".join(self.text))
            self.text = []

    def add(self, node: _Group | _Command) -> None:
        self.flush()
        self.group.nodes.append(node)


def _parse(rd: str) -> _Group:
    """The tree of ``rd``'s groups and commands, read with an explicit stack."""
    root = _Group("latex")
    stack = [_Frame(root)]
    raw = 0  # braces open past MAX_DEPTH, written out as text
    no_close: dict[str, int] = {}  # quote -> the end of a line on which it opened no string
    r_comment_end = -1  # the end of an R comment ("# ..."), where quotes open no string
    pos, end = 0, len(rd)
    while pos < end:
        m = _TOKEN.match(rd, pos)
        if m is None:  # unreachable: every character starts a token
            break
        pos = m.end()
        top = stack[-1]
        escape, name, brace, comment, quote, text = m.groups()
        if text is not None:
            top.text.append(text)
        elif escape is not None:
            top.text.append(escape)
        elif comment is not None:
            line_start = rd.rfind("\n", 0, m.start()) + 1
            if not rd[line_start:m.start()].strip() and pos < end:
                pos += 1  # a comment line goes with its line end (no blank line is left)
                if top.text:
                    top.text[-1] = top.text[-1].rstrip(" \t")
        elif quote is not None:
            if top.group.mode != "r" or raw or m.start() < r_comment_end:
                top.text.append(quote)
            elif quote == "#":
                r_comment_end = _line_end(rd, pos)
                top.text.append(quote)
            elif no_close.get(quote, -1) > m.start() or not (string := _STRINGS[quote].match(rd, m.start())):
                no_close[quote] = _line_end(rd, pos)
                top.text.append(quote)
            else:
                pos = string.end()
                top.text.append(_STRING_ESCAPE.sub(r"\1", string.group()))
        elif name is not None:
            if raw or top.group.mode == "verbatim":
                top.text.append(m.group())
                continue
            if name in _OPTIONED and (option := _OPTION.match(rd, pos)):
                pos = option.end()  # a link's package, an \Sexpr's options: not part of the text
            if _arity(name, stack) > 0 and rd.startswith("{", pos):
                if len(stack) > MAX_DEPTH:
                    top.text.append(rd[m.start():pos])
                    continue
                command = _Command(name)
                top.add(command)
                stack.append(_Frame(_open(command, top.group.mode), command))
                pos += 1
            else:
                top.add(_Command(name))
        elif brace == "{":
            if raw or len(stack) > MAX_DEPTH:
                raw += 1
                top.text.append("{")
            else:
                group = _Group(top.group.mode, braced=True)
                top.add(group)
                stack.append(_Frame(group))
        elif raw:
            raw -= 1
            top.text.append("}")
        elif len(stack) == 1:
            top.text.append("}")  # a stray closing brace is text
        else:
            stack.pop().flush()
            command = top.command
            if command is not None and len(command.args) < _arity(command.name, stack):
                spaced = command.name in _SPACED_ARGS
                nxt = _NEXT_ARG.match(rd, pos) if spaced else None
                if nxt or rd.startswith("{", pos):
                    pos = nxt.end() if nxt else pos + 1
                    stack.append(_Frame(_open(command, stack[-1].group.mode), command))
    for frame in reversed(stack):  # groups still open at the end of the file end with it
        frame.flush()
    return root


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _arity(name: str, stack: list[_Frame]) -> int:
    """The arguments ``name`` takes here: an ``\\item`` none in ``\\itemize``, a term and its
    description in ``\\describe``, ``\\arguments`` and ``\\value`` (and out of any list)."""
    if name == "item":
        for frame in reversed(stack):
            if frame.command is not None and frame.command.name in _LISTS:
                return 0
            if frame.command is not None and frame.command.name in _ITEM_LISTS:
                return 2
        return 2
    return _ARITY.get(name, _MAX_ARGS)


def _open(command: _Command, mode: str) -> _Group:
    """The group of ``command``'s next argument, added to it."""
    index, name = len(command.args), command.name
    if name in _VERBATIM or (name in ("href", "tabular", "if", "ifelse") and index == 0):
        mode = "verbatim"
    elif name in _R_LIKE:
        mode = "r"
    group = _Group(mode)
    command.args.append(group)
    return group


# ---------------------------------------------------------------------- inline text
def _text(node: _Node, how: str) -> str:
    """``node`` as text: ``inline`` in prose (code commands as code spans), ``plain`` (inside a
    code span: no span in it) or ``code`` (a code block's lines)."""
    if isinstance(node, str):
        return node
    if isinstance(node, _Group):
        inner = "".join(_text(child, how) for child in node.nodes)
        return "{" + inner + "}" if node.braced and node.mode != "latex" else inner
    return _command(node, how)


def _arg(command: _Command, index: int, how: str) -> str:
    return _text(command.args[index], how) if index < len(command.args) else ""


def _command(command: _Command, how: str) -> str:
    name, args = command.name, command.args
    inner = "plain" if how == "inline" else how
    if name in _SYMBOLS:
        symbol = _SYMBOLS[name]
        if how == "code":
            symbol = {_CR: "\n", _TAB: "\t"}.get(symbol, symbol)
        return symbol + _arg(command, 0, how)
    if name in _DROPPED:
        return ""
    if name in _SPANS:
        text = _arg(command, 0, inner)
        return _span(text) if how == "inline" else text
    if name in ("method", "S3method", "S4method"):
        generic = _arg(command, 0, inner).strip()
        if how != "code":
            return generic
        kind = "S4 method for signature" if name == "S4method" else "S3 method for class"
        return f"{_NOTE}## {kind} '{_arg(command, 1, inner).strip()}'{_END_NOTE}{generic}"
    if name == "dontrun" and how == "code":
        return "## Not run:\n" + _arg(command, 0, how).strip("\n") + "\n## End(Not run)"
    if name in ("href", "eqn", "deqn"):
        second = _arg(command, 1, how)
        return second if second.strip() else _arg(command, 0, how)
    if name == "doi":
        return "doi:" + _arg(command, 0, how).strip()
    if name == "sQuote":
        return "'" + _arg(command, 0, how) + "'"
    if name == "dQuote":
        return '"' + _arg(command, 0, how) + '"'
    if name == "enc":
        return _arg(command, 0, how)
    if name in ("if", "ifelse"):
        chosen = _chosen(command)
        return _text(chosen, how) if chosen is not None else ""
    if name == "item" and len(args) == 2:
        return _arg(command, 0, how) + ": " + _arg(command, 1, how)
    if name in _BLOCKS and how != "code":  # a list or a table inside a sentence: its lines run on
        writer = _Writer()
        writer.walk([command])
        return " ".join(line.strip() for _, lines in writer.finish() for line in lines)
    if not args:
        return "\\" + name if how == "code" and name not in _KNOWN else ""
    # \emph, \strong, \bold, \dfn, \cite, \acronym, \var, \pkg, \CRANpkg, \link, \url, \email, a
    # package's own macro: the text of its brace groups
    return "".join(_text(arg, how) for arg in args)


def _chosen(command: _Command) -> _Group | None:
    """The branch of ``\\if{fmt}{…}`` / ``\\ifelse{fmt}{…}{…}`` that R's text help shows."""
    formats = set(_FORMATS.split(_text(command.args[0], "plain"))) if command.args else set()
    index = 1 if "text" in formats else (2 if command.name == "ifelse" else None)
    return command.args[index] if index is not None and index < len(command.args) else None


def _span(text: str) -> str:
    """``text`` as a Markdown code span (two backticks around text holding one)."""
    text = _SPACES.sub(" ", text.replace(_CR, " ").replace(_TAB, " ")).strip()
    if not text:
        return ""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _plain(node: _Node) -> str:
    return _SPACES.sub(" ", _text(node, "plain").replace(_CR, " ").replace(_TAB, " ")).strip()


# ---------------------------------------------------------------------- blocks
_BLOCKS = frozenset({"itemize", "enumerate", "describe", "tabular", "preformatted", "section", "subsection",
                     "deqn", "item", *_SECTIONS, *_CODE_SECTIONS})
_KNOWN = frozenset({*_BLOCKS, *_DROPPED, *_SPANS, *_SYMBOLS, "link", "emph", "strong", "bold", "dfn", "cite",
                    "acronym", "var", "pkg", "CRANpkg", "url", "email", "name", "title", "donttest", "dontrun"})
_Block = tuple[str, list[str]]  # ("para" | "list" | "items" | "code" | "table", its lines)
_INDENT = "    "


class _Writer:
    """The blocks of one run of markup: paragraphs, lists, tables and code (``code_terms``: an item's term reads as code, as in
    ``\\arguments`` and ``\\value``; ``top``: the page itself, whose commands are its sections)."""

    def __init__(self, *, code_terms: bool = False, top: bool = False) -> None:
        self.code_terms, self.top = code_terms, top
        self.blocks: list[_Block] = []
        self.para: list[str] = []
        self.items: list[str] | None = None  # the lines of the item list the last item opened

    def finish(self) -> list[_Block]:
        self.flush()
        return self.blocks

    def walk(self, nodes: list[_Node]) -> None:
        for node in nodes:
            if isinstance(node, str):
                first, *rest = _BLANK_LINE.split(node)
                self.para.append(first)
                for piece in rest:
                    self.flush()
                    self.para.append(piece)
            elif isinstance(node, _Group):
                if node.mode == "latex":
                    self.walk(node.nodes)  # a bare group only groups
                else:
                    self.para.append(_text(node, "inline"))
            elif node.name in ("if", "ifelse"):
                chosen = _chosen(node)
                if chosen is not None:
                    self.walk(chosen.nodes)
            elif node.name in _BLOCKS:
                self.block(node)
            else:
                self.para.append(_text(node, "inline"))

    def flush(self) -> None:
        text = _SPACES.sub(" ", "".join(self.para).replace(_TAB, " "))
        self.para = []
        lines = [_not_markup(line.strip()) for line in text.split(_CR) if line.strip()]
        if lines:
            self.add("para", lines)

    def add(self, kind: str, lines: list[str]) -> None:
        self.blocks.append((kind, lines))
        self.items = lines if kind == "items" else None

    def block(self, command: _Command) -> None:
        name, args = command.name, command.args
        self.flush()
        two = name in ("section", "subsection", "tabular")  # a title or a format, then the body
        body = args[1 if two else 0] if len(args) > (1 if two else 0) else _Group("latex")
        if self.top and name in _SECTIONS:
            self.section(_SECTIONS[name], body, code_terms=name in ("arguments", "value"))
        elif self.top and name in _CODE_SECTIONS:
            code = _code_lines(_text(body, "code"))
            if code:
                self.add("para", [f"{_CODE_SECTIONS[name]}:"])
                self.add("code", _fenced(code, "r"))
        elif name in ("section", "subsection"):
            title = _plain(args[0]) if args else ""
            self.section(title or "Section", body)
        elif name in _SECTIONS or name in _CODE_SECTIONS:
            self.walk(body.nodes)  # a section command inside a section: its text
        elif name in _LISTS:
            self.list(body, ordered=name == "enumerate")
        elif name == "describe":
            writer = _Writer()
            writer.walk(body.nodes)
            for kind, lines in writer.finish():
                self.add(kind, lines)
        elif name == "item":
            self.item(command)
        elif name == "tabular":
            table = _table(body)
            if table:
                self.add("table", table)
        elif name == "preformatted":
            code = _code_lines(_text(body, "code"))
            if code:
                self.add("code", _fenced(code, ""))
        elif name == "deqn":
            self.para.append(_command(command, "inline"))
            self.flush()

    def section(self, title: str, body: _Group, *, code_terms: bool = False) -> None:
        writer = _Writer(code_terms=code_terms)
        writer.walk(body.nodes)
        blocks = writer.finish()
        if blocks:
            kind, lines = blocks[0]
            if kind == "para":  # "Value: A numeric vector …"
                blocks = [("para", [f"{title}: {lines[0]}", *lines[1:]]), *blocks[1:]]
            else:  # "Arguments:" over its items
                blocks = [("para", [f"{title}:"]), *blocks]
            self.blocks.extend(blocks)
            self.items = None

    def item(self, command: _Command) -> None:
        if not command.args:
            return  # an \item of no list
        term = _plain(command.args[0]) if self.code_terms else _inline(command.args[0])
        if self.code_terms:
            term = _span(term) or term
        writer = _Writer()
        if len(command.args) > 1:
            writer.walk(command.args[1].nodes)
        blocks = writer.finish()
        if not term and not blocks:
            return
        lines = _item_lines(f"- {term}: " if term and blocks else f"- {term}", blocks)
        if self.items is not None:
            self.items.extend(lines)
        else:
            self.add("items", lines)

    def list(self, body: _Group, *, ordered: bool) -> None:
        items: list[list[_Node]] = []
        before: list[_Node] = []
        for node in body.nodes:
            if isinstance(node, _Command) and node.name == "item" and not node.args:
                items.append([])
            elif items:
                items[-1].append(node)
            else:
                before.append(node)
        self.walk(before)  # text before the first \item
        self.flush()
        lines: list[str] = []
        number = 0
        for nodes in items:
            writer = _Writer()
            writer.walk(nodes)
            blocks = writer.finish()
            if blocks:  # an \item with nothing after it (a file cut short) is no item
                number += 1
                lines.extend(_item_lines(f"{number}. " if ordered else "- ", blocks))
        if lines:
            self.add("list", lines)


def _inline(node: _Node) -> str:
    return _SPACES.sub(" ", _text(node, "inline").replace(_CR, " ").replace(_TAB, " ")).strip()


def _item_lines(marker: str, blocks: list[_Block]) -> list[str]:
    """An item's lines: ``marker`` and its first paragraph, its other blocks indented under it."""
    if not blocks:
        return [marker.rstrip()]
    lines: list[str] = []
    for n, (kind, block) in enumerate(blocks):
        if n == 0 and kind == "para":
            lines.append(marker + block[0])
            lines.extend(_INDENT + line for line in block[1:])
            continue
        if n == 0:
            lines.append(marker.rstrip())
        elif kind not in ("list", "items"):
            lines.append("")
        lines.extend(_INDENT + line if line else "" for line in block)
    return lines


def _not_markup(line: str) -> str:
    """A paragraph's line that would read as a heading or a fence, escaped."""
    return "\\" + line if line.startswith(("#", "```", "~~~")) else line


def _table(body: _Group) -> list[str]:
    """``\\tabular``'s rows (``\\cr``) and cells (``\\tab``) as a Markdown table, its first row the header."""
    rows = []
    for row in _text(body, "inline").split(_CR):
        cells = [_SPACES.sub(" ", cell).strip().replace("|", "\\|") for cell in row.split(_TAB)]
        if any(cells):
            rows.append(cells)
    if not rows:
        return []
    width = max(len(row) for row in rows)
    lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
    lines.insert(1, "| " + " | ".join(["---"] * width) + " |")
    return lines


def _code_lines(code: str) -> list[str]:
    """A code block's lines: a method's comment on a line of its own above its line, the common
    indent and the blank lines around the code taken off."""
    lines: list[str] = []
    for line in code.split("\n"):
        notes = _NOTE_TEXT.findall(line)
        if notes:
            line = _NOTE_TEXT.sub("", line)
            indent = line[: len(line) - len(line.lstrip())]
            lines.extend(indent + note for note in notes)
        lines.append(line.replace(_CR, "").replace(_TAB, " ").rstrip())
    text = textwrap.dedent("\n".join(lines)).strip("\n")
    return text.split("\n") if text.strip() else []


def _fenced(lines: list[str], language: str) -> list[str]:
    fence = code_fence("\n".join(lines))
    return [fence + language, *lines, fence]


def _in_order(nodes: list[_Node]) -> list[_Node]:
    """The page's top-level nodes with its sections in R's order (``_ORDER``); text between them
    (a stray brace) stays after the section before it, text before the first at the top."""
    ranked, rank = [], -1
    for node in nodes:
        if isinstance(node, _Command):
            rank = _ORDER.get(node.name, _OTHER)
        ranked.append((rank, node))
    return [node for _, node in sorted(ranked, key=lambda pair: pair[0])]


def _render(root: _Group) -> tuple[str, str | None]:
    name = title = None
    for node in root.nodes:
        if isinstance(node, _Command) and node.name in ("name", "title") and node.args:
            text = _plain(node.args[0]) or None
            if node.name == "name" and name is None:
                name = text
            elif node.name == "title" and title is None:
                title = text
    writer = _Writer(top=True)
    body = [node for node in root.nodes if not (isinstance(node, _Command) and node.name in ("name", "title"))]
    writer.walk(_in_order(body))
    out: list[str] = []
    heading = f"{name}: {title}" if name and title and name != title else (title or name)
    if heading:
        out.extend([f"# {heading}", ""])
    for _, lines in writer.finish():
        out.extend(lines)
        out.append("")
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else "", title or name


__all__ = ["RdLoader", "rd_to_markdown"]
