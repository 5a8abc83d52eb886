"""PowerPoint ``.pptx`` via python-pptx (``pip install 'ragkit[pptx]'``): one document per slide.

A slide's document is its title as a ``#`` heading (so chunks carry it as their heading path),
the text of its shapes in reading order (groups opened) and its speaker notes after ``Notes:``.
Each table row is a document of its own (``ragkit.loaders.table_rows``: ``table: NAME`` and
``column: value`` lines, metadata ``table`` and ``row``), named after the slide's title. ``page``
is the slide number; a slide without any text is left out. ``title``: the presentation's core title, else the first slide's title, else the file stem.
``authors``: the names on the first slide's line under its title, when that line holds names alone
(``bylines.names_line``: "Jane Doe", "Saif ElSherei & Ian Kronquist").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, strip_encoded_data
from ragkit.loaders.bylines import names_line
from ragkit.loaders.office_binary import old_binary_loader
from ragkit.loaders.table_rows import Grid, clean_grid, grid_rows
from ragkit.loaders.zipcheck import ZipFormat
from ragkit.registry import loaders
from ragkit.types import Document

PPTX = ZipFormat(what="PowerPoint file", module="pptx", package="python-pptx", extra="pptx",
                 fix="re-save it as .pptx (old binary .ppt files are not supported)")


@loaders.register("pptx")
class PptxLoader(Loader):
    """Reads a ``.pptx`` presentation slide by slide, speaker notes included."""

    name = "pptx"
    mime = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
    # 2: a table of words has its first row as header (``table_rows.split_header``); 3: the title slide's byline
    version = 3
    checks_zip = True

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        if (binary := old_binary_loader(path)) is not None:  # an old binary file saved with this name
            return self.read_as(binary, path, source=source)
        deck = PPTX.open(path, self.limits, lambda pptx: pptx.Presentation(str(path)))
        slides: list[tuple[int, str | None, str]] = []
        tables: list[tuple[int, str, Grid]] = []  # (slide, table name, grid)
        byline = None  # the names under the first slide's title ("Sample Title Slide", "Jane Doe")
        for number, slide in enumerate(deck.slides, start=1):
            heading = _slide_title(slide)
            grids: list[Grid] = []
            blocks = [t for t in _shape_texts(slide.shapes, grids, skip=_title_shape(slide)) if t]
            if number == 1 and heading and blocks:
                byline = names_line(blocks[0].strip().split("\n", 1)[0])
            notes = _notes(slide)
            if notes:
                blocks.append(f"Notes: {notes}")
            if heading or blocks:
                text = "\n\n".join(([f"# {heading}"] if heading else []) + blocks)
                slides.append((number, heading, strip_encoded_data(text)))
            for k, grid in enumerate(grids, start=1):
                name = (heading or f"slide {number}") + (f" (table {k})" if len(grids) > 1 else "")
                tables.append((number, name, grid))
        if not slides and not tables:
            raise LoaderError(f"{path}: the presentation has no text on any of its {len(deck.slides)} slide(s)",
                              path=str(path), reason="empty file")
        title = (deck.core_properties.title or "").strip() or next((h for _, h, _ in slides if h), None) or path.stem
        docs = [Document(text=text, metadata=self._metadata(source, title=title, authors=byline, page=number,
                                                            markup="markdown"))
                for number, _, text in slides]
        for number, name, grid in tables:
            docs += [Document(text=text, metadata=self._metadata(source, title=title, authors=byline, page=number,
                                                                 table=name, row=row))
                     for row, text in grid_rows(grid, name)]
        docs.sort(key=lambda d: d.metadata["page"])  # stable: a slide's text, then its tables' rows
        return iter(docs)


def _title_shape(slide: Any) -> Any:
    try:
        return slide.shapes.title
    except Exception:  # a layout without a title placeholder  # noqa: BLE001
        return None


def _slide_title(slide: Any) -> str | None:
    shape = _title_shape(slide)
    text = " ".join(shape.text_frame.text.split()) if shape is not None and shape.has_text_frame else ""
    return text or None


def _shape_texts(shapes: Any, grids: list[Grid], *, skip: Any = None) -> Iterator[str]:
    """The text of every shape in order (top to bottom, left to right), groups opened; the tables
    go to ``grids``."""
    ordered = sorted(shapes, key=lambda s: (s.top if s.top is not None else 0, s.left if s.left is not None else 0))
    for shape in ordered:
        if skip is not None and shape.shape_id == skip.shape_id:
            continue
        if hasattr(shape, "shapes"):  # a group
            yield from _shape_texts(shape.shapes, grids)
        elif getattr(shape, "has_table", False) and shape.has_table:
            rows = clean_grid([[c.text for c in row.cells] for row in shape.table.rows])
            if rows:
                grids.append(Grid(rows))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            lines = [t for p in shape.text_frame.paragraphs if (t := p.text.replace("\v", "\n").strip())]
            yield "\n".join(lines)


def _notes(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return frame.text.strip() if frame is not None else ""


__all__ = ["PptxLoader"]
