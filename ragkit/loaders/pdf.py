"""PDF files via pypdf: one document per page that has text, ``page`` is 1-based.

Page text is NFKC-normalized, so ligatures (``ﬁ``, ``ﬂ``: what LaTeX fonts set) read as the
letters they are and "files" finds "ﬁles" (a ligature pypdf can only write by its glyph name,
``/Q_u`` or ``speci/f_ic``, reads as its letters too); the document text *is* the normalized text, so chunk
offsets (citations) point into exactly what is stored. pypdf needs fontTools (a dependency) to map
the ligature codes of embedded CFF fonts; without it they vanish ("signicantly"). A subset Type 1
font is read by the encoding the PDF declares for it (``ragkit.loaders.pdf_fonts``), not by the
font program's own ("takes 44% longer", not "takes PPx longer").

Tables (ruled or aligned with whitespace) are read as rows (``ragkit.loaders.pdf_tables``): each
row a document of its own (``table: CAPTION`` and its ``column: value`` lines, metadata ``page``,
``table`` and ``row``; a table without a caption is named ``TITLE, page N: HEADING`` after the
heading line above it, else ``TITLE, page N``), beside the page's whole text, the table's lines
included (``keep_table_text``, default true: a table the reader misreads is still found from the
page's text; ``benchmarks/pdf_tables.py retrieval`` measured it against the two other modes).
With ``keep_table_text: false`` the page's text loses the lines that only repeat the table (a
page that was only tables keeps their names).
A page read by OCR has its tables found the same way, in its word boxes laid out as lines
(``ragkit.loaders.ocr_layout``), its rows marked ``ocr: True`` like its text.
Options: ``tables`` (default true; false: each page one text, no rows), ``keep_table_text``
(default true) and ``table_page_timeout_s`` (default 10: a page whose tables take longer keeps
its text and loses its tables, with a warning).

Running headers and footers, the lines that repeat at the top or the bottom of many pages (digits
aside: page numbers), are left out of the pages' text past the first page that shows each, where
they stand as a paragraph of their own (``ragkit.loaders.pdf_running``).

A page whose text layer is mostly not words (symbol soup from a font without a Unicode map:
``ragkit.loaders.textcheck``) is left out with a warning naming the pages; when that is every
page, the file is skipped with the reason and the fix (OCR).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError, LoaderError, MissingDependencyError
from ragkit.loaders import pdf_ocr
from ragkit.loaders import pdf_paper as paper
from ragkit.loaders import pdf_tables as tables
from ragkit.loaders.base import Loader
from ragkit.loaders.dehyphenate import dehyphenate, hyphenated_words
from ragkit.loaders.ocr import OcrPage
from ragkit.loaders.pdf_fonts import map_declared_encodings
from ragkit.loaders.pdf_lines import one_word_lines, positioned_text
from ragkit.loaders.pdf_running import without_running_lines
from ragkit.loaders.pdf_word_gaps import respaced
from ragkit.loaders.textcheck import garbage_reason
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: the requirement pypdf names in a DependencyError ("cryptography>=3.1 is required for AES ...")
_REQUIREMENT = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*(?:\[[\w,]+\])?(?:[<>=!~]=?[\w.]+)?")
#: a ligature glyph without a Unicode map, written by its glyph name ("Meng /Q_u", "speci/f_ic"):
#: its letters joined with "_" (the Adobe glyph list's convention), read as the letters
_LIGATURE_NAME = re.compile(r"/((?:[A-Za-z]_)+[A-Za-z])")


def _clean(text: str) -> str:
    """Page text without control characters (unmapped glyphs, a math font's minus: never text),
    with ligature glyph names read as their letters ("/Q_u" -> "Qu") and a line drawn twice read
    once (``_undoubled``)."""
    text = _LIGATURE_NAME.sub(lambda m: m.group(1).replace("_", ""), _CONTROL.sub("", text))
    return "\n".join(_undoubled(line) for line in text.split("\n"))


_DOUBLED_CHARS = 6  # a line drawn twice has at least this many characters in each copy


def _undoubled(line: str) -> str:
    """A line whose two halves are the same text read once: a slide deck draws a title twice, a
    shadow under it, and the text layer gives both copies run together ("PROPOSALSPROPOSALS",
    "WITX - WIT WITH EXTENSIONSWITX - WIT WITH EXTENSIONS"); a shorter one ("murmur") is a word,
    and halves a space parts ("FIELDS FIELDS ") are two cells of a table."""
    half = len(line) // 2
    if (len(line) % 2 or half < _DOUBLED_CHARS or line[half - 1].isspace() or line[half].isspace()
            or line[:half] != line[half:] or not any(c.isalpha() for c in line)):
        return line  # "Index Index ": a table's two cells of one value, parted by a space
    return line[:half]


@loaders.register("pdf")
class PdfLoader(Loader):
    """Reads a PDF's text layer page by page. ``title`` comes from the PDF metadata, else the
    file stem. Encrypted PDFs are opened with the empty password when that works."""

    name = "pdf"
    mime = "application/pdf"
    #: 2: words broken across lines with a hyphen are joined (``dehyphenate``); 3: a table of words
    #: has its first row as header (``table_rows.split_header``); 4: a paper's byline is read whole,
    #: each name under its affiliation (``pdf_paper.byline``); 5: a cover page before the paper's first
    #: page and a file name as metadata title are passed over (``pdf_paper.front_page``); 6: a table of
    #: contents is no table (``pdf_tables.named_rows``); 7: a subset Type 1 font is read by the encoding
    #: the PDF declares for it, not by the font program's own (``pdf_fonts``); 8: a page whose text
    #: layer gives one word to a line is read as lines from the words' positions (``pdf_lines``); 9: the
    #: running headers and footers (lines that frame many pages) are said once (``pdf_running``); 10: a
    #: page whose words run together is read again with the gaps its text layer draws (``pdf_word_gaps``);
    #: 12: a line drawn twice, its copies run together, is read once (``_undoubled``); 13: a page still
    #: glued, each word set at a position of its own, is read by its glyphs' positions (``pdf_word_gaps``)
    version = 13
    option_defaults = {"tables": True, "keep_table_text": True, "table_page_timeout_s": tables.TABLE_PAGE_TIMEOUT_S}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        timeout = self.options["table_page_timeout_s"]
        for key in ("tables", "keep_table_text"):
            if not isinstance(self.options[key], bool):
                raise ConfigError(f"loader 'pdf': {key} must be true or false (got {self.options[key]!r})")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ConfigError(f"loader 'pdf': table_page_timeout_s must be a number of seconds above 0 (got {timeout!r})")

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        reader = _open(path)
        pages: list[tuple[int, str]] = []  # (page number, text) of the pages with words
        garbage: list[tuple[int, str]] = []
        empty: list[int] = []  # pages with no text layer at all
        fragments: dict[int, list[tuple[float, float, str]]] = {}  # a first page's (font size, y, text)
        try:
            for number, page in enumerate(reader.pages, start=1):
                raw = (page.extract_text(visitor_text=_collector(fragments.setdefault(number, [])))
                       if number <= paper.FRONT_PAGES else page.extract_text())
                text = unicodedata.normalize("NFKC", raw or "").strip()
                if one_word_lines(text):  # every word placed on its own: lines rebuilt from positions
                    text = unicodedata.normalize("NFKC", positioned_text(page)).strip() or text
                text = respaced(page, text)  # words run together: read again with their gaps
                if not text:
                    empty.append(number)
                    continue
                reason = garbage_reason(text)
                if reason is not None:
                    garbage.append((number, reason))
                    continue
                pages.append((number, _clean(text)))
        except Exception as exc:  # pypdf raises many types on damaged content streams
            raise _unreadable(path, exc) from exc
        # --- OCR: pages without a usable text layer (every page with ocr.mode: always) ---
        unread = empty + [n for n, _ in garbage] + pdf_ocr.thin_pages(reader, pages, self.ocr)
        ocr_done = pdf_ocr.recover_pages(path, reader, pages, unread, self.ocr)
        if ocr_done:
            garbage = [(n, r) for n, r in garbage if n not in ocr_done]
        # --- end OCR ---
        if garbage and not pages:
            raise LoaderError(
                f"{path}: the text layer of all {len(garbage)} page(s) with text is not words ({garbage[0][1]}): "
                f"the fonts carry no Unicode map; {pdf_ocr.advice(self.ocr)}",
                path=str(path), reason="text layer is not words (needs OCR)",
            )
        if garbage:
            listed = ", ".join(str(n) for n, _ in garbage[:10]) + (" …" if len(garbage) > 10 else "")
            log.warning("%s: left out %d page(s) whose text is mostly not words (%s): page %s; OCR would recover "
                        "them (ocrmypdf --force-ocr)", path, len(garbage), garbage[0][1], listed)
        if not pages:
            raise LoaderError(
                f"{path}: no extractable text in {len(reader.pages)} page(s) (scanned? {pdf_ocr.advice(self.ocr)})",
                path=str(path),
                reason="no extractable text",
            )
        front = paper.front_page(pages)
        first = next((text for number, text in pages if number == front), "")
        found = paper.document_title(_title(reader), _normalized(fragments.get(front, [])) if first else [],
                                     _height(reader, front))
        title = found or path.stem
        meta = {"title": title, "authors": paper.byline(first, found) if first else None}
        found_tables = self._tables(path, reader, pages, ocr_done, title) if self.options["tables"] else {}
        pages[:] = without_running_lines(pages)  # after the title and the byline: a cover page's frame is read
        compounds = hyphenated_words(text for _, text in pages)
        pages[:] = [(number, dehyphenate(text, compounds)) for number, text in pages]
        docs = self._documents(source, pages, meta, ocr_done)
        return iter(_with_rows(docs, found_tables, lambda number, name, row, text: Document(
            text=text, metadata=self._metadata(source, **meta, page=number, table=name, row=row,
                                               **({"ocr": True} if number in ocr_done else {})))))

    def _tables(self, path: Path, reader: Any, pages: list[tuple[int, str]], ocr_done: Mapping[int, OcrPage],
                title: str) -> dict[int, list[tuple[str, list[tuple[int, str]]]]]:
        """The rows of each page's tables ({page: [(table name, [(row, text)])]}); the pages' text
        in ``pages`` loses the lines that only repeat a table unless ``keep_table_text``. A page
        whose tables fail or take too long keeps its text, with one warning for the file."""
        found: dict[int, list[tuple[str, list[tuple[int, str]]]]] = {}
        failed: list[str] = []
        timeout = float(self.options["table_page_timeout_s"])
        shown = tables.ShownPages(reader)
        for index, (number, text) in enumerate(pages):
            if number not in ocr_done and not tables.may_hold_table(text):
                continue
            try:
                page_tables = (tables.word_tables(ocr_done[number].words, text, timeout) if number in ocr_done
                               else tables.page_tables(shown[number - 1], text, timeout))
            except tables.TableTimeout as exc:
                failed.append(f"page {number}: {exc}; raise table_page_timeout_s of the pdf loader to allow it")
                continue
            except Exception as exc:  # pypdf's layout mode raises many types on odd content streams
                failed.append(f"page {number}: {type(exc).__name__}: {exc}")
                continue
            named = tables.named_rows(page_tables, number, title)
            if named:
                found[number] = named
                if self.options["keep_table_text"]:
                    continue
                rest = tables.without_tables(text, page_tables)
                pages[index] = (number, rest or "\n".join(name for name, _ in named))
        if failed:
            log.warning("%s: tables left out on %d page(s) (their text is kept): %s", path, len(failed),
                        "; ".join(failed[:3]))
        return found

    def _documents(self, source: str, pages: list[tuple[int, str]], meta: dict[str, Any],
                   ocr_done: Collection[int] = frozenset()) -> list[Document]:
        """One document per page; the reference list (``ragkit.loaders.pdf_paper``) in documents of
        its own, marked ``references: True`` with the heading ``References``: a page where it starts
        or an appendix follows it gives two."""
        start = paper.references_start([text for _, text in pages])
        docs: list[Document] = []
        in_references = False
        for index, (number, text) in enumerate(pages):
            parts: list[tuple[str, bool]] = [(text, in_references)]
            if start is not None and index == start[0]:
                parts = [(text[:start[1]], False), (text[start[1]:], True)]
                in_references = True
            if in_references and (cut := paper.appendix_start(parts[-1][0])) is not None:
                tail = parts.pop()[0]
                parts += [(tail[:cut], True), (tail[cut:], False)]
                in_references = False
            for part, references in parts:
                if part.strip():
                    extra = {"references": True, "heading": "References"} if references else {}
                    if number in ocr_done:
                        extra["ocr"] = True
                    docs.append(Document(text=part.strip(), metadata=self._metadata(source, **meta, page=number,
                                                                                      **extra)))
        return docs


def _with_rows(docs: list[Document], found: dict[int, list[tuple[str, list[tuple[int, str]]]]],
               make: Any) -> list[Document]:
    """``docs`` with each page's table rows after its last document (``make(page, table, row,
    text)`` builds one)."""
    if not found:
        return docs
    out: list[Document] = []
    for i, doc in enumerate(docs):
        out.append(doc)
        number = doc.metadata.get("page")
        if number in found and (i + 1 == len(docs) or docs[i + 1].metadata.get("page") != number):
            for name, rows in found.pop(number):
                out += [make(number, name, row, text) for row, text in rows]
    return out


def _collector(fragments: list[tuple[float, float, str]]) -> Any:
    """A pypdf ``visitor_text`` that records each fragment's rendered font size and height."""

    def visit(text: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
        if text and text.strip():
            try:
                rendered, y = paper.fragment_size(cm, tm, float(size))
            except (TypeError, ValueError, IndexError):
                return
            fragments.append((rendered, y, text))

    return visit


def _normalized(fragments: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    return [(size, y, _clean(unicodedata.normalize("NFKC", text))) for size, y, text in fragments]


def _height(reader: Any, number: int = 1) -> float | None:
    try:
        box = reader.pages[number - 1].mediabox
        return float(box.top) - float(box.bottom)
    except Exception:  # a damaged page box: the title is then looked for on the whole page
        return None


def _open(path: Path) -> Any:
    try:
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover - pypdf is a core dependency
        raise MissingDependencyError("pypdf", "pdf", "reading PDF files") from None
    try:
        reader = PdfReader(path)
    except Exception as exc:
        raise _unreadable(path, exc) from exc
    if not reader.is_encrypted:
        return _declared_encodings(reader)
    try:
        opened = reader.decrypt("")
    except Exception as exc:
        raise _unreadable(path, exc) from exc
    if not opened:
        raise LoaderError(
            f"{path}: encrypted PDF (a password is required to open it); decrypt it first, "
            "e.g. qpdf --decrypt --password=... in.pdf out.pdf",
            path=str(path),
            reason="encrypted PDF",
        )
    return _declared_encodings(reader)


def _declared_encodings(reader: Any) -> Any:
    """``reader`` with its subset Type 1 fonts read by the encoding the PDF declares, and its Type 3
    fonts named by character codes mapped (``pdf_fonts``)."""
    if mapped := map_declared_encodings(reader):
        log.debug("%d font(s) read by their declared encoding", mapped)
    return reader


def _title(reader: Any) -> str | None:
    try:
        meta = reader.metadata
        title = meta.title if meta is not None else None
    except Exception as exc:  # damaged info dictionary: the title is optional
        log.debug("unreadable PDF metadata: %s", exc)
        return None
    text = str(title).strip() if title else ""
    return text or None


def _unreadable(path: Path, exc: BaseException) -> LoaderError:
    """A missing optional package (pypdf's ``DependencyError``, e.g. ``cryptography`` for AES
    encryption) is reported as such, with the pip command; anything else as a damaged PDF."""
    from pypdf.errors import DependencyError

    reason = str(exc) or type(exc).__name__
    if isinstance(exc, DependencyError):
        match = _REQUIREMENT.match(reason)
        requirement = match.group(0) if match else "cryptography"
        package = re.split(r"[<>=!~ \[]", requirement, maxsplit=1)[0]
        return LoaderError(
            f"{path}: the optional package '{package}' is needed to read this PDF but is not installed "
            f"({reason}); install it with: pip install '{requirement}' (it comes with ragkit's "
            "dependencies; reinstall ragkit if it is missing). The file itself is fine.",
            path=str(path),
            reason=f"missing dependency: {package}",
        )
    return _corrupt(path, reason)


def _corrupt(path: Path, reason: str) -> LoaderError:
    return LoaderError(
        f"{path}: corrupt or unreadable PDF ({reason}); re-export or repair it (e.g. qpdf in.pdf out.pdf)",
        path=str(path),
        reason=f"corrupt PDF: {reason}",
    )
