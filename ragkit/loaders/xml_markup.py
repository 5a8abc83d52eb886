"""XML documents (``.xml``, loader ``xml``) read with lxml (python-docx's dependency) as the text a
reader of the rendered document sees, written out as Markdown-structured text.

A paragraph is an element that holds text of its own (a ``<p>`` with ``<em>``, ``<link>`` or
entity references inside): its whole text, inline elements and the text after them included, on
one line. An element that holds only elements is a container: a section when a ``topic`` or
``title`` attribute or a first ``<title>`` child names it (a heading one level deeper than the
section it is in), else its children one after the other. Table rows (``<tr>``, ``<row>``) are
Markdown table rows, the first one the header; list items (``<li>``, ``<item>``, ``<listitem>``)
are ``-`` items, a definition list's terms and definitions (``<dt>``/``<dd>``, ``<term>``/
``<listitem>``) ``- term: definition`` items; examples and program listings (``<example>``, ``<code>``, ``<pre>``,
``<programlisting>``, ``<screen>``) are fenced code, after their ``caption`` (a table's caption is
a ``Table: …`` line after it, so the sentence before a table leads it). A short value in an
element whose name is no prose element (``<version>0.3.1</version>``, ``<status>Deferred</status>``)
is written with its name, ``version: 0.3.1``, since the name says what the value is.

Markup the file writes as text (``&lt;not-acceptable/&gt;``) is a code span. Entities are never
expanded: a reference the file's DTD would define (``&rfc6120;`` in an XMPP
draft) is written as its name, ``rfc6120``, an HTML character name (``&mdash;``) as its character.
The parser loads no DTD and nothing from the network and refuses trees deeper than lxml's limit.
A file that is not well-formed (an HTML page saved as ``.xml``) is read as lxml's recovering parser
reads it, one with no element at all (``404: Not Found.``) as its text; one the recovering parser
rejects too is skipped with its reason. ``title`` is the first ``<title>`` element's text, else the
file's stem.
"""

from __future__ import annotations

import html.entities
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, local_name, read_text, strip_encoded_data, unreadable, xml_parser
from ragkit.registry import loaders
from ragkit.types import Document

_TITLES = frozenset({"title", "head", "heading"})
_ROWS = frozenset({"tr", "row"})
_ITEMS = frozenset({"li", "item", "listitem"})
_CODE = frozenset({"example", "code", "pre", "programlisting", "screen", "sourcecode", "literallayout"})
#: elements of running text: their value is never labelled with their name
_PROSE = frozenset({
    "p", "para", "simpara", "li", "item", "listitem", "td", "th", "entry", "cell", "note", "abstract",
    "remark", "dd", "dt", "caption", "quote", "blockquote", "summary", "description", "desc", "text",
    "span", "em", "strong", "b", "i", "link", "a", "term", "definition", "sentence", "body", "section",
    "div", "name", "label", "comment", "footnote",
} | _TITLES)
_LABEL_WORDS = 6  # a labelled value has at most this many words
_MAX_DEPTH = 200  # deeper containers are read as one paragraph (lxml refuses trees past 256)
_SPACE = re.compile(r"\s+")
_LITERAL_TAG = re.compile(r"(?<!`)</?[A-Za-z][\w:.-]*(?:\s[^<>`]*)?/?>(?!`)")
#: a named element's attributes that say what it holds (``<member name="speed" type="float" default="2.0">``)
_NAMED_VALUES = ("type", "default", "value")
# Godot's BBCode (``_bbcode_blocks``)
# (no pattern reaches past the next bracket it must not cross: a line of unclosed tags is read in
# linear time)
_BB_CODEBLOCK_OPEN = re.compile(r"\[codeblocks?\]")
_BB_CODEBLOCK_CLOSE = re.compile(r"\[/codeblocks?\]")
_BB_LANGUAGE = re.compile(r"\[/?(?:gdscript|csharp|text)[^\[\]]*\]")
_BB_CODE = re.compile(r"\[(?:code|kbd)(?: [^\[\]]*)?\]((?:[^\[]|\[(?!/?(?:code|kbd)\b))*)\[/(?:code|kbd)\]")
_BB_FORMAT = re.compile(r"\[/?(?:b|i|u|s|br|center|url|color|font)(?:=[^\[\]]*)?\]")
_BB_REFERENCE = re.compile(
    r"\[(?:member|method|signal|constant|enum|param|annotation|constructor|operator|theme_item) ([^\[\]\s]+)\]")
