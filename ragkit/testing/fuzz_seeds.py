"""Small valid documents of every format ragkit reads: the seeds the loader fuzz harness mutates.

Each seed is built in memory from a few sentences (no fixture files). A format whose package is not
installed (``openpyxl``, ``python-pptx``, ``EbookLib``, ``olefile``, ``xlrd``) has no seed and is left out of the run.
"""

from __future__ import annotations

import email.message
import functools
import io
import json
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

PARAGRAPHS = (
    "The lighthouse at Alpha Point was built in 1871 by Thomas Reid.",
    "Its lamp burns paraffin and turns twice a minute; the keeper logs the weather at nine.",
    "The ferry sails on Tuesdays and Fridays from the old harbour, weather permitting.",
)
#: the formats whose files are zip packages (members can be inflated)
ZIP_FORMATS = (".docx", ".xlsx", ".pptx", ".epub", ".odt", ".ods")


def rtf_seed() -> bytes:
    body = r"\par ".join(PARAGRAPHS)
    return (r"{\rtf1\ansi\ansicpg1252{\fonttbl{\f0 Times;}}{\info{\title Harbour notes}}\pard " + body
            + r"\par }").encode("latin-1")


def org_seed() -> bytes:
    body = "\n\n".join(PARAGRAPHS)
    return ("#+title: Harbour notes\n* Ferries :travel:\n" + body + "\n#+begin_src sh\n* not a heading\n#+end_src\n"
            ).encode("utf-8")


def manpage_seed() -> bytes:
    body = "\n.PP\n".join(PARAGRAPHS)
    return ('.\\" generated\n.de1 INDENT\n. RS \\\\$1\n..\n.TH "harbour" "1" "2025-04-01"\n.SH NAME\n'
            "harbour \\- ferry times\n.SH DESCRIPTION\n" + body + "\n.TP\n.BI \\-\\-route \\ NAME\nthe route\n"
            ".nf\nharbour \\-\\-route north\n.fi\n").encode("utf-8")


def ms_seed() -> bytes:
    """A paper in troff's ms macros: a title, an abstract, numbered headings, a display, an
    equation and a reference list."""
    body = "\n.PP\n".join(PARAGRAPHS)
    return (".TL\nHarbour notes\n.AU\nAda Quill\n.AB\nFerry times.\n.AE\n.NH 1\nFerries\n.PP\n" + body
            + "\n.CW harbour ,\n.EQ\nx sup 2\n.EN\n.P1\nharbour -route north\n.P2\n.NH 2\nFares\n.LP\n"
            "Forty kroner.\n.[\nQuill87\n.]\n").encode("utf-8")


def asciidoc_seed() -> bytes:
    body = "\n\n".join(PARAGRAPHS)
    return ("= Harbour notes\n:fare: 40 kroner\n\n== Ferries\n\n" + body + "\n\n[source,sh]\n----\n* not a list\n----\n\n"
            "|===\n|Route |Fare\n|North |{fare}\n|===\n").encode("utf-8")


def fb2_seed() -> bytes:
    paragraphs = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
    return ('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
            "<description><title-info><book-title>Harbour notes</book-title></title-info></description>"
            f"<body><section><title><p>Ferries</p></title>{paragraphs}</section></body>"
            '<binary id="i.png" content-type="image/png">iVBORw0KGgo=</binary></FictionBook>').encode()


def xml_seed() -> bytes:
    paragraphs = "".join(f"<p>{p} (see &ref0042;)</p>" for p in PARAGRAPHS)
    return ("<?xml version='1.0' encoding='UTF-8'?>\n<!DOCTYPE memo SYSTEM 'memo.dtd'>\n<memo><header>"
            "<title>Harbour notes</title><version>0.2</version></header>"
            f"<section1 topic='Ferries'>{paragraphs}<table><tr><th>Port</th><th>Fare</th></tr>"
            "<tr><td>Bergen</td><td>40</td></tr></table><example><![CDATA[<fare port='Bergen'/>]]></example>"
            "</section1></memo>").encode()


