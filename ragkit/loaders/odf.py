"""OpenDocument files (LibreOffice, OpenOffice, Google Docs exports): ``.odt`` text, ``.ods``
spreadsheets and ``.odp`` presentations, and their flat single-XML forms (``.fodt``, ``.fods``,
``.fodp``), read from their XML with no extra package.

- **Text** (``.odt``): one document of the body in reading order; headings become Markdown
  headings by their outline level (so chunks carry them as their heading path), list items ``-``
  lines, a footnote's or endnote's text a ``Note N:`` paragraph after the paragraph that cites it.
  Each table row is a document of its own (``ragkit.loaders.table_rows``: ``table: NAME`` and
  ``column: value`` lines, metadata ``table`` and ``row``), named by its caption (a paragraph right
  above or below it styled as a caption or starting "Table N"), else ``TITLE, table N``. Deleted
  text kept by change tracking, comments, tables of contents and indexes are left out.
- **Spreadsheets** (``.ods``): each sheet's rows as an Excel workbook's read (``TableLoader``: the
  first row holding text is the header, a title row above it names the table; ``sheet`` and
  ``sheet_row`` kept). Repeated cells and rows are expanded only up to what holds text (a sheet's
  styles often repeat an empty row a million times).
- **Presentations** (``.odp``): one document per slide (``page``: its number), its title a ``#``
  heading, its text boxes in order and its speaker notes after ``Notes:``; tables as rows.

``title``: the document's own (``meta.xml``), else its first heading, else the file stem. The
container is checked like every zip before parsing (``zipcheck``), and the XML is parsed without
DTDs, entities or network access; an encrypted (password-protected) file is skipped with that reason.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, parser_reason, strip_encoded_data, xml_parser
from ragkit.loaders.base import local_name as _local
from ragkit.loaders.table_rows import Grid, clean_grid, grid_rows
from ragkit.loaders.tabular import TableLoader
from ragkit.loaders.zipcheck import check_zip
from ragkit.registry import loaders
from ragkit.types import Document

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
    "manifest": "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0",
}
MIMES = {
    "text": "application/vnd.oasis.opendocument.text",
    "spreadsheet": "application/vnd.oasis.opendocument.spreadsheet",
    "presentation": "application/vnd.oasis.opendocument.presentation",
}
#: the extensions read here and the kind of body each holds
EXTENSIONS = {".odt": "text", ".fodt": "text", ".ods": "spreadsheet", ".fods": "spreadsheet",
              ".odp": "presentation", ".fodp": "presentation"}
#: columns and rows a repeated cell or row expands to at most (past the last one holding text)
MAX_REPEAT = 1000
#: the copies repeated rows holding text add to one table in all (each row is read once whatever)
MAX_REPEATED_ROWS = 10_000
#: how deep lists and sections nest before their text is read flat
MAX_DEPTH = 40
_CAPTION = re.compile(r"^\s*(table|tab\.)\s*[\dIVX]+\b", re.IGNORECASE)
_DEFAULT_TABLE_NAME = re.compile(r"^(table|tabelle|tableau|tabla|tabella)\s*\d+$", re.IGNORECASE)
#: elements whose text is not the document's: declarations, tracked deletions, comments, indexes
_SKIPPED = {f"{{{_NS[ns]}}}{name}" for ns, name in (
    ("text", "tracked-changes"), ("text", "sequence-decls"), ("text", "variable-decls"),
    ("text", "user-field-decls"), ("office", "annotation"), ("office", "annotation-end"),
    ("text", "table-of-content"), ("text", "alphabetical-index"), ("text", "illustration-index"),
    ("text", "table-index"), ("text", "object-index"), ("text", "user-index"), ("text", "bibliography"),
    ("office", "forms"), ("text", "note-citation"), ("presentation", "notes"),
)}


def _q(name: str) -> str:
    ns, _, local = name.partition(":")
    return f"{{{_NS[ns]}}}{local}"


@loaders.register("odf")
class OdfLoader(TableLoader):
    """Reads OpenDocument text, spreadsheets and presentations (see the module docstring)."""

    name = "odf"
    mime = MIMES["text"]
    version = 2  # 2: a table of words has its first row as header (``table_rows.split_header``)
    checks_zip = True

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        kind = EXTENSIONS.get(path.suffix.lower(), "text")
        root, meta_title = _parse(path, self.limits)
        body = root.find(f"{_q('office:body')}/{_q('office:' + kind)}")
        if body is None:
            body = _any_body(root)
        if body is None:
            raise LoaderError(f"{path}: not an OpenDocument file (no office:body in its content); re-save it "
                              "from LibreOffice", path=str(path), reason="no OpenDocument body")
        kind = _local(body.tag)
        mime = MIMES.get(kind, self.mime)
        reader = {"spreadsheet": _sheets, "presentation": _slides}.get(kind, _text_document)
        docs = reader(body, path, source, meta_title, mime, self)
        if not docs:
            raise LoaderError(f"{path}: the OpenDocument file contains no text", path=str(path), reason="empty file")
        return iter(docs)




def _any_body(root: Any) -> Any:
    office_body = root.find(_q("office:body"))
    if office_body is None:
        return None
    return next((child for child in office_body if _local(child.tag) in MIMES), None)


def _parse(path: Path, limits: Any) -> tuple[Any, str]:
    """The content's root element and the document's own title ("" when it has none)."""
    from lxml import etree

    try:
        if zipfile.is_zipfile(path):
            check_zip(path, limits, what="OpenDocument file")
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
                if "META-INF/manifest.xml" in names and b"encryption-data" in archive.read("META-INF/manifest.xml"):
                    raise LoaderError(f"{path}: the OpenDocument file is encrypted (password-protected); save a copy "
                                      "without a password to index it", path=str(path), reason="encrypted file")
                if "content.xml" not in names:
                    raise LoaderError(f"{path}: not an OpenDocument file (no content.xml); re-save it from "
                                      "LibreOffice", path=str(path), reason="no content.xml")
                root = etree.fromstring(archive.read("content.xml"), xml_parser())
                meta = etree.fromstring(archive.read("meta.xml"), xml_parser()) if "meta.xml" in names else root
        else:  # a flat OpenDocument file: one XML document holding meta and body
            root = etree.fromstring(path.read_bytes(), xml_parser())
            meta = root
    except LoaderError:
        raise
    except (etree.XMLSyntaxError, zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        reason = parser_reason(path, exc)
        raise LoaderError(f"{path}: not a readable OpenDocument file ({reason}); re-save it from LibreOffice",
                          path=str(path), reason=f"corrupt OpenDocument file: {reason}") from None
    if root is None:
        raise LoaderError(f"{path}: the OpenDocument file is empty", path=str(path), reason="empty file")
    title = meta.find(f".//{_q('dc:title')}")
    return root, " ".join((title.text or "").split()) if title is not None else ""


def inline_text(element: Any, notes: list[str] | None = None) -> str:
    """A paragraph's or heading's text: spans and links read through, ``text:s`` as its spaces, tabs
    and line breaks as spaces and newlines; a note's body goes to ``notes`` instead."""
    out: list[str] = [element.text or ""]
    for child in element:
        name = _local(child.tag)
        if child.tag in _SKIPPED or not isinstance(child.tag, str):  # an entity reference is never expanded
            pass
        elif name == "s":
            out.append(" " * min(int(child.get(_q("text:c"), "1") or 1), 100))
        elif name == "tab":
            out.append("\t")
        elif name == "line-break":
            out.append("\n")
        elif name == "note":
            body = child.find(_q("text:note-body"))
            if notes is not None and body is not None:
                notes.append(" ".join(" ".join(body.itertext()).split()))
        elif name in ("p", "h"):  # a paragraph inside a frame or text box: its own line
            out.append("\n" + inline_text(child, notes))
        else:
            out.append(inline_text(child, notes))
        out.append(child.tail or "")
    return "".join(out)


