"""MDX (Markdown with JSX: the pages of Docusaurus, Nextra and many other documentation sites) read
as the Markdown its page shows, and the ``:::note`` admonition fences such sites (and Pandoc's
fenced divs) write in Markdown.

``render_mdx`` removes what only the site's build reads, outside code (fenced code and inline code
spans are copied as written, the ``<div>`` and ``import`` lines in them included):

- top-level ``import``/``export`` statements (an ESM block runs to the next blank line, as MDX
  reads it);
- JSX component tags: ``<Stackblitz id="x" />`` leaves nothing; a component keeps its children
  (``<Tabs><TabItem>text</TabItem></Tabs>`` keeps ``text``; a component on lines of its own has
  them dedented, after a ``Label:`` line when it has a ``title`` or ``label`` attribute: a tab's
  name); a fragment ``<>…</>`` keeps its children. Lower-case HTML tags stay, as in Markdown;
- ``{/* comments */}``; a string expression (``{" "}``) becomes its string.

``render_admonitions`` reads ``:::caution`` / ``:::tip[Title]`` / ``:::note Title`` /
``::: {.warning}`` … ``:::`` as the admonition's label line (its title when it has one, else the
kind: ``Caution:``) followed by its text; the fence lines go (a Pandoc div of another class keeps
its text without a label). A kind written without braces must be a known one, so mkdocstrings'
``::: package.module`` lines stay as written. MyST's ``:::{note}`` directives are
``ragkit.loaders.myst``'s.

``render_alerts`` reads GitHub's alerts (``> [!NOTE]``, ``> [!WARNING]``: a blockquote whose first
line names its kind) as the quote with a label line (``> Note:``), outside code; written as it is,
"[!TIP]" opened the quote's first sentence in answers.
"""

from __future__ import annotations

import re
import textwrap
from typing import NamedTuple

from ragkit.loaders.markdown_html import fenced_lines
from ragkit.loaders.sphinx_names import ADMONITIONS

#: components nested deeper than this lose their tags; their children are kept as written
MAX_DEPTH = 32
#: a JSX tag or comment longer than this (an unclosed ``<Name`` or ``{/*`` followed by prose) is
#: read as text; an inline code span longer than this is literal backticks. These bounds keep the
#: pass linear in the text, whatever it holds
MAX_TAG_CHARS = 4000
#: how far a tag's line is looked through to tell whether the tag stands on it alone
_LINE_LOOK = 200

_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_ESM = re.compile(r"(?:import[ \t]+[\w${*'\"]|import[{*'\"]|export[ \t]+(?:const|let|var|function|async|class|default|type|"
                  r"interface|\{|\*))")
_NEXT = re.compile(r"[`{<\n]")
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|\Z)")
_TAG_NAME = re.compile(r"[A-Z][\w.:-]*")
_LABEL_ATTR = re.compile(r"\b(?:title|label)=(?:\"([^\"]*)\"|'([^']*)'|\{\s*[\"'`]([^\"'`]*)[\"'`]\s*\})")
_COMMENT = re.compile(r"\{\s*/\*.*?\*/\s*\}", re.DOTALL)
_STRING_EXPR = re.compile(r"\{\s*([\"'])([^\"'{}\n]*)\1\s*\}")
_EXTRA_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
#: an admonition's opening fence: ``:::kind``, ``:::kind[Title]``, ``:::kind{title="Title"}``, ``:::kind Title``,
#: or a Pandoc div ``::: {.kind}`` (``::: package.module`` is mkdocstrings', and stays as written)
_ADMONITION = re.compile(
    r"[ \t]{0,3}:{3,}[ \t]*(?:\{\.(?P<div>[A-Za-z][\w-]*)[^}\n]*\}|(?P<name>[A-Za-z][\w-]*)"
    r"(?:\[(?P<bracket>[^\]\n]*)\]|\{title=[\"'](?P<attr>[^\"'\n]*)[\"']\}|[ \t]+(?P<rest>[^\n]*))?)[ \t]*"
)
_CLOSE = re.compile(r"[ \t]{0,3}:{3,}[ \t]*")
#: a GitHub alert's first line: a quote marker, its kind in ``[!…]``, nothing after it
_ALERT = re.compile(r"(?P<quote>[ \t]{0,3}>[ \t]?)\[!(?P<kind>[A-Za-z]{2,20})\][ \t]*(?P<end>\r?\n?)")
#: admonition kinds beyond Sphinx's (Docusaurus's, Material for MkDocs')
_MORE_KINDS = {"info": "Info", "success": "Success", "question": "Question", "example": "Example",
               "abstract": "Abstract", "quote": "Quote", "bug": "Bug", "failure": "Failure"}


