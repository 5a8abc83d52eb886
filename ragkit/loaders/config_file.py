"""Commented configuration files (``.conf``, ``.ini``, ``.cfg``, ``.cnf``, ``.properties``,
``.toml``, also a ``.conf.sample``), written out as Markdown-structured text.

A sample configuration keeps its documentation in its comments: ``; Set this value to the minimum
desired transfer rate.  Default: 4800`` above ``;minrate=4800``, an inline comment after a setting
(``;pickupexten = *8   ; Configure the pickup extension. (default is *8)``), or comment lines
indented under a setting that go on describing it. Read as it is, an answer quoted the file's
lines with their comment markers and broken where the file wraps (``; just prior to the caller
being bridged with a queue member (set on the``), and could not tell which setting a comment
describes. The text loader hands a file whose lines are mostly comments and settings
(``is_config_file``) here, which writes it out in the order of its lines, one pass:

- ``# name``, the file's name, is the title; a section header (``[general]``, ``[name](!)``,
  ``[[servers]]``) is a ``##`` heading with its brackets (``## [general]``);
- a run of comment lines is a paragraph, each line kept as a line of it without its marker
  (``;``, ``;;``, ``#``, ``##``, ``//``) and the one space after it; a comment line that is only
  the marker ends the paragraph; a decorative line (``;;;;;;``, ``#------``, ``; =====``) goes;
- a banner, one comment line framed by decorative lines above and below, or one line between
  rules of its own (``;; ===== Booking =====``, ``# ---- Logging ----``), is a ``###`` heading;
- a setting, active (``port = 8080``) or commented out (``;minrate=4800``: a marker, then an
  identifier, ``=`` and a short value), is a list item, its text as written in code with its inline
  comment after it: ``- `pickupexten = *8`: Configure the pickup extension. (default is *8)``;
  comment lines indented deeper than the setting (or ``;            ; more``, a second marker
  under an inline comment) go on its item's description, and a value continued on the next lines
  (an indented line that is no setting itself, a TOML array or ``\"\"\"`` string left open, a
  properties line ending in ``\\``) goes on its code; a comment indented as deep as the setting
  (``\\t# who commits`` in a git config) is prose again;
- an inline comment is a ``;`` or ``#`` after whitespace, outside quotes
  (``url=http://x#frag`` is a value);
- two or more lines of a paragraph that each name a value and say what it means
  (``ringall - ring all channels``) are a list of ``- `` items;
- any other line is kept as written, its own paragraph.

Every prose line goes through ``escape_markdown_line``, so a comment reading ``# Tides`` after
its marker is no heading. Nothing else of the file is marked.

Linear in the file: every pattern is anchored or bounded, with no nested unbounded repetition,
and framing, quotes and brackets are read with string methods; any text gives Markdown, never an
exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragkit.loaders.base import code_span, escape_markdown_line, split_inline_comment

#: the suffixes of the files the text loader asks ``is_config_file`` about
CONFIG_SUFFIXES = (".conf", ".ini", ".cfg", ".cnf", ".properties", ".toml")
_SAMPLE = 400  # non-blank lines looked at to tell a configuration file
_COMMENT_SHARE = 0.25  # ... of which at least this share must be comments
_SETTING_SHARE = 0.8  # ... and of the other lines at least this share settings, sections or continuations
_MIN_LINES = 3

#: a comment line: its indentation, its marker and the text after it
_COMMENT = re.compile(r"([ \t]*)(;+|#+|//+)(.*)")
#: Asterisk's directives, which are no comment: "#include extra.conf", "#exec /usr/bin/x"
_DIRECTIVE = re.compile(r"[ \t]*#(?:include|tryinclude|exec)\b")
#: "[general]", "[name](!)", "[name](!,template)", "[[servers]]", then nothing or an inline comment
_SECTION = re.compile(r"[ \t]*(\[\[?[^\[\]\n]{1,200}\]\]?(?:\([^()\n]{0,100}\))?)[ \t]*(?:([;#])(.*))?$")
#: a key: an identifier (letters, digits, "_", ".", "-", not ending in "." or "-"; "extension[]"
#: as PHP writes a list) or a quoted TOML key
_KEY = r"(?:\w(?:[\w.\-]{0,58}\w)?(?:\[[\w.\-]{0,40}\])?|\"[^\"\n]{1,60}\"|'[^'\n]{1,60}')"
#: an active setting: "key = value", "key => value" (Asterisk's dialplan), "key: value" (properties)
_SETTING = re.compile(rf"([ \t]*)({_KEY})[ \t]*(=>|=|:)(.*)")
#: a commented-out one: "=" or "=>", or a colon with no space around it ("log.level:debug"): "Note: the
#: port is 80" is prose
_COMMENTED_SETTING = re.compile(rf"({_KEY})(?:[ \t]*(=>|=)|(:)(?=[^\s/:]))(.*)")
_COMMENTED_WORDS = 3  # a commented-out setting's value has at most this many words outside quotes
_COMMENTED_CHARS = 120
_QUOTED = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")
_ALNUM = re.compile(r"[^\W_]")
#: what frames a banner's title: rules of these characters
_FRAME = "=-*#~_+;/|<> \t"
_RULE_CHARS = 3  # a decorative rule has this many characters or more (";;" ends a paragraph)
_BANNER_WORDS = 8
_BANNER_CHARS = 60
#: YAML's own lines: a key opening a mapping ("server:"), a list item ("- a"), a document's start
_YAML_LINE = re.compile(r"[ \t]*(?:-(?:[ \t]|$)|---[ \t]*$|[\w.\-\"']{1,60}:[ \t]*(?:[#&|>].*)?$)")


@dataclass
class _Line:
    kind: str  # blank, section, setting, value, note (more description), decor, banner, comment, other
    text: str = ""  # a heading's text, a setting's code, a comment's prose, the line as written
    note: str = ""  # a setting's inline comment
    commented: bool = False  # a line of the file's comments (a commented-out setting, a decorative rule)
    colon: bool = False  # an active setting written "key: value"


@dataclass
class _State:
    indent: int = -1  # the indentation of the setting whose lines may follow (-1: none)
    empty: bool = False  # its value is empty ("install_requires =" with the values indented under it)
    depth: int = 0  # its value's open "[" and "{"
    triple: str = ""  # its value's open '\"\"\"' or "'''"
    backslash: bool = False  # its value ends in "\\" (properties)
    active: bool = False  # an active setting, whose value may go on


def _indent(prefix: str) -> int:
    return len(prefix.expandtabs(8))


def _comment_text(text: str) -> str:
    """An inline comment's text without its markers: "; Configure it." -> "Configure it."."""
    return text.lstrip(";#/ \t").strip()


