"""Source files of C-family languages with documentation comments, written out as Markdown with
the comments as prose.

A library documented in Javadoc (or KDoc, Doxygen, PHPDoc, JSDoc, TSDoc, C#'s and Rust's ``///``)
keeps its reference in its source: read as it is, a passage was a run of `` * ``-prefixed lines
with ``{@code …}`` and ``<p>`` in them, and "This class is conditionally thread-safe" was no
sentence the answerer could quote. The text loader hands such a file here (``.java``, ``.kt``,
``.scala``, ``.c``, ``.h``, ``.cpp``, ``.cs``, ``.php``, ``.swift``, ``.rs``, ``.go``, ``.js``,
``.ts``, ``.proto``, …), which writes it out in the order of its lines (Go and Protocol Buffers
mark no doc comment: in Go the ``//`` lines right above a top-level ``func``, ``type``, ``var``,
``const`` or ``package`` are one, their indented lines code and a ``[Name]`` link its name; in a
``.proto`` file the ``//`` lines right above any line of code, a message, a field, an enum value
or an RPC, without Google's API linter's ``(-- … --)`` notes):

- a ``# name`` title (the file's name);
- each documented declaration a heading (``## public final class JsonCodec``, ``### JsonCodec.read(
  Reader in)``: the declaration up to its first ``{`` or ``;`` outside parentheses, with
  annotations left out, a member named with its type's name, the level one deeper for each
  enclosing brace), its comment as prose under it:

  - the comment's markers (``/**``, ``*/``, a line's leading ``*``, ``///``, ``//!``) removed;
  - inline tags as text: ``{@code x}`` and ``{@link Type#member label}`` as a code span or the
    label, ``{@literal x}`` as ``x``, ``{@inheritDoc}`` dropped;
  - HTML (``<p>``, ``<ul><li>``, ``<pre>``, ``<code>``, entities) as paragraphs, ``- `` items,
    a fenced block and code spans; C#'s XML tags (``<summary>``, ``<param name="x">``) likewise;
  - block tags as a list of labelled items: ``@param x …`` as ``- Parameter `x`: …``,
    ``@return …`` as ``- Returns: …``, ``@throws E …`` as ``- Throws `E`: …``, ``@since 2.1`` as
    ``- Since: 2.1`` (Doxygen's ``\\param`` and ``\\return`` too); JSDoc's types and defaults
    with the name, ``@param {boolean} [opts.keep=false] - …`` as ``- Parameter `opts.keep`
    (`boolean`, default `false`): …``; in a script, an ``@example`` a fenced block and the tags
    that only classify (``@private``, ``@static``) left out;

- the code between them, other comments included, fenced with the language, so nothing of the
  file is lost.

One pass over the characters finds the comments, skipping strings and other comments (in a script
also template literals and regular expressions), and tracks the braces; nothing is compiled. A
file over 2 MB, or one with no documentation comment, is read as it is.
"""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass

from ragkit.loaders.base import code_fence, code_span, escape_markdown_line, fenced_block

MAX_BYTES = 2 * 1024 * 1024  # a larger file (generated tables) is read as it is
#: suffixes this writer reads, and the language their code blocks are fenced with
LANGUAGES = {
    ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".groovy": "groovy",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".cs": "csharp", ".php": "php", ".swift": "swift", ".rs": "rust", ".dart": "dart", ".go": "go",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".proto": "protobuf",
}
#: languages whose ``'…'`` is a string, ``\`…\``` a template literal and ``/…/`` a regular expression
_SCRIPT_LANGUAGES = frozenset({"javascript", "jsx", "typescript", "tsx"})
#: where a ``/`` opens a regular expression in a script rather than divides: after one of these
#: characters (or at the start) ...
_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^")
#: ... or after one of these words
_REGEX_AFTER_WORDS = frozenset({"return", "typeof", "instanceof", "in", "of", "new", "delete", "void",
                                "throw", "case", "do", "else", "yield", "await"})
