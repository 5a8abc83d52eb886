"""Manual pages (``borg-serve.1``, ``git.1``, ``printf.3``) and papers written with troff's ms
macros (``mk.ms``); loader ``manpage``, read with no extra package and no ``groff``.

A man page is troff source: request lines (``.SH DESCRIPTION``, ``.TP``, ``.IP \\(bu 2``) and
inline escapes (``\\fBbold\\fP``, ``\\-``, ``\\(em``). Read as plain text, its chunks and answers
carry that markup and its sections are not headings. ``man_to_markdown`` writes the page the way
``man`` shows it, as Markdown-structured text: ``.SH``/``.SS`` (``.Sh``/``.Ss`` of BSD's mdoc)
become headings, ``.TP``/``.IP`` (``.It``) list items with their tag, ``.nf``/``.EX`` blocks
fenced code, ``.TS`` tables rows of cells, the font macros (``.B``, ``.BR``, ``.Fl`` …) their text;
macro definitions (``.de`` … ``..``), comments and layout requests (``.sp``, ``.nr``, ``.in`` …)
are gone. The title is ``.TH``'s (``borg-serve(1)``), with the ``NAME`` line's summary.

A paper or manual written with the ms macros (``mk.ms``: ``.TL``, ``.AU``, ``.AB``, ``.NH``,
``.PP``, ``.CW``, ``.P1``/``.P2``, ``.DS``/``.DE``) is read by the same pass: ``.TL``'s lines are
the title, ``.NH n``'s (numbered as ms numbers them, "12. Parallel processing") and a bare
``.SH``'s the heading after it, the abstract a section, displays fenced code; equations
(``.EQ``), reference lists (``.[``) and footnote marks are left out.

A file with a man page's name whose text is not troff (no request line among its first lines)
is read as it is. One pass over the lines; a line's escapes in one regular-expression pass.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.loaders.base import MarkupLoader
from ragkit.registry import loaders

_HEAD_LINES = 40  # a troff page has a request line among its first lines
_TROFF_START = re.compile(r'^(?:[.\'][ \t]*\\"|\.(?:TH|Dd|Dt|SH|Sh|de|so|TL|NH|PP|LP)\b)')
_ARG = re.compile(r'"((?:[^"]|"")*)"?|((?:\\.|[^\s\\])+)')
_INLINE_COMMENT = re.compile(r'(?<!\\)\\".*$')
_REQUEST = re.compile(r"^[.'][ \t]*([A-Za-z\\][\w\\\"]*)?[ \t]*(.*)$")
_ESCAPE = re.compile(
    r"\\(?:f(?:\[[^]\n]*\]|\([A-Z]{2}|[A-Z0-9])"  # font: \fB \f(BI \f[R]
    r"|s[+-]?\d+|s\([+-]?\d\d|s\[[^]\n]*\]"  # size
    r"|\*(?:\[[^]\n]*\]|\(..|.)"  # defined string
    r"|\((..)|\[([^]\n]*)\]"  # special character \(em \[em]
    r"|n(?:\[[^]\n]*\]|\(..|.)"  # number register
    r"|[hvwkoDlLXZ]'[^'\n]*'"  # motions and drawing
    r"|(.))",
)
_SPECIAL = {
    "em": "—", "en": "–", "hy": "-", "bu": "•", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’",
    "co": "©", "rg": "®", "tm": "™", "mi": "-", "pl": "+", "mu": "×", "di": "÷", "ga": "`", "ti": "~", "ha": "^",
    "rs": "\\", "sl": "/", "lt": "<", "gt": ">", "<=": "≤", ">=": "≥", "!=": "≠", "->": "→", "<-": "←", "de": "°",
    "ba": "|", "br": "|", "ul": "_", "sq": "□", "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›",
}
_SINGLE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "'": "'", "`": "`", ".": ".", "t": "\t"}
_HEADING = {"SH": "##", "Sh": "##", "SS": "###", "Ss": "###"}
_BREAK = frozenset({"PP", "LP", "P", "sp", "Pp", "br", "ne", "bp", "HP", "QP", "XP", "FS", "FE", "AE", "AU", "AI"})
_CODE_START = frozenset({"nf", "EX", "Bd", "P1", "DS", "ID", "LD", "CD", "BD"})
_CODE_END = frozenset({"fi", "EE", "Ed", "P2", "DE"})
#: ms requests whose lines after them, up to the next request, are a heading (a bare ``.SH`` too)
_HEADING_LINES = frozenset({"TL", "NH"})
_NH_LEVELS = 5  # the levels of ``.NH``'s numbers
_SKIP_LINES = 200  # an equation or reference list longer than this is taken as never closed
_HEADING_LINES_MAX = 4  # the lines after ``.TL``/``.NH`` a heading takes at most; the rest is text
#: blocks with no text a reader is shown as prose: eqn's equations, refer's references
_SKIPPED = {"EQ": "EN", "[": "]"}
_FONTS = frozenset({"B", "I", "BI", "BR", "IB", "IR", "RB", "RI", "SM", "SB", "R", "CW", "UL", "BX"})
#: ms's font macros: ``.CW word post pre``, the second argument set right after the word
_MS_FONTS = frozenset({"CW", "UL", "BX"})
_ALTERNATING = frozenset({"BI", "BR", "IB", "IR", "RB", "RI"})
# mdoc's inline macros: their words are text (``.Fl v`` is "-v", ``.Ar file`` is "file")
_MDOC_TEXT = frozenset({"Nm", "Ar", "Cm", "Ic", "Va", "Ev", "Pa", "Em", "Sy", "Li", "Dv", "Er", "Fn", "Fa", "Ft",
                        "Xr", "Ql", "Dq", "Sq", "Pq", "Aq", "Op", "Nd", "Tn", "Lk", "Mt", "Ad", "An", "Lb", "St"})


#: mdoc's delimiters: an argument of these alone is punctuation, set against its neighbour
_MDOC_DELIMITER = re.compile(r"[.,:;)\]?!(\[|]")
_CLOSING_DELIMITERS = re.compile(r" ([.,:;)\]?!]+)(?= |$)")
_OPENING_DELIMITERS = re.compile(r"(^| )([(\[]) ")


@loaders.register("manpage")
class ManPageLoader(MarkupLoader):
    """One document of a manual page: its troff markup turned into Markdown."""

    name = "manpage"
    mime = "text/troff"
    # 2: ``authors`` from a signature under the last paragraph; 3: mdoc's bare ``.Nm`` shows the
    # page's name, and its delimiters (``Fl c ) ,``) are set against their neighbours; 4: ``.Ex
    # -std``/``.Rv -std`` are the sentences they stand for; 5: an ms paper or manual (``.TL``,
    # ``.NH``, ``.CW``, displays) is read, and a bare ``.SH``'s heading is the line after it
    version = 6

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        if not is_troff(text):
            return text, None
        return man_to_markdown(text)


def is_troff(text: str) -> bool:
    """Whether ``text`` is troff source: a request line (``.TH``, ``.\\"``) among its first lines."""
    return any(_TROFF_START.match(line) for line in text.splitlines()[:_HEAD_LINES])


def inline(text: str) -> str:
    """A line's text with its escapes read: fonts and sizes gone, special characters written."""

    def read(m: re.Match[str]) -> str:
        if (name := m.group(1) or m.group(2)) is not None:
            return _SPECIAL.get(name, "")
        return _SINGLE.get(m.group(3), "") if m.group(3) is not None else ""

    return _ESCAPE.sub(read, _INLINE_COMMENT.sub("", text))


def _words(args: str) -> list[str]:
    """A request's arguments: split at spaces, but for a quoted one (``"two words"``, ``""`` a
    quote inside) and an escaped space (``\\ ``), which troff reads as part of the argument."""
    return [m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2) for m in _ARG.finditer(args)]


