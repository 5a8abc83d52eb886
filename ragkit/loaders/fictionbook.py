"""FictionBook e-books (``.fb2``, loader ``fb2``), read with lxml (python-docx's dependency).

One document: the book's annotation, then its bodies (the main text, then notes) written out as
Markdown-structured text so the splitter cuts at chapters: a section's title is a heading one level
deeper than its parent section's, paragraphs, verse lines, subtitles, epigraphs and their authors
are lines of their own, a table's cells are joined by ``|`` one row per line. ``title`` comes from
the book's ``book-title``, ``authors`` from its authors. Embedded images (``binary`` elements,
base64) and the rest of the description (genre, publisher, the program that made it) are left out.
The XML parser expands no entities, loads nothing from the network and refuses trees deeper than
lxml's limit; a file that is not FictionBook is skipped with what it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, strip_encoded_data, unreadable, xml_parser
from ragkit.loaders.base import local_name as _local
from ragkit.registry import loaders
from ragkit.types import Document

#: elements read as one line of text each
_LINES = frozenset({"p", "v", "subtitle", "text-author", "date"})
#: the elements whose lines are someone else's (a title is a heading, a table row one line)
_OWNERS = frozenset({"title", "tr"})


@loaders.register("fb2")
class FictionBookLoader(Loader):
    """One document of a ``.fb2`` file: its annotation and bodies, chapters as headings."""

    name = "fb2"
    mime = "application/x-fictionbook+xml"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        root = _parse(path)
        info = _child(_child(root, "description"), "title-info")
        title = _text(_child(info, "book-title"))
        lines = [*_block_lines(_child(info, "annotation"))]
        for body in (child for child in root if _local(child.tag) == "body"):
            lines.extend(_block_lines(body))
        text = strip_encoded_data("\n\n".join(line for line in lines if line.strip()))
        if not text.strip():
            raise LoaderError(f"{path}: the FictionBook file contains no text", path=str(path), reason="empty file")
        authors = [_author(a) for a in (info if info is not None else []) if _local(a.tag) == "author"]
        meta = self._metadata(source, title=title or path.stem, authors=[a for a in authors if a] or None,
                              markup="markdown")
        return iter([Document(text=text + "\n", metadata=meta)])


def _parse(path: Path) -> Any:
    from lxml import etree  # python-docx's dependency, so always there

    try:
        root = etree.fromstring(path.read_bytes(), xml_parser())
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise unreadable(path, exc, what="FictionBook file", fix="re-save it from the e-book program that made it") from None
    if root is None or _local(root.tag) != "FictionBook":
        what = _local(root.tag) if root is not None else "nothing"
        raise LoaderError(f"{path}: not a FictionBook file (its root element is <{what}>, not <FictionBook>); "
                          "rename it to what it is", path=str(path), reason="not a FictionBook file")
    etree.strip_elements(root, etree.Entity, with_tail=False)  # never expanded, and not text either
    return root


def _block_lines(element: Any) -> Iterator[str]:
    """The lines of ``element``'s text in document order, a title as a heading as deep as its
    sections nest."""
    if element is None:
        return
    for node in element.iter():
        name = _local(node.tag)
        if name in _LINES and not _owned(node, element):
            yield _text(node)
        elif name == "title" and _text(node):
            level = sum(1 for a in node.iterancestors() if _local(a.tag) == "section")
            yield f"{'#' * min(max(level, 1), 6)} {' '.join(_text(p) for p in node if _text(p))}"
        elif name == "tr":
            yield " | ".join(_text(cell) for cell in node)


def _owned(node: Any, top: Any) -> bool:
    """Whether an ancestor of ``node`` under ``top`` reads its text (a title, a table row)."""
    for ancestor in node.iterancestors():
        if ancestor is top:
            return False
        if _local(ancestor.tag) in _OWNERS:
            return True
    return False


def _author(element: Any) -> str:
    names = [_text(_child(element, part)) for part in ("first-name", "middle-name", "last-name")]
    return " ".join(n for n in names if n) or _text(_child(element, "nickname"))


def _child(element: Any, name: str) -> Any:
    if element is None:
        return None
    return next((child for child in element if _local(child.tag) == name), None)


def _text(element: Any) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


