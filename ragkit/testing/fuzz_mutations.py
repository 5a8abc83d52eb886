"""How the loader fuzz harness damages a seed document: each mutation takes the seed's bytes and a
seeded random generator and returns the bytes (and the extension) of a hostile file.

- ``bitflip``: 1 to 64 random bits flipped; ``truncate``: cut anywhere;
- ``zip_inflate``: a zip package's main member grown by repetition to ``bomb_mb`` (a small file that
  inflates to a large one); ``zip_member_flip``: bits flipped inside one member's compressed data;
- ``deep_nesting``: the format's own nesting (elements, lists, blockquotes, MIME parts) 10,000+ deep;
- ``huge_attribute``: an attribute (or a line) of several megabytes;
- ``wrong_extension``: another format's bytes under this extension;
- ``reencode``: a text format in UTF-16 or UTF-32, with or without a BOM;
- ``none``: the seed as it is (the control: it must be indexed).
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ragkit.testing.fuzz_seeds import ZIP_FORMATS

#: the main member of each zip format, where inflation and nesting go
MAIN_MEMBER = {".docx": "word/document.xml", ".xlsx": "xl/worksheets/sheet1.xml",
               ".pptx": "ppt/slides/slide1.xml", ".epub": "EPUB/c1.xhtml", ".odt": "content.xml",
               ".ods": "content.xml"}
TEXT_FORMATS = (".txt", ".md", ".rst", ".html", ".csv", ".tsv", ".jsonl", ".json", ".ipynb", ".eml", ".mbox")
NESTING = 20000
HUGE_ATTRIBUTE = 4 * 1024 * 1024


@dataclass(frozen=True)
class Mutated:
    mutation: str
    extension: str
    data: bytes


Mutation = Callable[[str, bytes, random.Random, Mapping[str, bytes], int], Mutated]


def bitflip(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    out = bytearray(data)
    for _ in range(rng.randint(1, 64)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return Mutated("bitflip", ext, bytes(out))


def truncate(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    return Mutated("truncate", ext, data[: rng.randrange(1, len(data))])


def wrong_extension(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    other = rng.choice(sorted(e for e in seeds if e != ext))
    return Mutated("wrong_extension", ext, seeds[other])


def reencode(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    if ext not in TEXT_FORMATS:
        return bitflip(ext, data, rng, seeds, bomb_mb)
    encoding = rng.choice(["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
    return Mutated("reencode", ext, data.decode("utf-8").encode(encoding))


def unchanged(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    return Mutated("none", ext, data)


def zip_inflate(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    if ext not in ZIP_FORMATS:
        return huge_attribute(ext, data, rng, seeds, bomb_mb)
    member = MAIN_MEMBER[ext]

    def grow(xml: bytes) -> bytes:
        cut = _text_end(ext, xml)
        unit = _repeated_unit(ext)
        return xml[:cut] + unit * (bomb_mb * 1024 * 1024 // len(unit)) + xml[cut:]

    return Mutated("zip_inflate", ext, _rewrite_member(data, member, grow))


def zip_member_flip(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    if ext not in ZIP_FORMATS:
        return bitflip(ext, data, rng, seeds, bomb_mb)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = rng.choice([i for i in z.infolist() if i.compress_size > 0])
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = start + rng.randrange(max(1, info.compress_size))
        out[i] ^= 1 << rng.randrange(8)
    return Mutated("zip_member_flip", ext, bytes(out))


def deep_nesting(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    n = rng.randint(NESTING // 2, NESTING)
    if ext in ZIP_FORMATS:
        tag = {".docx": b"w:sdt", ".xlsx": b"x", ".pptx": b"p:grpSp", ".epub": b"div", ".odt": b"text:section",
               ".ods": b"text:section"}[ext]
        return Mutated("deep_nesting", ext, _rewrite_member(data, MAIN_MEMBER[ext], lambda xml: _nest_xml(xml, tag, n)))
    nested = {
        ".html": lambda: b"<html><body>" + b"<div><span>" * n + b"deep" + b"</span></div>" * n + b"</body></html>",
        ".md": lambda: b"> " * n + b"deep quote\n" + b"  " * n + b"- deep list\n",
        ".rst": lambda: b"".join(b"   " * i + b"- level\n\n" for i in range(0, 400)),
        ".json": lambda: b"[" * n + b"1" + b"]" * n,
        ".jsonl": lambda: b'{"text": ' + b"[" * n + b'"x"' + b"]" * n + b"}\n",
        ".ipynb": lambda: b'{"cells": ' + b"[" * n + b"]" * n + b', "nbformat": 4}',
        ".eml": lambda: _nested_mime(min(n, 2000)),
        ".mbox": lambda: b"From a@b Tue Apr  1 09:00:00 2025\n" + _nested_mime(min(n, 2000)),
        ".pdf": lambda: data.replace(b"<< /Title (Harbour notes) >>", b"<< /Title " + b"[" * n + b"]" * n + b" >>"),
        ".csv": lambda: b"a,b\n" + b'"' + b'""' * n + b'",x\n',
        ".tsv": lambda: b"a\tb\n" + b"[" * n + b"\tx\n",
        ".txt": lambda: b"(" * n + b"deep" + b")" * n,
        ".adoc": lambda: b"====\n" * n + b"*" * 5 + b" deep\n" + b"|===\n|a\n" * n + b"<<" * n + b"deep" + b">>" * n,
        ".tid": lambda: b"title: deep\n\n" + b"*" * n + b" deep\n" + b"#>" * n + b"\n" + b"''" * n + b"[[" * n + b"{{" * n,
        ".py": lambda: b'DOCUMENTATION = """\nmodule: m\noptions: ' + b"[" * n + b"]" * n + b'\n"""\n'
                       b'RETURN = """\n' + b"".join(b"  " * i + b"k:\n" for i in range(min(n, 500))) + b'"""\n',
    }
    return Mutated("deep_nesting", ext, nested[ext]() if ext in nested else data)


def huge_attribute(ext: str, data: bytes, rng: random.Random, seeds: Mapping[str, bytes], bomb_mb: int) -> Mutated:
    value = bytes(rng.choice(b"abcdefghij") for _ in range(64)) * (HUGE_ATTRIBUTE // 64)
    if ext in ZIP_FORMATS:
        def add(xml: bytes) -> bytes:
            start = xml.find(b"<", xml.find(b"?>") + 1 if xml.startswith(b"<?") else 0)
            end = xml.find(b">", start)
            return xml[:end].rstrip(b"/") + b' data-x="' + value + b'"' + xml[end:].lstrip(b"/") if end > 0 else xml
        return Mutated("huge_attribute", ext, _rewrite_member(data, MAIN_MEMBER[ext], add))
    if ext == ".html":
        return Mutated("huge_attribute", ext, data.replace(b"<p class='x'>", b"<p title='" + value + b"'>", 1))
    if ext == ".pdf":
        return Mutated("huge_attribute", ext, data.replace(b"(Harbour notes)", b"(" + value + b")"))
    if ext in (".json", ".ipynb", ".jsonl"):
        record = json.dumps({"text": "big", "attr": value.decode()}).encode()
        return Mutated("huge_attribute", ext, record if ext == ".jsonl" else data[:-1] + b', "attr": "' + value + b'"}')
    if ext in (".eml", ".mbox"):
        return Mutated("huge_attribute", ext, data.replace(b"Subject: Ferry times", b"Subject: " + value, 1))
    return Mutated("huge_attribute", ext, data + b"\n" + value + b"\n")


#: name -> mutation; the harness picks among them uniformly
MUTATIONS: dict[str, Mutation] = {
    "bitflip": bitflip, "truncate": truncate, "zip_inflate": zip_inflate, "zip_member_flip": zip_member_flip,
    "deep_nesting": deep_nesting, "huge_attribute": huge_attribute, "wrong_extension": wrong_extension,
    "reencode": reencode, "none": unchanged,
}


def _repeated_unit(ext: str) -> bytes:
    """A unit of text of the main member's format, repeated to inflate it (a sheet's is a row)."""
    return {
        ".docx": b"<w:p><w:r><w:t>The ferry sails on Tuesdays.</w:t></w:r></w:p>",
        ".xlsx": b'<row><c t="inlineStr"><is><t>The ferry sails on Tuesdays.</t></is></c></row>',
        ".pptx": b"<a:p><a:r><a:t>The ferry sails on Tuesdays.</a:t></a:r></a:p>",
        ".epub": b"<p>The ferry sails on Tuesdays.</p>",
        ".odt": b"<text:p>The ferry sails on Tuesdays.</text:p>",
        ".ods": b"<table:table-row><table:table-cell><text:p>The ferry sails on Tuesdays.</text:p></table:table-cell>"
                b"</table:table-row>",
    }[ext]


def _text_end(ext: str, xml: bytes) -> int:
    """Where the main member's text ends (inflated content put there is read as text): the end of
    the sheet's rows, of the slide's last text body, else before the last two closing tags."""
    marker = {".xlsx": b"</sheetData>", ".pptx": b"</p:txBody>", ".ods": b"</table:table>"}.get(ext)
    at = xml.rfind(marker) if marker else -1
    return at if at >= 0 else xml.rfind(b"</", 0, xml.rfind(b"</"))


def _nest_xml(xml: bytes, tag: bytes, n: int) -> bytes:
    cut = xml.rfind(b"</", 0, xml.rfind(b"</"))
    return xml[:cut] + (b"<" + tag + b">") * n + (b"</" + tag + b">") * n + xml[cut:]


def _nested_mime(n: int) -> bytes:
    head = b"From: a@b\nSubject: deep\nMIME-Version: 1.0\n"
    parts = [b'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i) for i in range(n)]
    tails = [b"\n--b%d--\n" % i for i in reversed(range(n))]
    return head + b"".join(parts) + b"Content-Type: text/plain\n\ndeep\n" + b"".join(tails)


def _rewrite_member(data: bytes, member: str, change: Callable[[bytes], bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            out_info = zipfile.ZipInfo(info.filename, date_time=info.date_time)  # same bytes for the same seed
            out_info.compress_type = zipfile.ZIP_STORED if info.filename == "mimetype" else zipfile.ZIP_DEFLATED
            dst.writestr(out_info, change(body) if info.filename == member else body)
    return out.getvalue()


__all__ = ["MAIN_MEMBER", "MUTATIONS", "Mutated", "Mutation"]