def _clean(text: str) -> str:
    lines = (" ".join(line.replace("\t", " ").split()) for line in text.split("\n"))
    return strip_encoded_data("\n".join(line for line in lines if line))


def _walk(element: Any, body: _Body, depth: int = 0, bullet: str = "") -> None:
    for child in element:
        if child.tag in _SKIPPED:
            continue
        name = _local(child.tag)
        if depth > MAX_DEPTH:  # nested past reason: its text, flat
            if text := _clean(" ".join(child.itertext())):
                body.blocks.append(text)
            continue
        if name in ("h", "p"):
            notes: list[str] = []
            text = _clean(inline_text(child, notes))
            if name == "h" and text:
                level = min(max(int(child.get(_q("text:outline-level"), "1") or 1), 1), 6)
                body.first_heading = body.first_heading or text
                body.flush()
                body.blocks.append(f"{'#' * level} {text}")
                body.last_caption = None
            elif text:
                style = child.get(_q("text:style-name"), "") or ""
                if style.lower() == "title" and not body.first_heading:  # the title page's "Title" paragraph
                    body.first_heading = text
                body.paragraph(f"{bullet}{text}" if bullet else text, style)
            for note in filter(None, notes):
                body.notes += 1
                body.blocks.append(f"Note {body.notes}: {note}")
        elif name == "list":
            for item in child:
                if _local(item.tag) in ("list-item", "list-header"):
                    _walk(item, body, depth + 1, bullet=f"  {bullet}" if bullet else "- ")
        elif name == "table":
            body.table(_grid(child), child.get(_q("table:name"), "") or "")
        elif name in ("section", "deletion", "insertion", "index-body", "text-box", "frame", "g",
                      "changed-region", "span", "a", "custom-shape", "soft-page-break", "page"):
            _walk(child, body, depth + 1, bullet)


