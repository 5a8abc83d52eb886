"""A documentation comment's text as Markdown lines, for ``ragkit.loaders.doc_comments``.

The comment's markers (``/**``, ``*/``, a line's leading ``*``, ``///``, ``//!``, Go's and a
``.proto`` file's ``//``) are removed; inline tags (``{@code x}``, ``{@link A#b label}``), HTML
(``<p>``, ``<li>``, ``<pre>``, entities) and C#'s XML tags become paragraphs, items, fences and
code spans; block tags (``@param``, ``@return``, ``@throws``, Doxygen's ``\\param``, JSDoc's
``{Type}`` and ``[name=default]``) become labelled items, and a script's ``@example`` a fenced
block. Every pattern is bounded, so a hostile comment is written out in linear time.
"""

from __future__ import annotations

import html
import re
import textwrap

from ragkit.loaders.base import code_span, escape_markdown_line, fenced_block

#: languages whose ``'…'`` is a string, ``\`…\``` a template literal and ``/…/`` a regular expression
SCRIPT_LANGUAGES = frozenset({"javascript", "jsx", "typescript", "tsx"})
#: Google's API linter's notes in a .proto comment, ``(-- api-linter: core::0140=disabled --)``
_PROTO_NOTE = re.compile(r"\(--.{0,2000}?--\)", re.DOTALL)
#: JSDoc's ``@example <caption>Title</caption>``, and the mark that keeps the title from the HTML reader
_CAPTION = re.compile(r"(@example)[ \t]*<caption>([^<\n]{0,300})</caption>")
_CAPTION_MARK = "\x00"
_GO_ITEM = re.compile(r"[ \t]+(?:[-*+•]|\d{1,3}[.)])[ \t]")  # an indented list item, not code
#: a Go doc link, ``[Equal]``, ``[*Options]``, ``[cmp.Diff]``, ``[example.com/x/cmpopts.Equate]``: the
#: name it shows (not ``[text](url)`` or a link definition ``[text]: url``)
_GO_LINK = re.compile(r"\[(\*?[A-Za-z_][\w./-]{0,200})\](?![(:])")
_LEADING_STAR = re.compile(r"^[ \t]*\*(?![*/])[ \t]?")
_INLINE_TAG = re.compile(r"\{@(\w{1,30})[ \t\n]*")
_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]{0,30})((?:[^<>\"']|\"[^\"]{0,400}\"|'[^']{0,400}'){0,400})>")
_ATTRIBUTE = re.compile(r"\b(?:name|cref|langword|href)\s*=\s*[\"']([^\"']{0,300})[\"']")
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(\S.*)$")  # a Markdown heading in a comment's prose
_BLOCK_TAG = re.compile(r"^[ \t]*[@\\](\w{1,30})\b[ \t]*(.*)$")


def prose_lines(raw: str, language: str = "", *, headings_below: int = 0) -> list[str]:
    """A documentation comment's text as Markdown lines (see the module docstring); empty when
    it says nothing. With ``headings_below``, a heading the comment writes (rustdoc's ``# Panics``,
    Go's ``# Limits``) stays a heading, that many levels deeper (at most ``######``); without it,
    such a line is escaped and read as text."""
    text = _unmarked(raw, language)
    if language in SCRIPT_LANGUAGES:  # an example's caption, before the HTML is read
        text = _CAPTION.sub(lambda m: f"{m.group(1)} {_CAPTION_MARK}{m.group(2).strip()}{_CAPTION_MARK}", text)
    text = _inline_tags(text)
    lines = _html_to_lines(text)
    lines = _block_tags(lines, language, headings_below)
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines if any(any(ch.isalpha() for ch in line) for line in lines) else []


def _unmarked(raw: str, language: str = "") -> str:
    """The comment without its markers: ``/**``, ``*/``, a leading ``*`` or ``///`` on each line."""
    if raw.startswith(("///", "//!")):
        return "\n".join(re.sub(r"^[ \t]*//[/!][ \t]?", "", line) for line in raw.split("\n"))
    if language == "protobuf":  # ``//`` lines, the API linter's notes left out
        lines = _dedent(["", *(re.sub(r"^[ \t]*//", "", line) for line in raw.split("\n"))])[1:]
        return _PROTO_NOTE.sub("", "\n".join(lines))
    if raw.startswith("//"):  # Go: its indented lines are code, ``[Name]`` a link to a name
        return _go_text([re.sub(r"^[ \t]*// ?", "", line) for line in raw.split("\n")])
    body = raw[3:]
    body = body[:-2] if body.endswith("*/") else body
    lines = body.split("\n")
    starred = sum(1 for line in lines[1:] if _LEADING_STAR.match(line))
    if starred >= max(1, (len(lines) - 1) // 2):
        lines = [_LEADING_STAR.sub("", line, count=1) for line in lines]
    lines = _dedent(lines)
    return "\n".join(lines)


def _go_text(lines: list[str]) -> str:
    """A Go doc comment's lines (markers removed) as text: a run of indented lines a fenced block."""
    out: list[str] = []
    code: list[str] = []
    for line in [*lines, None]:
        if line is not None and (line[:1] in ("\t", " ") and line.strip() and not _GO_ITEM.match(line)
                                 or code and not line.strip()):
            code.append(line)
            continue
        while code and not code[-1].strip():
            code.pop()
        if code:
            out += ["", *fenced_block(textwrap.dedent("\n".join(code)).split("\n"), "")]
            code = []
        if line is not None:
            out.append(_GO_LINK.sub(r"\1", line.strip() if _GO_ITEM.match(line) else line))
    return "\n".join(out)


def _dedent(lines: list[str]) -> list[str]:
    """The first line stripped (it follows the comment's opening marker), the others without the
    indentation they share; each without trailing blanks."""
    if len(lines) < 2:
        return [line.strip() for line in lines]
    return [lines[0].strip(), *(line.rstrip() for line in textwrap.dedent("\n".join(lines[1:])).split("\n"))]


def _inline_tags(text: str) -> str:
    """``{@code x}``, ``{@link A#b label}`` and the other inline tags as text; braces are matched
    with a counter, so ``{@code Map<String, List<Integer>>}`` and ``{@code {}}`` stay whole."""
    closing = _closing_braces(text)
    out: list[str] = []
    i = 0
    while (match := _INLINE_TAG.search(text, i)) is not None:
        out.append(text[i : match.start()])
        end = closing.get(match.start())
        if end is None:  # unterminated: kept as written
            out.append(text[match.start() : match.end()])
            i = match.end()
            continue
        out.append(_inline_tag(match.group(1), text[match.end() : end]))
        i = end + 1
    out.append(text[i:])
    return "".join(out)


def _closing_braces(text: str) -> dict[int, int]:
    """Where each ``{`` of ``text`` that is closed is closed, in one pass."""
    closing: dict[int, int] = {}
    open_at: list[int] = []
    for i, char in enumerate(text):
        if char == "{":
            open_at.append(i)
        elif char == "}" and open_at:
            closing[open_at.pop()] = i
    return closing


def _inline_tag(tag: str, body: str) -> str:
    if tag in ("inheritDoc", "docRoot"):
        return ""
    if tag in ("code", "value") and "\n" in body:
        return body.strip("\n")  # a block's code (``<pre>{@code …}</pre>``) stays as written
    body = body.strip()
    if tag in ("code", "value"):
        return _code_span(body) if body else ""
    if tag in ("link", "linkplain"):
        target, label = _link_parts(body)
        if label.strip():
            return label.strip()
        target = target.lstrip("#").replace("#", ".")
        return _code_span(target) if target else ""
    return body  # {@literal x}, {@index word}, {@summary …}


def _link_parts(body: str) -> tuple[str, str]:
    """A link's target and label: ``Type#m(A, B) the label``; the target's spaces in parentheses
    are its own."""
    depth = 0
    for i, char in enumerate(body):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char in " \t\n" and depth <= 0:
            return body[:i], body[i + 1 :]
    return body, ""


def _code_span(code: str) -> str:
    return code_span(" ".join(code.split()))


_PARAGRAPH_TAGS = {"p", "para", "br", "div", "summary", "remarks", "dl", "table", "blockquote",
                   "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "tr"}
_CODE_TAGS = {"code", "tt", "c", "var", "kbd", "samp"}
_XML_DOC_TAGS = {"param", "typeparam", "exception", "returns", "value", "see", "seealso", "paramref"}
#: the tags read as HTML; any other ``<T>`` is text (``List<T>`` in a sentence)
_KNOWN_TAGS = _PARAGRAPH_TAGS | _CODE_TAGS | _XML_DOC_TAGS | {
    "pre", "li", "dt", "dd", "td", "th", "item", "b", "i", "em", "strong", "u", "a", "span", "small", "sup",
    "sub", "font", "img", "hr", "list", "term", "description", "example", "thead", "tbody", "caption", "center"}


def _html_to_lines(text: str) -> list[str]:
    """The comment's HTML (and C#'s XML doc tags) as Markdown lines: paragraphs, items, fenced
    ``<pre>`` blocks and code spans; the other tags left out, entities decoded."""
    out: list[str] = [""]
    pre: list[str] | None = None
    i = 0
    for match in _TAG.finditer(text):
        closing, tag, attributes = match.group(1) == "/", match.group(2).lower(), match.group(3)
        if tag not in _KNOWN_TAGS:
            continue  # text, taken with the piece before the next tag
        piece = text[i : match.start()]
        i = match.end()
        if pre is not None:
            if tag == "pre" and closing:
                out += _fenced_pre("".join(pre) + piece)
                pre = None
            else:
                pre.append(piece + ("" if tag in _CODE_TAGS else match.group(0)))
            continue
        out[-1] += piece
        if tag == "pre" and not closing:
            pre = []
        elif tag in _PARAGRAPH_TAGS:
            out += ["", ""] if tag != "br" else [""]
        elif tag in ("li", "dt", "item"):
            if not closing:
                out += ["", "- "]
        elif tag == "dd":
            out[-1] += ": " if not closing else ""
        elif tag in ("td", "th"):
            out[-1] += " | " if not closing and not out[-1].endswith("| ") and out[-1].strip() else ""
        elif tag in _CODE_TAGS:
            out[-1] += "`"
        elif tag in _XML_DOC_TAGS:
            out[-1] += _xml_doc_tag(tag, closing, attributes)
    rest = text[i:]
    if pre is not None:
        out += _fenced_pre("".join(pre) + rest)
    else:
        out[-1] += rest
    lines: list[str] = []
    for chunk in out:
        for line in chunk.split("\n"):
            lines.append(html.unescape(line) if not line.startswith(("```", "~~~")) else line)
    return _squeezed(lines)


def _xml_doc_tag(tag: str, closing: bool, attributes: str) -> str:
    """C#'s XML documentation tags: ``<param name="x">`` as ``- Parameter `x`: ``, ``<returns>``
    as ``Returns: ``, ``<see cref="T"/>`` as ``T`` in a code span."""
    named = _ATTRIBUTE.search(attributes)
    name = named.group(1).split(":")[-1] if named else ""
    if closing:
        return ""
    if tag in ("param", "typeparam"):
        return f"\n- Parameter {_code_span(name)}: " if name else ""
    if tag == "exception":
        return f"\n- Throws {_code_span(name)}: " if name else "\n- Throws: "
    if tag in ("returns", "value"):
        return "\n- Returns: " if tag == "returns" else "\n- Value: "
    return _code_span(name) if name else ""


def _fenced_pre(code: str) -> list[str]:
    code = html.unescape(code).strip("\n")
    if not code.strip():
        return [""]
    return ["", *fenced_block(_dedent(["", *code.split("\n")])[1:], "")]


_LABELS = {"return": "Returns", "returns": "Returns", "throws": "Throws", "exception": "Throws",
           "throw": "Throws", "since": "Since", "deprecated": "Deprecated", "see": "See", "author": "Author",
           "version": "Version", "brief": "", "details": "", "note": "Note", "warning": "Warning",
           "default": "Default", "defaultvalue": "Default", "sa": "See", "retval": "Returns",
           "pre": "Precondition", "post": "Postcondition",
           "apinote": "API note", "implnote": "Implementation note", "implspec": "Implementation requirements"}
_NAMED = {"param": "Parameter", "tparam": "Type parameter", "property": "Property", "constructor": "Constructor",
          "throws": "Throws", "exception": "Throws", "throw": "Throws"}


#: JSDoc's and TSDoc's tags that only classify (``@private``, ``@static``): their lines are left out
_SCRIPT_MARKERS = frozenset({"private", "public", "protected", "package", "ignore", "internal", "static",
                             "override", "access", "memberof", "module", "function", "func", "method",
                             "name", "instance", "readonly", "abstract", "async", "constant", "const",
                             "kind", "interface", "class", "augments", "extends", "implements", "type",
                             "typedef", "callback", "inner", "global", "export", "exports", "alias",
                             "lends", "namespace", "enum", "hideconstructor", "generator", "license"})


def _block_tags(lines: list[str], language: str = "", headings_below: int = 0) -> list[str]:
    """Javadoc's, Doxygen's and JSDoc's block tags (``@param x …``, ``\\return …``, ``@param
    {Type} [x=1] - …``) as labelled items, a tag's description continuing on the lines after it
    joined to it; in a script, an ``@example``'s lines a fenced block and the tags that only
    classify (``@private``) left out."""
    script = language in SCRIPT_LANGUAGES
    out: list[str] = []
    fenced = False
    tagged = False  # the line before belongs to a tag's description
    example: list[str] | None = None  # an @example's code lines, until the next tag
    for line in [*lines, None]:
        match = _BLOCK_TAG.match(line) if line is not None and not fenced else None
        tag = match.group(1).lower() if match else ""
        if example is not None and (line is None or match):
            out += _example_block(example, language)
            example = None
        if line is None:
            break
        if example is not None:
            example.append(line)
            continue
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            out.append(line)
            tagged = False
            continue
        if fenced:
            out.append(line)
            continue
        if match and script and tag == "example":
            example = [match.group(2)] if match.group(2).strip() else []
            tagged = False
            continue
        if match and script and tag in _SCRIPT_MARKERS:
            out.append("")
            tagged = True  # a description after it goes with it: left out
            continue
        if match and (tag in _LABELS or tag in _NAMED or tag.startswith("param")):
            if out and out[-1].strip() and not out[-1].startswith("- "):
                out.append("")  # the tags are a list after the description
            out.append(_labelled(tag, match.group(2).strip()))
            tagged = True
            continue
        if tagged and line.strip():
            if out[-1]:
                out[-1] = f"{out[-1]} {line.strip()}".rstrip()
            continue
        tagged = False
        heading = _HEADING.match(line) if headings_below else None
        if heading:
            level = min(len(heading.group(1)) + headings_below, 6)
            out += ["", f"{'#' * level} {_without_closing_hashes(heading.group(2).strip())}", ""]
            continue
        out.append(escape_markdown_line(line) if not line.startswith("- ") else line)
    return [line.rstrip() for line in _squeezed(out)]


def _without_closing_hashes(title: str) -> str:
    """A heading's text without its closing ``#`` run (``Panics ##``), not ``C#``'s."""
    bare = title.rstrip("#")
    return bare.rstrip() if bare != title and bare.endswith((" ", "\t")) else title


def _example_block(lines: list[str], language: str) -> list[str]:
    """An ``@example``'s lines: already fenced ones as they are, others fenced in ``language``;
    a ``<caption>`` its title."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    if not lines:
        return []
    title = "Example:"
    caption = re.match(rf"\s*{_CAPTION_MARK}(.*?){_CAPTION_MARK}\s*", lines[0])
    if caption:
        title = f"Example: {caption.group(1).strip()}"
        rest = lines[0][caption.end():]
        lines = [rest, *lines[1:]] if rest.strip() else lines[1:]
    if lines and lines[0].lstrip().startswith(("```", "~~~")):
        return ["", title, "", *lines, ""]
    return ["", title, "", *fenced_block(lines, language), ""]


def _labelled(tag: str, rest: str) -> str:
    if tag.startswith("param") and tag not in _NAMED:  # Doxygen's \param[in]
        tag = "param"
    kind, rest = _type_expression(rest)  # JSDoc's ``@param {string} x``, ``@returns {Date}``
    if tag in _NAMED:
        rest = re.sub(r"^\[[a-z, ]{1,12}\][ \t]*", "", rest)  # Doxygen's direction, \param[in]
        name, default, description = _parameter(rest)
        label = _NAMED[tag]
        if not name:
            return f"- {label} {_code_span(kind)}: {description}".rstrip(": ") if kind else f"- {label}"
        notes = ", ".join(part for part in (kind and _code_span(kind), default and f"default {_code_span(default)}")
                          if part)
        if kind and tag in ("throws", "exception", "throw"):  # ``@throws {RangeError} when …``
            return f"- {label} {_code_span(kind)}: {rest}".rstrip(": ")
        if notes:
            return f"- {label} {_code_span(name)} ({notes}): {description}".rstrip(": ")
        return f"- {label} {_code_span(name)}: {description}".rstrip(": ")
    label = _LABELS[tag]
    if kind and label:
        label = f"{label} {_code_span(kind)}"
    rest = re.sub(r"^-[ \t]+", "", rest)
    return f"- {label}: {rest}".rstrip(": ") if label else rest


def _type_expression(rest: str) -> tuple[str, str]:
    """A JSDoc type in braces at the start of ``rest`` (``{Object<string, number>}``) and what
    follows it; ``("", rest)`` when there is none."""
    if not rest.startswith("{") or rest.startswith("{@"):
        return "", rest
    end = _closing_braces(rest[:400]).get(0)
    return (rest[1:end].strip(), rest[end + 1 :].strip()) if end is not None else ("", rest)


def _parameter(rest: str) -> tuple[str, str, str]:
    """A tag's name, its default and its description: ``x desc``, or JSDoc's ``[x=1] - desc``."""
    if rest.startswith("["):
        end = rest.find("]")
        if end > 1:
            name, _, default = rest[1:end].partition("=")
            return name.strip(), default.strip(), re.sub(r"^-[ \t]+", "", rest[end + 1 :].strip())
    name, _, description = rest.partition(" ")
    return name, "", re.sub(r"^-[ \t]+", "", description.strip())


def _squeezed(lines: list[str]) -> list[str]:
    """Lines with their trailing spaces removed and no more than one blank line in a row."""
    out: list[str] = []
    for line in lines:
        line = line.rstrip()
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line if line.strip() else "")
    return out


__all__ = ["SCRIPT_LANGUAGES", "prose_lines"]
