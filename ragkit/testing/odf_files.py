"""OpenDocument files written from their XML, as LibreOffice lays them out (a ``mimetype`` member
stored first, ``content.xml``, ``meta.xml`` and the manifest), for tests and the fuzz seeds: no
office suite or ODF package needed. ``body`` is the XML inside ``office:text``,
``office:spreadsheet`` or ``office:presentation``."""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape

NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
    'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
    'xmlns:xlink="http://www.w3.org/1999/xlink"'
)
MIMETYPES = {"text": "application/vnd.oasis.opendocument.text",
             "spreadsheet": "application/vnd.oasis.opendocument.spreadsheet",
             "presentation": "application/vnd.oasis.opendocument.presentation"}


def content_xml(kind: str, body: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {NAMESPACES} office:version="1.3">'
            f"<office:body><office:{kind}>{body}</office:{kind}></office:body></office:document-content>")


def meta_xml(title: str) -> str:
    titled = f"<dc:title>{escape(title)}</dc:title>" if title else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-meta {NAMESPACES} office:version="1.3">'
            f"<office:meta>{titled}</office:meta></office:document-meta>")


def manifest_xml(kind: str, *, encrypted: bool = False) -> str:
    secret = ('<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x">'
              '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="x"/>'
              "</manifest:encryption-data>") if encrypted else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest {NAMESPACES} manifest:version="1.3">'
            f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{MIMETYPES[kind]}"/>'
            f'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{secret}'
            "</manifest:file-entry></manifest:manifest>")


def odf_package(kind: str, body: str, *, title: str = "", encrypted: bool = False, content: str | None = None) -> bytes:
    """The bytes of an ``.odt`` (``kind`` "text"), ``.ods`` ("spreadsheet") or ``.odp``
    ("presentation") file; ``content``: a ``content.xml`` of your own instead of ``body``'s."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), MIMETYPES[kind], compress_type=zipfile.ZIP_STORED)
        archive.writestr("content.xml", content if content is not None else content_xml(kind, body))
        archive.writestr("meta.xml", meta_xml(title))
        archive.writestr("META-INF/manifest.xml", manifest_xml(kind, encrypted=encrypted))
    return out.getvalue()


def flat_odf(kind: str, body: str, *, title: str = "") -> bytes:
    """A flat OpenDocument file (``.fodt``, ``.fods``, ``.fodp``): one XML document."""
    titled = f"<dc:title>{escape(title)}</dc:title>" if title else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {NAMESPACES} office:version="1.3" '
            f'office:mimetype="{MIMETYPES[kind]}"><office:meta>{titled}</office:meta>'
            f"<office:body><office:{kind}>{body}</office:{kind}></office:body></office:document>").encode()


def paragraphs(*texts: str, style: str = "Standard") -> str:
    return "".join(f'<text:p text:style-name="{style}">{escape(t)}</text:p>' for t in texts)


def table(rows: list[list[str]], *, name: str = "Table1", header_rows: int = 0) -> str:
    """A ``table:table`` of text cells; the first ``header_rows`` marked as its header."""
    def row(cells: list[str]) -> str:
        return "<table:table-row>" + "".join(
            f'<table:table-cell office:value-type="string"><text:p>{escape(c)}</text:p></table:table-cell>'
            for c in cells) + "</table:table-row>"

    head = "".join(row(r) for r in rows[:header_rows])
    head = f"<table:table-header-rows>{head}</table:table-header-rows>" if head else ""
    return f'<table:table table:name="{escape(name)}">{head}{"".join(row(r) for r in rows[header_rows:])}</table:table>'


__all__ = ["content_xml", "flat_odf", "odf_package", "paragraphs", "table"]
