"""GNU Texinfo sources (``.texi``, ``.texinfo``, ``.txi``; loader ``texinfo``), read with no extra package.

Texinfo is the markup of the GNU manuals; the loader writes it out as Markdown-structured text so
the splitter cuts at its sections and names them, one pass over the lines:

- ``@chapter``, ``@section``, ``@subsection``, ``@subsubsection`` and their unnumbered, appendix
  and ``@heading`` kin (``@top`` too) become ``#`` to ``####`` headings; ``@settitle`` is the
  ``title`` (else ``@top``'s text).
- ``@node`` lines, index entries (``@cindex``, ``@findex`` …), comments (``@c``, also at a line's
  end) and the other commands that stand alone on a line (``@setfilename``, ``@noindent``,
  ``@page`` …) are left out, as are blocks for other output formats or not meant to be read
  (``@ignore``, ``@tex``, ``@iftex``, ``@html``, ``@menu``, ``@titlepage``, ``@copying``, macro
  definitions …); the begin and end lines of conditionals and quotations are dropped, their text kept.
- ``@example``, ``@lisp``, ``@display``, ``@format``, ``@verbatim`` (and their small forms) become
  fenced code, their lines kept as written (inline commands read as their text; ``@verbatim`` as
  written to the letter).
- ``@itemize`` and ``@enumerate`` become ``-`` and ``1.`` lists; a two-column ``@table`` an item
  ``- X, Y:`` (``@item`` and its ``@itemx``, formatted by the table's command: ``@table @code``
  gives `` `--gauge-slots` ``) with its description on the lines that follow; a ``@multitable`` rows
  of cells joined by ``|``.
- Definitions (``@deffn``, ``@defun``, ``@defvar``, ``@deftypefn`` … and their ``x`` forms)
  become a heading one level below the section's: ``Category: Name args``.
- Inline commands are rewritten innermost first: ``@code{…}``, ``@samp``, ``@option``, ``@file``,
  ``@kbd`` … read as Markdown code spans, ``@var``, ``@emph`` … as their text, a cross reference
  (``@xref{Node}``) as "See Node", a link as its text (else its address), a footnote in
  parentheses, ``@dots{}`` and the other symbols as their characters, an accent (``@'e``) as the
  accented letter; ``@@``, ``@{`` and ``@}`` as ``@``, ``{`` and ``}``.

Every regular expression is bounded (the innermost-brace rewriting at most 20 passes over a
paragraph); nothing is read from other files (``@include`` is dropped) and no macro is expanded.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ragkit.loaders.base import MarkupLoader
from ragkit.registry import loaders

# private-use placeholders: escapes kept out of the brace rewriting, and code span delimiters
_AT, _LBRACE, _RBRACE, _COMMA = "\ue000", "\ue001", "\ue002", "\ue003"
_TICK, _TICKS = "\ue004", "\ue005"  # a code span's "`", and "``" around text holding a backtick
_RESTORE = str.maketrans({_AT: "@", _LBRACE: "{", _RBRACE: "}", _COMMA: ",", _TICK: "`", _TICKS: "``"})

_COMMAND = re.compile(r"[ \t]*@([A-Za-z]+)(.*)")  # a line that begins with a command
_END = re.compile(r"[ \t]*@end[ \t]+([A-Za-z]+)")
_COMMENT = re.compile(r"@c(?:omment)?(?=[ \t]|$)")
#: an innermost brace group, with the command before it if any (``[^{}]`` stops at the next brace,
#: so each try scans to the next brace only)
_BRACED = re.compile(r"(?:@([A-Za-z]+|['\"`^~=,]))?\{([^{}]*)\}")
_PASSES = 20
_BARE_ACCENT = re.compile(r"@(['\"`^~=])([A-Za-z])")
_ESCAPE = re.compile(r"@([.!?&:\-/|* \t\n])|@tab(?![A-Za-z])")
_ESCAPES = {".": ".", "!": "!", "?": "?", "&": "&", ":": "", "-": "", "/": "", "|": "", "*": " "}
_TAB = re.compile(r"@tab(?![A-Za-z])")
_SPACES = re.compile(r"[ \t]+")

_HEADINGS = {
    "top": 1, "part": 1, "chapter": 1, "unnumbered": 1, "appendix": 1, "majorheading": 1, "chapheading": 1,
    "centerchap": 1, "section": 2, "unnumberedsec": 2, "appendixsec": 2, "appendixsection": 2, "heading": 2,
    "subsection": 3, "unnumberedsubsec": 3, "appendixsubsec": 3, "subheading": 3,
    "subsubsection": 4, "unnumberedsubsubsec": 4, "appendixsubsubsec": 4, "subsubheading": 4,
}
#: blocks left out with what they hold, up to their ``@end``
_DROPPED_BLOCKS = frozenset({
    "ignore", "tex", "iftex", "ifhtml", "html", "ifdocbook", "docbook", "ifxml", "xml", "iflatex", "latex",
    "menu", "detailmenu", "direntry", "macro", "rmacro", "linemacro", "titlepage", "copying",
    "documentdescription", "nodedescriptionblock",
})
_CODE_BLOCKS = frozenset({"example", "smallexample", "lisp", "smalllisp", "verbatim", "display", "smalldisplay",
                          "format", "smallformat", "displaymath"})
_LISTS = frozenset({"itemize", "enumerate", "table", "ftable", "vtable", "multitable"})
_QUOTATIONS = frozenset({"quotation", "smallquotation"})
#: definitions whose category is implied, and those that name it (or a class) in their first arguments
_DEF_CATEGORIES = {"defun": "Function", "defmac": "Macro", "defspec": "Special Form", "defvar": "Variable",
                   "defopt": "User Option", "deftypefun": "Function", "deftypevar": "Variable",
                   "defgeneric": "Generic Function", "defclass": "Class"}
_DEF_NAMED = frozenset({"deffn", "defvr", "deftp", "deftypefn", "deftypevr", "defline", "deftypeline"})
_DEF_ON_CLASS = {"defop": None, "deftypeop": None, "defmethod": "Method", "deftypemethod": "Method",
                 "defcv": None, "deftypecv": None, "defivar": "Instance Variable", "deftypeivar": "Instance Variable"}

_CODE = frozenset({"code", "samp", "command", "option", "env", "file", "kbd", "key", "verb"})
_DROPPED_BRACES = frozenset({"anchor", "image", "today", "sortas", "seeentry", "seealso", "hyphenation",
                             "inlinefmt", "inlineraw", "inlinefmtifelse", "errormsg", "indexterm"})
_SYMBOLS = {
    "dots": "...", "enddots": "...", "minus": "-", "tie": " ", "TeX": "TeX", "LaTeX": "LaTeX", "copyright": "©",
    "registeredsymbol": "®", "bullet": "•", "result": "=>", "expansion": "==>", "print": "-|",
    "error": "error-->", "equiv": "==", "point": "-!-", "comma": _COMMA, "atchar": _AT, "lbracechar": _LBRACE,
    "rbracechar": _RBRACE, "backslashchar": "\\", "hashchar": "#", "ampchar": "&", "today": "", "arrow": "→",
    "click": "→", "geq": "≥", "leq": "≤", "textdegree": "°", "euro": "€", "pounds": "£", "exclamdown": "¡",
    "questiondown": "¿", "ordf": "ª", "ordm": "º", "quotedblleft": "“", "quotedblright": "”",
    "quoteleft": "‘", "quoteright": "’", "quotedblbase": "„", "quotesinglbase": "‚", "guillemetleft": "«",
    "guillemetright": "»", "guilsinglleft": "‹", "guilsinglright": "›", "ss": "ß", "o": "ø", "O": "Ø",
    "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "dh": "ð",
    "DH": "Ð", "th": "þ", "TH": "Þ",
}
#: accent commands and the combining mark each puts on its letter
_ACCENTS = {"'": "\u0301", '"': "\u0308", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
            ",": "\u0327", "u": "\u0306", "v": "\u030c", "H": "\u030b", "dotaccent": "\u0307",
            "ringaccent": "\u030a", "ogonek": "\u0328", "udotaccent": "\u0323", "ubaraccent": "\u0331",
            "tieaccent": "\u0361"}


@loaders.register("texinfo")
class TexinfoLoader(MarkupLoader):
    """One document of a Texinfo source file: its text with sections as Markdown headings."""

    name = "texinfo"
    mime = "text/x-texinfo"

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        return texinfo_to_markdown(text)


def texinfo_to_markdown(texinfo: str) -> tuple[str, str | None]:
    """``texinfo`` as Markdown-structured text, and its ``@settitle`` (else ``@top``'s text; ``None``
    without either)."""
    return _Converter().convert(texinfo.splitlines())


@dataclass
class _List:
    name: str  # itemize, enumerate, table, ftable, vtable or multitable
    format: str = ""  # a table's command for its items ("code", "asis")


class _Converter:
    """The state of one pass over a file's lines."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.title: str | None = None
        self.top: str | None = None
        self.values: dict[str, str] = {}  # @set NAME value
        self.section = 0  # the level of the last heading
        self.lists: list[_List] = []
        self.para: list[str] = []  # the current paragraph's lines, escapes protected, not yet rewritten
        self.first = ""  # the prefix of its first line (a list marker) and of the others
        self.rest = ""
        self.marker: str | None = None  # an @item's marker waiting for its text
        self.terms: list[str] | None = None  # a table item's @item/@itemx text waiting for its line
        self.row: list[str] | None = None  # a multitable row's cells
        self.head = False  # ... of a @headitem

    def convert(self, lines: list[str]) -> tuple[str, str | None]:
        skip: str | None = None  # a dropped block's name
        depth = 0
        code: str | None = None  # a code block's name
        code_lines: list[str] = []
        i = 0
        while i < len(lines):
            raw = lines[i]
            i += 1
            if skip is not None:
                end = _END.match(raw)
                if end and end.group(1) == skip:
                    depth -= 1
                    skip = None if depth == 0 else skip
                elif (begin := _COMMAND.match(raw)) and begin.group(1) == skip:
                    depth += 1
                continue
            if code == "verbatim":
                end = _END.match(raw)
                if end and end.group(1) == code:
                    self._code(code_lines, verbatim=True)
                    code, code_lines = None, []
                else:
                    code_lines.append(raw)
                continue
            if raw.startswith("\\input"):
                continue  # "\input texinfo", TeX's first line
            line = _protect(raw)
            comment = _COMMENT.search(line)
            if comment:
                if not line[:comment.start()].strip():
                    continue  # a comment line
                line = line[:comment.start()].rstrip()
            command = _COMMAND.match(line)
            name, arg = (command.group(1), command.group(2)) if command else ("", "")
            if command and arg.startswith("{"):
                name = ""  # a brace command beginning a line of text
            if code is not None:
                if name == "end":
                    if arg.split()[:1] == [code]:
                        self._code(code_lines, verbatim=False)
                        code, code_lines = None, []
                    continue
                if name in ("group", "noindent") or name.endswith("index"):
                    continue
                code_lines.append(line)
                continue
            if not line.strip():
                self._blank_line()
                continue
            if not name:
                self._text(line)
                continue
            if name == "bye":
                break
            if name in _DROPPED_BLOCKS:
                self._flush()
                skip, depth = name, 1
            elif name in _CODE_BLOCKS:
                self._flush()
                code = name
            elif (definition := _definition(name)) is not None:
                while arg.rstrip().endswith("@") and i < len(lines):  # a definition line continued
                    arg = arg.rstrip()[:-1] + " " + _protect(lines[i])
                    i += 1
                self._definition(definition, arg)
            else:
                self._command(name, arg)
        if code is not None:  # an unclosed block ends with the file
            self._code(code_lines, verbatim=code == "verbatim")
        self._flush()
        self._row()  # an unclosed multitable's last row
        out = self.out
        while out and not out[-1]:
            out.pop()
        start = next((n for n, text in enumerate(out) if text), len(out))
        return "\n".join(out[start:]) + "\n", self.title or self.top

    # ------------------------------------------------------------------ line commands
    def _command(self, name: str, arg: str) -> None:
        top = self.lists[-1] if self.lists else None
        if name == "end":
            self._end(arg.split()[0] if arg.split() else "")
        elif name in _HEADINGS:
            self._heading(name, arg)
        elif name == "settitle":
            if self.title is None:
                self.title = _plain(arg, self.values) or None
        elif name == "set":
            words = arg.split(None, 1)
            if words:
                self.values[words[0]] = words[1].strip() if len(words) > 1 else ""
        elif name in _LISTS:
            self._blank()
            fmt = arg.strip().lstrip("@").split("{")[0].strip() or "asis"
            self.lists.append(_List(name, fmt))
        elif top is not None and top.name == "multitable" and name in ("item", "headitem", "tab"):
            if name == "tab" and self.row is not None:
                self.row.append("")
                self._cells(arg)
            else:
                self._row()
                self.row, self.head = [""], name == "headitem"
                self._cells(arg)
        elif name in ("item", "itemx") and top is not None and top.name in ("table", "ftable", "vtable"):
            if name == "itemx" and self.terms is not None:
                self.terms.append(arg)
            else:
                self._flush()
                self.terms = [arg]
        elif name == "item":
            self._flush()
            self.marker = "  " * max(self._depth() - 1, 0) + ("1. " if top is not None and
                                                               top.name == "enumerate" else "- ")
            if arg.strip():
                self._text(arg)
        elif name in _QUOTATIONS or name in ("cartouche", "flushleft", "flushright", "raggedright",
                                               "indentedblock", "smallindentedblock", "float"):
            self._blank()
            if name in _QUOTATIONS and arg.strip():
                self._text(arg.strip() + ":")  # @quotation Note: "Note:" opens the text
        elif name in ("center", "exdent"):
            self._text(arg)
        # anything else (@node, @cindex, @setfilename, @noindent, @page, @sp, an unknown command) is left out

    def _end(self, name: str) -> None:
        if name in _LISTS:
            self._flush()
            self._row()
            for n in range(len(self.lists) - 1, -1, -1):
                if self.lists[n].name == name:
                    del self.lists[n:]
                    break
            self.marker = None
            self._blank()
        elif not name.startswith("if") and name != "group":
            self._blank()  # a quotation or a definition ends its paragraph; a conditional does not

    def _heading(self, name: str, arg: str) -> None:
        self._flush()
        self._row()
        self.lists, self.marker, self.row = [], None, None
        level = _HEADINGS[name]
        self.section = level
        text = _SPACES.sub(" ", _inline(arg, self.values)).strip()
        if name == "top" and self.top is None:
            self.top = _plain(arg, self.values) or None
        if text:
            self._blank()
            self.out.extend([f"{'#' * level} {text}", ""])

    def _definition(self, name: str, arg: str) -> None:
        self._flush()
        words = _words(arg)
        if name in _DEF_CATEGORIES:
            category = _DEF_CATEGORIES[name]
        elif name in _DEF_NAMED:
            category, words = (words[0], words[1:]) if words else ("", words)
        else:  # a method, operation or variable of a class
            fixed = _DEF_ON_CLASS[name]
            if fixed is None:
                category, words = (words[0], words[1:]) if words else ("", words)
            else:
                category = fixed
            joiner = " of " if name.endswith(("cv", "ivar")) else " on "
            if words:
                category, words = category + joiner + words[0], words[1:]
        category = _plain(category, self.values)
        text = _SPACES.sub(" ", _inline(" ".join(words), self.values)).strip()
        if not text:
            return
        level = min(self.section + 1, 6)
        self._blank()
        self.out.extend([f"{'#' * level} {category}: {text}" if category else f"{'#' * level} {text}", ""])

    # ------------------------------------------------------------------ text
    def _depth(self) -> int:
        return sum(1 for entry in self.lists if entry.name != "multitable")

    def _text(self, line: str) -> None:
        if self.lists and self.lists[-1].name == "multitable":
            if self.row is not None:
                self._cells(" " + line)
            return
        self._item()
        if not self.para:
            if self.marker is not None:
                self.first, self.rest, self.marker = self.marker, "", None
            elif self.lists and self.out and not self.out[-1]:  # a later paragraph of an item
                self.first = self.rest = "  " * self._depth()
            else:
                self.first = self.rest = ""
        self.para.append(line)

    def _item(self) -> None:
        """Write a table item's line, its terms formatted by the table's command."""
        if self.terms is None:
            return
        fmt = self.lists[-1].format if self.lists else "asis"
        terms = [_inline(f"@{fmt}{{{term.strip()}}}", self.values).strip() for term in self.terms if term.strip()]
        self.terms = None
        self.out.append("  " * max(self._depth() - 1, 0) + f"- {', '.join(terms)}:")

    def _flush(self) -> None:
        self._item()
        if not self.para:
            return
        text = _inline("\n".join(self.para), self.values)
        lines = [line.strip() for line in text.split("\n") if line.strip()]
        self.out.extend(self.first + line if n == 0 else self.rest + line for n, line in enumerate(lines))
        self.para = []

    def _blank(self) -> None:
        self._flush()
        if self.out and self.out[-1]:
            self.out.append("")

    def _blank_line(self) -> None:
        if self.terms is not None or (self.lists and self.lists[-1].name == "multitable"):
            return  # a table item's description joins it; a multitable's rows run on
        self._blank()

    def _cells(self, text: str) -> None:
        """Add ``text`` (cells split at ``@tab``) to the current multitable row."""
        if self.row is None:
            return
        first, *others = _TAB.split(text)
        self.row[-1] += first
        self.row.extend(others)

    def _row(self) -> None:
        if self.row is None:
            return
        cells = [_SPACES.sub(" ", _inline(cell, self.values).replace("\n", " ")).strip().replace("|", "\\|")
                 for cell in self.row]
        self.out.append("| " + " | ".join(cells) + " |")
        if self.head:
            self.out.append("| " + " | ".join("---" for _ in cells) + " |")
        self.row, self.head = None, False

    def _code(self, lines: list[str], *, verbatim: bool) -> None:
        self._flush()
        if not verbatim:
            lines = _inline("\n".join(lines), self.values, plain=True).split("\n") if lines else []
        self.out.extend(["```", *(line.rstrip() for line in lines), "```"])