def _mdoc(words: list[str]) -> list[str]:
    """mdoc macro words as the text they show: ``Fl p Ar port`` -> ``-p port``, ``Xr pkg 8`` ->
    ``pkg(8)`` (a macro name is not text; ``Fl`` puts a dash before the word after it, past an
    opening delimiter)."""
    shown: list[str] = []
    dash = False
    reference = False  # after ``Xr``: a page's name, then its section
    for w in words:
        if w == "Fl":
            if dash:
                shown.append("-")
            dash = True
            reference = False
        elif w == "Xr":
            reference = True
        elif w in _MDOC_TEXT or w in ("Ns", "No"):
            reference = False
        elif dash and w in ("(", "["):
            shown.append(w)
        elif reference and shown and w.isdigit() and len(w) == 1 and shown[-1] not in ("(", "["):
            shown[-1] = f"{shown[-1]}({w})"
            reference = False
        else:
            shown.append(f"-{w}" if dash else w)
            dash = False
    if dash:
        shown.append("-")
    return shown


def _standard_sentence(request: str, names: list[str]) -> str:
    """The sentence mdoc's ``.Ex -std`` (a utility's exit status) or ``.Rv -std`` (a function's
    return value) stands for, as ``man`` writes it."""
    if request == "Ex":
        if len(names) > 1:
            subject = f"The {', '.join(names[:-1])} and {names[-1]} utilities exit"
        else:
            subject = f"The {names[0]} utility exits" if names else "The utility exits"
        return f"{subject} 0 on success, and >0 if an error occurs."
    shown = " and ".join(f"{n}()" for n in names) or "function"
    noun = "functions return" if len(names) > 1 else "function returns"
    return (f"The {shown} {noun} the value 0 if successful; otherwise the value -1 is returned and the "
            "global variable errno is set to indicate the error.")


