"""Markdown files (``.md``, ``.markdown``, ``.mdx``, Quarto's ``.qmd``, R Markdown's ``.Rmd``,
Middleman's ``.html.md.erb``): one document per file, YAML front matter stripped, title extracted;
a heading's attribute block (``## Setup {#setup}``) and kramdown's attribute and extension lines
(``{: .no_toc}``, ``{:toc}`` and the ``* TOC`` item it replaces) and link reference definitions
(``[guide]: https://…``) left out; ERB tags filled from the front matter
or taken out (``ragkit.loaders.erb``); mdBook's ``{{#include …}}`` directives resolved against the book
(``ragkit.loaders.mdbook``); MDX's imports, exports, JSX components and comments removed, and
``:::note`` admonitions read as their text (``ragkit.loaders.mdx``); MyST's roles and directives
read as the text they stand for (``ragkit.loaders.myst``); HTML headings as ``#`` headings and other
HTML as the text it shows, ``<li>`` a list item, comments as nothing (``ragkit.loaders.markdown_html``);
wiki links (``[[Note|label]]``, Obsidian's and others') as the text they show (``ragkit.loaders.wikilinks``),
but a heading's anchor id glued to its end as Hugging Face's doc-builder writes it
(``## Who are we?[[who-are-we]]``) left out; GitHub's alerts (``> [!NOTE]``) as a label line
(``ragkit.loaders.mdx``); character references (``&#39;``, ``&quot;``) outside code as the characters
they name (``ragkit.loaders.markdown_html``);
Hugo's shortcodes (``{{< figure title="…" >}}``) as the text they show (``ragkit.loaders.hugo_shortcodes``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Included, Loader, read_text
from ragkit.loaders.bylines import closing_signature, field_authors, front_matter_authors, section_authors
from ragkit.loaders.erb import SUFFIX as ERB_SUFFIX
from ragkit.loaders.erb import render_erb
from ragkit.loaders.hugo_shortcodes import render_shortcodes
from ragkit.loaders.included import files_read
from ragkit.loaders.indented_blocks import render_indented_blocks
from ragkit.loaders.markdown_html import character_references, fenced_lines, html_headings
from ragkit.loaders.mdbook import resolve_includes
from ragkit.loaders.mdx import render_admonitions, render_alerts, render_mdx
from ragkit.loaders.myst import render_myst
from ragkit.loaders.wikilinks import render_wikilinks
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t][^\n]*$", re.MULTILINE)


def _stem(path: Path) -> str:
    """The file's name without its extension; a Middleman page's without both (``setup.html.md.erb``
    is ``setup``), a release's keeps its dots (``2.44.0.md`` is ``2.44.0``)."""
    if path.name.lower().endswith(ERB_SUFFIX):
        return Path(path.name[: -len(ERB_SUFFIX)]).stem
    return path.stem


def _without_attributes(match: re.Match[str]) -> str:
    """A heading line without its attribute block, Pandoc's, kramdown's and Python-Markdown's
    (``## Bike rentals {#bike-data}``, ``{.unnumbered}``, ``## 1.6.1 ## {: #v1.6.1 }``), and
    without the closing ``#`` run such a block may follow."""
    line = match.group(0).rstrip()
    brace = line.rfind("{")
    inside = line[brace + 1 :].lstrip(": \t")
    if line.endswith("}") and brace > 0 and inside[:1] in ("#", ".") and line[brace - 1] in " \t":
        line = line[:brace].rstrip()
        bare = line.rstrip("#")
        return bare.rstrip() if bare != line and bare.endswith((" ", "\t")) else line
    return match.group(0)


#: a heading's anchor id as Hugging Face's doc-builder writes it, glued to the heading's end
#: (``## Who are we?[[who-are-we]]``): a link target, not text (read as a wiki link, it was
#: "Who are we?who-are-we" in every heading path)
_ANCHOR_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,200}")


def _without_anchor_ids(text: str) -> str:
    """``text`` without the anchor ids glued to its headings' ends, outside fenced code."""
    if "]]" not in text:
        return text
    out: list[str] = []
    for line, code in fenced_lines(text):
        body = line.rstrip()
        start = body.rfind("[[") if not code and body.endswith("]]") and _HEADING.match(body) else -1
        if start > 0 and not body[start - 1].isspace() and _ANCHOR_ID.fullmatch(body[start + 2 : -2]):
            line = body[:start] + line[len(body) :]
        out.append(line)
    return "".join(out)


#: a line that is only a kramdown block attribute list or extension (``{: .no_toc }``, ``{:toc}``,
#: ``{::options parse_block_html="true" /}``): styling for a Jekyll site, no text of the page
_KRAMDOWN_LINE = re.compile(r"[ \t]*\{::?[^{}\n]{0,300}\}[ \t]*")
#: the list item a ``{:toc}`` line turns into the page's table of contents
_TOC_ITEM = re.compile(r"[ \t]*(?:[-*+]|1\.)[ \t]+(?:TOC|Table of contents)[ \t]*", re.IGNORECASE)


#: a link reference definition (``[REPL session]: https://…``, ``[1]: /docs/``): a page shows nothing
#: of it (a footnote, ``[^1]: text``, is text)
_LINK_DEFINITION = re.compile(r" {0,3}\[(?!\^)[^\]\n]{1,999}\]:[ \t]+\S.*")