_BB_CLASS = re.compile(r"\[([A-Z@][\w.]*)\]")
_TERMS = frozenset({"dt", "term"})  # a definition list's term, then its definition
_DEFINITIONS = frozenset({"dd", "definition", "listitem"})


@loaders.register("xml")
class XmlLoader(Loader):
    """One document of an ``.xml`` file: its text with sections as headings."""

    name = "xml"
    mime = "application/xml"
    # 2: an element named by a ``name`` attribute heads its text (a section, or a labelled value);
    # a Godot class reference's BBCode is read as its rendered page shows it
    version = 2

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        root = _parse(path)
        if root is None:  # no element: its text as it is
            text, title = read_text(path).strip(), ""
        else:
            blocks: list[str] = []
            _blocks(root, 0, blocks, bbcode=_godot_class(root))
            text = strip_encoded_data("\n\n".join(b for b in blocks if b.strip()))
            title = next((t for el in root.iter() if isinstance(el.tag, str) and _local(el.tag) == "title"
                          and (t := _inline(el))), "")
        if not text.strip():
            raise LoaderError(f"{path}: the XML file contains no text", path=str(path), reason="empty file")
        meta = self._metadata(source, title=title or path.stem, markup="markdown")
        return iter([Document(text=text + "\n", metadata=meta)])


def _parse(path: Path) -> Any:
    """The file's root element: parsed strictly, else by lxml's recovering parser (an HTML page
    saved as ``.xml``, an unclosed tag), else None (no element at all: text saved as ``.xml``)."""
    from lxml import etree  # python-docx's dependency, so always there

    data = path.read_bytes()
    for recover in (False, True):
        try:
            root = etree.fromstring(data, xml_parser(recover=recover))
        except (etree.XMLSyntaxError, ValueError) as exc:
            if recover:
                raise unreadable(path, exc, what="XML file", fix="fix the XML, or map .xml to another "
                                 "loader under loaders: in the pipeline") from None
            continue
        if root is not None or recover:
            return root
    return None


def _local(tag: str) -> str:
    return local_name(tag).lower()


def _element_children(el: Any) -> list[Any]:
    return [c for c in el if isinstance(c.tag, str)]


def _entity(node: Any) -> str:
    """An entity reference's text: an HTML character name's character, else the name."""
    name = str(node.text or "").strip("&;")
    return html.entities.html5.get(f"{name};", name)


def _own_text(el: Any) -> bool:
    """Whether ``el`` holds text of its own, before or between its children (an entity reference
    between elements, ``&LEGALNOTICE;`` in a header, stands for blocks the DTD would insert: it is
    left out)."""
    return bool((el.text or "").strip()) or any((c.tail or "").strip() for c in el)


