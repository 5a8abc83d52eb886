"""Word ``.docx`` files via python-docx: paragraphs and table rows in document order."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError, MissingDependencyError
from ragkit.loaders.base import Loader
from ragkit.loaders.limits import LoadLimits
from ragkit.loaders.office_binary import office_container_error
from ragkit.loaders.zipcheck import check_zip
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

_TITLE_STYLES = ("Title", "Heading 1")


@loaders.register("docx")
class DocxLoader(Loader):
    """Reads a ``.docx``: each paragraph (headings included) is a paragraph of the text, each
    table one paragraph with a ``" | "``-joined line per row. ``title`` from the core properties, else the first
    Title/Heading 1 paragraph, else the file stem."""

    name = "docx"
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    checks_zip = True

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        document = _open(path, self.limits)
        blocks: list[str] = []
        first_heading: str | None = None
        styles: dict[str | None, str] = {}
        tables = 0
        for item in _blocks(document):
            if hasattr(item, "rows"):
                tables += 1
                rows = _table_lines(item, path, tables)
                if rows:
                    blocks.append("\n".join(rows))
                continue
            text = item.text.strip()
            if not text:
                continue
            if first_heading is None and _style_name(item, styles) in _TITLE_STYLES:
                first_heading = text
            blocks.append(text)
        if not blocks:
            raise LoaderError(
                f"{path}: the Word document contains no text", path=str(path), reason="empty file"
            )
        title = (document.core_properties.title or "").strip() or first_heading or path.stem
        text = "\n\n".join(blocks)
        return iter([Document(text=text, metadata=self._metadata(source, title=title))])


def _blocks(document: Any) -> Iterator[Any]:
    """The body's paragraphs and tables in document order, walked child by child (python-docx's
    ``iter_inner_content`` asks libxml2 for a ``w:p | w:tbl`` union, which takes time quadratic in
    the number of paragraphs: minutes for a long document)."""
    from docx.oxml.ns import qn
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    body = document._body
    paragraph, table = qn("w:p"), qn("w:tbl")
    for element in document.element.body.iterchildren():
        if element.tag == paragraph:
            yield Paragraph(element, body)
        elif element.tag == table:
            yield Table(element, body)


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
        reason = str(exc) or type(exc).__name__
        raise office_container_error(path) or LoaderError(
            f"{path}: not a readable .docx file ({reason}); re-save it from Word/LibreOffice "
            "(old binary .doc files are not supported)",
            path=str(path),
            reason=f"corrupt docx: {reason}",
        ) from exc


def _table_lines(table: Any, path: Path, number: int) -> list[str]:
    """The table's rows as ``" | "``-joined lines; a table python-docx cannot lay out (a merged
    cell pointing at a grid column no cell starts at) is dropped with a warning, not the document."""
    try:
        return _rows(table)
    except Exception as exc:  # ValueError "no tc element at grid_offset", IndexError on broken grids
        log.warning("%s: table %d dropped (its cell grid is broken: %s: %s); the rest of the document "
                    "is indexed", path, number, type(exc).__name__, exc)
        return []


def _rows(table: Any) -> list[str]:
    lines = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:  # merged cells repeat the same underlying element
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            text = " ".join(cell.text.split())
            if text:
                cells.append(text)
        if cells:
            lines.append(" | ".join(cells))
    return lines
