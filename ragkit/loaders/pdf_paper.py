"""A paper's front and back matter in a PDF's text: its title, its byline and its reference list.

- *Title*: the PDF's metadata title when it is a real one (not a producer's placeholder such as
  "Microsoft Word - draft.doc", "paper.dvi" or "untitled"), else the first-page text set in the
  largest font, larger than the body text (drop caps, logos and figure labels left out: at least
  two words, above the abstract, in the top half of the page), else nothing (the loader then uses
  the file stem).
- *Byline*: the names under the title, before the abstract or the first section: each line of that
  block split at commas and "and", the parts that read as a person's name kept (capitalised words,
  initials and particles; no digits, no e-mail, no affiliation such as "University" or "Inc.").
- *Reference list*: a line that is only "References" or "Bibliography" (numbered or not) followed
  by entries that cite years or numbers, up to an "Appendix" heading or the end of the document.

Everything here reads text pypdf gave; nothing is dropped: the loader marks the reference list
(metadata ``references``) so search and answers can weigh it down.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: metadata titles that producers write for every file (not the document's title)
_PLACEHOLDER_TITLE = re.compile(
    r"^(microsoft (word|powerpoint) - |untitled\b|proceedings template\b|arxiv:|title\b$)"
    r"|\.(dvi|docx?|eps|ps|pdf|tex|rtf|indd|pptx?|xls[xm]?)$"
    r"|^[^\s_]*_\S*$",  # one word joined with underscores: a file's name ("fast03_footers_PDF")
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{2,}")
_MIN_TITLE_WORDS = 2
_MAX_TITLE_WORDS = 30
_TITLE_OVER_BODY = 1.1  # a title is set at least 10 % larger than the body text
_SIZE_TOLERANCE = 0.05  # fragments within 5 % of the largest size are the same font size

_REFERENCES_HEADING = re.compile(
    r"^\s*(?:(?:\d{1,2}|[IVX]{1,5}|[A-Z])[.)]?\s+)?(references|bibliography|works cited|literature cited)\s*:?\s*$",
    re.IGNORECASE,
)
_APPENDIX_HEADING = re.compile(r"^\s*(?:[A-Z]\.?\s+)?appendix\b.{0,80}$|^\s*appendices\s*$", re.IGNORECASE)
_ENTRY_MARK = re.compile(r"\[\d{1,3}\]|\b(?:1[89]|20)\d\d[a-z]?\b|^\s*\d{1,3}\.\s", re.MULTILINE)
_MIN_ENTRY_MARKS = 2  # a reference list's first ~600 characters cite at least two years or numbers
_LOOKAHEAD = 600

_FRONT_MATTER_END = re.compile(
    r"^\s*(abstract|summary|keywords|index terms|(?:1|I)\.?\s+introduction|introduction)\b", re.IGNORECASE
)
_BYLINE_LINES = 12  # the byline is within this many lines under the title
_AFFILIATION = re.compile(
    r"\b(univ(ersity|ersit[àäé]t)?|inc|corp(oration)?|ltd|llc|gmbh|institut[eo]?|laborator(y|ies)|labs?|research|"
    r"department|dept|college|school|cent(er|re)|faculty|academy|foundation|company|group|systems|"
    r"technolog(y|ies)|sciences?|engineering|computer|road|street|avenue|usa|u\.s\.a|uk|draft|abstract|"
    r"google|microsoft|yahoo|ibm|intel|facebook|amazon|hp|xerox|parc|bell|paper|key|words|member|fellow|senior|"
    r"student|ieee|acm|citation|terms|published|publisher|journal|proceedings|conference|vol|volume|"
    r"received|revised|accepted)\b",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"^(?:[A-Z][a-zA-Z'’\-]+|[A-Z]\.(?:-?[A-Z]\.)*|[A-Z]{2,}|van|von|de|der|den|da|di|du|la|le)$")
_FULL_NAME_WORD = re.compile(r"^[A-Z][a-z'’]+(?:-[A-Z][a-z'’]+)?$|^[A-Z][a-z]+[A-Z][a-z]+$")  # "Ming-Wei", "LeCun"
_PARTICLES = frozenset("van von de der den da di du la le".split())
_SEPARATORS = re.compile(r",|;|\band\b|&|\s{3,}")
_MARKS = re.compile(r"[*†‡§¶∗⋆]+|(?<=[a-z])\d+")  # footnote marks after a name: "Ongaro1", "Lynch*"


#: a paper's first page is among this many: a proceedings' cover page may come before it
FRONT_PAGES = 3


def front_page(pages: Sequence[tuple[int, str]]) -> int:
    """The number of the page with a paper's title and byline among its first :data:`FRONT_PAGES`:
    the first page, unless it has no abstract or introduction and a later one does (a
    proceedings' cover page, a report's title page before the paper)."""
    first = [(n, text) for n, text in pages if n <= FRONT_PAGES]
    if not first or _has_front_matter_end(first[0][1]):
        return first[0][0] if first else 1
    return next((n for n, text in first[1:] if _has_front_matter_end(text)), first[0][0])


def _has_front_matter_end(text: str) -> bool:
    return any(_FRONT_MATTER_END.match(line.strip()) for line in text.splitlines())


def document_title(metadata_title: str | None, fragments: Sequence[tuple[float, float, str]],
                   page_height: float | None) -> str | None:
    """The title (module docstring). ``fragments``: the first page's (font size, y, text) in
    reading order."""
    if metadata_title and _real_title(metadata_title):
        return metadata_title
    return largest_font_text(fragments, page_height)


def _real_title(title: str) -> bool:
    text = title.strip()
    return bool(_WORD.search(text)) and not _PLACEHOLDER_TITLE.search(text)


def largest_font_text(fragments: Sequence[tuple[float, float, str]], page_height: float | None) -> str | None:
    """The first run of text in the largest font that reads as a title: set larger than the
    page's body text (the size most of its letters have), at least two words, at most thirty,
    above the abstract (or the introduction) and in the top half of the page when its height is
    known. Marks without letters (a footnote's "*") do not break a run."""
    letters: dict[float, int] = {}
    for size, _, text in fragments:
        letters[round(size, 1)] = letters.get(round(size, 1), 0) + len(_WORD.findall(text))
    body = max(letters, key=lambda s: letters[s]) if letters else 0.0
    top: list[tuple[float, str]] = []
    for size, y, text in fragments:
        if _FRONT_MATTER_END.match(text.strip()):
            break  # a figure's labels further down are not the title
        if _WORD.search(text) and (page_height is None or y >= page_height / 2):
            top.append((size, text))
    for size in sorted({round(s, 1) for s, _ in top if s > body * _TITLE_OVER_BODY}, reverse=True):
        run: list[str] = []
        for s, text in top:
            if abs(s - size) <= _SIZE_TOLERANCE * size:
                run.append(text)
            elif run:
                break  # the first contiguous run of that size only (section headings share it)
        title = " ".join(" ".join(run).split())
        if _MIN_TITLE_WORDS <= len(_WORD.findall(title)) <= _MAX_TITLE_WORDS:
            return title
    return None


def byline(first_page_text: str, title: str | None) -> str | None:
    """The authors' names under the title, joined with ", " (module docstring), or None."""
    lines = [ln.strip() for ln in first_page_text.splitlines() if ln.strip()]
    start = _after_title(lines, title)
    names: list[str] = []
    end = start + _BYLINE_LINES
    affiliated = False  # the names are set above their affiliations or addresses: a paper's byline
    for i, line in enumerate(lines[start:], start):
        if i >= end or _FRONT_MATTER_END.match(line) or len(line) > 120:
            break
        if "@" in line or "{" in line or _AFFILIATION.search(line):
            affiliated = True
            if "@" in line or "{" in line:
                continue
        found = line_names(line)
        names += found
        if found and affiliated:  # such a byline goes on while names keep coming, each with its affiliation
            end = max(end, i + 1 + _BYLINE_LINES)
    seen: list[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return ", ".join(seen) or None


def _after_title(lines: list[str], title: str | None) -> int:
    """The index of the first line after the title's lines (0 when the title is not found)."""
    if not title:
        return 1 if lines else 0
    wanted = [w.lower() for w in _WORD.findall(title)]
    got: list[str] = []
    for i, line in enumerate(lines[:_BYLINE_LINES]):
        got += [w.lower() for w in _WORD.findall(line)]
        if len(got) >= len(wanted) and got[-len(wanted):] == wanted or got[:len(wanted)] == wanted:
            return i + 1
    return 0


def line_names(line: str) -> list[str]:
    """The people's names of one byline line, its parts split at commas, semicolons, "and", "&"
    and wide gaps ("Ada Quill, Tom Reed & Lin Park")."""
    return [n for part in _SEPARATORS.split(line) for n in _names(part)]


def _names(part: str) -> list[str]:
    """The names in one part of a byline line: one name, or several written side by side with
    single spaces ("Ada Quill Tom Reed Lin Park"), read as pairs of words when every word is a
    whole capitalised one and there are four or more, an even number."""
    name = _name(part)
    words = _MARKS.sub("", part).split()
    if len(words) >= 4 and len(words) % 2 == 0 and all(_FULL_NAME_WORD.match(w) for w in words):
        pairs = [_name(" ".join(words[k:k + 2])) for k in range(0, len(words), 2)]
        if all(pairs):
            return [p for p in pairs if p]
    return [name] if name else []


def _name(part: str) -> str | None:
    words = _MARKS.sub("", part).split()
    if not 2 <= len(words) <= 5 or _AFFILIATION.search(part) or re.search(r"\d", _MARKS.sub("", part)):
        return None
    if not all(_NAME_WORD.match(w) for w in words) or words[0].lower() in _PARTICLES:
        return None
    if not any(len(w) > 2 and not w.endswith(".") for w in words):
        return None  # initials only
    return " ".join(words)


def references_start(pages: Sequence[str]) -> tuple[int, int] | None:
    """(page index, character offset) of the reference list's heading, or None. The last such
    heading of the document counts (a paper's related-work section may say "references" too)."""
    found: tuple[int, int] | None = None
    for index, text in enumerate(pages):
        offset = 0
        for line in text.splitlines(keepends=True):
            if _REFERENCES_HEADING.match(line) and _cites(pages, index, offset + len(line)):
                found = (index, offset)
            offset += len(line)
    if found is not None and found[0] == 0 and len(pages) > 1:
        return None  # a first page's "References" line is a table of contents or a cover page
    return found


def _cites(pages: Sequence[str], index: int, offset: int) -> bool:
    after = pages[index][offset:offset + _LOOKAHEAD]
    if len(after) < _LOOKAHEAD and index + 1 < len(pages):
        after += "\n" + pages[index + 1][: _LOOKAHEAD - len(after)]
    return len(_ENTRY_MARK.findall(after)) >= _MIN_ENTRY_MARKS


def appendix_start(text: str) -> int | None:
    """The offset of an appendix heading in a page of the reference list, or None."""
    offset = 0
    for line in text.splitlines(keepends=True):
        if _APPENDIX_HEADING.match(line) and len(line.split()) <= 12:
            return offset
        offset += len(line)
    return None


def fragment_size(cm: Sequence[float], tm: Sequence[float], font_size: float) -> tuple[float, float]:
    """(rendered font size, y on the page) of a text fragment from pypdf's visitor arguments."""
    scale = (tm[2] ** 2 + tm[3] ** 2) ** 0.5 * (cm[2] ** 2 + cm[3] ** 2) ** 0.5
    y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
    return float(font_size) * scale, y


__all__ = ["FRONT_PAGES", "front_page", "appendix_start", "byline", "document_title", "fragment_size", "largest_font_text", "references_start"]