def tex_seed() -> bytes:
    body = "\n\n".join(PARAGRAPHS)
    return ("\\documentclass{article}\n\\title{Harbour notes}\n\\begin{document}\n\\section{Ferries}\n" + body
            + "\n\\begin{tabular}{lr}Port & Fare \\\\ Bergen & 40\\end{tabular}\n\\end{document}\n").encode()


def java_seed() -> bytes:
    """A Java class documented in Javadoc: HTML, inline and block tags, a ``<pre>`` example."""
    doc = "\n *\n * <p>".join(PARAGRAPHS)
    return ("package org.harbour;\n\n/**\n * " + doc + "\n *\n * <pre>{@code\n * new Notes().port();\n * }</pre>\n"
            " * @author Ann Pilot\n */\npublic final class Notes {\n  /**\n   * The port, default {@code 6923}.\n"
            "   * @return the port\n   */\n  public int port() { return 6923; }\n}\n").encode()


def go_seed() -> bytes:
    """A Go file documented in its comments: a package, a struct's fields, an interface's method and
    a ``const (`` group."""
    return ("// Package harbour reads the tide gauges.\npackage harbour\n\n// Config holds a gauge's settings.\n"
            "type Config struct {\n\t// Window is how long a reading stays fresh.\n\tWindow int\n}\n\n"
            "// Gauge reads the water.\ntype Gauge interface {\n\t// Read returns quickly, because " + PARAGRAPHS[0]
            + "\n\tRead() (float64, error)\n}\n\n// Note: never renumber these.\nconst (\n\t// Low is the ebb.\n"
            "\tLow State = iota\n\t// High is the flood.\n\tHigh\n)\n").encode()


def rust_seed() -> bytes:
    """A Rust module documented in ``//!`` and ``///`` comments: a section heading, a generic
    ``impl`` block without a comment, an example."""
    return ("//! " + PARAGRAPHS[1] + "\n\n/// The highest tide.\npub const MAX: f64 = 9.5;\n\nimpl<T: Zone> Tide<T> {\n"
            "    /// The tide as a notice.\n    ///\n    /// # Panics\n    ///\n    /// If the height is negative.\n"
            "    ///\n    /// ```\n    /// # use harbour::Tide;\n    /// ```\n    pub fn notice(&self) -> String { String::new() }\n}\n"
            ).encode()


def js_seed() -> bytes:
    """A JavaScript module documented in JSDoc: a typed optional parameter, an example, a regular
    expression and a template literal."""
    doc = "\n *\n * ".join(PARAGRAPHS)
    return ("const QUOTE = /['\"{]/g;\nconst NOTE = `port ${6923}`;\n\n/**\n * " + doc + "\n * @param {Object} opts"
            " - options\n * @param {number} [opts.port=6923] - the port\n * @example connect({ port: 6923 })\n */\n"
            "export function connect(opts = {}) {\n  return opts.port / 2;\n}\n").encode()


def proto_seed() -> bytes:
    """Protocol Buffers definitions with comments on a message, its fields, an enum and an RPC."""
    notes = "".join(f"  // {p}\n" for p in PARAGRAPHS)
    return ("syntax = \"proto3\";\n\n// Harbour notes.\nmessage Notes {\n" + notes + "  int32 port = 1;\n"
            "  string quay = 2; // the quay\n}\n\nenum Tide {\n  // High water.\n  TIDE_HIGH = 0;\n}\n\n"
            "service Harbour {\n  // Opens the port.\n  rpc Open (Notes) returns (Notes) {}\n}\n").encode()


def conf_seed() -> bytes:
    """A commented configuration: a banner, a section, comment paragraphs and settings, one
    commented out with an inline comment."""
    body = "\n;\n".join("; " + p for p in PARAGRAPHS)
    return (";;;;;;;;;;;;\n;; Harbour\n;;;;;;;;;;;;\n\n[general]\n" + body + "\n;port=6923   ; the port (default 6923)\n"
            "bindaddr = 0.0.0.0\n").encode()