#: a regular expression literal, bounded so that a line of slashes is passed over in linear time
_REGEX_LITERAL = re.compile(r"/(?![*/])(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.){0,200}\]){1,400}/")
_WORD_BEFORE = re.compile(r"([A-Za-z_$][\w$]*)\s*$")
#: what a .proto comment right above documents: a line of code (a comment above a blank line is
#: detached, a licence or a section's note)
_PROTO_DECLARATION = re.compile(r"[ \t]*(?![ \t]|//|/\*|\}|\n|$)")
#: a Protocol Buffers type: its ``//`` comments are its fields' and values' documentation
_PROTO_TYPE_HEAD = re.compile(r"\b(?:message|enum|service|oneof|extend)\s+([A-Za-z_][\w.]{0,100})")
#: Google's API linter's notes in a .proto comment, ``(-- api-linter: core::0140=disabled --)``
_PROTO_NOTE = re.compile(r"\(--.{0,2000}?--\)", re.DOTALL)
_MAX_TEMPLATE_DEPTH = 16  # template literals nested in ``${…}`` deeper than this end the scan
#: JSDoc's ``@example <caption>Title</caption>``, and the mark that keeps the title from the HTML reader
_CAPTION = re.compile(r"(@example)[ \t]*<caption>([^<\n]{0,300})</caption>")
_CAPTION_MARK = "\x00"
#: a Go declaration a ``//`` comment right above it documents (Go has no marker of its own)
_GO_DECLARATION = re.compile(r"[ \t]*(?:func|type|var|const|package)\b")
_GO_ITEM = re.compile(r"[ \t]+(?:[-*+•]|\d{1,3}[.)])[ \t]")  # an indented list item, not code
#: a Go doc link, ``[Equal]``, ``[*Options]``, ``[cmp.Diff]``, ``[example.com/x/cmpopts.Equate]``: the
#: name it shows (not ``[text](url)`` or a link definition ``[text]: url``)
_GO_LINK = re.compile(r"\[(\*?[A-Za-z_][\w./-]{0,200})\](?![(:])")
_SIGNATURE_CHARS = 160
_DECLARATION_CHARS = 600  # how far after a comment its declaration is looked for
_MAX_DEPTH = 64  # braces deeper than this are still counted, but no longer name an owner

_TYPE_HEAD = re.compile(
    r"\b(?:class|interface|enum|record|struct|union|trait|object|impl|namespace|protocol|extension)"
    r"\s+(?:[\w:]+\s+for\s+)?([A-Za-z_]\w{0,100})")