def _attached_delimiters(text: str) -> str:
    """mdoc's delimiter arguments set as ``man`` shows them: a closing one against the word before
    (``-c ) ,`` is ``-c),``), an opening one against the word after (``( x`` is ``(x``)."""
    text = _CLOSING_DELIMITERS.sub(r"\1", text)
    return _OPENING_DELIMITERS.sub(r"\1\2", text)


def man_to_markdown(troff: str) -> tuple[str, str | None]:
    """``troff`` (a man(7) or mdoc(7) page) as Markdown-structured text, and its title."""
    out: list[str] = []
    title: str | None = None
    summary = ""
    code = False
    tag_next = False  # .TP: the next text line is the item's tag
    defining = False  # inside .de … ..
    table: int | None = None  # inside .TS: 0 while reading its format lines, 1 in its rows
    name_section = False
    page_name = ""  # mdoc: the first ``.Nm``'s name, which a bare ``.Nm`` repeats
    para: list[str] = []
    heading: list[str] | None = None  # ms: the lines after ``.TL``/``.NH``/a bare ``.SH``, the heading
    heading_mark = ""  # its Markdown mark ("#" for the title) and number ("12.")
    numbers = [0] * _NH_LEVELS  # ``.NH``'s section numbers, one a level
    skip_until = ""  # inside ``.EQ`` … ``.EN`` or ``.[`` … ``.]``: the request that ends it
    skipped = 0  # the lines of that block so far

    def flush() -> None:
        if para:
            out.append(" ".join(para))
            out.append("")
            para.clear()

    def add(text: str, tag: bool) -> bool:
        """``text`` onto the paragraph, or as the tag of a new item after ``.TP``; False: no tag
        is pending any more."""
        if tag:
            flush()
            para.append(f"- {text}:")
        else:
            para.append(text)
        return False

    def close_heading() -> None:
        nonlocal heading, title
        text = " ".join(heading or ()).strip()
        if text:
            if heading_mark == "#":
                title = title or text
            out.extend([f"{heading_mark} {text}", ""])
        heading = None

    for raw in troff.splitlines():
        if defining:
            defining = raw.strip() != ".."
            continue
        opener = raw[1:].strip()[:2] if raw[:1] in ".'" else ""
        if skip_until and skipped < _SKIP_LINES:  # an unclosed block loses no more than this
            skip_until, skipped = ("", 0) if opener.startswith(skip_until) else (skip_until, skipped + 1)
            continue
        if (block := "[" if opener.startswith("[") else opener) in _SKIPPED:
            skip_until, skipped = _SKIPPED[block], 0
            continue
        m = _REQUEST.match(raw) if raw[:1] in ".'" else None
        request, args = (m.group(1) or "", m.group(2)) if m else ("", "")
        if request.startswith('\\"') or raw.startswith(('.\\"', "'\\\"")):
            continue  # a comment
        if heading is not None:
            if not m and len(heading) < _HEADING_LINES_MAX:
                heading.append(inline(raw).strip())
                continue
            close_heading()  # the next request, or a line past the bound: text of its own
        if table is not None:
            if request == "TE":
                table = None
                out.append("")
            elif table == 0:
                table = 1 if raw.rstrip().endswith(".") else 0
            elif not m:
                out.append(" | ".join(c.strip() for c in inline(raw).split("\t")))
            continue
        if code:
            if request in _CODE_END:
                code = False
                out.extend(["```", ""])
            elif not m or request in _FONTS:
                out.append(inline(" ".join(_words(args)) if m else raw))
            continue
        if not m:
            text = inline(raw).strip()
            if not text:
                flush()
                continue
            tag_next = add(text, tag_next)
            if name_section:
                summary = f"{summary} {text}".strip()
            continue
        if request in ("de", "de1", "am", "ig"):
            defining = True
        elif request == "TH" or request == "Dt":
            words = _words(args)
            if words:
                title = f"{inline(words[0])}({inline(words[1])})" if len(words) > 1 else inline(words[0])
        elif request in _HEADING:
            flush()
            text = inline(" ".join(_words(args))).strip()
            name_section = text.upper() == "NAME"
            if text:
                out.extend([f"{_HEADING[request]} {text}", ""])
            else:  # its heading is the line after it
                heading, heading_mark = [], _HEADING[request]
        elif request in _HEADING_LINES:
            flush()
            heading, heading_mark = [], "#"
            if request == "NH":
                words = _words(args)
                level = min(max(int(words[0]), 1), _NH_LEVELS) if words and words[0].isdigit() else 1
                numbers[level - 1] += 1
                numbers[level:] = [0] * (_NH_LEVELS - level)
                heading_mark = f"{'#' * min(level + 1, 6)} {'.'.join(str(n) for n in numbers[:level])}."
        elif request == "AB":
            flush()
            if _words(args)[:1] != ["no"]:
                out.extend(["## Abstract", ""])
        elif request in _BREAK:
            flush()
        elif request == "TP":
            flush()
            tag_next = True
        elif request in ("IP", "It"):
            flush()
            words = _words(args)
            tag = inline(words[0]).strip() if words else ""
            if request == "It":
                tag = _attached_delimiters(inline(" ".join(_mdoc(words))).strip())
            para.append(f"- {tag}:" if tag and tag not in ("•", "-", "*", "o") else "-")
        elif request in _CODE_START:
            flush()
            code = True
            out.append("```")
        elif request == "TS":
            flush()
            table = 0
        elif request in ("Ex", "Rv") and "-std" in (words := _words(args)):
            names = [inline(w).strip() for w in words if w != "-std"] or [page_name]
            tag_next = add(_standard_sentence(request, [n for n in names if n]), tag_next)
        elif request in _FONTS or request in _MDOC_TEXT or request == "Fl":
            words = _words(args)
            if request == "Nm":
                named = [w for w in words if not _MDOC_DELIMITER.fullmatch(w)]
                page_name = page_name or inline(" ".join(named)).strip()
                words = words if named else [page_name, *words]
            mdoc = request in _MDOC_TEXT or request == "Fl"
            words = _mdoc([request, *words]) if mdoc else words
            if words and (request in _MS_FONTS or request in ("B", "I", "R") and len(words) in (2, 3)
                          and _MDOC_DELIMITER.fullmatch(words[1])):
                # ms's ``.CW mk\fR'\fPs``, ``.I prerequisites .``: the word, what follows it, what comes before
                words = [f"{words[2] if len(words) > 2 else ''}{words[0]}{words[1] if len(words) > 1 else ''}"]
            joined = "".join(words) if request in _ALTERNATING else " ".join(words)
            text = inline(joined).strip()
            text = _attached_delimiters(text) if mdoc else text
            if text:
                tag_next = add(text, tag_next)
                if name_section:  # mdoc's .Nd is the summary itself
                    summary = f" - {text}" if request == "Nd" else f"{summary} {text}".strip()
        # any other request (layout: .nr .in .RS .RE .ft .ad .INDENT .KS …) has no text of its own
    if heading is not None:
        close_heading()
    flush()
    text = "\n".join(out).strip() + "\n"
    if title and summary:
        title = f"{title}: {summary.split(' - ', 1)[-1].split(' — ', 1)[-1].strip()}"
    return text, title


__all__ = ["ManPageLoader", "inline", "is_troff", "man_to_markdown"]