def yaml_seed() -> bytes:
    """A chart's commented values.yaml: a section, nested keys, a list and a block scalar."""
    notes = "".join(f"  # {p}\n" for p in PARAGRAPHS)
    return ("## Harbour chart\nharbour:\n" + notes + "  port: 6923  # the port\n  quays:\n    - north\n"
            "motd: |\n  Welcome aboard.\n").encode()


def vtt_seed() -> bytes:
    """WebVTT captions: a header, a NOTE, numbered cues with settings and a voice tag."""
    cues = [f"{i + 1}\n00:00:{2 * i:02d}.000 --> 00:00:{2 * i + 2:02d}.000 line:15%\n<v Ann>{p}</v>\n"
            for i, p in enumerate(PARAGRAPHS)]
    return ("WEBVTT - Harbour notes\n\nNOTE a seed\n\n" + "\n".join(cues)).encode("utf-8")


def mediawiki_seed() -> bytes:
    """A MediaWiki page: an infobox template, headings, links, a list and a table."""
    body = "\n\n".join(PARAGRAPHS)
    return ("{{Infobox port\n| name = Alpha Point\n| keeper = [[Thomas Reid]]\n}}\n== History ==\n" + body
            + "\n* '''ferry''': [[Tuesdays]]\n{| class=\"wikitable\"\n! Port !! Fare\n|-\n| Bergen || 40\n|}\n").encode()


def tiddler_seed() -> bytes:
    """A TiddlyWiki tiddler: fields, a pragma, a heading, marks, links, lists, a table and a macro."""
    body = "\n\n".join(PARAGRAPHS)
    return ("created: 20240101000000000\ntags: [[Harbour notes]]\ntitle: Ferries\n\n\\define note() x\n! Ferries\n"
            + body + "\n# ''Check'' the [[tide table|Tides]]\n#> `https://example.org/tides`\n"
            "|!Port |!Fare |\n|Bergen |40 |\n<<note>> {{$:/core/images/ferry}}\n").encode()


def ansible_seed() -> bytes:
    """An Ansible module: its DOCUMENTATION, EXAMPLES and RETURN YAML strings, and code."""
    return ('#!/usr/bin/python\nDOCUMENTATION = r"""\nmodule: harbour_berth\nshort_description: Book a berth\n'
            "description:\n  - " + PARAGRAPHS[0] + "\noptions:\n  length:\n    description: C(length) in metres.\n"
            '    type: int\n    default: 12\n"""\nEXAMPLES = r"""\n- harbour_berth:\n    length: 12\n"""\n'
            'RETURN = r"""\nberth:\n  description: The berth.\n  type: int\n"""\n\ndef main():\n    pass\n').encode()


def texinfo_seed() -> bytes:
    """A Texinfo chapter: a node, a chapter, an option table, an example and inline commands."""
    body = "\n\n".join(PARAGRAPHS)
    return ("\\input texinfo\n@settitle Harbour notes\n@node Ferries\n@chapter Ferries\n@cindex ferry\n" + body
            + "\n@table @code\n@item --port\nThe port, default @code{6923}.\n@end table\n"
            "@example\nharbour --port 6923 @{x@}\n@end example\n@bye\n").encode()


def pod_seed() -> bytes:
    """A Perl module with POD: a NAME line, a heading, an option list, a verbatim example,
    formatting codes, and code after ``=cut``."""
    body = "\n\n".join(PARAGRAPHS)
    return ("package Harbour::Notes;\nuse strict;\n\n=head1 NAME\n\nHarbour::Notes - the keeper's log\n\n"
            "=head1 FERRIES\n\n" + body + "\n\n=over 4\n\n=item B<--port>\n\nThe port, default C<6923>.\n\n"
            "=back\n\n    harbour --port 6923\n\n=cut\n\nsub port { 6923 }\n\n1;\n").encode()


def rd_seed() -> bytes:
    """An R help page: a comment, its name and title, an argument item, usage and examples as R code."""
    body = "\n\n".join(PARAGRAPHS)
    return ("% harbour package\n\\name{ferry_times}\n\\alias{ferry_times}\n\\title{Harbour notes}\n"
            "\\description{\n" + body + "\n}\n\\usage{ferry_times(port, \\dots)}\n"
            "\\arguments{\\item{port}{The port, default \\code{\"Bergen\"}.}}\n"
            "\\examples{\nferry_times(\"Bergen\") # 50\\% full\n\\dontrun{plot(1)}\n}\n\\keyword{ferry}\n").encode()


