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

from ragkit.loaders.base import code_span, fenced_block
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
#: what a Go ``//`` comment documents inside a struct or an interface, or in a ``const (`` group: an
#: indented name (a field, a method, a constant)
_GO_MEMBER = re.compile(r"\n?[ \t]+[A-Za-z_]")
_GO_NAME = re.compile(r"([A-Za-z_]\w{0,100})")
#: a line opening a Go group of declarations (``const (``, its parenthesis the group), or closing one
_GO_GROUP = re.compile(r"^(?:(?:const|var|type)[ \t]*(\()[ \t]*$|\))", re.MULTILINE)
#: a Go type with members: ``type Config struct``, ``type FSM interface``, a field's ``Inner struct``
_GO_TYPE_HEAD = re.compile(
    r"(?:\btype[ \t]+|^[ \t]+)([A-Za-z_]\w{0,100})(?:\[[^\[\]{}\n]{0,200}\])?[ \t]+(?:struct|interface)[ \t]*$",
    re.MULTILINE)
_SIGNATURE_CHARS = 160
_DECLARATION_CHARS = 600  # how far after a comment its declaration is looked for
_MAX_DEPTH = 64  # braces deeper than this are still counted, but no longer name an owner

_TYPE_HEAD = re.compile(
    r"\b(?:class|interface|enum|record|struct|union|trait|object|impl|namespace|protocol|extension)"
    r"(?:<[^<>{};]{0,200}>)?\s+(?:[\w:]+(?:<[^{};]{0,200}?>)?\s+for\s+)?([A-Za-z_]\w{0,100})")
_ANNOTATION = re.compile(r"(?:@[\w.]{1,200}(?:\([^()\n]{0,400}\))?|#!?\[[^\]\n]{0,400}\]|\[[\w.(), \"=]{1,400}\])\s*")
_MEMBER_NAME = re.compile(r"(?<!\w)(?!pub\()([A-Za-z_]\w{0,100})\s*(?:<[^<>()]{0,200}>\s*)?\(")
#: a field declared name first, its type after a colon: TypeScript's ``pageSize?: number``, Kotlin's
#: ``val depth: Int``, Rust's ``pub depth: u32`` (not C++'s ``std::size_t``)
_TYPED_NAME = re.compile(r"(?:[a-z]{1,12}\s+){0,4}([A-Za-z_$][\w$]{0,100})[?!]?\s*:(?!:)")
_FIELD_NAME = re.compile(r"([A-Za-z_]\w{0,100})\s*(?:=|$)")
_SPACES = re.compile(r"[ \t]+")
_BRACKETS = re.compile(r"[()\[\]{;]")


@dataclass(frozen=True)
class _Comment:
    start: int  # offset of its ``/**`` or first ``///``
    end: int  # offset just past it
    text: str  # its raw text, markers included
    depth: int  # braces open where it starts
    owner: str  # the name of the type it is declared in ("" at the top)
    #: the named types it is declared in: (depth, where the type's head starts, its brace)
    blocks: tuple[tuple[int, int, int], ...] = ()


def doc_comments_to_markdown(source: str, name: str, suffix: str) -> str | None:
    """``source`` as Markdown (see the module docstring), or None to read it as it is."""
    language = LANGUAGES.get(suffix.lower())
    if language is None or len(source) > MAX_BYTES:
        return None
    out = [f"# {name}", ""]
    cursor = 0
    headed: dict[int, int] = {}  # the brace of the block each heading level was last written for
    for comment in _scan(source, language):
        declaration, brace = _documented(source, comment, language)
        level = min(2 + comment.depth, 6) if declaration else 1 + comment.depth
        prose = prose_lines(comment.text, language, headings_below=level)
        if not prose:  # a comment that says nothing stays in the code
            continue
        for depth, head, opens in comment.blocks:  # a type with no comment of its own still heads
            if headed.get(depth) != opens and (title := _group_title(source[head : opens + 1])):
                line = source.rfind("\n", max(cursor, head - _SIGNATURE_CHARS), head) + 1 or head
                if line > cursor:  # the code before the block, then the block's head under its heading
                    out += fenced_block(source[cursor:line].split("\n"), language)
                    cursor = line
                out += [f"{'#' * min(2 + depth, 6)} {title}", ""]
                headed = {d: b for d, b in headed.items() if d < depth} | {depth: opens}
        out += fenced_block(source[cursor:comment.start].split("\n"), language)
        if declaration and comment.depth == 1 and not comment.owner and language == "go" \
                and not any(line.startswith(("```", "~~~")) for line in prose):
            # one of a ``const (`` group's names: an item of the group's section, its line with it
            out += [f"- {code_span(declaration)}: {' '.join(line.strip() for line in prose if line.strip())}", ""]
            end = source.find("\n", comment.end + 1)
            cursor = len(source) if end < 0 else end
            continue
        if declaration:  # (Rust's ``//!`` documents the module it is in, not what follows)
            out += [f"{'#' * level} {_heading(declaration, comment.owner, language)}", ""]
            headed = {d: b for d, b in headed.items() if d < comment.depth} | {comment.depth: brace}
        out += [*prose, ""]
        cursor = comment.end
    if cursor == 0:
        return None
    out += fenced_block(source[cursor:].split("\n"), language)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def _documented(source: str, comment: _Comment, language: str) -> tuple[str, int]:
    """The declaration ``comment`` documents ("" for a module's own comment) and the brace of
    the block it opens (-1 for none)."""
    if comment.text.startswith("//!") or language == "rust" and comment.text.startswith("/*!"):
        return "", -1
    after = source[comment.end : comment.end + _DECLARATION_CHARS]
    if language == "go" and (group := _GO_GROUP.match(after, 1)) and group.group(1):
        return _group_title(after[group.start() : group.end(1)]), comment.end + group.start(1)
    end = _body_start(after)
    brace = comment.end + end if after[end : end + 1] == "{" else -1
    if language == "go" and comment.depth:
        after = after[1:].split("\n", 1)[0]  # a field, a method of an interface, a group's name
    return _declaration(after), brace


