"""HTML in Markdown read as the text it shows.

- **Headings** (``<h3 name="config">Does it support config files?</h3>``, a README's
  ``<h1 align="center">``) are written as the ATX headings they are, so the Markdown splitter gives
  the text under them its heading path; a heading with no text (a logo image) leaves nothing. One
  pass over the lines: a heading may span ``MAX_HEADING_LINES``.
- **Other tags** of HTML's own vocabulary (``<li>``, ``<span style="…">``, ``<b>``, ``<p>``,
  ``<td>``) are taken out of lines outside code: ``<li>`` starts a list item ("- "), a table cell
  ends with " | ", a row's end and ``<br>`` end a line (but in a pipe table's row, where
  ``<br>`` breaks a line within a cell, and a new line would end the row: there it is a space). A handbook page written as HTML lists is
  indexed, embedded and quoted as its words, not its styles. A tag not of HTML (``<your-name>``),
  an autolink (``<https://…>``) and anything in a code span or block (fenced, or indented after a
  blank line) are left as written; a line that held only tags leaves nothing.
- **Comments** (``<!-- … -->``, a licence header, a hidden test listing) show nothing and are taken
  out, over as many lines as they span; an unclosed ``<!--`` is kept as text.
- **Character references** (``&#39;``, ``&quot;``, ``&amp;``, ``&#x2014;``) outside code are the
  characters they name (``character_references``), as CommonMark shows them: "Google&#39;s" was
  quoted as written and searched as "Google", "39", "s". A reference that names a character of
  Markdown's or HTML's own syntax (``&lt;``, ``&#35;``, ``&#96;``) stays as written, so it opens no
  tag, heading or code span for a later reader; so do an unknown or invalid one and one without its
  ``;``. A space (``&nbsp;``) is a space.
  (A line with HTML tags has its references read with its tags.)"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

MAX_HEADING_LINES = 6
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")  # a code fence's line: its run of backticks or tildes


def fenced_lines(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of ``text`` (with its line end) and whether it is fenced code: a fence's own lines
    and those between them, up to a fence of the same character, at least as long, with nothing
    after it (as ``html_headings`` reads them)."""
    fence = ""
    for line in text.splitlines(keepends=True):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line.strip(" `~\r\n"):
                fence = ""
            yield line, True
        elif opened:
            fence = opened.group(1)
            yield line, True
        else:
            yield line, False
#: a character reference, named or numeric, with its closing ``;`` (``&para`` in a URL's query is none)
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
#: characters a reference keeps as written: decoded, they would be read as markup
_SYNTAX = frozenset("<>#`*_[]|\\~")


def _character(match: re.Match[str]) -> str:
    """The character(s) a reference names, or the reference when it names markup or nothing."""
    shown = html.unescape(match.group())
    if shown.isspace():
        return " "  # ``&nbsp;``, ``&#9;``: a space between words
    if not shown or shown == match.group() or "\ufffd" in shown or not shown.isprintable() or any(c in _SYNTAX for c in shown):
        return match.group()  # unknown, invalid (``&#0;``), a control character or markup
    return shown


def character_references(text: str) -> str:
    """``text`` (Markdown) with its character references outside code (fenced, indented after a
    blank line, or an inline code span) read as the characters they name (module docstring)."""
    if "&" not in text or ";" not in text:
        return text
    out: list[str] = []
    code = False  # the line before was of an indented code block
    blank = True
    for line, fenced in fenced_lines(text):
        indented = not fenced and line.startswith(("    ", "\t")) and (blank or code)
        code = indented
        blank = not line.strip()
        if fenced or indented or "&" not in line:
            out.append(line)
            continue
        pieces, pos = [], 0
        for start, end in code_spans(line):
            pieces += [_REFERENCE.sub(_character, line[pos:start]), line[start:end]]
            pos = end
        pieces.append(_REFERENCE.sub(_character, line[pos:]))
        out.append("".join(pieces))
    return "".join(out)