def _opens(value: str, state: _State) -> None:
    """Note what ``value`` leaves open (brackets, a triple-quoted string, a trailing backslash)."""
    for quote in ('"""', "'''"):
        if state.triple in ("", quote) and value.count(quote) % 2:
            state.triple = "" if state.triple else quote
    plain = _QUOTED.sub("", value) if not state.triple else ""
    state.depth = max(0, state.depth + plain.count("[") + plain.count("{") - plain.count("]") - plain.count("}"))
    state.backslash = value.endswith("\\") and not value.endswith("\\\\")


def _is_open(state: _State) -> bool:
    return state.active and (state.depth > 0 or bool(state.triple) or state.backslash)


def _commented_setting(body: str) -> tuple[str, str] | None:
    """A commented-out setting's code and inline comment, or None when ``body`` reads as prose."""
    m = _COMMENTED_SETTING.match(body)
    if m is None:
        return None
    value, note = split_inline_comment(m.group(4), ";#")
    if len(value) > _COMMENTED_CHARS or len(_QUOTED.sub("q", value).split()) > _COMMENTED_WORDS:
        return None
    return body[: m.start(4)] + value, note


def _banner(body: str) -> str | None:
    """The title of a comment framed by rules of its own (``===== Booking =====``), else None."""
    if "-*-" in body:
        return None  # an editor's mode line
    title = body.strip(_FRAME)
    lead = body[: len(body) - len(body.lstrip(_FRAME))]
    trail = body[len(body.rstrip(_FRAME)):]
    if not title or _ALNUM.search(title) is None:
        return None
    if _marks(lead) < 3 or _marks(trail) < 2:
        return None
    return title if _is_title(title) else None


def _marks(frame: str) -> int:
    """The characters of a rule, its spaces not counted."""
    return len(frame) - frame.count(" ") - frame.count("\t")


def _is_title(text: str) -> bool:
    return bool(text) and len(text) <= _BANNER_CHARS and len(text.split()) <= _BANNER_WORDS and text[-1] not in ".,:;"