def text_seed() -> bytes:
    return "\n\n".join(PARAGRAPHS).encode("utf-8")


def markdown_seed() -> bytes:
    # MyST roles and directive fences, an eval-rst block, an HTML heading, wiki links, MkDocs' indented
    # admonition and content tab and a heading's attribute block: markup the loader rewrites
    return ("# Harbour notes\n\n" + PARAGRAPHS[0] + " See {func}`~harbour.tide.level` and [[Rules/Tides|the tides]]."
            + "\n\n![[charts/harbour.png]] [[Ferry#Winter]]\n\n## Ferry\n\n- "
            + PARAGRAPHS[2] + "\n\n```{note}\n:class: tip\n" + PARAGRAPHS[1] + "\n```\n\n"
            + "```{eval-rst}\n.. versionadded:: 2.1\n   The :class:`Pier` opens.\n```\n\n"
            + "<h3 name=\"tides\">\nWhen is high tide?\n</h3>\n\nAt noon.\n\n!!! tip \"Before you sail\"\n    "
            + PARAGRAPHS[1] + "\n\n=== \"Bash\"\n    ```console\n    ferry --tide\n    ```\n\n## 1.2 ## {: #v1.2 }\n").encode("utf-8")


def mdx_seed() -> bytes:
    # front matter, an import, a comment, components (one with children) and an admonition: what MDX drops
    return ("---\ntitle: Harbour notes\n---\nimport Tabs from '@theme/Tabs'\n\n## Ferry\n\n{/* draft */}\n"
            + PARAGRAPHS[2] + "\n\n<Map id=\"harbour\" zoom={{ level: 3 }} />\n\n<Tabs>\n  <TabItem label=\"Winter\">\n"
            + "    " + PARAGRAPHS[1] + "\n  </TabItem>\n</Tabs>\n\n:::caution\n" + PARAGRAPHS[0]
            + "\n:::\n\n```jsx\n<Pier open />\n```\n").encode("utf-8")


def rst_seed() -> bytes:
    return ("Harbour notes\n=============\n\n" + PARAGRAPHS[0] + "\n\n.. note::\n\n   " + PARAGRAPHS[1]
            + "\n").encode("utf-8")


def html_seed() -> bytes:
    body = "".join(f"<p class='x'>{p}</p>" for p in PARAGRAPHS)
    return (f"<!DOCTYPE html><html><head><title>Harbour</title></head><body><h1>Harbour</h1>{body}"
            "<table><tr><th>port</th><th>ships</th></tr><tr><td>Leith</td><td>4</td></tr></table></body></html>"
            ).encode()


def csv_seed() -> bytes:
    return b"port,ships,note\nLeith,4,north berth\nBergen,7,\"fjord, deep\"\n"


def tsv_seed() -> bytes:
    return b"port\tships\nLeith\t4\nBergen\t7\n"


def jsonl_seed() -> bytes:
    return "\n".join(json.dumps({"text": p, "id": i}) for i, p in enumerate(PARAGRAPHS)).encode("utf-8")


def json_seed() -> bytes:
    return json.dumps({"harbour": {"ports": ["Leith", "Bergen"], "notes": list(PARAGRAPHS)}}).encode("utf-8")


def notebook_seed() -> bytes:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Harbour\n", PARAGRAPHS[0]]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["print('ferry')"],
              "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ferry\n"]}]}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode("utf-8")


def eml_seed() -> bytes:
    msg = email.message.EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "Ann <ann@example.org>", "Bob <bob@example.org>", "Ferry times"
    msg["Date"] = "Tue, 01 Apr 2025 09:00:00 +0000"
    msg.set_content("\n\n".join(PARAGRAPHS))
    msg.add_attachment(csv_seed(), maintype="text", subtype="csv", filename="ports.csv")
    return msg.as_bytes()