def _inline(el: Any) -> str:
    """``el``'s text with its inline elements' and entities', on one line."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        parts.append(node.text or "")
        for child in node:
            if isinstance(child.tag, str):
                walk(child)
            elif child.tag is not None and "Entity" in type(child).__name__:
                parts.append(_entity(child))
            parts.append(child.tail or "")

    walk(el)
    # markup the file writes as text (``&lt;not-acceptable/&gt;``) is what a reader sees: a code
    # span, so that nothing downstream takes it for a tag of its own
    return _LITERAL_TAG.sub(lambda m: f"`{m.group()}`", _SPACE.sub(" ", "".join(parts)).strip())


def _code(el: Any) -> str:
    text = textwrap.dedent("".join(el.itertext())).strip("\n")
    fence = "````" if "```" in text else "```"
    return f"{fence}\n{text}\n{fence}" if text.strip() else ""


def _blocks(el: Any, depth: int, out: list[str], bbcode: bool = False) -> None:
    """Append the Markdown blocks of ``el``, a section in ``depth`` sections (``bbcode``: its text
    is a Godot class reference's, see ``_bbcode_blocks``)."""
    name = _local(el.tag)
    children = _element_children(el)
    if name in _CODE:
        if caption := (el.get("caption") or "").strip():
            out.append(caption)
        out.append(_code(el))
        return
    if any(_local(c.tag) in _ROWS for c in children):
        out.extend(_table(el, children))
        return
    if not children or _own_text(el) or depth >= _MAX_DEPTH:
        text = _inline(el)
        if not text:
            return
        named = (el.get("name") or "").strip()
        if named and (len(text.split()) > _LABEL_WORDS or text.endswith(".")):
            # a member, a parameter, a target the element documents: its name heads its text
            out.append(f"{'#' * min(depth + 1, 6)} {_SPACE.sub(' ', named)}")
            out.extend(f"{key}: {value}" for key in _NAMED_VALUES if (value := (el.get(key) or "").strip()))
            out.extend(_bbcode_blocks(el) if bbcode else [text])
            return
        if bbcode and name not in _ITEMS:
            out.extend(_bbcode_blocks(el))
        elif name in _ITEMS:
            out.append(f"- {text}")
        elif (label := named or (name if name not in _PROSE else "")) and len(text.split()) <= _LABEL_WORDS \
                and not text.endswith("."):
            out.append(f"{label}: {text}")
        else:
            out.append(text)
        return
    names = [_local(c.tag) for c in children]
    if names and names[0] in _TERMS and all(n in _TERMS | _DEFINITIONS for n in names):
        out.extend(_definitions(children))  # "<dt>max-bytes</dt><dd>Contains …</dd>": one item each
        return
    heading = (el.get("topic") or el.get("title") or el.get("name") or "").strip()
    first = children[0]
    if not heading and _local(first.tag) in _TITLES and not _element_children(first) and len(children) > 1:
        heading, children = _inline(first), children[1:]
    if heading:
        out.append(f"{'#' * min(depth + 1, 6)} {_SPACE.sub(' ', heading)}")
    for child in children:
        _blocks(child, depth + 1 if heading else depth, out, bbcode)


def _godot_class(root: Any) -> bool:
    """Whether the file is a Godot class reference (``<class name=…>`` with a
    ``<brief_description>``: the engine's and every extension's ``doc_classes``), whose text is
    written in Godot's BBCode."""
    return _local(root.tag) == "class" and any(_local(c.tag) == "brief_description" for c in _element_children(root))


def _bbcode_blocks(el: Any) -> list[str]:
    """A Godot class reference's text as a reader of the rendered page sees it: each line a
    paragraph, ``[codeblock]`` fenced, ``[code]x[/code]`` a code span, ``[member x]``,
    ``[method x]`` and ``[ClassName]`` the name, ``[b]``, ``[i]``, ``[url=…]`` their text."""
    raw = "".join(el.itertext())
    out: list[str] = []
    at = 0
    while (opened := _BB_CODEBLOCK_OPEN.search(raw, at)) and (closed := _BB_CODEBLOCK_CLOSE.search(raw, opened.end())):
        out += _bbcode_lines(raw[at : opened.start()])
        code = textwrap.dedent(_BB_LANGUAGE.sub("", raw[opened.end() : closed.start()]).strip("\n")).strip("\n")
        if code.strip():
            out.append(f"```\n{code}\n```")
        at = closed.end()
    return out + _bbcode_lines(raw[at:])


def _bbcode_lines(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = _BB_CODE.sub(lambda m: f"`{m.group(1)}`", _SPACE.sub(" ", line).strip())
        line = _BB_REFERENCE.sub(r"\1", _BB_FORMAT.sub("", line))
        line = _BB_CLASS.sub(r"\1", line).replace("[lb]", "[").replace("[rb]", "]")
        if line:
            out.append(line)
    return out


def _table(el: Any, children: list[Any]) -> list[str]:
    """A table's rows as a Markdown table (the first row the header), then its caption, if any."""
    out: list[str] = []
    caption = (el.get("caption") or "").strip()
    rows = [[_inline(cell).replace("|", "\\|") for cell in _element_children(row)]
            for row in children if _local(row.tag) in _ROWS]
    rows = [r for r in rows if any(r)]
    if not rows:
        return out
    width = max(len(r) for r in rows)
    lines = [f"| {' | '.join(r + [''] * (width - len(r)))} |" for r in rows]
    lines.insert(1, "|" + " --- |" * width)
    out.append("\n".join(lines))
    if caption:  # after the table: the sentence before it ("… implies the following:") leads it
        out.append(f"Table: {caption}")
    return out


def _definitions(children: list[Any]) -> list[str]:
    """A definition list's items, ``- term: definition``, a term without a definition alone."""
    out: list[str] = []
    term = ""
    for child in children:
        text = _inline(child)
        if _local(child.tag) in _TERMS:
            if term:
                out.append(f"- {term}")
            term = text
        elif text:
            out.append(f"- {term}: {text}" if term else f"- {text}")
            term = ""
    if term:
        out.append(f"- {term}")
    return out