def _classify(lines: list[str]) -> list[_Line]:
    """Each line read in the light of the lines before it (see the module docstring)."""
    state = _State()
    out: list[_Line] = []
    for line in lines:
        stripped = line.strip()
        lead = line[: len(line) - len(line.lstrip())]
        if _is_open(state) and not (not lead and stripped and _starts_anew(line, stripped)):
            value, note = split_inline_comment(stripped, ";#") if not state.triple else (stripped, "")
            _opens(value, state)
            if stripped:
                out.append(_Line("value", value, note))
            continue
        if not stripped:
            state.indent = -1
            out.append(_Line("blank"))
            continue
        if _DIRECTIVE.match(line):
            state.indent = -1
            out.append(_Line("setting", stripped, commented=True))
            continue
        if comment := _COMMENT.match(line):
            out.append(_comment_line(comment, state))
            continue
        following = state.indent >= 0 and _indent(lead) > state.indent
        if following and state.empty and state.active:
            value, note = split_inline_comment(stripped, ";#")
            out.append(_Line("value", value, note))
            continue
        if section := _SECTION.match(line):
            state.indent = -1
            out.append(_Line("section", section.group(1), _comment_text(section.group(3) or "")))
            continue
        setting = _SETTING.match(line)
        if setting and setting.group(3) == ":" and (not setting.group(4).strip()
                                                    or setting.group(4).lstrip().startswith("//")):
            setting = None  # "server:" opens a YAML mapping; "http://…" is no key
        if setting:
            value, note = split_inline_comment(setting.group(4), ";#")
            state.indent, state.active = _indent(setting.group(1)), True
            state.empty, state.depth, state.triple, state.backslash = not value.strip(), 0, "", False
            _opens(value, state)
            code = line[len(setting.group(1)): setting.start(4)] + value
            out.append(_Line("setting", code.strip(), note, colon=setting.group(3) == ":"))
            continue
        if following:
            value, note = split_inline_comment(stripped, ";#")
            out.append(_Line("value", value, note))
            continue
        state.indent = -1
        out.append(_Line("other", line.rstrip()))
    return out


def _starts_anew(line: str, stripped: str) -> bool:
    """Whether an unindented line ends a value left open: a section, a setting or a comment (an
    unbalanced "[" in a value does not swallow the rest of the file)."""
    if stripped[0] in "]})\"'," or stripped.startswith(("'''", '"""')):
        return False
    return bool(_SECTION.match(line) or _SETTING.match(line) or _COMMENT.match(line))


def _comment_line(comment: re.Match[str], state: _State) -> _Line:
    """A comment line: more description of the setting above, a commented-out setting, a rule,
    a banner or prose."""
    indent = _indent(comment.group(1))
    body = comment.group(3)
    inner = body.lstrip()
    nested = inner[:1] in (";", "#") and len(body) - len(inner) >= 2  # ";          ; more"
    if state.indent >= 0 and (indent > state.indent or nested):
        text = _comment_text(inner) if nested else inner.strip()
        if text:
            state.active = False  # a value goes on no further under its description
            return _Line("note", text, commented=True)
    if nested:
        body = inner.lstrip(";#")
    body = body[1:] if body[:1] in (" ", "\t") else body
    if _ALNUM.search(body) is None:  # a rule ("#------", ";;;;;;"), else a marker alone: a paragraph's end
        state.indent = -1
        rule = _marks(comment.group(2) + body) >= _RULE_CHARS
        return _Line("decor" if rule else "comment", commented=True)
    if title := _banner(comment.group(2) + body):
        state.indent = -1
        return _Line("banner", title, commented=True)
    candidate = body.strip()
    if section := _SECTION.match(candidate):
        state.indent = -1
        return _Line("setting", section.group(1), _comment_text(section.group(3) or ""), commented=True)
    if setting := _commented_setting(candidate):
        state.indent, state.active, state.empty = indent, False, False
        return _Line("setting", setting[0], setting[1], commented=True)
    state.indent = -1
    return _Line("comment", body.rstrip(), commented=True)


def _sample(text: str) -> list[str]:
    """The file's lines up to its ``_SAMPLE``-th non-blank one."""
    lines = text.split("\n", _SAMPLE * 10)[: _SAMPLE * 10]
    seen = 0
    for n, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen == _SAMPLE:
                return lines[: n + 1]
    return lines


