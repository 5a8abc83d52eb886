"""Vim help files (a ``.txt`` file in Vim's help format), written out as Markdown-structured text.

A plugin's ``doc/*.txt`` opens with its own tag (``*mini.jump.txt*  Jump to a character``) and
ends with a modeline (``vim:tw=78:ts=8:ft=help:norl:``). Read as plain text, its examples were
prose: a default written in a Lua example (``highlight = 250,`` under the comment that says what
it is) was a line of a paragraph, and its tags and links kept their stars and bars. The text
loader hands such a file here (``is_vim_help``), one pass over the lines:

- the first line's tag and description are the ``title`` ("mini.jump: Jump to a character");
- a line that ends with tags (``MiniJump.config          *MiniJump.config*``) or stands under a
  rule of ``=`` or ``-`` is a heading, ``##`` after a ``=`` rule, ``###`` otherwise, named by its
  text (else by its tags); a column heading (``Options ~``) is a ``####`` heading; the rules go;
- an example (after a line ending with ``>``, ``>lua`` or ``>vim``, to a line starting with ``<``
  or a line that is not indented) is fenced code in its language;
- a link (``|MiniJump.jump()|``) and a tag within a line (``*'ignorecase'*``) read as their text,
  a modeline goes; a list item keeps its indent (a nested list), and an indented paragraph starts
  at the margin (four spaces would make it Markdown code).
"""

from __future__ import annotations

import re

_FIRST_TAG = re.compile(r"^\*([^*\s]{1,200})\*\s*(.*)$")
_MODELINE = re.compile(r"^\s*vim?:(?:[\w=]+:)+\s*$|^\s*vim:\s*set?\s")
_RULE = re.compile(r"^\s*(={10,}|-{10,})\s*$")
_TAGGED = re.compile(r"^(.*?)\s*((?:\*[^*\s|]{1,200}\*\s*)+)$")
_TAG = re.compile(r"\*([^*\s|]{1,200})\*")
_RIGHT_TAGS = re.compile(r"\S\s{2,}\*[^*\s|]{1,200}\*")
_LINK = re.compile(r"\|([^|\s]{1,200})\|")
_COLUMN_HEADING = re.compile(r"^(\S.*?)\s+~$")
_EXAMPLE = re.compile(r"(?:^|\s)>([a-z]{0,12})$")
_CODE_END = re.compile(r"^<")
_HEADING_CHARS = 300  # a help file's heading fits its text width (78) with room to spare
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+\S")


def is_vim_help(text: str) -> bool:
    """Whether ``text`` is a Vim help file: its first line opens with its own ``*name.txt*`` tag,
    or its last lines hold a modeline that sets ``ft=help``."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    if (tag := _FIRST_TAG.match(first)) and tag.group(1).endswith(".txt"):
        return True
    last = text.rstrip().rsplit("\n", 3)[-3:]  # the last lines only: every .txt file is asked
    return any("ft=help" in line.replace(" ", "") and "vim" in line for line in last)


def vim_help_to_markdown(text: str) -> tuple[str, str | None]:
    """A Vim help file as Markdown-structured text, and its title (the first line's tag and
    description; ``None`` without them)."""
    lines = text.lstrip("\ufeff").split("\n")
    title = None
    if lines and (tag := _FIRST_TAG.match(lines[0])):
        name = tag.group(1).removesuffix(".txt")
        title = f"{name}: {_inline(tag.group(2))}" if tag.group(2).strip() else name
        lines = lines[1:]
    out: list[str] = []
    ruled = ""  # the rule the next line stands under ("=" or "-"), if any
    code = False
    for line in lines:
        if code:
            if _CODE_END.match(line) or (line.strip() and not line[:1].isspace()):
                out.append("```")
                code = False
                if _CODE_END.match(line):
                    line = line[1:]
                    if not line.strip():
                        continue
            else:
                out.append(line)
                continue
        if _MODELINE.match(line):
            continue
        rule = _RULE.match(line)
        if rule:
            ruled = rule.group(1)[0]
            continue
        if not line.strip():
            out.append("")
            ruled = ""  # a heading stands right under its rule
            continue
        tail = max(0, len(line) - 20)  # an example's mark ends its line: ">" or ">lua"
        example = _EXAMPLE.search(line, tail)
        if example:
            line = line[:example.start()].rstrip()
            code = True
        heading = _heading(line, ruled)
        ruled = ""
        if heading:
            out += ["", heading, ""]
        elif _LIST_ITEM.match(line) or (out and out[-1].strip() and not out[-1].startswith(("#", "```"))):
            out.append(_inline(line.rstrip()))  # an item keeps its indent (a nested list), a line goes on its paragraph
        else:
            out.append(_inline(line.strip()))  # an indented paragraph of prose is no Markdown code block
        if code:
            out.append(f"```{example.group(1) if example else ''}")
    if code:
        out.append("```")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n", title


def _heading(line: str, ruled: str) -> str:
    """The Markdown heading a line is, or "" (a line longer than ``_HEADING_CHARS`` is none: the
    patterns below would take time quadratic in a hostile line's length)."""
    if len(line) > _HEADING_CHARS:
        return ""
    column = _COLUMN_HEADING.match(line)
    if column:
        return f"#### {_inline(column.group(1).lstrip('# '))}"
    tagged = _TAGGED.match(line)
    if tagged and (not tagged.group(1).strip() or _RIGHT_TAGS.search(line)):  # tags set to the right
        name = _inline(tagged.group(1)).strip() or " ".join(_TAG.findall(tagged.group(2)))
        return f"{'##' if ruled == '=' else '###'} {name}"
    if ruled and line.strip():
        return f"{'##' if ruled == '=' else '###'} {_inline(line.strip())}"
    return ""


def _inline(text: str) -> str:
    return _TAG.sub(r"\1", _LINK.sub(r"\1", text))


__all__ = ["is_vim_help", "vim_help_to_markdown"]
