"""Words and sentences for the extractive answerer: content-word stems, and passages split into
sentences (not after "Dr." or an initial; title lines dropped; each table row a sentence of its
own, its cells labelled by the header row: "Ticket: Adult; Price: £6.50")."""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each else few for from further get gets
got had has have having he her here hers him his how i if in into is it its itself just know let like
make me more most much must my need no nor not now of off on once only or other our ours out over own
please same say says long take takes many often she should show so some such tell than that the their theirs them then there these
they this those through to too under until up us use used using very want was way we were what when
where which while who whom why will with would you your yours explain describe give find list s t
""".split()
)
WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
_SUFFIXES = (
    ("ational", "ate"),
    ("ation", ""),
    ("ies", "y"),
    ("sses", "ss"),
    ("ing", ""),
    ("edly", ""),
    ("ed", ""),
    ("ly", ""),
    ("es", ""),
    ("s", ""),
)


def stem(word: str) -> str:
    """A light, deterministic suffix stripper (install/installed/installing -> install)."""
    w = word.lower().replace("’", "'").split("'")[0]
    for suffix, repl in _SUFFIXES:
        if (
            w.endswith(suffix)
            and len(w) - len(suffix) >= 3
            and not w.endswith("ss" if suffix == "s" else "\0")
        ):
            w = w[: -len(suffix)] + repl
            break
    return w[:-1] if w.endswith("e") and len(w) >= 4 else w


def terms(text: str) -> list[str]:
    """Content-word stems of ``text`` in order (stopwords and 1-letter words removed)."""
    out = []
    for raw in WORD.findall(text):
        low = raw.lower().replace("’", "'").split("'")[0]
        if low in STOPWORDS or (len(low) < 2 and not low.isdigit()):
            continue
        out.append(stem(low))
    return out




# ---------------------------------------------------------------- sentences and table rows
_ABBREVIATION = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Sr|Jr|St|Mt|Capt|Col|Gen|Lt|Rev|Sgt|No|Nos|Fig|vs|approx|"
    r"ca|cf|e\.g|i\.e)|(?:^|\s)[A-Z])\.$"
)
_TABLE_SEPARATOR = re.compile(r"^:?-{2,}:?$")


def table_cells(line: str) -> list[str] | None:
    """The cells of a table row (``a | b`` or ``| a | b |``), or None for any other line."""
    if "|" not in line:
        return None
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells if len(cells) >= 2 else None


def _row_sentence(header: list[str] | None, cells: list[str]) -> str:
    """A table row as a sentence, each cell labelled by its column ("Price: £6.50")."""
    if not header or len(header) != len(cells):
        return "; ".join(c for c in cells if c)
    return "; ".join(
        f"{h}: {c}" if h and h.lower() != c.lower() else c for h, c in zip(header, cells, strict=True) if c
    )


def _is_title(line: str) -> bool:
    """A title or section line of plain text ("POWER AND SUPPLIES", "Annual Report 2022"): no
    closing punctuation and every longer word capitalised."""
    words = [w for w in WORD.findall(line) if len(w) > 3 and not w.isdigit()]
    return (
        bool(words)
        and len(line.split()) <= 12
        and line[-1] not in ".!?:;,"
        and all(w[0].isupper() for w in words)
    )


def _split_prose(block: str) -> list[str]:
    """Split at sentence ends, but not after an abbreviation or an initial ("Dr. Halloran")."""
    pieces: list[str] = []
    for piece in _SENT_SPLIT.split(block):
        if pieces and _ABBREVIATION.search(pieces[-1]):
            pieces[-1] += " " + piece
        else:
            pieces.append(piece)
    return [p.strip() for p in pieces]


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage; markdown headings dropped, bullets and wrapped lines handled, and
    each table row a sentence of its own with its cells labelled by the header row."""
    blocks: list[tuple[str, bool]] = []  # (text, is a table row)
    header: list[str] | None = None
    in_table = False
    for line in text.splitlines():
        stripped = line.strip()
        cells = table_cells(stripped)
        if cells is not None:
            if all(_TABLE_SEPARATOR.match(c) for c in cells if c):
                continue
            if not in_table:
                header, in_table = cells, True
            else:
                blocks.append((_row_sentence(header, cells), True))
            continue
        in_table, header = False, None
        if not stripped or stripped.startswith("#") or _is_title(stripped):
            blocks.append(("", False))
            continue
        item = re.sub(r"^([-*+•]|\d+[.)])\s+", "", stripped)
        last = blocks[-1] if blocks else ("", True)
        label = len(last[0].split()) <= 3 and item[:1].isupper()  # "Supply runs" over a paragraph
        if item != stripped or last[1] or not last[0] or last[0][-1] in ".!?:" or label:
            blocks.append((item, False))
        else:
            blocks[-1] = (last[0] + " " + item, False)
    sentences = [s for b, row in blocks if b for s in ([b] if row else _split_prose(b))]
    return [s for s in sentences if len(s.split()) >= 3 or any(c.isdigit() for c in s)]