_OPEN = re.compile(r"^[ \t]{0,3}<h([1-6])\b", re.IGNORECASE)
_TAG = re.compile(r"<[^<>]{0,2000}>")
#: tags of HTML's own vocabulary that show no text of their own (their content is kept)
_HTML_TAGS = ("a|abbr|article|aside|b|big|blockquote|br|caption|center|cite|code|dd|del|details|div|dl|dt|em|"
              "figcaption|figure|font|footer|header|hr|i|img|ins|kbd|li|main|mark|nav|ol|p|picture|pre|q|s|samp|"
              "section|small|source|span|strike|strong|sub|summary|sup|table|tbody|td|tfoot|th|thead|time|tr|tt|u|"
              "ul|var|video")
_ELEMENT = re.compile(rf"</?(?:{_HTML_TAGS})(?:\s[^<>]{{0,2000}})?/?>", re.IGNORECASE)
#: a tag of HTML's own that a line opens and leaves for the next to close (``We use a <span`` and ``name="ip">world</span>``)
_OPEN_TAG = re.compile(rf"<(?:{_HTML_TAGS})(?:\s[^<>]{{0,2000}})?$", re.IGNORECASE)
MAX_TAG_LINES = 4  # lines one tag may span
_ITEM = re.compile(r"<li(?:\s[^<>]{0,2000})?>", re.IGNORECASE)
_BREAK = re.compile(r"</tr\s*>|<br\s*/?>", re.IGNORECASE)  # a table row's end, a line break
#: a pipe table's row: "| `net.host.ip` | ![Deprecated](…)<br>Replaced by … | string |"
_PIPE_ROW = re.compile(r"^ {0,3}\|.*\|")
_CELL = re.compile(r"</t[dh]\s*>\s*<t[dh](?:\s[^<>]{0,2000})?>", re.IGNORECASE)
_TICKS = re.compile(r"`+")


def html_headings(text: str) -> str:
    """``text`` with its block-level HTML headings written as ``#`` headings, its comments and its
    other HTML tags taken out (``<li>`` a list item), outside code."""
    if "<" not in text:
        return text
    lines = text.split("\n")
    closes = _closes_after(lines) if "<!--" in text else []
    out: list[str] = []
    fence = ""
    code = False  # the line before was of an indented code block
    comment = False  # inside a comment that a later line closes
    joined = 0  # lines joined so far to close an open tag
    i = 0
    while i < len(lines):
        line = lines[i]
        if comment:  # a comment shows nothing: the lines it spans leave nothing
            end = line.find("-->")
            if end < 0:
                i += 1
                continue
            comment, line = False, line[end + 3:]
            if not line.strip():
                i += 1
                continue
            lines[i] = line  # the text after it is read as any line is
        marker = FENCE.match(line)
        if fence:  # inside code: a fence of the same character, at least as long, closes it
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = ""
        elif marker:
            fence = marker.group(1)
        else:
            if "<!--" in line:  # a comment, also in an indented line (a list item's, as often as code's)
                kept, comment = _uncommented(line, closes[i])
                if kept != line:
                    if not kept.strip():  # a line a comment filled is blank
                        out.append("")
                        i += 1
                        continue
                    lines[i] = line = kept
            heading = _heading(lines, i)
            if heading is not None:
                level, words, i = heading
                if words:
                    out.append(f"{'#' * level} {words}")
                continue
            # an indented code block: four spaces in, after a blank line or another such line
            indented = line.startswith(("    ", "\t")) and (not out or not out[-1].strip() or code)
            code = indented
            if "<" in line and not indented and i + 1 < len(lines) and lines[i + 1].strip() and joined < MAX_TAG_LINES \
                    and _OPEN_TAG.search(line) and not FENCE.match(lines[i + 1]):
                lines[i + 1] = f"{line.rstrip()} {lines[i + 1].lstrip()}"  # its tag ends on the next line: read as one
                joined += 1
                i += 1
                continue
            joined = 0
            if "<" in line and not indented:
                shown = _shown(line)
                i += 1
                if shown is not None:
                    out.append(shown)
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _closes_after(lines: list[str]) -> list[bool]:
    """For each line, whether a later line holds a comment's end (``-->``): one pass from the end."""
    closes = [False] * len(lines)
    seen = False
    for k in range(len(lines) - 1, -1, -1):
        closes[k] = seen
        seen = seen or "-->" in lines[k]
    return closes