_ANNOTATION = re.compile(r"(?:@[\w.]{1,200}(?:\([^()\n]{0,400}\))?|#!?\[[^\]\n]{0,400}\]|\[[\w.(), \"=]{1,400}\])\s*")
_MEMBER_NAME = re.compile(r"([A-Za-z_]\w{0,100})\s*(?:<[^<>()]{0,200}>\s*)?\(")
#: a field declared name first, its type after a colon: TypeScript's ``pageSize?: number``, Kotlin's
#: ``val depth: Int``, Rust's ``pub depth: u32`` (not C++'s ``std::size_t``)
_TYPED_NAME = re.compile(r"(?:[a-z]{1,12}\s+){0,4}([A-Za-z_$][\w$]{0,100})[?!]?\s*:(?!:)")
_FIELD_NAME = re.compile(r"([A-Za-z_]\w{0,100})\s*(?:=|$)")
_LEADING_STAR = re.compile(r"^[ \t]*\*(?![*/])[ \t]?")
_INLINE_TAG = re.compile(r"\{@(\w{1,30})[ \t\n]*")
_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]{0,30})((?:[^<>\"']|\"[^\"]{0,400}\"|'[^']{0,400}'){0,400})>")
_ATTRIBUTE = re.compile(r"\b(?:name|cref|langword|href)\s*=\s*[\"']([^\"']{0,300})[\"']")
_BLOCK_TAG = re.compile(r"^[ \t]*[@\\](\w{1,30})\b[ \t]*(.*)$")
_SPACES = re.compile(r"[ \t]+")


@dataclass(frozen=True)
class _Comment:
    start: int  # offset of its ``/**`` or first ``///``
    end: int  # offset just past it
    text: str  # its raw text, markers included
    depth: int  # braces open where it starts
    owner: str  # the name of the type it is declared in ("" at the top)


def doc_comments_to_markdown(source: str, name: str, suffix: str) -> str | None:
    """``source`` as Markdown (see the module docstring), or None to read it as it is."""
    language = LANGUAGES.get(suffix.lower())
    if language is None or len(source) > MAX_BYTES:
        return None
    comments = [c for c in _scan(source, language) if _prose_lines(c.text, language)]
    if not comments:
        return None
    out = [f"# {name}", ""]
    cursor = 0
    for comment in comments:
        out += fenced_block(source[cursor:comment.start].split("\n"), language)
        prose = _prose_lines(comment.text, language)
        inner = comment.text.startswith("//!") or language == "rust" and comment.text.startswith("/*!")
        declaration = "" if inner else _declaration(source[comment.end : comment.end + _DECLARATION_CHARS])
        if declaration:  # (Rust's ``//!`` documents the module it is in, not what follows)
            out += [f"{'#' * min(2 + comment.depth, 6)} {_heading(declaration, comment.owner)}", ""]
        out += [*prose, ""]
        cursor = comment.end
    out += fenced_block(source[cursor:].split("\n"), language)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def _scan(source: str, language: str = "") -> list[_Comment]:
    """The documentation comments of ``source``, in one pass that skips strings, character
    literals and other comments and counts braces. In Go, a run of ``//`` lines right above a
    top-level declaration (``func``, ``type``, ``var``, ``const``, ``package``) is one; in
    JavaScript and TypeScript, template literals and regular expressions are skipped too."""
    go = language == "go"
    proto = language == "protobuf"
    script = language in _SCRIPT_LANGUAGES
    type_head = _PROTO_TYPE_HEAD if proto else _TYPE_HEAD
    found: list[_Comment] = []
    owners: list[str] = []  # the type each open brace belongs to ("" for a block or a method)
    head_start = 0  # where the statement or declaration before the next brace starts
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "/" and source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            if source.startswith(("///", "//!"), i) and not source.startswith("////", i):
                end = _line_comment_run(source, i)
                found.append(_Comment(i, end, source[i:end], len(owners), _owner(owners)))
            elif go and not owners and _line_start(source, i):
                end = _line_comment_run(source, i, "//")
                if _GO_DECLARATION.match(source, end + 1):
                    found.append(_Comment(i, end, source[i:end], 0, ""))
            elif proto and _line_start(source, i):
                end = _line_comment_run(source, i, "//")
                if _PROTO_DECLARATION.match(source, end + 1):
                    found.append(_Comment(i, end, source[i:end], len(owners), _owner(owners)))
            i = end
        elif c == "/" and source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            if source.startswith(("/**", "/*!"), i) and source[i + 3 : i + 4] not in ("*", "/"):
                found.append(_Comment(i, end, source[i:end], len(owners), _owner(owners)))
            i = end
            head_start = i
        elif c == '"' or c == "'" and script:
            i = _string_end(source, i, c)
        elif c == "`" and go:  # a raw string
            end = source.find("`", i + 1)
            i = n if end < 0 else end + 1
        elif c == "`" and script:
            i = _template_end(source, i)
        elif c == "/" and script and _opens_regex(source, i):
            literal = _REGEX_LITERAL.match(source, i)
            i = literal.end() if literal else i + 1
        elif c == "'":
            i = _char_end(source, i)
        elif c == "{":
            head = type_head.search(source, head_start, i) if i - head_start < 2000 else None
            owners.append(head.group(1) if head and len(owners) < _MAX_DEPTH else "")
            i += 1
            head_start = i
        elif c == "}":
            if owners:
                owners.pop()
            i += 1
            head_start = i
        elif c == ";":
            i += 1
            head_start = i
        else:
            i += 1
    return found


def _owner(owners: list[str]) -> str:
    return ".".join(o for o in owners if o)


def _line_start(source: str, i: int) -> bool:
    """Whether only spaces stand before ``i`` on its line."""
    start = source.rfind("\n", 0, i) + 1
    return not source[start:i].strip(" \t")


def _line_comment_run(source: str, i: int, marker: str = "") -> int:
    """The end of the run of ``///`` (or ``//!``, or ``marker``) lines starting at ``i``."""
    marker = marker or source[i : i + 3]
    n = len(source)
    while True:
        end = source.find("\n", i)
        if end < 0:
            return n
        j = end + 1
        while j < n and source[j] in " \t":
            j += 1
        if not source.startswith(marker, j) or source.startswith("////", j):
            return end
        i = j


def _string_end(source: str, i: int, quote: str = '"') -> int:
    """The offset past the string literal opening at ``i`` (a text block ``\"\"\"…\"\"\"`` too); an
    unterminated one ends at its line's end, so one stray quote cannot swallow the file."""
    if quote == '"' and source.startswith('"""', i):
        end = source.find('"""', i + 3)
        return len(source) if end < 0 else end + 3
    j = i + 1
    n = len(source)
    while j < n:
        c = source[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":
            return j
        j += 1
    return n


def _template_end(source: str, i: int, depth: int = 0) -> int:
    """The offset past the template literal opening at ``i`` (a backquoted ``Hello ${name}``), its
    ``${…}`` parts skipped with their braces, strings and templates; an unterminated one, or one
    nested too deep, runs to the end of the file (its text is then code, never a comment)."""
    n = len(source)
    if depth > _MAX_TEMPLATE_DEPTH:
        return n
    j = i + 1
    while j < n:
        c = source[j]
        if c == "\\":
            j += 2
        elif c == "`":
            return j + 1
        elif c == "$" and source.startswith("{", j + 1):
            level, j = 1, j + 2
            while j < n and level:
                c = source[j]
                if c in "\"'":
                    j = _string_end(source, j, c)
                    continue
                if c == "`":
                    j = _template_end(source, j, depth + 1)
                    continue
                level += {"{": 1, "}": -1}.get(c, 0)
                j += 1
        else:
            j += 1
    return n


def _opens_regex(source: str, i: int) -> bool:
    """Whether the ``/`` at ``i`` of a script opens a regular expression (not a division): it
    follows an operator, an opening bracket or a keyword such as ``return``."""
    if source.startswith(("//", "/*"), i):
        return False
    j = i - 1
    while j >= 0 and source[j] in " \t\r\n":
        j -= 1
    if j < 0 or source[j] in _REGEX_AFTER:
        return True
    word = _WORD_BEFORE.search(source, max(0, j - 11), j + 1)
    return bool(word) and word.group(1) in _REGEX_AFTER_WORDS


def _char_end(source: str, i: int) -> int:
    """The offset past a character literal at ``i`` (``'a'``, ``'\\n'``, ``'\\u00e9'``); a quote
    that opens none (Rust's lifetime ``'a``) is passed over alone."""
    if source.startswith("\\", i + 1):
        end = source.find("'", i + 2, i + 12)
        return i + 1 if end < 0 else end + 1
    return i + 3 if source[i + 2 : i + 3] == "'" else i + 1


def _declaration(after: str) -> str:
    """The declaration a comment documents: the code after it up to its ``{`` or ``;`` (or the
    line's end for a macro), its annotations left out, on one line."""
    lines = []
    for line in after.split("\n"):
        code = line.split("//", 1)[0].strip()
        if not code:
            if lines:
                break
            continue
        if code.startswith(("/*", "*")):
            break
        lines.append(code)
        if _body_start(" ".join(lines)) >= 0 or code.startswith("#") and not code.startswith("#["):
            break
    text = " ".join(lines)
    while match := _ANNOTATION.match(text):
        if not match.end():
            break
        text = text[match.end():]
    body = _body_start(text)  # else unbalanced (a declaration cut short): its first brace
    text = text[:body] if body >= 0 else re.split(r"[{;]", text, maxsplit=1)[0]
    text = _SPACES.sub(" ", text).strip().removesuffix(" where").strip()
    return text.removesuffix(",").rstrip()  # an enum's constant, ``PIER_ONE,``


def _body_start(code: str) -> int:
    """Where the declaration in ``code`` ends: its first ``{`` or ``;`` outside parentheses (a
    parameter's ``{ keepLocalTime = false } = {}`` is the declaration's), or -1."""
    depth = 0
    for i, char in enumerate(code):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char in "{;" and depth == 0:
            return i
    return -1


def _heading(declaration: str, owner: str) -> str:
    """The declaration as a heading, a member named with its type (``JsonCodec.read(Reader in)``)."""
    if owner and not _TYPE_HEAD.search(declaration):
        member = (_MEMBER_NAME.search(declaration) or _TYPED_NAME.match(declaration)
                  or _FIELD_NAME.search(declaration.split("=", 1)[0].strip()))
        if member and member.group(1) != owner.rsplit(".", 1)[-1]:
            declaration = f"{declaration[: member.start(1)]}{owner}.{declaration[member.start(1):]}"
    if len(declaration) > _SIGNATURE_CHARS:
        declaration = declaration[: _SIGNATURE_CHARS - 1] + "…"
    return declaration


# ---------------------------------------------------------------- the comment's text
def _prose_lines(raw: str, language: str = "") -> list[str]:
    """A documentation comment's text as Markdown lines (see the module docstring); empty when
    it says nothing."""
    text = _unmarked(raw, language)
    if language in _SCRIPT_LANGUAGES:  # an example's caption, before the HTML is read
        text = _CAPTION.sub(lambda m: f"{m.group(1)} {_CAPTION_MARK}{m.group(2).strip()}{_CAPTION_MARK}", text)
    text = _inline_tags(text)
    lines = _html_to_lines(text)
    lines = _block_tags(lines, language)
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
            block = textwrap.dedent("\n".join(code)).split("\n")
            fence = code_fence("\n".join(block))
            out += ["", fence, *block, fence, ""]
            code = []
        if line is not None:
            out.append(_GO_LINK.sub(r"\1", line.strip() if _GO_ITEM.match(line) else line))
    return "\n".join(out)


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(line) - len(line.lstrip(" ")) for line in lines[1:] if line.strip()]
    cut = min(indents, default=0)
    return [lines[0].strip(), *(line[cut:].rstrip() for line in lines[1:])] if lines else []


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
    lines = _dedent(["", *code.split("\n")])[1:]
    fence = code_fence("\n".join(lines))
    return ["", fence, *lines, fence, ""]


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


def _block_tags(lines: list[str], language: str = "") -> list[str]:
    """Javadoc's, Doxygen's and JSDoc's block tags (``@param x …``, ``\\return …``, ``@param
    {Type} [x=1] - …``) as labelled items, a tag's description continuing on the lines after it
    joined to it; in a script, an ``@example``'s lines a fenced block and the tags that only
    classify (``@private``) left out."""
    script = language in _SCRIPT_LANGUAGES
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
        out.append(escape_markdown_line(line) if not line.startswith("- ") else line)
    return [line.rstrip() for line in _squeezed(out)]


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


__all__ = ["LANGUAGES", "doc_comments_to_markdown"]
