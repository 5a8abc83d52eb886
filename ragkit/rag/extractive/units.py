"""The pieces of passage text the extractive answerer scores (``Unit``: a sentence, a list item,
a table row, a heading, a code block or one of its lines, with the words around it) and a scored
one (``Candidate``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragkit.rag.extractive.text import Block


@dataclass(frozen=True)
class Unit:
    rank: int  # the passage's retrieval rank
    position: int  # the unit's place in its passage
    kind: str  # prose, item, row, heading, code, or line (one line of a code block: a value's candidate)
    text: str
    number: int  # the passage's citation number
    source: str  # the passage's source file
    start: int  # the passage's offset in its source (its rank when unknown)
    own: frozenset[str]  # the unit's terms
    section: frozenset[str]  # terms of its section heading (and the document title)
    near: frozenset[str]  # terms of the neighbouring sentences of the same section
    scope: frozenset[str]  # every term of the passage
    document: frozenset[str]  # terms of the other retrieved passages of the same document
    elsewhere: frozenset[str]  # terms of the passage's other section headings
    block: Block
    paragraph: int  # the number of its paragraph in the passage (``engine._paragraphs``)
    parents: tuple[str, ...] = ()  # the headings above the passage's first section (the page title first)
    leads_code: bool = False  # a description line ending with ":" that a code block follows
    opening: bool = False  # one of the first lines of a document (where a paper's byline is)
    references: bool = False  # part of a paper's reference list
    code_after: str = ""  # the code block a description line ending with ":" introduces
    above: tuple[str, ...] = ()  # the headings above it, nearest first (a release's "1.2.0 (May 2024)")
    leads_list: bool = False  # a line ending with ":" that a list follows ("The available convertors are:")
    closing: bool = False  # the first of the short lines that end a passage after its prose: a signature
    run: tuple[str, ...] = ()  # the sentences of a unit that joins neighbouring ones of a paragraph
    lead: str = ""  # for a list item, the line ending with ":" that leads its list ("Defaults to one of:")
    term: str = ""  # for a sentence of a definition, the term line above it ("`--cached`:")
    standing: float = -1  # the rank its score decays by (``engine._standings``)
    title: str = ""  # the title of its document


@dataclass(frozen=True)
class Candidate:
    score: float
    unit: Unit
    own_share: float  # the share of the question's weight in the unit's own words
    typed: bool = False  # holds the kind of answer the question wants (a date, a number, a name, a value)
    label: str = ""  # the heading the question names, when the unit does not say it: quoted before it


def passage_of(units: Sequence[Unit], u: Unit) -> list[Unit]:
    """The units of ``u``'s passage."""
    return [v for v in units if v.rank == u.rank]


def last_position(u: Unit) -> int:
    """The position of ``u``'s last sentence: its own, or that of the last of a joined ``run``."""
    return u.position + len(u.run or (u.text,)) - 1



__all__ = ["Candidate", "Unit", "last_position", "passage_of"]
