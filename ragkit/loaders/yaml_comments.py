"""Commented YAML configuration (a Helm chart's ``values.yaml``, a tool's sample settings), written
out as Markdown with each key beside the comments that document it.

In such a file the documentation is in comments above or beside each key (``## Maximal body size
(default: 2m)`` over ``maxBodySize: 2m``), and a key's meaning depends on the keys it is nested
under (``ingress.maxBodySize``). Read as it is, a passage was a run of indented lines whose
comments the answerer quoted with their ``#`` markers, and which could not tell the ingress's
body size from another. The text loader hands a ``.yaml``/``.yml`` file whose lines are a fair
share comments (``is_commented_yaml``) here, which writes it out in one pass over its lines:

- ``# name``, the file's name, is the title; a top-level key that opens a mapping or a list is a
  ``##`` heading (``## ingress``), the comments above it a paragraph under it;
- every other key is a list item, its whole path and its value in code, the comments above it
  and beside it after it: ``- `server.port: 8080`: The port to listen on``; in a Helm chart's
  ``values.yaml``, whose every value is the chart's default, the value is said so:
  ``- `ingress.maxBodySize`: Maximal body size. Default: `2m```;
  a nested key that opens a mapping is an item with its path alone;
- a list's entries (``- a``) and a block's lines (``key: |``) are items or code under their key;
  a block that is prose (an advisory's ``description: |``, a changelog entry's text) is its text,
  unfenced, after its key's item, and a one-line value that is a sentence or more of prose is said
  after its key (``- `summary`: Fixes a crash when ...``);
- a comment separated from the next key by a blank line is a paragraph of its own; decorative
  comment lines (``#######``, ``# ----``) go.

Comment text goes through ``escape_markdown_line``. Linear in the file (a stack of the open keys,
bounded by the lines' indentation); nothing is parsed as YAML, so no alias or tag is expanded.
A file is written out so when its keys are documented in comments (``is_commented_yaml``) or when
its values hold prose (``has_prose_values``: a record whose text is in its strings, as a security
advisory's is); a file over 2 MB, or one with neither, is read as it is (its passages code).
"""

from __future__ import annotations

import re

from ragkit.loaders.base import code_span, escape_markdown_line, fenced_block, split_inline_comment

MAX_BYTES = 2 * 1024 * 1024
_SAMPLE = 400  # non-blank lines looked at to tell a commented configuration
_COMMENT_SHARE = 0.15
_MIN_KEYS = 3
#: a Helm chart's values file: every value in it is the chart's default
_VALUES_FILES = ("values.yaml", "values.yml")
_PATH_KEYS = 16  # a key's path names at most this many keys it is nested in (the innermost)
_COMMENT = re.compile(r"([ \t]*)#+(?:[ \t](.*)|(.*))$")
#: a key line: its indentation, a list dash, the key (plain or quoted) and what follows the colon
_KEY = re.compile(r"([ ]*)(-[ ]+)?([A-Za-z0-9_$@][\w.\-/$@]{0,119}|\"[^\"\n]{1,120}\"|'[^'\n]{1,120}')[ \t]*:(?:[ \t]+(.*)|$)")
_ITEM = re.compile(r"([ ]*)-(?:[ \t]+(.*)|$)")
_DECOR = re.compile(r"[\W_]*")
_BLOCK = re.compile(r"[|>][-+0-9]*$")
#: prose: this many plain words or more, most of them in lines of words (a script's lines,
#: ``echo "Done."`` among them, are mostly commands, paths and options)
_PROSE_WORDS = 12
_LINE_WORDS = 4
_WORD_SHARE = 0.6  # of a prose line's tokens
_LINE_SHARE = 0.5  # of a prose block's tokens, in its prose lines
_TEMPLATED = re.compile(r"\{\{|\{%|\$\{")  # Go's, Jinja's, a shell's substitutions: code
_LINK = re.compile(r"\[([^\[\]\n]{0,200})\]\([^()\s]{0,500}\)")  # Markdown's [text](url), read as its text
_MARKUP = re.compile(r"[*_`]+|^[ \t]*(?:[-+>]|#{1,6}|\d{1,3}\.)[ \t]")  # emphasis, code, a list's or heading's mark
_WORD = re.compile(r"[\"'(“‘]?[A-Za-z][A-Za-z'’-]*[.,;:!?)\"'”’]*")


