"""Wiki links in Markdown (Obsidian's, Foam's, Logseq's, Dendron's and a GitHub wiki's
``[[…]]``) read as the text a reader sees.

Indexed as written, ``[[Compendium/Rules/Attacks/Attacks|attacks]]`` puts a folder path in the
middle of a sentence, where it is searched, quoted and breaks the sentence's words apart.
``render_wikilinks`` replaces each link outside code (fenced code and inline code spans are kept
as written) by what it shows:

- ``[[target|label]]``: the label;
- ``[[folder/Note]]``: ``Note`` (the note's name, without its folder or ``.md``);
- ``[[Note#Heading]]``: ``Note > Heading``; ``[[#Heading]]``: ``Heading``; a block reference
  (``[[Note#^a1b2]]``) shows the note's name;
- an embed (``![[diagram.png]]``, ``![[Note]]``): nothing (the embedded file is indexed as itself).

A link is at most ``MAX_LINK_CHARS`` long and on one line; anything else (``[[`` in prose, an
unclosed link) stays as written.
"""

from __future__ import annotations

import re

from ragkit.loaders.markdown_html import code_spans, fenced_lines

#: a link's target and label together; longer ``[[ … ]]`` runs are text
MAX_LINK_CHARS = 300

_LINK = re.compile(
    rf"(?<!\\)(?P<embed>!?)\[\[(?P<target>[^\[\]|\n]{{1,{MAX_LINK_CHARS}}}?)(?:\|(?P<label>[^\[\]\n]{{0,{MAX_LINK_CHARS}}}?))?\]\]"
)


def render_wikilinks(text: str) -> str:
    """``text`` (Markdown) with its wiki links replaced by the text they show."""
    if "[[" not in text:
        return text
    out = [line if code else _outside_code_spans(line) for line, code in fenced_lines(text)]
    return "".join(out)


def _outside_code_spans(line: str) -> str:
    if "[[" not in line:
        return line
    parts, start = [], 0
    for begin, end in code_spans(line):
        parts += [_LINK.sub(_shown, line[start:begin]), line[begin:end]]
        start = end
    parts.append(_LINK.sub(_shown, line[start:]))
    return "".join(parts)


def _shown(m: re.Match[str]) -> str:
    if m.group("embed"):
        return ""
    if label := (m.group("label") or "").strip():
        return label
    target, _, heading = m.group("target").strip().partition("#")
    note = target.rstrip("/").rsplit("/", 1)[-1]
    note = note[:-3] if note.lower().endswith(".md") else note
    heading = "" if heading.startswith("^") else heading.strip()
    if note and heading:
        return f"{note} > {heading}"
    return note or heading


__all__ = ["MAX_LINK_CHARS", "render_wikilinks"]
