"""HTML files via BeautifulSoup: visible text with paragraph breaks kept as blank lines; a page
with one ``<main>`` element is read from it (not its header, menus and footer).

A data table (two or more rows and columns, no table inside it, no cell longer than
:data:`MAX_CELL_CHARS`: not a page laid out with a table) becomes documents of its own, one per
row (``ragkit.loaders.table_rows``: ``table: CAPTION`` and ``column: value`` lines, metadata
``table`` and ``row``): the header is its ``<thead>`` rows or its leading rows of ``<th>`` cells
(else found from the cells), its name the ``<caption>``, else the heading above it, else
``TITLE, table N``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError, MissingDependencyError
from ragkit.loaders.base import Loader, read_text
from ragkit.loaders.table_rows import Grid, clean_grid, grid_rows
from ragkit.registry import loaders
from ragkit.types import Document

#: never visible text; the head's own elements are dropped one by one, never the head as a whole: a
#: page whose head is not closed (a stray ``</div>`` there) has its body inside it
DROP_TAGS = ("script", "style", "nav", "title", "meta", "link", "base", "noscript", "template", "svg", "iframe")
#: a generated site's search box and the status lines its script shows and hides, left out like
#: DROP_TAGS: Doxygen's "Loading... Searching... No Matches" atop every page (a search result stub
#: holds nothing else, so it has no text)
SEARCH_UI_CLASSES = frozenset({"SRStatus"})
SEARCH_UI_IDS = frozenset({"MSearchSelectWindow", "MSearchResultsWindow"})
BLOCK_TAGS = (
    "p", "div", "section", "article", "main", "header", "footer", "aside", "h1", "h2", "h3",
    "h4", "h5", "h6", "li", "ul", "ol", "dl", "dt", "dd", "table", "blockquote", "pre",
    "figure", "figcaption", "form", "fieldset", "address", "hr", "body",
)  # fmt: skip
_PARA = "\ue000"  # private-use sentinels survive get_text() and never occur in real text
_LINE = "\ue001"
_CELL = "\ue002"
_PRE_END = "\ue003"  # where a ``<pre>`` ends: its line breaks are lines again after it
#: what ends a row and a cell
_CLOSE = {"tr": _LINE, "td": _CELL, "th": _CELL}
_SPACES = re.compile(r"[ \t\r\n\f\v\u00a0]+")
#: a page's ``<main>`` with less text than this is not where its text is
MIN_MAIN_CHARS = 200
#: a cell longer than this: the table lays out a page, it is not data
MAX_CELL_CHARS = 300
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


@loaders.register("html")
class HtmlLoader(Loader):
    """Reads an HTML page; ``title`` from ``<title>`` (else the first ``<h1>``, else the stem)."""

    name = "html"
    mime = "text/html"
    #: 2: a table of words has its first row as header (``table_rows.split_header``); 3: a page's
    #: text is its ``<main>`` when it has one; 4: a ``<pre>``'s lines are lines; 5: a generated
    #: site's search box and its status lines are left out
    version = 5

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        soup = _parse(read_text(path))
        title = _title(soup) or path.stem
        content = _main_content(soup)
        tables = _data_tables(content)  # taken out of the page: its text does not repeat them
        text = html_to_text(content)
        docs = [Document(text=text, metadata=self._metadata(source, title=title))] if text else []
        for number, (grid, header_rows) in enumerate(tables, start=1):
            name = grid.caption or f"{title}, table {number}"
            docs += [Document(text=row, metadata=self._metadata(source, title=title, table=name, row=i))
                     for i, row in grid_rows(grid, name, header_rows=header_rows)]
        if not docs:
            raise LoaderError(
                f"{path}: no visible text in the HTML (only markup or scripts)",
                path=str(path),
                reason="empty file",
            )
        return iter(docs)


def _parse(markup: str) -> Any:
    try:
        from bs4 import BeautifulSoup
    except ImportError:  # pragma: no cover - bs4 is a core dependency
        raise MissingDependencyError("beautifulsoup4", "html", "reading HTML files") from None
    return BeautifulSoup(markup, "html.parser")


def _main_content(soup: Any) -> Any:
    """The page's one ``<main>`` element (or ``role="main"``) when it holds at least
    :data:`MIN_MAIN_CHARS` of text, else the whole page: a saved web page's header, search box,
    language menu and footer sit outside it ("Jump to content", "Search", "15 languages")."""
    mains = soup.find_all("main") or soup.find_all(attrs={"role": "main"})
    if len(mains) == 1 and len(mains[0].get_text(" ", strip=True)) >= MIN_MAIN_CHARS:
        return mains[0]
    return soup


def _data_tables(soup: Any) -> list[tuple[Grid, int | None]]:
    """The page's data tables (module docstring) with how many of their rows are the header
    (None: found from the cells), each taken out of ``soup``."""
    found: list[tuple[Grid, int | None]] = []
    for table in soup.find_all("table"):
        if table.find("table") is not None or table.find_parent("table") is not None:
            continue
        rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
        cells = [[_SPACES.sub(" ", c.get_text(" ")).strip() for c in tr.find_all(("td", "th"), recursive=False)]
                 for tr in rows]
        grid = clean_grid(cells)
        if len(grid) < 2 or len(grid[0]) < 2 or any(len(c) > MAX_CELL_CHARS for r in grid for c in r):
            continue
        header = sum(1 for tr in rows if tr.find_parent("thead") is not None)
        if not header:
            header = next((i for i, tr in enumerate(rows) if tr.find("td", recursive=False) is not None), 0)
        found.append((Grid(grid, _caption(table)), header or None))
        table.extract()
    return found


def _caption(table: Any) -> str | None:
    caption = table.find("caption")
    heading = caption if caption is not None else table.find_previous(_HEADINGS)
    text = _SPACES.sub(" ", heading.get_text(" ")).strip() if heading is not None else ""
    return text or None


def _title(soup: Any) -> str | None:
    for tag in (soup.title, soup.find("h1")):
        if tag is not None:
            text = _SPACES.sub(" ", tag.get_text()).strip()
            if text:
                return text
    return None


def html_to_text(soup: Any) -> str:
    """Visible text of ``soup``: blocks become paragraphs separated by blank lines, ``<br>`` and a
    line of a ``<pre>`` a line break (a man page's table of options, a code sample), a table row
    one line of ``" | "``-separated cells; other whitespace collapses to single spaces.
    One pass over the tree without changing it (no recursion, no insertions: a page nested
    thousands of elements deep takes linear time)."""
    paragraphs = []
    for block in _marked_text(soup).split(_PARA):
        lines = []
        for line in block.split(_LINE):
            cells = [_SPACES.sub(" ", c).strip() for c in line.split(_CELL)]
            joined = " | ".join(c for c in cells if c)
            if joined:
                lines.append(joined)
        if lines:
            paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _search_ui(tag: Any) -> bool:
    return tag.get("id") in SEARCH_UI_IDS or not SEARCH_UI_CLASSES.isdisjoint(tag.get("class") or ())


def _marked_text(soup: Any) -> str:
    """The text of ``soup`` with the paragraph, line and cell sentinels where blocks, ``<br>``,
    rows and cells begin or end; the contents of :data:`DROP_TAGS` and of a search box
    (:data:`SEARCH_UI_CLASSES`, :data:`SEARCH_UI_IDS`) left out."""
    from bs4 import CData, NavigableString, Tag

    out: list[str] = []
    stack: list[Any] = [soup]
    pre = 0  # how many ``<pre>`` elements the node is in
    while stack:
        node = stack.pop()
        if node == _PRE_END:
            pre -= 1
        elif isinstance(node, str) and not isinstance(node, NavigableString):  # a closing sentinel
            out.append(node)
        elif isinstance(node, Tag):
            if node.name in DROP_TAGS or _search_ui(node):
                continue
            if node.name == "br":
                out.append(_LINE)
            block = node.name in BLOCK_TAGS
            out.append(_PARA if block else "")
            stack.append(_PARA if block else _CLOSE.get(node.name, ""))
            if node.name == "pre":
                pre += 1
                stack.append(_PRE_END)
            stack.extend(reversed(node.contents))
        elif type(node) in (NavigableString, CData):
            text = str(node)
            out.append(re.sub(r"\r\n?|\n", _LINE, text) if pre else text)
    return "".join(out)