def is_commented_yaml(text: str) -> bool:
    """Whether ``text`` is YAML whose keys are documented in comments: among its first 400
    non-blank lines, from its first key on, a sixth or more are comments and three or more are keys."""
    if len(text) > MAX_BYTES:
        return False
    lines = [line for line in text.split("\n")[: _SAMPLE * 4] if line.strip()][:_SAMPLE]
    header = next((i for i, line in enumerate(lines) if not line.lstrip().startswith("#")), len(lines))
    lines = lines[header:]  # a licence or a banner above the first key documents no key
    comments = sum(1 for line in lines if line.lstrip().startswith("#"))
    keys = sum(1 for line in lines if _KEY.match(line))
    return keys >= _MIN_KEYS and comments >= _COMMENT_SHARE * len(lines) and "\t" not in "".join(
        line[: len(line) - len(line.lstrip())] for line in lines)


def has_prose_values(text: str) -> bool:
    """Whether ``text`` is YAML some of whose values are prose: among its first 400 non-blank
    lines three or more are keys, and a block scalar (``description: |``) or a one-line value is
    prose (``is_prose``)."""
    if len(text) > MAX_BYTES:
        return False
    lines = text.split("\n")[: _SAMPLE * 4]
    if sum(1 for line in lines if _KEY.match(line)) < _MIN_KEYS or any(line.startswith("\t") for line in lines):
        return False
    block: list[str] = []
    block_indent = -1
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if block_indent >= 0 and (not line.strip() or indent > block_indent):
            block.append(line)
            continue
        if block and is_prose(block):
            return True
        block, block_indent = [], -1
        key = _KEY.match(line)
        value = split_inline_comment(key.group(4) or "")[0] if key else ""
        if _BLOCK.match(value):
            block_indent = indent
        elif value and is_prose([value.strip("\"'")]):
            return True
    return bool(block) and is_prose(block)


def is_prose(lines: list[str]) -> bool:
    """Whether ``lines`` (a block scalar's, or one value) read as prose: no script (``#!``) and no
    template's substitution (``{{``, ``{%``, ``${``), twelve plain words or more, and half or more
    of their tokens in prose lines (``_prose_line``), a Markdown link and emphasis read as text."""
    said = [_MARKUP.sub("", _LINK.sub(r"\1", line)).split() for line in lines if line.strip()]
    if not said or _TEMPLATED.search(" ".join(lines)) or lines[0].lstrip().startswith("#!"):
        return False  # a template's text, a script
    if sum(len(_WORD.findall(" ".join(line))) for line in said) < _PROSE_WORDS:
        return False
    return sum(len(line) for line in said if _prose_line(line)) >= _LINE_SHARE * sum(len(line) for line in said)


def _prose_line(tokens: list[str]) -> bool:
    """Four plain words or more, three fifths or more of the line's whitespace-parted tokens (a
    script's ``mkdir -p /data/conf`` or ``echo "Done."`` is not)."""
    words = sum(1 for token in tokens if _WORD.fullmatch(token))
    return words >= _LINE_WORDS and words >= _WORD_SHARE * len(tokens)