def mbox_seed() -> bytes:
    one = eml_seed()
    return b"From ann@example.org Tue Apr  1 09:00:00 2025\n" + one + b"\nFrom bob@example.org Tue Apr  1 10:00:00 2025\n" + one


def pdf_seed() -> bytes:
    """A one-page PDF in Helvetica, written by hand (no PDF library needed)."""
    lines = " ".join(f"({p}) Tj T*" for p in PARAGRAPHS)
    content = f"BT /F1 11 Tf 14 TL 72 720 Td {lines} ET".encode("latin-1")
    return helvetica_page_pdf(content, title=b"Harbour notes")


def helvetica_page_pdf(content: bytes, *, title: bytes = b"") -> bytes:
    """A one-page PDF whose content stream is ``content`` (its font ``/F1``, Helvetica)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    if not title:
        return pdf_file(objects)
    return pdf_file([*objects, b"<< /Title (%s) >>" % title], trailer=b"/Info 6 0 R")


def pdf_file(objects: list[bytes], *, trailer: bytes = b"") -> bytes:
    """A PDF of ``objects`` (numbered from 1, the first the catalog), its xref table and trailer."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % off for off in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref))
    return out.getvalue()


def docx_seed() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Harbour notes", level=1)
    for p in PARAGRAPHS:
        document.add_paragraph(p)
    table = document.add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "port", (0, 1): "ships", (1, 0): "Leith", (1, 1): "4"}.items():
        table.cell(r, c).text = text
    return _saved(document)


def xlsx_seed() -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    for row in (["port", "ships", "note"], ["Leith", 4, "north berth"], ["Bergen", 7, "fjord"]):
        sheet.append(row)
    return _saved(book)


def pptx_seed() -> bytes:
    import pptx

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Harbour report"
    slide.placeholders[1].text = PARAGRAPHS[2]
    slide.notes_slide.notes_text_frame.text = PARAGRAPHS[1]
    return _saved(deck)


def epub_seed() -> bytes:
    import tempfile
    from pathlib import Path

    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("harbour-1")
    book.set_title("Harbour")
    book.set_language("en")
    chapters = []
    for i, p in enumerate(PARAGRAPHS, start=1):
        chapter = epub.EpubHtml(title=f"Chapter {i}", file_name=f"c{i}.xhtml", lang="en")
        chapter.content = f"<h1>Chapter {i}</h1><p>{p}</p>"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = chapters
    book.spine = ["nav", *chapters]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "book.epub"
        epub.write_epub(str(path), book)
        return path.read_bytes()


def odt_seed() -> bytes:
    from ragkit.testing.odf_files import odf_package, paragraphs, table

    body = ('<text:h text:outline-level="1">Harbour notes</text:h>' + paragraphs(*PARAGRAPHS)
            + table([["port", "ships"], ["Leith", "4"]], header_rows=1))
    return odf_package("text", body, title="Harbour notes")


def ods_seed() -> bytes:
    from ragkit.testing.odf_files import odf_package, table

    return odf_package("spreadsheet", table([["port", "ships", "note"], ["Leith", "4", "north berth"],
                                             ["Bergen", "7", "fjord"]], name="Ports"))


def msg_seed() -> bytes:
    """An Outlook message: MAPI properties as streams of an OLE file (``ragkit.testing.ole``);
    no seed without olefile, the ``msg`` extra that reads it."""
    import tempfile
    from pathlib import Path

    import olefile  # noqa: F401  (the loader's package: without it the control is not indexed)

    from ragkit.testing.ole import write_ole

    def utf16(text: str) -> bytes:
        return text.encode("utf-16-le")

    with tempfile.TemporaryDirectory() as tmp:
        return write_ole(Path(tmp) / "ferry.msg", {
            "__substg1.0_0037001F": utf16("Ferry times"), "__substg1.0_0C1A001F": utf16("Ann"),
            "__substg1.0_0C1F001F": utf16("ann@example.org"), "__substg1.0_0E04001F": utf16("Bob"),
            "__substg1.0_1000001F": utf16("\r\n\r\n".join(PARAGRAPHS)),
        }).read_bytes()


