"""LaTeX sources (``.tex``, ``.latex``, ``.ltx``; loader ``latex``), read with no extra package.

The text a reader sees, written out as Markdown-structured text so the splitter cuts at sections:
the body (between ``\\begin{document}`` and ``\\end{document}`` when the file has them; a chapter
file without them is all body), ``\\section{…}`` and its kin as headings, ``\\item`` as a list
item, a table's cells joined by ``|`` one row per line, the text of formatting commands
(``\\emph{…}``, ``\\textbf{…}``, ``\\caption{…}``, a link's text) kept and commands whose argument is
not text (``\\label``, ``\\cite``, ``\\ref``, ``\\includegraphics``, ``\\vspace``) dropped with it;
other commands and braces are dropped, comments too. A Beamer deck's slides are ``##`` headings
with their titles (``\\begin{frame}{Title}``, ``\\frametitle{…}``); overlay specifications
(``\\item<2->``) and theme settings (``\\setbeamertemplate{…}``, ``\\definecolor``) are dropped. Mathematics (``$…$``, ``\\[…\\]``, equation
environments) is kept as written, but for inline mathematics that is only a number or a name
(``$6.2$`` kB, the ``$n$`` youngest), which reads as its text. ``title`` from ``\\title{…}``.
Regular expressions only, each linear in the file's length; no macro is expanded and nothing is
read from other files.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.loaders.base import MarkupLoader
from ragkit.registry import loaders

_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
#: a braced argument with up to two levels of braces inside, bounded (an unclosed brace never
#: makes a scan to the end of the file per command)
_ARG = r"\{((?:[^{}]|\{(?:[^{}]|\{[^{}]{0,500}\}){0,2000}\}){0,5000})\}"
_OPT = r"(?:\[[^\]\n]{0,500}\])?"
_TITLE = re.compile(r"\\title\s*" + _OPT + _ARG)
_BODY = re.compile(r"\\begin\{document\}(.*?)(?:\\end\{document\}|\Z)", re.DOTALL)
#: mathematics, kept as written; a display's text holds no opener of its own kind (an unclosed
#: ``\[`` stops at the next one), so a run of openers is read in one pass, not once per opener
_MATH = re.compile(r"\$\$[^$]{0,20000}\$\$|\$[^$\n]{0,2000}\$"
                   r"|\\\[(?:[^\\]|\\[^\[\]]){0,20000}\\\]|\\\((?:[^\\]|\\[^()]){0,2000}\\\)"
                   r"|\\begin\{(equation|align|gather|multline|eqnarray|displaymath|math)(\*?)\}"
                   r"(?:(?!\\(?:begin|end)\{\1\2\}).){0,50000}\\end\{\1\2\}", re.DOTALL)
#: inline mathematics that is a number or a name alone ("$6.2$", "$n$", "$10^6$" is not): its text is what a reader sees
_PLAIN_MATH = re.compile(r"\$([A-Za-z0-9](?:[A-Za-z0-9.,]{0,38}[A-Za-z0-9])?)\$$")
_LEVELS = {"part": 1, "chapter": 1, "section": 1, "subsection": 2, "subsubsection": 3, "paragraph": 4,
           "subparagraph": 5}
_HEADING = re.compile(r"\\(" + "|".join(_LEVELS) + r")\*?\s*" + _OPT + _ARG)
_DROPPED = re.compile(r"\\(?:label|ref|eqref|pageref|autoref|cref|Cref|cite[a-zA-Z]*|nocite|includegraphics|"
                      r"vspace|hspace|usepackage|documentclass|bibliographystyle|bibliography|input|include|"
                      r"setlength|setcounter|addtocounter|newcommand|renewcommand|providecommand|orcidID|"
                      r"thanks|footnotemark|rule|pagestyle|thispagestyle|graphicspath|hypersetup|def|"
                      r"definecolor|color|setbeamercolor|setbeamertemplate|setbeamerfont|setbeameroption|"
                      r"setbeamersize|usetheme|usecolortheme|usefonttheme|useinnertheme|useoutertheme)\*?\s*"
                      + _OPT + r"(?:" + _ARG + r"){0,3}")
_LINK = re.compile(r"\\href\s*" + _ARG + r"\s*" + _ARG)
#: a Beamer slide's title: ``\\begin{frame}[fragile]<2->{Title}`` or ``\\frametitle{Title}``
_FRAME = re.compile(r"\\begin\s*\{frame\}\s*(?:<[^<>\n]{0,40}>\s*)?(?:\[[^\]\n]{0,500}\]\s*)?(?:<[^<>\n]{0,40}>\s*)?"
                    r"(?:" + _ARG + r")?")
_FRAME_TITLE = re.compile(r"\\frametitle\s*" + _OPT + _ARG)
#: a Beamer overlay specification after a command (``\\item<2->``, ``\\only<1,3>``,
#: ``<2| handout:0>``): when a slide shows it, not text
_OVERLAY = re.compile(r"(\\[a-zA-Z]+\*?)\s*<[-+\d|,.:() a-z]{0,40}>")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[^}\n]{0,100}\}(?:\s*\[[^\]\n]{0,500}\])?(?:\{[^}\n]{0,200}\})?")
_RULES = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|cline\{[^}]*\}|cmidrule(?:\([^)]*\))?\{[^}]*\}|noalign)")
_CAPTION = re.compile(r"\\caption\s*" + _OPT)
_ITEM = re.compile(r"\\item\s*" + _OPT)
_ESCAPES = {"\\%": "%", "\\&": "&", "\\_": "_", "\\#": "#", "\\$": "$", "\\{": "{", "\\}": "}", "~": " "}
_ESCAPED = re.compile(r"\\[%&_#${}]|~")
_COMMAND = re.compile(r"\\[a-zA-Z@]+\*?")
#: a line break, ``\\\\`` (and the source's own newline after it: the lines are one paragraph)
_NEWLINE = re.compile(r"\\\\(?:\[[^\]\n]{0,50}\])?[ \t]*\n?")
#: commands that print a character, and TeX's quote ligatures (not its dashes: ``--port`` in
#: ``\\texttt`` is an option)
_SYMBOLS = {"\\textendash": "–", "\\textemdash": "—", "\\ldots": "…", "\\dots": "…", "\\LaTeX": "LaTeX",
            "\\TeX": "TeX", "\\textquotedblleft": "“", "\\textquotedblright": "”", "\\textasciitilde": "~",
            "``": "“", "''": "”"}
_SYMBOL = re.compile("(?:" + "|".join(re.escape(s) for s in _SYMBOLS if s.startswith("\\")) + r")(?![a-zA-Z])|``|''")
_SPACES = re.compile(r"[ \t]+")
_SLIDE = "##"  # a slide's title: under a deck's \\section (``#``), beside its \\subsection
_BLANKS = re.compile(r"\n\s*\n\s*\n+")


@loaders.register("latex")
class LatexLoader(MarkupLoader):
    """One document of a LaTeX source file: its text with sections as Markdown headings."""

    name = "latex"
    mime = "text/x-tex"
    version = 4  # 2: inline mathematics of a number or a name alone ("$6.2$") read as its text; 3: ``authors``
    # from a signature under the last paragraph; 4: a Beamer slide's title is a heading, overlay
    # specifications and theme settings are dropped

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        return latex_to_markdown(text)


def latex_to_markdown(latex: str) -> tuple[str, str | None]:
    """``latex`` as Markdown-structured text, and its ``\\title`` (``None`` without one)."""
    latex = _COMMENT.sub("", latex)
    found = _TITLE.search(latex)
    title = " ".join(_prose(found.group(1)).split()) or None if found else None
    body = _BODY.search(latex)
    if body:
        latex = body.group(1)
    out: list[str] = []
    last = 0
    for math in _MATH.finditer(latex):
        out.append(_prose(latex[last:math.start()]))
        plain = _PLAIN_MATH.match(math.group(0))
        out.append(plain.group(1) if plain else math.group(0))
        last = math.end()
    out.append(_prose(latex[last:]))
    return _BLANKS.sub("\n\n", "".join(out)).strip() + "\n", title


def _prose(text: str) -> str:
    """``text`` (no mathematics in it) without its markup."""
    text = _OVERLAY.sub(r" \1", text)  # "\only<1>{A}\only<2>{B}", a slide's alternatives, as "A B"
    text = _HEADING.sub(lambda m: f"\n\n{'#' * _LEVELS[m.group(1)]} {m.group(2)}\n\n", text)
    text = _FRAME.sub(lambda m: f"\n\n{_SLIDE} {m.group(1)}\n\n" if m.group(1) and m.group(1).strip() else "\n\n", text)
    text = _FRAME_TITLE.sub(lambda m: f"\n\n{_SLIDE} {m.group(1)}\n\n", text)
    text = text.replace("\\maketitle", "").replace("\\footnote", " \\footnote")
    text = _LINK.sub(lambda m: m.group(2), text)
    text = _DROPPED.sub("", text)
    text = _CAPTION.sub("\n", text)
    text = _ITEM.sub("\n- ", text)
    text = _RULES.sub("", text)
    text = _ENVIRONMENT.sub("\n", text)
    text = _NEWLINE.sub("\n", text).replace("\\&", "\0").replace("&", " | ")  # a cell, not an escaped &
    text = _SYMBOL.sub(lambda m: _SYMBOLS[m.group(0)], text)
    text = _ESCAPED.sub(lambda m: _ESCAPES[m.group(0)], _COMMAND.sub("", text))
    text = text.replace("{", "").replace("}", "").replace("\0", "&")
    lines = [_SPACES.sub(" ", line) for line in text.split("\n")]
    inner = [line.strip() for line in lines[1:-1]]  # the first and last line meet mathematics
    return "\n".join([lines[0].rstrip(), *inner, lines[-1].lstrip()] if len(lines) > 1 else lines)
