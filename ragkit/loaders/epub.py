"""EPUB books via EbookLib (``pip install 'ragkit[epub]'``): one document per chapter.

A chapter is a document of the book's reading order (its spine), the table of contents page
excepted. Its XHTML becomes visible text as the HTML loader writes it (``html_to_text``) with
``h1``-``h6`` kept as ``#`` headings, so chunks carry their heading path. ``page`` is the chapter
number (1-based, chapters with text counted); ``title`` is the book's title (Dublin Core), else the
file stem, and ``author`` its creators. Scripts, styles and images never reach the text.

A book's title and author often appear only in its metadata (the cover is an image), so the first
chapter opens with them as a mail message opens with its headers ("Title: …", "Author: …",
"Publisher: …", "Date: …"): "Who wrote X?" can be answered from the text.
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
        header = _book_header(book)
        authors = ", ".join(_dublin_core(book, "creator")) or None
        docs: list[Document] = []
        for item in _chapters(book):
            text = strip_encoded_data(chapter_text(item.get_content()))
            if text.strip():
                meta = self._metadata(source, title=title, author=authors, page=len(docs) + 1, markup="markdown")
                docs.append(Document(text=f"{header}\n\n{text}" if header and not docs else text, metadata=meta))
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
    titles = _dublin_core(book, "title")
    return titles[0] if titles else None


#: the Dublin Core fields the first chapter opens with, and their labels
_HEADER = (("title", "Title"), ("creator", "Author"), ("publisher", "Publisher"), ("date", "Date"))


def _dublin_core(book: Any, field: str) -> list[str]:
    """The non-empty values of one Dublin Core field, in order, each once."""
    values = [_SPACES.sub(" ", str(entry[0])).strip() for entry in book.get_metadata("DC", field) or []
              if entry and entry[0]]
    return list(dict.fromkeys(v for v in values if v))


def _book_header(book: Any) -> str:
    """"Title: …", "Author: …" (creators joined), "Publisher: …", "Date: …" lines of the
    fields the book's metadata has."""
    return "\n".join(f"{label}: {', '.join(values)}" for field, label in _HEADER
                     if (values := _dublin_core(book, field)))


__all__ = ["EpubLoader", "chapter_text"]
