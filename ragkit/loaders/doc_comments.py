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

import re
from dataclasses import dataclass

from ragkit.loaders.base import fenced_block
from ragkit.loaders.doc_comment_text import SCRIPT_LANGUAGES, prose_lines

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
_MAX_TEMPLATE_DEPTH = 16  # template literals nested in ``${…}`` deeper than this end the scan
#: a Go declaration a ``//`` comment right above it documents (Go has no marker of its own)
_GO_DECLARATION = re.compile(r"[ \t]*(?:func|type|var|const|package)\b")
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
    comments = [c for c in _scan(source, language) if prose_lines(c.text, language)]
    if not comments:
        return None
    out = [f"# {name}", ""]
    cursor = 0
    for comment in comments:
        out += fenced_block(source[cursor:comment.start].split("\n"), language)
        prose = prose_lines(comment.text, language)
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
    script = language in SCRIPT_LANGUAGES
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


__all__ = ["LANGUAGES", "doc_comments_to_markdown"]