def _definition(name: str) -> str | None:
    """The definition command ``name`` is (``deffnx`` is ``deffn``), or ``None``."""
    for candidate in (name, name[:-1] if name.endswith("x") else ""):
        if candidate in _DEF_CATEGORIES or candidate in _DEF_NAMED or candidate in _DEF_ON_CLASS:
            return candidate
    return None


def _protect(line: str) -> str:
    """``line`` with ``@@``, ``@{`` and ``@}`` as placeholders, kept out of the brace rewriting."""
    return line.replace("@@", _AT).replace("@{", _LBRACE).replace("@}", _RBRACE)


def _words(text: str) -> list[str]:
    """A definition line's arguments: words, a braced group (``{User Option}``) one word without its braces."""
    words: list[str] = []
    word: list[str] = []
    depth = 0
    for char in text:
        if depth == 0 and char in " \t":
            if word:
                words.append("".join(word))
                word = []
            continue
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        word.append(char)
    if word:
        words.append("".join(word))
    return [w[1:-1] if len(w) > 1 and w[0] == "{" and w[-1] == "}" else w for w in words]


# ---------------------------------------------------------------------- inline commands
def _plain(text: str, values: dict[str, str]) -> str:
    """``text`` rewritten with code commands read as their text (a title's)."""
    return _SPACES.sub(" ", _inline(text, values, plain=True)).strip()


