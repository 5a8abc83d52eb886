"""EPUB books via EbookLib (``pip install 'ragkit[epub]'``): one document per chapter.

A chapter is a document of the book's reading order (its spine), the table of contents page
excepted. Its XHTML becomes visible text as the HTML loader writes it (``html_to_text``) with
``h1``-``h6`` kept as ``#`` headings, so chunks carry their heading path. ``page`` is the chapter
number (1-based, chapters with text counted); ``title`` is the book's title (Dublin Core), else the
file stem. Scripts, styles and images never reach the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, strip_encoded_data
from ragkit.loaders.zipcheck import ZipFormat
from ragkit.registry import loaders
from ragkit.types import Document

EPUB = ZipFormat(what="EPUB book", module="ebooklib.epub", package="EbookLib", extra="epub", office=False,
                 fix="re-export it from the tool that made it (e.g. calibre's ebook-convert)")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_SPACES = re.compile(r"\s+")


@loaders.register("epub")
class EpubLoader(Loader):
    """Reads an ``.epub`` book chapter by chapter in reading order."""

    name = "epub"
    mime = "application/epub+zip"
    checks_zip = True

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        book = EPUB.open(path, self.limits, lambda epub: epub.read_epub(str(path), options={"ignore_ncx": True}))
        title = _book_title(book) or path.stem
        docs: list[Document] = []
        for item in _chapters(book):
            text = strip_encoded_data(chapter_text(item.get_content()))
            if text.strip():
                meta = self._metadata(source, title=title, page=len(docs) + 1, markup="markdown")
                docs.append(Document(text=text, metadata=meta))
        if not docs:
            raise LoaderError(f"{path}: the book has no chapter with text", path=str(path), reason="empty file")
        return iter(docs)


def chapter_text(markup: bytes | str) -> str:
    """A chapter's XHTML as text, its headings written as ``#`` lines."""
    from bs4 import BeautifulSoup

    from ragkit.loaders.html import html_to_text

    soup = BeautifulSoup(markup, "html.parser")
    for tag in soup.find_all(_HEADINGS):
        words = _SPACES.sub(" ", tag.get_text()).strip()
        if words:
            tag.string = "#" * int(tag.name[1]) + " " + words
    for tag in soup.find_all(["img", "image"]):
        tag.decompose()
    return html_to_text(soup)


def _chapters(book: Any) -> Iterator[Any]:
    from ebooklib import ITEM_DOCUMENT, epub

    for entry in book.spine:
        idref = entry[0] if isinstance(entry, (tuple, list)) else entry
        item = book.get_item_with_id(idref)
        if item is not None and item.get_type() == ITEM_DOCUMENT and not isinstance(item, epub.EpubNav):
            yield item


def _book_title(book: Any) -> str | None:
    found = book.get_metadata("DC", "title")
    text = str(found[0][0]).strip() if found and found[0] and found[0][0] else ""
    return text or None


__all__ = ["EpubLoader", "chapter_text"]
