"""MyST Markdown (Sphinx's Markdown): its roles and directives read as the text they stand for.

Sphinx projects written in Markdown (``myst_parser``) use ``{func}`click.echo``` roles and
directives in fences (```` ```{note} ````, ``:::{warning}``, ```` ```{eval-rst} ````). Indexed as
written, chunks and answers carry ``{func}`` and quote a directive's option block; here they get
the meaning the reStructuredText loader gives the same roles and directives (the names and rules
are ``ragkit.loaders.sphinx_names``'):

- a role becomes its text (``{func}`~click.echo``` -> ``echo()`` as inline code; ``{ref}`the
  guide <guide>``` -> ``the guide``), never inside code;
- ``eval-rst`` content is reStructuredText, rendered by the rst loader;
- code directives become fenced code with their language; navigation and build directives
  (``toctree``, ``contents``, ``include``, ``currentmodule``...) disappear;
- an object description keeps a line with its signature, and the options Sphinx shows with it
  (``Type: …``, ``Default: …``, ``Value: …``); ``versionadded`` and friends and the admonitions
  (``note``, ``warning``...) keep a label line; the author directives a ``Module author: NAME``
  line; any other directive keeps its content;
- a directive's other options (``:key: value`` lines or a ``---`` YAML block) never reach the
  text, nor do ``(target)=`` lines.

Quarto and R Markdown code chunks (```` ```{python} ````, ```` ```{r setup} ````) are code. A file
without a role or directive fence is returned as it is.
"""

from __future__ import annotations

import logging
import re

from ragkit.errors import LoaderError
from ragkit.loaders.sphinx_names import (
    ADMONITIONS,
    AUTHORS,
    CODE,
    CODE_ROLES,
    DROP,
    LABELS,
    TITLED,
    author_line,
    is_known_object,
    is_object,
    label_line,
    looks_like_code,
    role_text,
    shown_options,
)

log = logging.getLogger(__name__)
#: directives inside directives rendered this deep; a fence left open takes the rest of the file as
#: its content, so this also bounds the work on a file of unclosed fences (depth x its lines)
MAX_DEPTH = 8

_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,}|:{3,})\{(?P<name>[\w.:+-]+)\}[ \t]*(?P<arg>.*)$")
_OPEN_ANYWHERE = re.compile(_OPEN.pattern, re.MULTILINE)
_CODE_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
#: a role, or an inline code span (matched so that the braces inside one stay as they are)
_ROLE = re.compile(r"(?<![\w$\\])\{(?P<name>[a-zA-Z][\w.:+-]*)\}(?P<ticks>`+)(?P<text>.+?)(?P=ticks)(?!`)"
                   r"|(?P<span>`+)[^`]+?(?P=span)")
_ROLE_MARK = re.compile(r"(?<![\w$\\])\{[a-zA-Z][\w.:+-]*\}`")
_TARGET = re.compile(r"^ {0,3}\([\w.:/ -]+\)=[ \t]*$")
_OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):(?:[ \t](?P<value>.*))?$")
#: MyST directives without text of their own beyond Sphinx's navigation and build ones
_DROP = DROP | {"contents", "include", "tableofcontents", "glue", "bibliography"}
#: code-chunk names of Quarto and R Markdown (```{python}): code, not directives
_CHUNK_LANGUAGES = frozenset({
    "r", "python", "julia", "bash", "sh", "sql", "ojs", "dot", "mermaid", "js", "javascript", "rust",
    "c", "cpp", "stan", "scala", "octave", "matlab", "powershell", "ruby", "perl", "go", "java",
})  # fmt: skip


def has_myst(text: str) -> bool:
    """Whether ``text`` may hold a MyST role or directive fence (a cheap test before rendering;
    a role-like run inside inline code counts, and rendering leaves it as it is)."""
    return "{" in text and (_ROLE_MARK.search(text) is not None or _OPEN_ANYWHERE.search(text) is not None)


def render_myst(text: str, *, where: str = "<string>") -> str:
    """``text`` (Markdown, maybe MyST) with its roles and directives replaced (module docstring)."""
    if not has_myst(text):
        return text
    return "\n".join(_render_lines(text.split("\n"), where))