def yaml_to_markdown(text: str, name: str) -> str:
    """The commented YAML ``text`` (named ``name``) as Markdown (see the module docstring)."""
    out: list[str] = [f"# {' '.join(name.split())}", ""]
    defaults = name.lower() in _VALUES_FILES
    open_keys: list[tuple[int, str]] = []  # (indentation, key) of the keys whose mapping is open
    notes: list[str] = []  # the comment lines above the next key
    block: list[str] = []  # a block scalar's or an unread value's lines, fenced under its key
    block_indent = -1
    for raw in text.split("\n"):
        indent = len(raw) - len(raw.lstrip(" "))
        if block_indent >= 0 and (not raw.strip() or indent > block_indent):
            block.append(raw)
            continue
        if block:
            out += _block(block)
            block = []
        block_indent = -1
        if not raw.strip():
            if notes:  # a comment a blank line parts from the keys is a paragraph of its own
                out += [*notes, ""]
                notes = []
            continue
        comment = _COMMENT.match(raw)
        if comment:
            said = (comment.group(2) if comment.group(2) is not None else comment.group(3) or "").rstrip()
            if _DECOR.fullmatch(said) is None or not said:
                notes.append(escape_markdown_line(said.strip()))
            continue
        key = _KEY.match(raw)
        while open_keys and open_keys[-1][0] >= (indent + (len(key.group(2)) if key and key.group(2) else 0)):
            open_keys.pop()
        if key is None:
            item = _ITEM.match(raw)
            path = ".".join(k for _, k in open_keys[-_PATH_KEYS:])
            if item and item.group(2):
                value, beside = split_inline_comment(item.group(2))
                out.append(_item(f"{path}[]: {value}" if path else value, notes, beside))
            else:  # a flow value going on, a stray line: kept as code under its key
                block, block_indent = [raw], indent - 1
            notes = []
            continue
        if key.group(2):  # "- name: x": a list entry that is a mapping, its keys under the list
            open_keys.append((indent, "[]"))
            indent += len(key.group(2))
        value, beside = split_inline_comment(key.group(4) or "")
        name_ = key.group(3).strip("\"'")
        path = ".".join([*(k for _, k in open_keys[-_PATH_KEYS:]), name_]).replace(".[]", "[]")
        if not value or _BLOCK.match(value):
            if _BLOCK.match(value):
                block_indent = indent
                out.append(_item(path, notes, beside))
            elif not open_keys:
                out += [f"## {name_}", ""]
                if notes or beside:
                    out += [*notes, *([escape_markdown_line(beside)] if beside else []), ""]
            else:
                out.append(_item(path, notes, beside))
            if not _BLOCK.match(value):
                open_keys.append((indent, name_))
        elif not defaults and is_prose([value.strip("\"'")]):
            out.append(_item(path, [*notes, escape_markdown_line(value.strip("\"'"))], beside))
        else:
            out.append(_item(f"{path}: {value}", notes, beside) if not defaults else
                       _item(path, notes, beside, default=value))
        notes = []
    if block:
        out += _block(block)
    out += notes
    return "\n".join(_tidy(out)).strip() + "\n"


def _block(lines: list[str]) -> list[str]:
    """A block scalar's lines: its text as it is, dedented, when it is prose (its own Markdown),
    else fenced as YAML."""
    if not is_prose(lines):
        return fenced_block(lines, "yaml")
    margin = min(len(line) - len(line.lstrip(" ")) for line in lines if line.strip())
    return ["", *(line[margin:].rstrip() for line in lines), ""]


def _item(code: str, notes: list[str], beside: str, *, default: str = "") -> str:
    described = " ".join(part for part in (*notes, beside) if part).strip()
    if default:  # a chart's values file: each value is the chart's default
        described = f"{described.rstrip('.')}. Default: {code_span(default)}" if described else f"Default: {code_span(default)}"
    return f"- {code_span(code)}: {described}" if described else f"- {code_span(code)}"


def _tidy(lines: list[str]) -> list[str]:
    """A blank line around headings and between a paragraph and a list; no two blank lines."""
    out: list[str] = []
    fence = ""
    for line in lines:
        if fence:  # a block's lines as they are
            out.append(line)
            fence = "" if line == fence else fence
            continue
        if out and out[-1] and (line.startswith("- ") and not out[-1].startswith(("- ", "#"))
                                or line.startswith(("#", "`")) and not out[-1].startswith("#")):
            out.append("")
        if line.startswith("```"):
            fence = line[: len(line) - len(line.lstrip("`"))]
        if line or (out and out[-1]):
            out.append(line)
    return out


__all__ = ["has_prose_values", "is_commented_yaml", "is_prose", "yaml_to_markdown"]
