"""The passage text format, defined once: how the search tool shows a passage to a model, and
its inverse for tools that return only that text.

    [n] source: guide.md | page: 2 | heading: Install > Linux | score: 0.812
    passage text ...

``Passage`` is what the extractive answerer reads: built from a structured ``Citation`` (what the
search tool returns beside its text) or, for a tool that returns only text, parsed from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragkit.markdown_tables import TABLE_HEADER
from ragkit.types import Citation

_FAKE_HEADER = re.compile(r"^(\s*)\[(\d+)\]", re.MULTILINE)
_HEADER = re.compile(r"^\[(\d+)\]\s*(.*)$")


@dataclass
class Passage:
    number: int
    text: str
    meta: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_citation(cls, c: Citation) -> Passage:
        """The passage of a structured citation (no text parsing)."""
        meta = {"source": c.source, "score": f"{c.score:.3f}"}
        if c.page is not None:
            meta["page"] = str(c.page)
        if c.heading:
            meta["heading"] = c.heading
        if c.start is not None:
            meta["start"] = str(c.start)
        meta.update({key: value for key, value in (("document_title", c.title), ("authors", c.authors)) if value})
        if c.references:
            meta["references"] = "yes"
        if c.table_header:
            meta[TABLE_HEADER] = c.table_header
        return cls(c.number, _plain(c.text), meta)


def format_passage(c: Citation) -> str:
    """A numbered passage as the search tool shows it to the model."""
    head = [f"source: {c.source}"]
    if c.page is not None:
        head.append(f"{c.page_unit}: {c.page}")
    if c.heading:
        head.append(f"heading: {c.heading}")
    head.append(f"score: {c.score:.3f}")
    return f"[{c.number}] " + " | ".join(head) + "\n" + _plain(c.text)


def _plain(text: str) -> str:
    """Passage text as the model sees it: a line inside the text that looks like a passage
    header must not open a fake passage."""
    return _FAKE_HEADER.sub(lambda m: f"{m.group(1)}({m.group(2)})", text.strip())


def parse_passages(text: str) -> list[Passage]:
    """Parse ``[n] key: value | key: value`` headers and the passage text under each."""
    passages: list[Passage] = []
    for line in text.splitlines():
        match = _HEADER.match(line.strip())
        if match and ":" in match.group(2) or (match and not match.group(2)):
            meta = dict(_kv(part) for part in match.group(2).split(" | ") if ":" in part)
            passages.append(Passage(int(match.group(1)), "", meta))
        elif passages:
            passages[-1].text += line + "\n"
    return [p for p in passages if p.text.strip()]


def _kv(part: str) -> tuple[str, str]:
    key, _, value = part.partition(":")
    return key.strip(), value.strip()


__all__ = ["Passage", "format_passage", "parse_passages"]
