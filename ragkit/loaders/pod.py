"""Perl's Plain Old Documentation (``.pod``, and the POD in a ``.pm`` module; loader ``pod``), read with no extra package.

POD is the markup of Perl's manuals and of the documentation a module carries beside its code.
Read as plain text, an answer quoted its markup (``B<--port>``, ``C<< $a <=> $b >>``,
``E<gt>``) and a module's ``=item`` lists were lines of commands that no heading cut. The loader
writes the file out as Markdown-structured text, so the splitter cuts at its sections and names
them, one pass over the lines (perlpod, perlpodspec):

- POD starts at a line beginning with ``=`` and a command (``=pod``, ``=head1`` …) and ends at
  ``=cut``; what lies outside it is the module's code, a fenced ``perl`` block where it stands (a
  ``.pod`` file's text outside POD is kept as text); ``__END__`` and ``__DATA__`` end the code
  (POD may follow them, the data they open is left out).
- ``=head1 NAME`` and its line (``Foo::Bar - does things``) give the ``title`` (``Foo::Bar``), a
  ``#`` heading over the whole text, and the line is its first paragraph; without a NAME the
  first ``=head1`` is the title, else the file's stem. ``=head1`` … ``=head6`` become ``##`` …
  ``######`` (Pod::Weaver's ``=method``, ``=attr`` and ``=func`` a ``###``).
- ``=over`` … ``=back`` is a list: ``=item *`` a ``-`` item, ``=item 1.`` a numbered one, any
  other ``=item`` a term, ``- term: its first paragraph``; the paragraphs after an item are
  indented under it, a list in it by four spaces more (up to 20 deep).
- A verbatim paragraph (its lines indented) is fenced code, its common indent taken off, in
  ``perl`` (``console`` when it opens with a ``$`` prompt); verbatim paragraphs in a row are
  one block.
- ``=begin text`` / ``=begin markdown`` … ``=end`` and ``=for text …`` keep their text as
  written; other formats (``html``, ``man``, ``comment`` …) are left out, as are ``=encoding``
  and ``=pod``.
- Formatting codes: ``I<…>``, ``B<…>``, ``S<…>`` are their text, ``C<…>`` and ``F<…>`` code spans,
  ``L<text|target>`` its text, ``L<name>`` the name, ``L<name/"section">`` ``"section" in name``,
  ``L<https://…>`` the address; ``E<…>`` the character it names (``lt``, ``gt``, ``verbar``,
  ``sol``, a number, an HTML entity's name); ``X<…>`` and ``Z<>`` go. ``C<< … >>`` and its kin
  with more brackets close at as many ``>`` after a space. Codes nest (``B<C<foo>>``); they are
  rewritten by one scan with an explicit stack, codes deeper than 16 written as they stand.

Malformed POD is written out as well as can be: an unclosed code as written, an ``=item``
outside a list as an item, an unknown command's text as a paragraph, ``=back`` or ``=end``
without their opener ignored. Every step is linear in the file's length.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from ragkit.loaders.base import MarkupLoader, code_fence, escape_markdown_line
from ragkit.registry import loaders

_COMMAND = re.compile(r"=([A-Za-z][A-Za-z0-9_]*)")  # a line that opens a command paragraph
_CUT = re.compile(r"=cut(?![A-Za-z0-9_])")
_END_OF_CODE = re.compile(r"__(?:END|DATA)__(?![A-Za-z0-9_])")
_CODE_LETTER = re.compile(r"[A-Z]<|>")  # where a formatting code opens or may close
_OPENER = re.compile(r"[A-Z](<+)([ \t\n]*)")
#: "=item *", "=item 3." or "=item 3" alone (else a term: "=item 2005 release" is no number)
_BULLET = re.compile(r"(?:\*|([0-9]{1,9})\.)(?:[ \t]+|$)|([0-9]{1,9})$")
_TICKS = re.compile(r"`+")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}:[^\s:]")
_ENTITY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,31}")
_NUMBER = re.compile(r"0[xX][0-9A-Fa-f]{1,8}|[0-9]{1,10}")

_MAX_LISTS = 20  # =over levels that indent; deeper ones stay at the deepest indent
_MAX_REGIONS = 20  # =begin regions tracked by name; deeper ones only counted
_MAX_CODES = 16  # formatting codes rewritten; deeper ones written as they stand
_KEPT_FORMATS = frozenset({"text", "markdown"})
_HEADINGS = {f"head{n}": n for n in range(1, 7)} | {"method": 2, "attr": 2, "func": 2}
_ESCAPES = {"lt": "<", "gt": ">", "verbar": "\ue010", "sol": "\ue011"}
# "|" and "/" written by E<verbar> and E<sol> are no link's separators: placeholders until the paragraph is done
_RESTORE = str.maketrans({"\ue010": "|", "\ue011": "/"})


@loaders.register("pod")
class PodLoader(MarkupLoader):
    """One document of a POD file or a Perl module: its documentation as Markdown, its code fenced."""

    name = "pod"
    mime = "text/x-pod"
    version = 2  # 2: a line indented up to three spaces that starts like a heading or a fence is escaped

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        code = None if path.suffix.lower() == ".pod" else "perl"
        return pod_to_markdown(text, name=path.stem, code=code)


def pod_to_markdown(pod: str, *, name: str = "", code: str | None = "perl") -> tuple[str, str | None]:
    """``pod`` (a POD file or a Perl source holding POD) as Markdown-structured text under a ``#``
    title, and its title (from ``=head1 NAME``, else the first ``=head1``; ``None`` without
    either, when ``name`` heads the text). ``code``: the language of text outside POD (``None``:
    kept as text)."""
    return _Converter(code).convert(pod.split("\n"), name)


@dataclass
class _Level:
    """One ``=over`` list."""

    has_item: bool = False


@dataclass
class _Region:
    """One ``=begin FORMAT`` region."""

    format: str
    keep: bool
    data: bool  # its paragraphs are data, kept as written (a format not marked ":")


@dataclass
class _Block:
    text: str
    item: bool = False  # a list item's line: items in a row are not parted by a blank line


@dataclass
class _Converter:
    """The state of one pass over a file's lines."""

    code: str | None
    blocks: list[_Block | None] = field(default_factory=list)
    levels: list[_Level] = field(default_factory=list)
    deeper_lists: int = 0
    regions: list[_Region] = field(default_factory=list)
    deeper_regions: int = 0
    pending: str | None = None  # an item's marker (and term) waiting for its first paragraph
    verbatim: list[str] = field(default_factory=list)  # verbatim paragraphs in a row
    name_next: bool = False  # the paragraph after =head1 NAME names the document
    named: str | None = None  # the title the NAME line gives
    first_head: tuple[str, int] | None = None  # the first =head1 (not NAME) and its block's index

    def convert(self, lines: list[str], name: str) -> tuple[str, str | None]:
        mode = "code"  # "code", "pod", or "data" (after __END__, outside POD)
        after_end = False
        code: list[str] = []
        para: list[str] = []
        for line in lines:
            if mode != "pod":
                if _COMMAND.match(line):
                    if _CUT.match(line):
                        continue  # a stray =cut
                    self._code(code)
                    code, para, mode = [], [line], "pod"
                elif mode == "code" and _END_OF_CODE.match(line):
                    self._code(code)
                    code, mode, after_end = [], "data", True
                elif mode == "code":
                    code.append(line)
                continue
            if _CUT.match(line):
                self._paragraph(para)
                self._verbatim()
                para, mode = [], "data" if after_end else "code"
                self.regions, self.deeper_regions = [], 0  # a region left open ends with its POD
            elif not line.strip():
                self._paragraph(para)
                para = []
            elif _COMMAND.match(line):
                self._paragraph(para)
                para = [line]
            else:
                para.append(line)
        self._paragraph(para)
        self._verbatim()
        self._flush_pending()
        self._code(code)
        return self._text(name)

    def _text(self, name: str) -> tuple[str, str | None]:
        title = self.named
        if title is None and self.first_head is not None:
            title, index = self.first_head
            self.blocks[index] = None  # the title's heading is the "#" above
        blocks = [b for b in self.blocks if b is not None]
        if title or name:
            blocks.insert(0, _Block(f"# {title or name}"))
        parts: list[str] = []
        for k, block in enumerate(blocks):
            if k:
                parts.append("\n" if block.item and blocks[k - 1].item else "\n\n")
            parts.append(block.text)
        return "".join(parts).strip("\n") + "\n", title

    # ------------------------------------------------------------------ paragraphs
    def _paragraph(self, lines: list[str]) -> None:
        if not lines:
            return
        first = lines[0]
        command = _COMMAND.match(first)
        if command:
            self._verbatim()
            rest = [first[command.end():], *lines[1:]]
            self._command(command.group(1), rest)
            return
        if self._dropping():
            return
        if self.regions and self.regions[-1].data:
            self._verbatim()
            self._data(lines)
        elif first[:1] in (" ", "\t"):
            if self.verbatim and _language(self.verbatim) != _language(lines):
                self._verbatim()  # a shell session after Perl code is a block of its own
            if self.verbatim:
                self.verbatim.append("")
            self.verbatim += lines
        else:
            self._verbatim()
            self._ordinary(_codes(" ".join(line.strip() for line in lines)))

    def _command(self, name: str, lines: list[str]) -> None:
        text = " ".join(line.strip() for line in lines).strip()
        if name in ("begin", "end", "for"):
            self._region(name, text, lines)
            return
        if self._dropping():
            return
        self.name_next = False  # only the paragraph right after "=head1 NAME" names the document
        if name in _HEADINGS:
            self._heading(_HEADINGS[name], lines)
        elif name == "over":
            self._flush_pending()
            if len(self.levels) < _MAX_LISTS:
                self.levels.append(_Level())
            else:
                self.deeper_lists += 1
        elif name == "back":
            self._flush_pending()
            if self.deeper_lists:
                self.deeper_lists -= 1
            elif self.levels:
                self.levels.pop()
        elif name == "item":
            self._item(text)
        elif name in ("pod", "encoding"):
            if name == "pod" and text:
                self._ordinary(_codes(text))  # "=pod" opens POD; text on its line is still read
        elif text:  # an unknown command: its text as a paragraph
            self._ordinary(_codes(text))

    def _heading(self, level: int, lines: list[str]) -> None:
        self._flush_pending()
        self.levels, self.deeper_lists = [], 0
        first = _codes(lines[0].strip(), plain=True)
        if level == 1 and first.strip().upper() == "NAME":
            self.name_next = True
            if len(lines) > 1:  # "=head1 NAME" with its line under it, no blank line between
                self._ordinary(_codes(" ".join(line.strip() for line in lines[1:])))
            return
        self.name_next = False
        heading = _codes(" ".join(line.strip() for line in lines).strip(), plain=True).strip()
        if not heading:
            return
        if level == 1 and self.first_head is None:
            self.first_head = (heading, len(self.blocks))
        self.blocks.append(_Block(f"{'#' * min(level + 1, 6)} {heading}"))

    def _item(self, text: str) -> None:
        self._flush_pending()
        if not self.levels:  # an item outside =over: a list of its own
            self.levels.append(_Level())
        indent = " " * (4 * sum(level.has_item for level in self.levels[:-1]))
        self.levels[-1].has_item = True
        marked = _BULLET.match(text)
        if marked:
            number = marked.group(1) or marked.group(2)
            marker = f"{number}. " if number else "- "
            body = text[marked.end():]
            if body:
                self.blocks.append(_Block(indent + marker + _codes(body), item=True))
            else:
                self.pending = indent + marker
            return
        self.pending = indent + "- " + _codes(text)

    def _region(self, name: str, text: str, lines: list[str]) -> None:
        fmt = text.split(None, 1)[0] if text else ""
        data = not fmt.startswith(":")
        keep = fmt.lstrip(":").lower() in _KEPT_FORMATS or not fmt
        if name == "begin":
            if len(self.regions) < _MAX_REGIONS:
                self.regions.append(_Region(fmt, keep, data and bool(fmt)))
            else:
                self.deeper_regions += 1
        elif name == "end":
            if self.deeper_regions:
                self.deeper_regions -= 1
                return
            for k in range(len(self.regions) - 1, -1, -1):
                if not fmt or self.regions[k].format == fmt:
                    del self.regions[k:]
                    break
        elif keep and not self._dropping() and fmt:
            words = lines[0].split(None, 1)  # "=for text" and the line's text after its format
            body = [words[1], *lines[1:]] if len(words) > 1 else lines[1:]
            if not body:
                return
            if data:
                self._data(body)
            else:
                self._ordinary(_codes(" ".join(line.strip() for line in body)))

    # ------------------------------------------------------------------ output
    def _dropping(self) -> bool:
        return any(not region.keep for region in self.regions)

    def _indent(self) -> str:
        """The indent of a paragraph in the current item (none outside lists)."""
        return " " * (4 * sum(level.has_item for level in self.levels))

    def _ordinary(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if self.name_next:
            self.name_next = False
            self.named = self.named or _name_of(text.replace("`", ""))
        if self.pending is not None:
            marker, self.pending = self.pending, None
            if marker.endswith(" "):  # "- " or "1. ": the paragraph is the item's text
                self.blocks.append(_Block(marker + text, item=True))
            else:  # a term: "- term: description"
                self.blocks.append(_Block(marker + (" " if marker.endswith(":") else ": ") + text, item=True))
            return
        self.blocks.append(_Block(self._indent() + escape_markdown_line(text)))

    def _data(self, lines: list[str]) -> None:
        """A paragraph of a ``text`` or ``markdown`` region: its lines as written."""
        self.name_next = False
        markdown = bool(self.regions) and self.regions[-1].format.lower() == "markdown"
        if not markdown:
            lines = [escape_markdown_line(line) for line in lines]
        if self.pending is not None:
            self._ordinary(lines[0])
            lines = lines[1:]
        indent = self._indent()
        if lines:
            self.blocks.append(_Block("\n".join(indent + line if line.strip() else "" for line in lines)))

    def _flush_pending(self) -> None:
        if self.pending is not None:
            self.blocks.append(_Block(self.pending.rstrip(), item=True))
            self.pending = None

    def _verbatim(self) -> None:
        if not self.verbatim:
            return
        lines, self.verbatim = self.verbatim, []
        self.name_next = False
        self._flush_pending()
        lines = _dedent([line.expandtabs(8).rstrip() for line in lines])
        self._fence(lines, _language(lines), self._indent())

    def _code(self, lines: list[str]) -> None:
        """Text outside POD: the module's code, fenced (a ``.pod`` file's: its text)."""
        while lines and not lines[-1].strip():
            lines.pop()
        start = next((k for k, line in enumerate(lines) if line.strip()), len(lines))
        lines = lines[start:]
        if not lines:
            return
        self._flush_pending()
        if self.code is None:
            self._data(lines)
        else:
            self._fence(lines, self.code, "")

    def _fence(self, lines: list[str], language: str, indent: str) -> None:
        fence = code_fence("\n".join(lines))
        self.blocks.append(_Block("\n".join(indent + line if line else "" for line in
                                            [fence + language, *lines, fence])))


def _language(lines: list[str]) -> str:
    """A verbatim paragraph's language: ``console`` when it opens with a ``$`` prompt, else ``perl``."""
    first = next((line for line in lines if line.strip()), "")
    return "console" if first.lstrip().startswith("$ ") else "perl"


def _dedent(lines: list[str]) -> list[str]:
    """``lines`` without the indent they all share (blank lines aside)."""
    margin = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    return [line[margin:] for line in lines]


def _name_of(line: str) -> str | None:
    """The name a NAME paragraph gives (``Foo::Bar - does things`` -> ``Foo::Bar``)."""
    words = line.split(None, 50)
    for k, word in enumerate(words[:50]):
        if word in ("-", "--", "\u2013", "\u2014"):
            return " ".join(words[:k]) or None
    return line if len(line) <= 100 else (words[0] if words else None)


# ---------------------------------------------------------------------- formatting codes
@dataclass
class _Code:
    letter: str
    closer: str  # ">" or ">>" … (after whitespace)
    start: int  # the index of its opener in the output pieces
    live: bool  # rewritten (else written as it stands: too deep)


def _codes(text: str, *, plain: bool = False) -> str:
    """``text`` (one paragraph) with its formatting codes rewritten, in one scan with an explicit
    stack; ``plain``: ``C<>`` and ``F<>`` as their text (a heading's), not code spans."""
    if "<" not in text:
        return text
    out: list[str] = []
    stack: list[_Code] = []
    live = 0  # the codes rewritten that are open
    in_code = 0  # the C<> and F<> codes open (a code span in a code span is its text)
    pos = 0
    while (found := _CODE_LETTER.search(text, pos)) is not None:
        i = found.start()
        out.append(text[pos:i])
        if text[i] == ">":
            top = stack[-1] if stack else None
            n = len(top.closer) if top else 0
            if top is None or (n > 1 and not (text[i - 1] in " \t\n" and text.startswith(top.closer, i))):
                out.append(">")
                pos = i + 1
                continue
            stack.pop()
            pos = i + n
            if not top.live:
                out.append(top.closer)
                continue
            live -= 1
            if top.letter in "CF":
                in_code -= 1
            if n > 1:
                _strip_end(out, top.start)
            _close(out, top, code_span=not plain and top.letter in "CF" and not in_code)
            continue
        opener = _OPENER.match(text, i)
        assert opener is not None  # "[A-Z]<" matched here
        brackets, space = opener.group(1), opener.group(2)
        if len(brackets) > 1 and space:
            closer, pos = ">" * len(brackets), opener.end()
        else:
            closer, pos = ">", i + 2
        out.append(text[i:pos])  # the opener as written, until the code closes
        code = _Code(text[i], closer, len(out) - 1, live < _MAX_CODES)
        stack.append(code)
        if code.live:
            live += 1
            in_code += code.letter in "CF"
    out.append(text[pos:])
    return "".join(out).translate(_RESTORE)


def _strip_end(out: list[str], start: int) -> None:
    """Take the space before a ``>>`` closer off the code's text."""
    while len(out) > start + 1:
        piece = out[-1].rstrip()
        if piece:
            out[-1] = piece
            return
        out.pop()


def _close(out: list[str], code: _Code, *, code_span: bool) -> None:
    """Rewrite a closed code: its opener's piece and the pieces of its text after it."""
    letter, start = code.letter, code.start
    if letter in "XZ":
        del out[start:]
    elif letter in "LE" or code_span:
        body = "".join(out[start + 1:])
        del out[start:]
        out.append(_span(body) if code_span else _link(body) if letter == "L" else _escape(body))
    else:  # I, B, S, C in a code span, an unknown letter: the text
        out[start] = ""


def _span(body: str) -> str:
    """``body`` as a Markdown code span, with more backticks around it than it holds in a row."""
    if not body.strip():
        return ""
    ticks = "`" * (max((len(run) for run in _TICKS.findall(body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def _link(body: str) -> str:
    """What an ``L<…>`` reads as: its text, else the page and section it names, else its address."""
    text, bar, target = body.partition("|")
    if bar and text.strip():
        return text.strip()
    target = (target if bar else body).strip()
    if _URL.match(target):
        return target
    page, slash, section = target.partition("/")
    if not slash:
        return target
    section = section.strip().strip('"').strip()
    if not section:
        return page.strip()
    return f'"{section}" in {page.strip()}' if page.strip() else f'"{section}"'


def _escape(body: str) -> str:
    """The character an ``E<…>`` names, else the code as written."""
    name = body.strip()
    if name in _ESCAPES:
        return _ESCAPES[name]
    if _NUMBER.fullmatch(name):
        if name[:2].lower() == "0x":
            point = int(name, 16)
        elif name.startswith("0") and len(name) > 1 and set(name) <= set("01234567"):
            point = int(name, 8)
        else:
            point = int(name)
        if 0 < point <= 0x10FFFF and not 0xD800 <= point <= 0xDFFF:
            return chr(point)
    elif _ENTITY_NAME.fullmatch(name):
        character = html.unescape(f"&{name};")
        if character != f"&{name};":
            return character
    return f"E<{body}>"


__all__ = ["PodLoader", "pod_to_markdown"]