def _without_markup_lines(text: str) -> str:
    """``text`` without the lines outside fenced code that a page shows nothing of: kramdown's
    attribute and extension lines (and the ``* TOC`` item a ``{:toc}`` line stands under) and link
    reference definitions."""
    if "{:" not in text and "]:" not in text:
        return text
    out: list[str] = []
    for line, code in fenced_lines(text):
        if not code and _LINK_DEFINITION.fullmatch(line.rstrip("\r\n")):
            continue
        if not code and _KRAMDOWN_LINE.fullmatch(line.rstrip("\r\n")):
            if line.replace(" ", "").startswith("{:toc") and out and _TOC_ITEM.fullmatch(out[-1].rstrip("\r\n")):
                out.pop()
            continue
        out.append(line)
    return "".join(out)


@loaders.register("markdown")
class MarkdownLoader(Loader):
    """Reads a Markdown or MDX file. ``title`` comes from front matter ``title:`` or the first
    ``# `` heading (else the file stem); the front matter block is removed from the text.
    ``authors`` comes from front matter ``author(s):``, an "Author:" field under the title, the
    names under the text's one "Authors" heading or the signature under the last paragraph
    (``ragkit.loaders.bylines``)."""

    name = "markdown"
    mime = "text/markdown"
    #: 2: HTML tags other than headings taken out of the text (``<li>`` a list item); 3: comments too;
    #: 4: ``authors`` from front matter or an "Author:" field under the title; 5: a tag that one
    #: line opens and the next closes (``<span`` / ``name="ip">``), and ``<aside>``, ``<header>`` …;
    #: 6: front matter with a tab after a value read (Hugo's and Jekyll's reading), not ignored; 7: a
    #: heading's attribute block left out, ERB tags filled or taken out; 8: an "Author:" field in italics read;
    #: 9: read again so that the Markdown splitter's joining of a run of empty headings applies;
    #: 10: ``authors`` from the signature under the last paragraph too; 11: wiki links read as the text they show;
    #: 12: kramdown's attribute and extension lines (``{: .no_toc}``, ``{:toc}``) left out; 13: a
    #: heading's Python-Markdown attribute block (``{: #id }``) and the closing ``#`` run before it too,
    #: and MkDocs' indented admonitions and content tabs (``!!! tip``, ``=== "Bash"``) as a label and text
    #: 14: a MyST eval-rst block's inline literals as code spans; 15: link reference definitions left out;
    #: 16: Hugo's shortcodes as the text they show; 17: ``authors`` from the names under an "Authors" heading too;
    #: 18: a heading's glued anchor id (``[[who-are-we]]``) left out, GitHub's alerts as a label line,
    #: character references read as their characters; 19: read again so that the Markdown splitter's
    #: heading path says a heading written wholly in bold or italics (``## **Cause**``) as its words
    version = 19

    include_marker = "{{#"

    def included_files(self, path: Path, data: bytes | None = None) -> list[Included]:
        return files_read(resolve_includes, path, self.include_budget, data)

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        text = resolve_includes(read_text(path), path, budget=self.include_budget)
        front, body = split_front_matter(text, where=str(path))
        if path.suffix.lower() == ".mdx":
            body = render_mdx(body)
        elif path.name.lower().endswith(ERB_SUFFIX):
            body = render_erb(body, front)
        body = render_indented_blocks(render_shortcodes(body))
        body = render_alerts(render_admonitions(render_myst(body, where=str(path))))
        body = render_wikilinks(_without_anchor_ids(body))
        body = _HEADING.sub(_without_attributes, html_headings(_without_markup_lines(body)))
        body = character_references(body)
        if not body.strip():
            raise LoaderError(
                f"{path}: empty file (no text beside YAML front matter, imports or components)",
                path=str(path),
                reason="empty file",
            )
        title = front.get("title") if isinstance(front.get("title"), str) else None
        if not title:
            match = _H1.search(body)
            title = match.group(1).strip() if match else _stem(path)
        authors = front_matter_authors(front) or field_authors(body) or section_authors(body) or closing_signature(body)
        return iter([Document(text=body, metadata=self._metadata(source, title=title, authors=authors))])


def _front_matter(yaml: Any, text: str) -> object:
    """The YAML ``text`` read; a tab after a value (``weight: 8<TAB>``), which YAML refuses but
    Hugo and Jekyll read, is dropped before a second try."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        trimmed = _TRAILING_SPACE.sub("", text)
        if trimmed == text:
            raise
        return yaml.safe_load(trimmed)


def split_front_matter(text: str, *, where: str = "") -> tuple[dict[str, object], str]:
    """Return ``(front_matter, body)``; front matter that is not a YAML mapping is ignored
    (with a warning) but still removed from the body."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    body = text[match.end() :].lstrip("\n")
    import yaml  # light, but only needed for files with front matter

    try:
        data = _front_matter(yaml, match.group(1))
    except yaml.YAMLError as exc:
        log.warning("%s: ignoring invalid YAML front matter (fix the YAML between the --- lines): %s", where, exc)
        return {}, body
    if not isinstance(data, dict):
        log.warning("%s: ignoring front matter that is not a mapping", where)
        return {}, body
    return data, body