def _uncommented(line: str, closed_later: bool) -> tuple[str, bool]:
    """``line`` without its HTML comments outside code spans, and whether a comment it opens runs
    on past it (a later line closes it); a comment nothing closes is kept as text. One pass over
    the line: each search starts where the last ended."""
    spans = code_spans(line)
    pieces: list[str] = []
    pos, k = 0, 0
    at = line.find("<!--")
    while at >= 0:
        while k < len(spans) and spans[k][1] <= at:
            k += 1
        if k < len(spans) and spans[k][0] <= at:  # in a code span: as written
            at = line.find("<!--", spans[k][1])
            continue
        end = line.find("-->", at + 4)
        if end < 0:
            if closed_later:
                pieces.append(line[pos:at])
                return "".join(pieces), True
            break
        pieces.append(line[pos:at])
        pos = end + 3
        at = line.find("<!--", pos)
    pieces.append(line[pos:])
    return "".join(pieces), False


def _heading(lines: list[str], i: int) -> tuple[int, str, int] | None:
    """``(level, text, next line)`` for an HTML heading starting at line ``i``, else None."""
    opened = _OPEN.match(lines[i])
    if not opened:
        return None
    close = re.compile(rf"</h{opened.group(1)}\s*>[ \t]*$", re.IGNORECASE)
    for j in range(i, min(i + MAX_HEADING_LINES, len(lines))):
        if close.search(lines[j]):
            inner = "\n".join(lines[i : j + 1])
            words = " ".join(html.unescape(_TAG.sub(" ", inner)).split())
            return int(opened.group(1)), words, j + 1
    return None


def _shown(line: str) -> str | None:
    """``line`` as it shows: its HTML tags out, but in code spans; None for a line of tags only."""
    if not _ELEMENT.search(line):
        return line
    row = _PIPE_ROW.match(line) is not None
    pieces, pos = [], 0
    for start, end in code_spans(line):
        pieces += [_untagged(line[pos:start], row=row), line[start:end]]
        pos = end
    pieces.append(_untagged(line[pos:], row=row))
    out = [part.strip() for part in "".join(pieces).split("\n")]
    return "\n".join(part for part in out if part) or None


def code_spans(line: str) -> list[tuple[int, int]]:
    """The inline code spans of ``line`` as (start, end): a run of backticks to the next run as
    long (CommonMark's rule), found in one pass from the right, so a line of many unmatched runs
    takes linear time."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for k in range(len(runs) - 1, -1, -1):
        size = runs[k][1] - runs[k][0]
        following[k] = last.get(size)
        last[size] = k
    spans, k = [], 0
    while k < len(runs):
        j = following[k]
        if j is None:
            k += 1
            continue
        spans.append((runs[k][0], runs[j][1]))
        k = j + 1
    return spans


def html_text(text: str) -> str:
    """``text`` (no code in it) with HTML's own tags taken out and runs of spaces made one: what
    AsciiDoc's ``pass:[<span class="keep-together">Field tag</span>]`` shows."""
    return " ".join(html.unescape(_ELEMENT.sub(" ", text)).split()) if _ELEMENT.search(text) else text


def _untagged(text: str, *, row: bool = False) -> str:
    """``text`` (no code in it) without its HTML tags, a list item starting a line, runs of
    spaces as one; a line break within a pipe table's ``row`` a space."""
    text = _ITEM.sub("\n- ", _CELL.sub(" | ", _BREAK.sub(" " if row else "\n", text)))
    text = html.unescape(_ELEMENT.sub(" ", text))
    return "\n".join(re.sub(r"[ \t]+", " ", part) for part in text.split("\n"))


def without_html_comments(text: str) -> str:
    """``text`` without its HTML comments (``<!-- … -->``, over as many lines as they span); an
    ``<!--`` that nothing closes, and all after it, stays. Each comment's end is looked for once, so
    a file of unclosed ``<!--`` is read in linear time (a lazy ``<!--.*?-->`` took quadratic time)."""
    kept: list[str] = []
    at = 0
    while (start := text.find("<!--", at)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        kept.append(text[at:start])
        at = end + 3
    kept.append(text[at:])
    return "".join(kept)


__all__ = ["FENCE", "code_spans", "html_headings", "html_text", "without_html_comments"]
