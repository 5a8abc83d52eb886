"""A form's fields: a label and its value ("Prepared By: Sarah Quill", "Commission: 10%").

Reports, receipts, orders and estimates say who or what by labelling it, and a PDF's text layer
often gives the label and its value on two lines ("Primary Contact:" then "Sarah Quill"). A
field whose label is made of the question's words ("Who prepared the report?", "Who is the
primary contact …?") says what its value is, so the value answers the question whatever else
the line shares with it:

- ``field_line``: a label line and the value line after it, read as one line;
- ``signed_line``: a signature's role line and the name above it ("Sarah Quill", "Chief
  Financial Officer"), read as the field "Chief Financial Officer: Sarah Quill";
- ``fills_field``: whether a line is a field labelled with the question's words (beyond the
  names the question is about: "Cinema: Downtown Multiplex" does not say who runs a cinema), or
  holds one further along (a form's line of several: "Case Tracking Number: …  Agency: …" for
  "Which agency handled the case?").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ragkit.rag.extractive.text import Block, terms

_LABEL_LINE = re.compile(r"^[A-Z][\w./#&' -]{0,40}:$")  # "Primary Contact:", "Prepared By:"
_FIELD = re.compile(r"^(?P<label>[A-Z][\w./#&' -]{0,40}):\s+\S")
_LABEL_WORDS = 4  # a form's label has at most this many words
_VALUE_WORDS = 8  # ... and its value, on the line after it, at most this many


def field_line(blocks: Sequence[Block], index: int) -> str | None:
    """A form's field whose label and value a document's text gives on two lines ("Primary
    Contact:" then "Sarah Quill"), read as one line ("Primary Contact: Sarah Quill"); None when
    block ``index`` is no such label."""
    label = blocks[index].text.strip()
    after = blocks[index + 1] if index + 1 < len(blocks) else None
    if (not _LABEL_LINE.match(label) or len(label.split()) > _LABEL_WORDS or after is None
            or after.kind not in ("prose", "heading") or len(after.text.split()) > _VALUE_WORDS
            or after.text.rstrip().endswith(":")):
        return None
    return f"{label} {after.text.strip()}"


_NAME_LINE = re.compile(r"^[A-Z][a-z'’-]+(?:\s+(?:[A-Z]\.|[A-Z][a-z'’-]+)){1,3}$")  # "Luca Quill", "Tim D. Reed"
_ROLE_LINE = re.compile(r"^(?:[A-Z][\w&'’-]*|of|and|the|for)(?:\s+(?:[A-Z][\w&'’-]*|of|and|the|for)){0,5},?$")
_SIGNATURE_GAP = 2  # role lines between a signature's name and the role asked about ("Senior Vice President,")


def signed_line(blocks: Sequence[Block], index: int) -> str | None:
    """A signature's role and the name above it, read as a field ("Sarah Quill", "Senior Vice
    President,", "Chief Financial Officer" -> "Chief Financial Officer: Sarah Quill"); None when
    block ``index`` is no role line under a name."""
    role = blocks[index].text.strip()
    if blocks[index].kind not in ("prose", "heading") or not _ROLE_LINE.match(role):
        return None
    for back in range(index - 1, max(-1, index - 2 - _SIGNATURE_GAP), -1):
        line = blocks[back].text.strip()
        if blocks[back].kind in ("prose", "heading") and _NAME_LINE.match(line):
            return f"{role.rstrip(',')}: {line}"
        if blocks[back].kind not in ("prose", "heading") or not _ROLE_LINE.match(line):
            return None
    return None


#: a field further along a line that holds several ("Case Tracking Number: 150109  Agency: Bureau of …")
_LATER_FIELD = re.compile(r"(?<=\s)(?P<label>[A-Z][\w./#&'-]*(?: [\w./#&'-]+){0,3}):\s+\S")


#: a label word and the question's words that ask for its value: a mail's "From:" says who sent it,
#: an agenda's "Where:" in which room or venue it is held, its "When:" at what time or on what date
_LABEL_ASKED = {"from": frozenset(terms("sent sender send sends")), "to": frozenset(terms("recipient recipients")),
                "where": frozenset(terms("room venue location place held")),
                "when": frozenset(terms("time date day held"))}


def fills_field(line: str, question_terms: Collection[str], names: Collection[str]) -> bool:
    """Whether ``line`` is a form's field, or holds one further along (a form's line of several),
    whose label is made of the question's terms (``question_terms``), one at least not among the
    ``names`` the question is about; a mail header's "From:" is labelled "sent" ("Who sent the
    test email …?"), its "To:" "recipient", an agenda's "Where:" "room" ("Which meeting room …?")."""
    first = _FIELD.match(line)
    labels = ([first.group("label")] if first else []) + [m.group("label") for m in _LATER_FIELD.finditer(line)]
    asked = set(question_terms)
    for label in labels:
        # "From", "To", "Where" and "When" are function words, which ``terms`` leaves out: read as the words they answer
        said = _LABEL_ASKED.get(label.lower(), frozenset()) & asked
        words = set(said) if said else set(terms(label))
        if len(label.split()) <= _LABEL_WORDS and words - set(names) and words <= set(question_terms):
            return True
    return False


__all__ = ["field_line", "fills_field", "signed_line"]
