"""Word ``.docx`` files via python-docx: the paragraphs in document order (with those of text boxes
and content controls), and each table's rows as
documents of their own (``ragkit.loaders.table_rows``: ``table: CAPTION`` and ``column: value``
lines; metadata ``table`` and ``row``). A table's caption is the paragraph right above or below it
styled "Caption" or starting "Table N", else the table is named after the document
(``TITLE, table N``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError, MissingDependencyError
from ragkit.loaders.base import Loader, parser_reason
from ragkit.loaders.limits import LoadLimits
from ragkit.loaders.office_binary import office_container_error, old_binary_loader
from ragkit.loaders.table_rows import Grid, clean_grid, grid_rows
from ragkit.loaders.zipcheck import check_zip
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

_TITLE_STYLES = ("Title", "Heading 1")
_CAPTION = re.compile(r"^\s*(table|tab\.)\s*[\dIVX]+\b", re.IGNORECASE)


@loaders.register("docx")
class DocxLoader(Loader):
    """Reads a ``.docx``: each paragraph (headings included) is a paragraph of the text; each table
    row a document of its own. ``title`` from the core properties, else the first Title/Heading 1
    paragraph, else the file stem."""

    name = "docx"
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    checks_zip = True
    #: 2: text boxes and content controls are read; 3: a table of words has its first row as
    #: header (``table_rows.split_header``); 4: a paragraph of a numbered or bulleted list is a
    #: Markdown item ("- …", indented by its level)
    version = 4

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        if (binary := old_binary_loader(path)) is not None:  # an old binary file saved with this name
            return self.read_as(binary, path, source=source)
        document = _open(path, self.limits)
        blocks: list[str] = []
        first_heading: str | None = None
        styles: dict[str | None, str] = {}
        grids: list[Grid] = []
        last: tuple[str, bool] | None = None  # the paragraph before (text, caption-like)
        pending: list[Grid] = []  # tables whose caption may be the next paragraph
        for item in _blocks(document):
            if hasattr(item, "rows"):
                rows = _table_grid(item, path, len(grids) + len(pending) + 1)
                if rows:
                    caption = last[0] if last is not None and last[1] else None
                    (grids if caption else pending).append(Grid(rows, caption))
                last = None
                continue
            text = item.text.strip()
            if not text:
                continue
            style = _style_name(item, styles)
            if first_heading is None and style in _TITLE_STYLES:
                first_heading = text
            captioned = "caption" in style.lower() or bool(_CAPTION.match(text))
            if pending:
                grids += [Grid(g.rows, text if captioned and i == len(pending) - 1 else None)
                          for i, g in enumerate(pending)]
                pending = []
            last = (text, captioned)
            blocks.append(_as_item(item, text, style))
        grids += pending
        if not blocks and not grids:
            raise LoaderError(
                f"{path}: the Word document contains no text", path=str(path), reason="empty file"
            )
        title = (document.core_properties.title or "").strip() or first_heading or path.stem
        docs = [Document(text="\n\n".join(blocks), metadata=self._metadata(source, title=title))] if blocks else []
        for number, grid in enumerate(grids, start=1):
            name = grid.caption or f"{title}, table {number}"
            docs += [Document(text=text, metadata=self._metadata(source, title=title, table=name, row=row))
                     for row, text in grid_rows(grid, name)]
        if not docs:
            raise LoaderError(f"{path}: the Word document contains no text", path=str(path), reason="empty file")
        return iter(docs)


def _blocks(document: Any) -> Iterator[Any]:
    """The body's paragraphs and tables in document order, walked child by child (python-docx's
    ``iter_inner_content`` asks libxml2 for a ``w:p | w:tbl`` union, which takes time quadratic in
    the number of paragraphs: minutes for a long document). The paragraphs of a paragraph's text
    boxes follow it (:func:`_text_boxes`); content controls (``w:sdt``: a cover page, a form's
    fields) are walked into."""
    from docx.oxml.ns import qn
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    body = document._body
    paragraph, table, control, content = qn("w:p"), qn("w:tbl"), qn("w:sdt"), qn("w:sdtContent")
    stack = [iter(document.element.body.iterchildren())]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
        elif element.tag == paragraph:
            yield Paragraph(element, body)
            yield from (Paragraph(p, body) for p in _text_boxes(element))
        elif element.tag == table:
            yield Table(element, body)
        elif element.tag == control and len(stack) < _MAX_DEPTH:
            stack.append(element.iterchildren(content))
        elif element.tag == content and len(stack) < _MAX_DEPTH:
            stack.append(element.iterchildren())


#: how deep content controls nest before the walk stops going in
_MAX_DEPTH = 16


def _text_boxes(paragraph: Any) -> Iterator[Any]:
    """The paragraphs inside the text boxes a body paragraph anchors (``w:txbxContent``, in a
    drawing or a legacy VML shape), each box once: a box written twice, as a drawing and as its
    VML fallback (``mc:Fallback``), is read from the drawing. python-docx's paragraph text leaves
    them out, and a form or a flyer keeps most of its text in them."""
    from docx.oxml.ns import qn

    box, p = qn("w:txbxContent"), qn("w:p")
    fallback = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
    for found in paragraph.iter(box):
        if any(a.tag in (fallback, box) for a in found.iterancestors() if a is not paragraph):
            continue  # a fallback copy, or a box inside a box (read with its own paragraphs below)
        for inner in found.iter(p):
            if not any(a.tag == fallback for a in inner.iterancestors()):
                yield inner


#: list styles whose paragraphs are items without a numbering of their own ("List Bullet 2")
_LIST_STYLE = re.compile(r"^List (?:Bullet|Number|Continue)?\s*(\d?)$", re.IGNORECASE)
_MAX_LEVEL = 8  # Word's deepest list level


def _as_item(paragraph: Any, text: str, style: str) -> str:
    """``text`` as a Markdown list item ("- …", indented two spaces a level) when its paragraph is
    one of a numbered or bulleted list (``w:numPr``, or a "List Bullet" style), else as it is: the
    options under "If there are conflicts:" stay a list of their own. A ``w:numId`` of 0 takes a
    paragraph out of its style's list."""
    if style.startswith(("Heading", "Title")):  # a numbered heading ("1.2 Scope") heads, it lists nothing
        return text
    number = paragraph._p.pPr.numPr if paragraph._p.pPr is not None else None
    level = 0
    if number is not None:
        try:
            if number.numId is not None and number.numId.val == 0:
                return text
            level = number.ilvl.val if number.ilvl is not None else 0
        except ValueError:  # a level or list id that is no number ("abc"): an item at the top level
            level = 0
    elif (styled := _LIST_STYLE.match(style)) is None:
        return text
    elif styled.group(1):
        level = int(styled.group(1)) - 1
    indent = "  " * max(0, min(level, _MAX_LEVEL))
    return indent + "- " + text.replace("\n", "\n" + indent + "  ")


