"""A docutils doctree as plain text in Markdown's structure: what the rst loader indexes.

Sections and object descriptions become ATX headings (``#`` per level), so the Markdown splitter
gives every chunk its heading path; code becomes fenced blocks (a ``#`` comment in code is never a
heading); inline literals and code roles are code spans (a heading's are its text); everything
else is plain text without markup: lists as ``-``/``1.`` items, tables as
``" | "``-joined rows, admonitions as ``Note: ...``, field lists as ``term: text`` lines (a
documented object's ``:param x:``/``:type x:`` fields as one ``- x (type): text`` item each, as
Sphinx shows them) and definition lists as ``- term: text`` items. Comments, targets, substitution
definitions, images, raw blocks and docutils' error messages leave nothing behind.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from docutils import nodes

from ragkit.loaders.base import code_fence, code_span
from ragkit.loaders.rst_sphinx import object_desc, release_line
from ragkit.loaders.sphinx_names import ADMONITIONS

_SPACES = re.compile(r"\s+")
_HEADING_LIKE = re.compile(r"^( {0,3})(#|```|~~~)", re.MULTILINE)
#: nodes that leave nothing in the text
_SILENT = (
    nodes.comment, nodes.target, nodes.substitution_definition, nodes.system_message, nodes.raw,
    nodes.image, nodes.pending, nodes.transition, nodes.decoration, nodes.docinfo, nodes.meta,
    nodes.footnote_reference, nodes.citation_reference,
)
#: fields Sphinx reads as file-wide metadata at the top of a document, not text
_FILE_FIELDS = frozenset({"orphan", "tocdepth", "nocomments", "nosearch"})


def inline_text(node: nodes.Node, *, code: bool = False) -> str:
    """The text of an inline run, markup gone and whitespace collapsed; with ``code``, an inline
    literal (````WARNING````, a Sphinx role's ``:func:`x```) stays a code span, as the Markdown of
    a page shows it (a heading's or a field name's literal is its text)."""
    return _SPACES.sub(" ", "".join(_inline(node, code))).strip()


def _inline(node: nodes.Node, code: bool) -> list[str]:
    if code and isinstance(node, nodes.literal):
        return [code_span(_SPACES.sub(" ", node.astext()).strip())]
    if isinstance(node, nodes.Text):
        return [node.astext()]  # backslash escapes resolved
    if isinstance(node, _SILENT):
        return []
    if isinstance(node, nodes.problematic):  # an unresolved reference: keep its words
        return [re.sub(r"^[`|]+|[`|_]+$", "", node.astext())]
    if isinstance(node, nodes.substitution_reference):  # |version| with no definition
        return [node.get("refname", node.astext())]
    if isinstance(node, nodes.title_reference):  # `x`: Sphinx's default role, shown as its target
        return [_default_role_text(node.astext())]
    return [piece for child in node.children for piece in _inline(child, code)]


class Renderer:
    """Walks a doctree once; :meth:`text` is the result."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        #: the first heading's text (the document's title), once one is written
        self.title: str | None = None

    def text(self, document: nodes.document) -> str:
        children = list(document.children)
        while children and isinstance(children[0], nodes.field_list) and _file_wide(children[0]):
            children.pop(0)
        for child in children:
            self.block(child, depth=0)
        return "\n\n".join(b for b in self.blocks if b.strip()).strip() + "\n"

    # ------------------------------------------------------------------ blocks
    def block(self, node: nodes.Node, depth: int) -> None:
        """Append the text of body element ``node``; ``depth`` is the number of enclosing headings."""
        if isinstance(node, _SILENT):
            return
        handler = self._handlers().get(type(node))
        if handler is not None:
            handler(node, depth)
        elif isinstance(node, nodes.Admonition):
            self._admonition(node, depth)
        elif isinstance(node, (nodes.TextElement, nodes.Text)):
            self._para(inline_text(node, code=True))
        else:  # containers: compound, container, block_quote, line_block, topic, sidebar, ...
            self._children(node, depth)

    def _handlers(self) -> dict[type, Callable[[nodes.Node, int], None]]:
        return {
            nodes.section: self._section, object_desc: self._object, nodes.literal_block: self._code,
            nodes.doctest_block: self._code, nodes.bullet_list: self._list, nodes.enumerated_list: self._list,
            nodes.definition_list: self._definitions, nodes.field_list: self._fields,
            nodes.option_list: self._options, nodes.table: self._table, nodes.topic: self._topic,
            nodes.line_block: self._lines, nodes.math_block: self._code,
        }

    def _children(self, node: nodes.Node, depth: int) -> None:
        for child in node.children:
            self.block(child, depth)

    def _para(self, text: str) -> None:
        if text:
            self.blocks.append(_HEADING_LIKE.sub(r"\1\\\2", text))  # a '#' line in prose is no heading

    def _heading(self, depth: int, title: str) -> None:
        if self.title is None and title:
            self.title = title
        self.blocks.append("#" * min(depth, 6) + " " + title)

    def _section(self, node: nodes.Node, depth: int) -> None:
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        self._heading(depth + 1, inline_text(title) if title is not None else "")
        self._body(node, depth + 1, title)

    def _object(self, node: nodes.Node, depth: int) -> None:
        name, signature = node["name"], node["signature"]
        if node.get("bare"):
            self._para(signature)
            return
        self._heading(depth + 1, name)
        if signature != name:
            self._para(signature)
        self._body(node, depth + 1, None)

    def _body(self, node: nodes.Node, depth: int, skip: nodes.Node | None) -> None:
        """The children of a heading's node; prose after a nested object description goes back
        under this node's own heading (repeated), so it is not filed under the object."""
        heading = self.blocks[-1] if self.blocks else ""
        nested = False
        for child in node.children:
            if child is skip:
                continue
            if isinstance(child, nodes.section) or (isinstance(child, object_desc) and not child.get("bare")):
                nested = True
            elif nested and not isinstance(child, _SILENT):
                self.blocks.append(heading)
                nested = False
            self.block(child, depth)

    def _code(self, node: nodes.Node, depth: int) -> None:
        code = node.astext().rstrip()
        if not code.strip():
            return
        classes = [c for c in node.get("classes", []) if c != "code"]
        language = node.get("language") or (classes[0] if classes else "")
        if isinstance(node, nodes.doctest_block):
            language = language or "pycon"
        fence = code_fence(code)
        self.blocks.append(f"{fence}{language}\n{code}\n{fence}")

    def _list(self, node: nodes.Node, depth: int) -> None:
        start = int(node.get("start", 1))
        lines = []
        for i, item in enumerate(node.children):
            if (release := _release_of(item)) is not None:  # a changelog's release: a heading over
                if lines:  # the bullets after it, as the ``releases`` extension shows the page
                    self.blocks.append("\n".join(lines))
                    lines = []
                self._heading(depth + 1, release)
                continue
            marker = f"{start + i}. " if isinstance(node, nodes.enumerated_list) else "- "
            body = self._sub(item, depth)
            if body:
                lines.append(marker + body.replace("\n", "\n" + " " * len(marker)))
        if lines:
            self.blocks.append("\n".join(lines))

    def _definitions(self, node: nodes.Node, depth: int) -> None:
        """A definition list as one list, an item per term (``- Standards: Describes a new
        feature.``): the terms are the list's items, as a reader sees them. A field's text that
        goes on, indented deeper, on the lines after its marker's is no list, though docutils
        reads one (``:param int max_msg_size: maximum size of read websocket message, 4`` then
        ``MB by default.``): its lines are one paragraph (``_wrapped_field``)."""
        if _wrapped_field(node):
            said = (inline_text(c, code=True) if isinstance(c, (nodes.term, nodes.classifier)) else self._sub(c, depth)
                    for item in node.children for c in item.children)
            self._para(" ".join(" ".join(said).split()))
            return
        lines = []
        for item in node.children:
            term = " ".join(inline_text(c, code=True) for c in item.children if isinstance(c, (nodes.term, nodes.classifier)))
            definition = next((c for c in item.children if isinstance(c, nodes.definition)), None)
            body = self._sub(definition, depth) if definition is not None else ""
            text = f"{term}: {body}" if term and body else term or body
            if text.strip():
                lines.append("- " + text.strip().replace("\n", "\n  "))
        if lines:
            self.blocks.append("\n".join(lines))

    def _fields(self, node: nodes.Node, depth: int) -> None:
        fields = [(inline_text(f.children[0]) if f.children else "",
                   self._sub(f.children[1], depth) if len(f.children) > 1 else "") for f in node.children]
        if any(_INFO_FIELD.match(name) for name, _ in fields):
            self.blocks.append(_info_fields(fields))
            return
        self.blocks.append("\n".join(f"{name}: {body}".strip().rstrip(":") for name, body in fields))

    def _options(self, node: nodes.Node, depth: int) -> None:
        lines = []
        for item in node.children:
            group = ", ".join(inline_text(o) for o in item.children[0].children) if item.children else ""
            body = self._sub(item.children[1], depth) if len(item.children) > 1 else ""
            lines.append(f"{group}: {body}".strip())
        self.blocks.append("\n".join(lines))

    def _table(self, node: nodes.Node, depth: int) -> None:
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        if title is not None:
            self._para(inline_text(title))
        rows = []
        for row in node.findall(nodes.row):
            cells = [" ".join(self._sub(entry, depth).split()) for entry in row.children]
            if any(cells):
                rows.append(" | ".join(cells))
        if rows:
            self.blocks.append("\n".join(rows))

    def _topic(self, node: nodes.Node, depth: int) -> None:
        if "contents" in node.get("classes", []):  # a generated table of contents
            return
        self._children(node, depth)

    def _lines(self, node: nodes.Node, depth: int) -> None:
        self.blocks.append("\n".join(inline_text(line, code=True) for line in node.findall(nodes.line)))

    def _admonition(self, node: nodes.Node, depth: int) -> None:
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        label = inline_text(title) if title is not None else ADMONITIONS.get(node.tagname, node.tagname.title())
        body = self._sub(node, depth, skip=title)  # its lines are escaped already
        self.blocks.append(f"{label}: {body}" if body else label)

    def _sub(self, node: nodes.Node, depth: int, skip: nodes.Node | None = None) -> str:
        """The text of ``node``'s children as one string (a list item, a table cell, a field)."""
        inner = Renderer()
        for child in node.children:
            if child is not skip:
                inner.block(child, depth)
        return "\n".join(b for b in inner.blocks if b.strip())


def _release_of(item: nodes.Node) -> str | None:
    """A list item that holds only a ``:release:`` role: its version and date; else None."""
    if len(item.children) != 1 or not isinstance(item[0], nodes.paragraph):
        return None
    inner = [c for c in item[0].children if not (isinstance(c, nodes.Text) and not c.astext().strip())]
    return inner[0].astext() if len(inner) == 1 and isinstance(inner[0], release_line) else None


def _wrapped_field(node: nodes.Node) -> bool:
    """Whether a definition list is the start of a field's text whose first term is on the
    field marker's own line: the field's text wrapped with its next lines indented deeper (and
    holding no code, list or table, which stay blocks of their own)."""
    body = node.parent
    if not isinstance(body, nodes.field_body) or not body.children or body.children[0] is not node:
        return False
    term = next(node.findall(nodes.term), None)
    blocks = (nodes.literal_block, nodes.bullet_list, nodes.enumerated_list, nodes.table, nodes.definition_list)
    return (term is not None and term.line is not None and term.line == body.parent.line
            and not any(isinstance(d, blocks) for item in node.children for d in item.findall(include_self=False)))


#: a Sphinx info field of a documented object: ``:param int size:``, ``:type size:``, ``:raises E:``
_INFO_FIELD = re.compile(
    r"^(param|parameter|arg|argument|key|keyword|kwarg|kwparam|type|raises?|except|exception|var|ivar|cvar|"
    r"vartype|returns?|rtype|yields?|ytype)\b(?:\s+(.*\S))?\s*$")
_PARAMS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword", "kwarg", "kwparam"})
_INFO_LABELS = {"returns": "Returns", "return": "Returns", "rtype": "Return type", "yields": "Yields",
                "yield": "Yields", "ytype": "Yield type"}


def _info_fields(fields: list[tuple[str, str]]) -> str:
    """A documented object's info fields as Sphinx shows them, one ``-`` item each: a parameter with
    its type (``- max_lifetime (float, default: 1 hour): The maximum lifetime …``), ``Raises E: …``,
    ``Returns: …``; any other field as ``name: text``."""
    items: dict[str, list[str]] = {}  # key -> [shown name, type, body]
    for name, body in fields:
        match = _INFO_FIELD.match(name)
        kind, arg = (match.group(1), match.group(2) or "") if match else ("", name)
        if not arg and kind not in _INFO_LABELS:  # ":type: guide" is a field like any other
            kind, arg = "", name
        body = body.replace("\n", " ").strip()
        if kind in _PARAMS or kind in ("var", "ivar", "cvar"):
            *given_type, param = arg.rsplit(" ", 1) if " " in arg else ("", arg)
            item = items.setdefault("p:" + param, [param, "", ""])
            item[1] = item[1] or " ".join(given_type).strip()
            item[2] = body
        elif kind in ("type", "vartype"):
            items.setdefault("p:" + arg, [arg, "", ""])[1] = body
        elif kind in ("raises", "raise", "except", "exception"):
            items["r:" + arg] = [f"Raises {arg}".strip(), "", body]
        elif kind in _INFO_LABELS:
            label = _INFO_LABELS[kind]
            items.setdefault("l:" + label, [label, "", ""])[2] = body
        else:
            items["o:" + name] = [name, "", body]
    lines = []
    for shown, kind, body in items.values():
        head = f"{shown} ({kind})" if kind else shown
        lines.append(f"- {head}: {body}" if body else f"- {head}")
    return "\n".join(lines)


def _default_role_text(text: str) -> str:
    """What Sphinx shows for `` `text` `` in the default role: a cross-reference's target without its
    ``!`` (no link) and, after ``~``, its last dotted part (`` `~asyncio.SelectorEventLoop` `` ->
    ``SelectorEventLoop``); a title or any other text as it is."""
    if text.startswith("!"):
        text = text[1:]
    if text.startswith("~") and re.fullmatch(r"~[\w.]+(?:\(\))?", text):
        text = text[1:].rsplit(".", 1)[-1] if not text.endswith(")") else text[1:-2].rsplit(".", 1)[-1] + "()"
    return text


def _file_wide(fields: nodes.field_list) -> bool:
    names = [inline_text(f.children[0]).lower() for f in fields.children if f.children]
    return bool(names) and all(n in _FILE_FIELDS for n in names)


__all__ = ["Renderer", "inline_text"]