@dataclass(frozen=True)
class _Table:
    """A table's grid and the rows it marks as its header (None: unmarked, found by ``split_header``)."""

    rows: tuple[tuple[str, ...], ...]
    header_rows: int | None = None


def _rows(table: Any) -> Iterator[tuple[int, list[str], bool]]:
    """(the row's number in the table, its cells, whether the table marks it as header) of each row
    holding text, repeated cells and rows expanded only up to text (at most ``MAX_REPEAT``),
    covered (merged-over) cells empty; a cell holding several paragraphs reads them joined by spaces."""
    number = 0
    copies = MAX_REPEATED_ROWS  # the repeats a table may expand to in all: a few bytes of XML ask for millions
    for row in table.iter(_q("table:table-row")):
        if _inner_table(row, table):
            continue
        repeat = _repeat(row.get(_q("table:number-rows-repeated")))
        cells = _cells(row)
        if cells:
            header = _local(row.getparent().tag) == "table-header-rows"
            shown = min(repeat, MAX_REPEAT, 1 + copies)
            copies -= shown - 1
            for k in range(shown):
                yield number + k + 1, list(cells), header
        number += repeat


def _cells(row: Any) -> list[str]:
    cells: list[str] = []
    for cell in row:
        local = _local(cell.tag)
        if local not in ("table-cell", "covered-table-cell"):
            continue
        text = "" if local == "covered-table-cell" else _clean(" ".join(
            inline_text(p) for p in cell if _local(p.tag) in ("p", "h", "list"))).replace("\n", " ")
        repeat = _repeat(cell.get(_q("table:number-columns-repeated")))
        cells += [text] * min(repeat, max(MAX_REPEAT - len(cells), 1) if text else MAX_REPEAT)
        if len(cells) >= MAX_REPEAT:
            break
    while cells and not cells[-1]:
        cells.pop()
    return cells


def _grid(table: Any) -> _Table:
    """A table's rows holding text (``_rows``) and how many lead rows it marks as its header."""
    rows: list[list[str]] = []
    header = 0
    for _, cells, marked in _rows(table):
        header += marked and len(rows) == header
        rows.append(cells)
    grid = clean_grid(rows) if rows else ()
    return _Table(grid, header if header and len(grid) == len(rows) else None)


@dataclass
class _Body:
    """What walking a text body collects: paragraphs, tables (with the header rows they mark) and
    the first heading."""

    blocks: list[str] = field(default_factory=list)
    grids: list[tuple[Grid, int | None]] = field(default_factory=list)
    first_heading: str = ""
    last_caption: str | None = None  # the paragraph just before, when it reads as a caption
    pending: tuple[Grid, int | None] | None = None  # a table without a caption yet: the next paragraph may give it
    notes: int = 0  # the notes read so far (numbered in order)

    def paragraph(self, text: str, style: str) -> None:
        captioned = "caption" in style.lower() or style.lower() == "table" or bool(_CAPTION.match(text))
        if self.pending is not None:
            grid, header = self.pending
            self.grids.append((Grid(grid.rows, text if captioned else grid.caption), header))
            self.pending = None
            if captioned:
                self.last_caption = None
                return
        self.last_caption = text if captioned else None
        self.blocks.append(text)

    def table(self, table: _Table, name: str) -> None:
        self.flush()
        if not table.rows:
            return
        if self.last_caption is not None:
            self.grids.append((Grid(table.rows, self.last_caption), table.header_rows))
            self.last_caption = None
        else:
            caption = None if _DEFAULT_TABLE_NAME.match(name) else name or None
            self.pending = (Grid(table.rows, caption), table.header_rows)

    def flush(self) -> None:
        if self.pending is not None:
            self.grids.append(self.pending)
            self.pending = None