class _Tag(NamedTuple):
    name: str  # "" for a fragment
    closing: bool
    self_closing: bool
    end: int  # the position after the tag
    raw: str


def render_mdx(text: str) -> str:
    """``text`` (an ``.mdx`` page's body) without its imports, exports, components and comments."""
    if not any(mark in text for mark in ("<", "{", "import", "export")):
        return text
    out, _ = _Scanner(text).nodes(0, (), 0)
    return _EXTRA_BLANKS.sub("\n\n", out).lstrip("\n")


class _Scanner:
    """One pass over the text: ``nodes`` reads content up to the closing tag of the innermost open
    component, so the whole text is read once however the tags nest (or fail to close)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def nodes(self, pos: int, open_tags: tuple[str, ...], depth: int) -> tuple[str, int]:
        """The content from ``pos`` rendered, up to the closing tag of ``open_tags[-1]`` (consumed)
        or of one of its ancestors (left for it), and the position reading stopped at."""
        text, out, start = self.text, [], pos
        while pos < len(text):
            if pos == 0 or text[pos - 1] == "\n":
                after = self._line(pos, depth)
                if after is not None:
                    kept, after = after
                    out += [text[start:pos], kept]
                    pos = start = after
                    continue
            char = text[pos]
            if char == "`":
                pos = _code_span_end(text, pos)
            elif char == "{" and (expr := _expression(text, pos)) is not None:
                out += [text[start:pos], expr[0]]
                pos = start = expr[1]
            elif char == "<" and (tag := _tag(text, pos)) is not None:
                out.append(text[start:pos])
                if tag.closing and tag.name in open_tags:
                    # its own closing tag is consumed; an ancestor's is left for the ancestor
                    return "".join(out), tag.end if tag.name == open_tags[-1] else pos
                block = _on_own_line(text, pos, tag.end)
                pos = start = tag.end
                if not (tag.closing or tag.self_closing) and depth < MAX_DEPTH:
                    children, pos = self.nodes(tag.end, (*open_tags, tag.name), depth + 1)
                    out.append(_component(tag, children, block))
                    start = pos
            elif char == "\n":
                pos += 1
            else:  # on to the next character that may start something
                found = _NEXT.search(text, pos + 1)
                pos = found.start() if found else len(text)
        out.append(text[start:pos])
        return "".join(out), pos

    def _line(self, pos: int, depth: int) -> tuple[str, int] | None:
        """At a line start: a code fence (kept as written) or a top-level ESM block (dropped), as
        ``(kept text, position after it)``; None for any other line."""
        fence = _FENCE.match(self.text, pos)
        if fence:
            end = _fence_end(self.text, fence.end(), fence.group(1))
            return self.text[pos:end], end
        if depth == 0 and _ESM.match(self.text, pos):
            blank = _BLANK_LINE.search(self.text, pos)
            return "", (blank.start() + 1 if blank else len(self.text))
        return None


def _on_own_line(text: str, start: int, end: int) -> bool:
    """Whether the tag at ``text[start:end]`` stands on a line of its own (a block component)."""
    line_start = text.rfind("\n", max(0, start - _LINE_LOOK), start) + 1
    if line_start == 0 and start > _LINE_LOOK:
        return False
    line_end = text.find("\n", end, end + _LINE_LOOK)
    if line_end < 0:
        if end + _LINE_LOOK < len(text):
            return False
        line_end = len(text)
    return not text[line_start:start].strip() and not text[end:line_end].strip()


def _component(tag: _Tag, children: str, block: bool) -> str:
    """A component's rendered children: dedented, after its label, when it is a block."""
    if not block:
        return children
    body = textwrap.dedent(children)
    label = _LABEL_ATTR.search(tag.raw)
    if label:
        words = next(g for g in label.groups() if g is not None).strip()
        if words:
            body = f"\n\n{words}:\n{body.lstrip(chr(10))}"
    return body


def _tag(text: str, pos: int) -> _Tag | None:
    """The JSX tag starting at ``text[pos]`` (``<``), or None when it is not one (``a < B``, a
    lower-case HTML tag, an unclosed ``<Name`` longer than ``MAX_TAG_CHARS``)."""
    j = pos + 1
    closing = text.startswith("/", j)
    j += closing
    if text.startswith(">", j):
        return _Tag("", closing, False, j + 1, text[pos : j + 1])
    name = _TAG_NAME.match(text, j)
    if name is None or name.end() >= len(text) or text[name.end()] not in " \t\n/>":
        return None
    j, limit = name.end(), min(len(text), pos + MAX_TAG_CHARS)
    while j < limit:
        char = text[j]
        if char == ">":
            return _Tag(name.group(), closing, False, j + 1, text[pos : j + 1])
        if char == "/" and text.startswith("/>", j):
            return _Tag(name.group(), closing, True, j + 2, text[pos : j + 2])
        if char in "\"'":
            j = text.find(char, j + 1, limit)
            if j < 0:
                return None
        elif char == "{":
            j = _brace_end(text, j, limit)
            if j < 0:
                return None
            continue
        elif char == "<":  # another tag before this one closed: this is no tag
            return None
        j += 1
    return None