def _inline(text: str, values: dict[str, str], *, plain: bool = False) -> str:
    """``text`` (escapes protected) with its inline commands rewritten, innermost first; ``plain``:
    code commands as their text (in a code block), not code spans."""
    def brace(m: re.Match[str]) -> str:
        return _brace(m.group(1) or "", m.group(2), values, plain)

    for _ in range(_PASSES):
        text, count = _BRACED.subn(brace, text)
        if not count:
            break
    text = _BARE_ACCENT.sub(lambda m: _accent(m.group(2), _ACCENTS[m.group(1)]), text)
    text = _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)) if m.group(1) else " ", text)
    return text.translate(_RESTORE)


def _brace(name: str, body: str, values: dict[str, str], plain: bool) -> str:
    """The text of ``@name{body}`` (``body`` already rewritten); a bare group ``{body}`` is its body."""
    if not name:
        return body
    if name in _CODE:
        if name == "verb" and len(body) > 1 and body[0] == body[-1]:
            body = body[1:-1]
        return body if plain else _span(body)
    if name in _SYMBOLS and not body.strip():
        return _SYMBOLS[name]
    if name in _ACCENTS:
        return _accent(body.strip(), _ACCENTS[name])
    if name == "dotless":
        return {"i": "ı", "j": "ȷ"}.get(body.strip(), body)
    if name in _DROPPED_BRACES:
        return ""
    args = [arg.strip() for arg in body.split(",")]
    if name in ("xref", "pxref", "ref"):
        node = args[0] or next((arg for arg in args[1:] if arg), "")
        manual = next((arg for arg in reversed(args[3:5]) if arg), "")
        target = f"{node} in {manual}" if manual else node
        return {"xref": "See ", "pxref": "see ", "ref": ""}[name] + target
    if name in ("uref", "url"):
        if len(args) > 2 and args[2]:
            return args[2]
        return args[1] if len(args) > 1 and args[1] else args[0]
    if name == "email":
        return args[1] if len(args) > 1 and args[1] else args[0]
    if name in ("acronym", "abbr"):
        short, _, expansion = body.partition(",")
        return f"{short.strip()} ({expansion.strip()})" if expansion.strip() else short.strip()
    if name == "footnote":
        return f" ({body.strip()})"
    if name == "value":
        return values.get(body.strip(), body.strip())
    if name in ("inlineifset", "inlineifclear"):
        return body.partition(",")[2].strip()
    if name == "U":
        try:
            return chr(int(body.strip(), 16))
        except (ValueError, OverflowError):
            return ""
    return body  # @var, @emph, @strong, @dfn, @cite, @w, @sc, @math, @sub, a macro's call …


def _span(body: str) -> str:
    """``body`` as a Markdown code span (two backticks around text holding one); a span inside it is its text."""
    body = body.replace(_TICKS + " ", "").replace(" " + _TICKS, "").replace(_TICKS, "").replace(_TICK, "")
    if not body.strip():
        return body
    return f"{_TICKS} {body} {_TICKS}" if "`" in body else f"{_TICK}{body}{_TICK}"


def _accent(letter: str, mark: str) -> str:
    """``letter`` with the combining ``mark`` as one character, else the bare letter."""
    if len(letter) != 1:
        return letter
    composed = unicodedata.normalize("NFC", letter + mark)
    return composed if len(composed) == 1 else letter


__all__ = ["TexinfoLoader", "texinfo_to_markdown"]