def _group_title(head: str) -> str:
    """A block's heading: its declaration, a Go group's ``const (`` as ``const``."""
    return _declaration(head).removesuffix("(").rstrip()


def _scan(source: str, language: str = "") -> list[_Comment]:
    """The documentation comments of ``source``, in one pass that skips strings, character
    literals and other comments and counts braces. In Go, a run of ``//`` lines right above a
    top-level declaration (``func``, ``type``, ``var``, ``const``, ``package``) is one; in
    JavaScript and TypeScript, template literals and regular expressions are skipped too."""
    go = language == "go"
    proto = language == "protobuf"
    script = language in SCRIPT_LANGUAGES
    type_head = _PROTO_TYPE_HEAD if proto else _GO_TYPE_HEAD if go else _TYPE_HEAD
    found: list[_Comment] = []
    owners: list[str] = []  # the type each open brace belongs to ("" for a block or a method)
    opened: list[tuple[int, int]] = []  # where each open brace's type head starts, and the brace
    group: tuple[int, int] | None = None  # Go: the open ``const (`` group's start and parenthesis
    looked = 0  # ... as read up to here
    head_start = 0  # where the statement or declaration before the next brace starts
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "/" and source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            if source.startswith(("///", "//!"), i) and not source.startswith("////", i):
                end = _line_comment_run(source, i)
                found.append(_Comment(i, end, source[i:end], len(owners), _owner(owners), _blocks(owners, opened)))
            elif go and _line_start(source, i) and (not owners or owners[-1]):
                end = _line_comment_run(source, i, "//")
                member = _GO_MEMBER.match(source, end + 1)
                if not owners and _GO_DECLARATION.match(source, end + 1) or owners and member:
                    found.append(_Comment(i, end, source[i:end], len(owners), _owner(owners), _blocks(owners, opened)))
                elif not owners and member and source[i - 1 : i] in (" ", "\t"):
                    for mark in _GO_GROUP.finditer(source, looked, i):  # the ``const (`` it is in, if any
                        group = (mark.start(), mark.start(1)) if mark.group(1) else None
                    looked = i
                    if group is not None:  # one of a group's names: a level under the group
                        found.append(_Comment(i, end, source[i:end], 1, "", ((0, *group),)))
            elif proto and _line_start(source, i):
                end = _line_comment_run(source, i, "//")
                if _PROTO_DECLARATION.match(source, end + 1):
                    found.append(_Comment(i, end, source[i:end], len(owners), _owner(owners), _blocks(owners, opened)))
            i = end
        elif c == "/" and source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            if source.startswith(("/**", "/*!"), i) and source[i + 3 : i + 4] not in ("*", "/"):
                found.append(_Comment(i, end, source[i:end], len(owners), _owner(owners), _blocks(owners, opened)))
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
            named = head is not None and len(owners) < _MAX_DEPTH
            owners.append(head.group(1) if named else "")
            opened.append((head.start() if named else i, i))
            i += 1
            head_start = i
        elif c == "}":
            if owners:
                owners.pop()
                opened.pop()
            i += 1
            head_start = i
        elif c == ";":
            i += 1
            head_start = i
        else:
            i += 1
    return found


def _owner(owners: list[str]) -> str:
    return ".".join(o for o in owners[:_MAX_DEPTH] if o)  # (only the first levels are named)


def _blocks(owners: list[str], opened: list[tuple[int, int]]) -> tuple[tuple[int, int, int], ...]:
    """The named types a comment is declared in: each one's depth, head start and brace."""
    return tuple((depth, *opened[depth]) for depth, owner in enumerate(owners[:_MAX_DEPTH]) if owner)


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
    for match in _BRACKETS.finditer(code):
        char = match.group()
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif depth == 0:
            return match.start()
    return -1


def _heading(declaration: str, owner: str, language: str = "") -> str:
    """The declaration as a heading, a member named with its type (``JsonCodec.read(Reader in)``;
    in Go the name comes first, ``Config.SnapshotThreshold uint64``)."""
    if owner and not _TYPE_HEAD.search(declaration):
        member = (_GO_NAME.match(declaration) if language == "go" else None) or (
            _MEMBER_NAME.search(declaration) or _TYPED_NAME.match(declaration)
            or _FIELD_NAME.search(declaration.split("=", 1)[0].strip()))
        if member and member.group(1) != owner.rsplit(".", 1)[-1]:
            declaration = f"{declaration[: member.start(1)]}{owner}.{declaration[member.start(1):]}"
    if len(declaration) > _SIGNATURE_CHARS:
        declaration = declaration[: _SIGNATURE_CHARS - 1] + "…"
    return declaration


__all__ = ["LANGUAGES", "doc_comments_to_markdown"]