def _inner_table(row: Any, table: Any) -> bool:
    """Whether ``row`` belongs to a table nested in one of ``table``'s cells."""
    parent = row.getparent()
    while parent is not None and parent is not table:
        if _local(parent.tag) == "table":
            return True
        parent = parent.getparent()
    return False


def _repeat(value: str | None) -> int:
    try:
        return max(int(value or 1), 1)
    except ValueError:
        return 1


def _text_document(body: Any, path: Path, source: str, meta_title: str, mime: str, loader: Loader) -> list[Document]:
    walked = _Body()
    _walk(body, walked)
    walked.flush()
    title = meta_title or walked.first_heading or path.stem
    meta = {"title": title, "mime": mime}
    docs = [Document(text=_joined(walked.blocks), metadata=loader._metadata(source, **meta, markup="markdown"))] \
        if walked.blocks else []
    for number, (grid, header) in enumerate(walked.grids, start=1):
        name = grid.caption or f"{title}, table {number}"
        docs += [Document(text=text, metadata=loader._metadata(source, **meta, table=name, row=row))
                 for row, text in grid_rows(grid, name, header_rows=header)]
    return docs


def _joined(blocks: list[str]) -> str:
    """The blocks as Markdown: paragraphs apart, the items of a list one under another."""
    out: list[str] = []
    for block in blocks:
        item = block.lstrip().startswith("- ")
        out.append(("\n" if item and out and out[-1].lstrip().startswith("- ") else "\n\n") if out else "")
        out.append(block)
    return "".join(out)


def _sheets(body: Any, path: Path, source: str, meta_title: str, mime: str, loader: Any) -> list[Document]:
    """Each sheet as a table, as an Excel workbook's sheets read (``TableLoader``): its first row
    holding text is the header, each later row a document; metadata ``sheet`` and ``sheet_row``."""
    sheets = body.findall(_q("table:table"))
    docs: list[Document] = []
    for number, sheet in enumerate(sheets, start=1):
        name = sheet.get(_q("table:name"), "") or f"Sheet{number}"
        table = path.stem if len(sheets) == 1 else f"{path.stem} / {name}"
        rows = ((cells, {"sheet": name, "sheet_row": n, "mime": mime}) for n, cells, _ in _rows(sheet))
        header = next(rows, None)
        if header is not None:
            docs += loader.table_documents(path, source, table, header[0], rows, first_row=len(docs))
    return docs


def _slides(body: Any, path: Path, source: str, meta_title: str, mime: str, loader: Loader) -> list[Document]:
    slides: list[tuple[int, str, str]] = []
    tables: list[tuple[int, str, Grid, int | None]] = []
    for number, page in enumerate(body.findall(_q("draw:page")), start=1):
        heading = ""
        walked = _Body()
        for frame in page:
            if _local(frame.tag) != "frame" and _local(frame.tag) not in ("g", "custom-shape"):
                continue
            if frame.get(_q("presentation:class")) == "title" and not heading:
                heading = _clean(" ".join(inline_text(p) for p in frame.iter(_q("text:p")))).replace("\n", " ")
                continue
            _walk([frame], walked)
        walked.flush()
        blocks = [b for b in walked.blocks if b]
        notes = page.find(_q("presentation:notes"))
        if notes is not None:
            noted = _Body()
            _walk(notes, noted)
            if text := " ".join(noted.blocks):
                blocks.append(f"Notes: {text}")
        if heading or blocks:
            slides.append((number, heading, _joined(([f"# {heading}"] if heading else []) + blocks)))
        for k, (grid, header) in enumerate(walked.grids, start=1):
            name = (heading or f"slide {number}") + (f" (table {k})" if len(walked.grids) > 1 else "")
            tables.append((number, name, grid, header))
    title = meta_title or next((h for _, h, _ in slides if h), "") or path.stem
    docs = [Document(text=text, metadata=loader._metadata(source, title=title, mime=mime, page=number, markup="markdown"))
            for number, _, text in slides]
    for number, name, grid, header in tables:
        docs += [Document(text=text, metadata=loader._metadata(source, title=title, mime=mime, page=number, table=name,
                                                                 row=row))
                 for row, text in grid_rows(grid, name, header_rows=header)]
    docs.sort(key=lambda d: d.metadata["page"])
    return docs


__all__ = ["EXTENSIONS", "MIMES", "OdfLoader", "inline_text"]