def is_config_file(text: str) -> bool:
    """Whether ``text`` is a commented INI-style configuration (see the module docstring): among
    its first 400 non-blank lines a quarter or more are comments and 80 % of the others are
    settings, section headers or lines continuing a setting; a YAML file is none."""
    sample = _sample(text)
    read = [r for r in _classify(sample) if r.kind != "blank"]
    if len(read) < _MIN_LINES:
        return False
    comments = sum(r.commented or r.kind == "note" for r in read)
    others = [r for r in read if not (r.commented or r.kind == "note")]
    structured = sum(r.kind in ("setting", "section", "value") for r in others)
    if comments < _COMMENT_SHARE * len(read) or structured < _SETTING_SHARE * len(others):
        return False
    if not any(r.kind in ("setting", "section") for r in read):
        return False  # comments alone
    yaml = sum(1 for line in sample if _YAML_LINE.match(line) and not _COMMENT.match(line))
    colons = sum(r.kind == "setting" and r.colon for r in others)
    return not (yaml >= 2 and colons >= sum(r.kind == "setting" and not r.colon for r in others))


_BACKSLASH = "\\"
#: a comment line that names a value and says what it means: "ringall - ring all channels"
_TERM_LINE = re.compile(r"[\w.*+<>/-]{1,40} {1,3}-{1,2} +\S")


class _Writer:
    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.prose: list[str] = []  # the paragraph being written
        self.kept: list[str] = []  # lines kept as written
        self.items: list[tuple[list[str], list[str]]] = []  # the list being written: code, description

    def flush(self) -> None:
        if self.prose:
            terms = [_TERM_LINE.match(line) is not None for line in self.prose]
            if sum(terms) >= 2:  # "ringall - ring all channels", "random - ring one": a list of values
                self.prose = [f"- {line}" if term else line for line, term in zip(self.prose, terms, strict=True)]
            self.blocks.append("\n".join(self.prose))
        if self.kept:
            self.blocks.append("\n".join(self.kept))
        if self.items:
            self.blocks.append("\n".join(f"- {code_span(' '.join(code))}" + (f": {' '.join(note)}" if note else "")
                                         for code, note in self.items))
        self.prose, self.kept, self.items = [], [], []

    def heading(self, text: str) -> None:
        self.flush()
        self.blocks.append(text)

    def item(self, code: str, note: str) -> None:
        if self.prose or self.kept:
            self.flush()
        self.items.append(([code], [note] if note else []))

    def more(self, code: str, note: str) -> None:
        """A setting's continued value, or more of its description."""
        if not self.items:
            self.line(" ".join(t for t in (code, note) if t), kept=not note)
            return
        codes, notes = self.items[-1]
        if code:
            if codes[-1].endswith(_BACKSLASH):  # a properties line's continuation mark
                codes[-1] = codes[-1][:-1].rstrip()
            codes.append(code)
        if note:
            notes.append(note)

    def line(self, text: str, *, kept: bool = False) -> None:
        if self.items or (self.kept if not kept else self.prose):
            self.flush()
        (self.kept if kept else self.prose).append(escape_markdown_line(text))


def config_to_markdown(text: str, name: str) -> str:
    """The configuration file ``text`` (named ``name``) as Markdown (see the module docstring)."""
    read = _classify(text.split("\n"))
    title = " ".join(name.split())
    w = _Writer()
    i = 0
    while i < len(read):
        r = read[i]
        if r.kind == "decor" and i + 2 < len(read) and read[i + 2].kind == "decor" and (
                read[i + 1].kind == "comment" and _is_title(read[i + 1].text.strip(_FRAME))
                or read[i + 1].kind == "banner"):
            w.heading(f"### {read[i + 1].text.strip(_FRAME)}")
            i += 3
            continue
        if r.kind in ("blank", "decor") or r.kind == "comment" and not r.text.strip():
            w.flush()
        elif r.kind == "section":
            w.heading(f"## {r.text}")
            if r.note:
                w.line(r.note)
        elif r.kind == "banner":
            w.heading(f"### {r.text}")
        elif r.kind == "setting":
            w.item(r.text, r.note)
        elif r.kind == "value":
            w.more(r.text, r.note)
        elif r.kind == "note":
            w.more("", r.text)
        elif r.kind == "comment":
            w.line(r.text)
        else:
            w.line(r.text, kept=True)
        i += 1
    w.flush()
    head = [f"# {title}"] if title else []
    return "\n\n".join(head + w.blocks) + "\n"


__all__ = ["CONFIG_SUFFIXES", "config_to_markdown", "is_config_file"]