def _brace_end(text: str, pos: int, limit: int) -> int:
    """The position after the ``}`` matching the ``{`` at ``pos`` (strings skipped), or -1."""
    depth, j = 0, pos
    while j < limit:
        char = text[j]
        if char in "\"'`":
            j = text.find(char, j + 1, limit)
            if j < 0:
                return -1
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def _expression(text: str, pos: int) -> tuple[str, int] | None:
    """A ``{/* comment */}`` (nothing) or a string expression (its string) at ``pos``, with the
    position after it; None for anything else."""
    for pattern, keep in ((_COMMENT, ""), (_STRING_EXPR, None)):
        found = pattern.match(text, pos, pos + MAX_TAG_CHARS)
        if found:
            return (keep if keep is not None else found.group(2)), found.end()
    return None


def _code_span_end(text: str, pos: int) -> int:
    """The position after the inline code span opening at ``pos`` (its closing run of as many
    backticks, within the paragraph), else after the opening run (literal backticks)."""
    run = _run_length(text, pos)
    closing = re.compile(rf"(?<!`)`{{{run}}}(?!`)|\n[ \t]*\n")
    found = closing.search(text, pos + run, pos + run + MAX_TAG_CHARS)
    if found is None or found.group().startswith("\n"):
        return pos + run
    return found.end()


def _run_length(text: str, pos: int) -> int:
    end = pos
    while end < len(text) and text[end] == "`":
        end += 1
    return end - pos


def _fence_end(text: str, pos: int, fence: str) -> int:
    """The position after the line closing the code fence ``fence`` opened before ``pos``."""
    line_end = text.find("\n", pos)
    if line_end < 0:
        return len(text)
    closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
    found = closing.search(text, line_end + 1)
    if found is None:
        return len(text)
    return found.end() + 1 if found.end() < len(text) else found.end()


def render_admonitions(text: str) -> str:
    """``text`` (Markdown) with its ``:::kind`` … ``:::`` admonitions as a label line and their
    text, outside code (module docstring)."""
    if ":::" not in text:
        return text
    out: list[str] = []
    fence, opened = "", 0
    for line in text.split("\n"):
        marker = _FENCE.match(line)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) and not line.strip(" \t`~"):
                fence = ""
        elif marker:
            fence = marker.group(1)
        elif (label := _admonition_label(line)) is not None:
            opened += 1
            out += ["", *label]
            continue
        elif opened and _CLOSE.fullmatch(line):
            opened -= 1
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def render_alerts(text: str) -> str:
    """``text`` (Markdown) with each GitHub alert's ``[!KIND]`` line read as its label (``> Note:``),
    outside fenced code (module docstring); a kind no admonition has stays as written."""
    if "[!" not in text:
        return text
    out: list[str] = []
    for line, code in fenced_lines(text):
        alert = None if code else _ALERT.fullmatch(line)
        label = admonition_label(alert.group("kind")) if alert else None
        out.append(f"{alert.group('quote')}{label}:{alert.group('end')}" if alert and label else line)
    return "".join(out)


def admonition_label(kind: str) -> str | None:
    """The label an admonition of ``kind`` shows (``caution`` is "Caution"), or None for a kind
    neither Sphinx, Docusaurus nor Material for MkDocs knows."""
    kind = kind.lower()
    return ADMONITIONS.get(kind) or _MORE_KINDS.get(kind)


def _admonition_label(line: str) -> list[str] | None:
    """The label line of the admonition ``line`` opens (none for a Pandoc div of another class),
    or None when it opens none: a kind named without braces must be one ragkit knows."""
    start = _ADMONITION.fullmatch(line)
    if start is None:
        return None
    label = admonition_label(start.group("div") or start.group("name"))
    if start.group("name") and label is None:
        return None
    title = (start.group("bracket") or start.group("attr") or start.group("rest") or "").strip().strip(":").strip()
    if title:
        return [f"{title}:"]
    return [f"{label}:"] if label else []


__all__ = ["MAX_DEPTH", "admonition_label", "render_admonitions", "render_alerts", "render_mdx"]