def _render_lines(lines: list[str], where: str, depth: int = 0) -> list[str]:
    if depth > MAX_DEPTH:  # directives nested deeper (or left open, one inside the next) stay as written
        return lines
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _OPEN.match(line)
        if opened:
            end = _closing(lines, i + 1, opened.group("fence"))
            body = [_dedent(s, len(opened.group("indent"))) for s in lines[i + 1 : end]]
            out.extend(_directive(opened.group("name").lower(), opened.group("arg").strip(), body, where, depth))
            i = end + 1
            continue
        code = _CODE_OPEN.match(line)
        if code:  # a plain code fence: copied as it is, roles and all
            end = _closing(lines, i + 1, code.group("fence"))
            out.extend(lines[i : end + 1])
            i = end + 1
            continue
        if not _TARGET.match(line):
            out.append(_roles(line))
        i += 1
    return out


def _closing(lines: list[str], start: int, fence: str) -> int:
    """The index of the line closing ``fence`` (same character, at least as long), else the end."""
    close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for j in range(start, len(lines)):
        if close.match(lines[j]):
            return j
    return len(lines)


def _dedent(line: str, indent: int) -> str:
    return line[indent:] if line[:indent].isspace() else line


def _directive(name: str, arg: str, body: list[str], where: str, depth: int) -> list[str]:
    if name in _CHUNK_LANGUAGES:
        return [f"```{name}", *body, "```"]
    options, body = _options(body)
    if name in _DROP:
        return []
    if name in AUTHORS:
        line = author_line(name, arg)
        return ["", line, ""] if line else []
    if name in CODE:
        language = arg.split()[0] if arg else ""
        return [f"```{language}", *body, "```"]
    if name == "eval-rst":
        return _rst(body, where)
    content = _render_lines(body, where, depth + 1)
    if name in LABELS:
        return ["", label_line(name, arg), *content, ""]
    if name in ADMONITIONS or name == "admonition":
        head = arg if name == "admonition" and arg else ADMONITIONS.get(name, "Note")
        return ["", f"{head}:", *content, ""]
    if name in TITLED and arg:
        return ["", f"{arg}:", *content, ""]
    if not is_known_object(name) and looks_like_code([arg, *body]):  # a project's example directive
        return ["```", *([arg] if arg else []), *body, "```"]
    if is_object(name):
        fields = [_roles(line) for line in shown_options(options)]
        return ["", f"`{arg}`" if arg else "", *fields, *content, ""]
    return content


def _options(body: list[str]) -> tuple[dict[str, object], list[str]]:
    """The directive's leading options (a ``---`` YAML block or ``:key: value`` lines) and the
    body without them."""
    if body and body[0].strip() == "---":
        end = next((j for j in range(1, len(body)) if body[j].strip() == "---"), None)
        if end is not None:
            return _yaml_options(body[1:end]), body[end + 1 :]
    options: dict[str, object] = {}
    i = 0
    while i < len(body) and (option := _OPTION.match(body[i])):
        options[option.group("key").lower()] = (option.group("value") or "").strip()
        i += 1
    return options, body[i:]


def _yaml_options(lines: list[str]) -> dict[str, object]:
    import yaml  # light, but only needed for directives with a YAML option block

    try:
        data = yaml.safe_load("\n".join(lines))
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _rst(body: list[str], where: str) -> list[str]:
    from ragkit.loaders.rst import rst_to_markdown

    try:
        text, _ = rst_to_markdown("\n".join(body), where=where)
    except LoaderError as exc:  # kept as written: a directive's text beats none
        log.debug("%s: eval-rst block kept as text: %s", where, exc)
        return body
    return ["", *text.split("\n"), ""]


def _roles(line: str) -> str:
    def replace(m: re.Match[str]) -> str:
        if m.group("name") is None:  # an inline code span keeps its braces
            return m.group()
        name = m.group("name").lower()
        shown = role_text(name, m.group("text"))
        return f"`{shown}`" if CODE_ROLES.match(name) else shown

    return _ROLE.sub(replace, line) if "{" in line else line


__all__ = ["has_myst", "render_myst"]