def doc_seed() -> bytes:
    """A Word 97-2003 document (``ragkit.testing.word_files``); no seed without olefile, the
    ``doc`` extra that reads it."""
    import tempfile
    from pathlib import Path

    import olefile  # noqa: F401  (the loader's package: without it the control is not indexed)

    from ragkit.testing.word_files import write_doc

    with tempfile.TemporaryDirectory() as tmp:
        return write_doc(Path(tmp) / "harbour.doc", [("Harbour notes\r" + "\r".join(PARAGRAPHS) + "\r", True)]).read_bytes()


def xls_seed() -> bytes:
    """An Excel 97-2003 workbook (``ragkit.testing.xls_files``); no seed without xlrd, the ``xls``
    extra that reads it."""
    import tempfile
    from pathlib import Path

    import xlrd  # noqa: F401  (the loader's package: without it the control is not indexed)

    from ragkit.testing.xls_files import write_xls

    with tempfile.TemporaryDirectory() as tmp:
        rows: list[list[str | float | int | None]] = [["port", "ships", "note"], ["Leith", 4, "north berth"],
                                                      ["Bergen", 7, "fjord"]]
        return write_xls(Path(tmp) / "ports.xls", {"Ports": rows}).read_bytes()


def ppt_seed() -> bytes:
    """A PowerPoint 97-2003 presentation (``ragkit.testing.ppt_files``); no seed without olefile."""
    import tempfile
    from pathlib import Path

    import olefile  # noqa: F401  (the loader's package: without it the control is not indexed)

    from ragkit.testing.ppt_files import container, slide_persist, text_chars, text_header, write_ppt

    slides = container(0x0FF0, slide_persist(256), text_header(0), text_chars("Harbour report"),
                       text_header(1), text_chars("\r".join(PARAGRAPHS)))
    with tempfile.TemporaryDirectory() as tmp:
        return write_ppt(Path(tmp) / "harbour.ppt", container(0x03E8, slides)).read_bytes()


def _saved(document: object) -> bytes:
    out = io.BytesIO()
    document.save(out)  # type: ignore[attr-defined]
    return out.getvalue()


#: extension -> the builder of its seed
BUILDERS: dict[str, Callable[[], bytes]] = {
    ".txt": text_seed, ".md": markdown_seed, ".mdx": mdx_seed, ".rst": rst_seed, ".html": html_seed, ".csv": csv_seed,
    ".tsv": tsv_seed, ".jsonl": jsonl_seed, ".json": json_seed, ".ipynb": notebook_seed, ".eml": eml_seed,
    ".mbox": mbox_seed, ".pdf": pdf_seed, ".docx": docx_seed, ".xlsx": xlsx_seed, ".pptx": pptx_seed,
    ".epub": epub_seed, ".msg": msg_seed, ".odt": odt_seed, ".ods": ods_seed,
    ".doc": doc_seed, ".xls": xls_seed, ".rtf": rtf_seed,
    ".org": org_seed, ".1": manpage_seed, ".ms": ms_seed, ".adoc": asciidoc_seed, ".fb2": fb2_seed, ".tex": tex_seed,
    ".ppt": ppt_seed, ".xml": xml_seed, ".vtt": vtt_seed, ".mediawiki": mediawiki_seed, ".texi": texinfo_seed,
    ".pm": pod_seed,
    ".Rd": rd_seed, ".java": java_seed, ".conf": conf_seed, ".yaml": yaml_seed, ".js": js_seed,
    ".proto": proto_seed, ".tid": tiddler_seed, ".py": ansible_seed, ".go": go_seed, ".rs": rust_seed,
}


@functools.cache
def build_seeds() -> dict[str, bytes]:
    """extension -> a valid document of that format; formats whose package is missing are left out.
    Built once per process (the Office formats carry their creation time)."""
    seeds = {}
    for ext, build in BUILDERS.items():
        try:
            seeds[ext] = build()
        except ImportError as exc:
            log.warning("no %s seed: %s", ext, exc)
    return seeds


__all__ = ["BUILDERS", "PARAGRAPHS", "ZIP_FORMATS", "build_seeds", "helvetica_page_pdf", "pdf_file"]