def _style_name(paragraph: Any, names: dict[str | None, str]) -> str:
    """The name of ``paragraph``'s style, looked up once per style id (python-docx scans every
    style for each lookup: a long document would take minutes)."""
    key = paragraph._p.style  # the style id, None for the default style
    if key not in names:
        style = paragraph.style
        names[key] = style.name if style is not None else ""
    return names[key]


def _open(path: Path, limits: LoadLimits) -> Any:
    try:
        import docx
    except ImportError:  # pragma: no cover - python-docx is a core dependency
        raise MissingDependencyError("python-docx", "docx", "reading .docx files") from None
    check_zip(path, limits, what=".docx file")
    try:
        return docx.Document(str(path))
    except Exception as exc:  # BadZipFile, PackageNotFoundError, KeyError on broken parts
        reason = parser_reason(path, exc)
        raise office_container_error(path) or LoaderError(
            f"{path}: not a readable .docx file ({reason}); re-save it as .docx from "
            "Word or LibreOffice",
            path=str(path),
            reason=f"corrupt docx: {reason}",
        ) from exc


def _table_grid(table: Any, path: Path, number: int) -> tuple[tuple[str, ...], ...]:
    """The table's cells row by row; a table python-docx cannot lay out (a merged cell pointing at
    a grid column no cell starts at) is dropped with a warning, not the document."""
    try:
        return clean_grid(_rows(table))
    except Exception as exc:  # ValueError "no tc element at grid_offset", IndexError on broken grids
        log.warning("%s: table %d dropped (its cell grid is broken: %s: %s); the rest of the document "
                    "is indexed", path, number, type(exc).__name__, exc)
        return ()


def _rows(table: Any) -> list[list[str]]:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:  # a merged cell repeats: its text once, its other columns empty
            cells.append("" if id(cell._tc) in seen else " ".join(cell.text.split()))
            seen.add(id(cell._tc))
        rows.append(cells)
    return rows
