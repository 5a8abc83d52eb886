"""A PDF's simple fonts read by the encoding the PDF gives them, not by the font program's own.

A Type 1 font embedded without a ``/ToUnicode`` map, whose ``/Encoding`` names a base encoding and
the glyphs that differ from it (``/BaseEncoding /WinAnsiEncoding``, ``/Differences [46 /period …]``),
has its text fully defined by that encoding (PDF 1.7, 9.6.6). pypdf instead maps the codes by the
built-in encoding of the embedded font program when it has one, which a subset font made by some
producers numbers in the order its glyphs were used: MapReduce's paper then reads "data sets” Users
specify …" and "takes PPx longer" for "data sets. Users specify …" and "takes 44% longer".

:func:`map_declared_encodings` gives each such font the ``/ToUnicode`` map its declared encoding
defines, in memory, before the text is read; a font whose differences name a glyph with no Unicode
meaning (``/g12``) is left as it is.

A Type 3 font drawn by dvips (old TeX papers and reports) names each glyph by its character code
(``/Differences [12 /#0C /#0D 44 /, /- …]``) and measures its glyphs in its own units
(``/FontMatrix [1 0 0 -1 0 0]``), and has no space glyph. pypdf cannot map such names, so it writes
"/#0Cle" for "file", and it takes widths in thousandths of an em and a missing space as 200 of
them, so every kern splits a word ("Adv anced T ransaction Pro cessing"). :func:`map_type3_font`
gives it a ``/ToUnicode`` map from those names (the codes below 32 and a few others in TeX's OT1
text encoding: 0x0C is "fi", 0x7B an en dash), its widths in thousandths of an em, and a space as
wide as half its median glyph, on a code it does not draw.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

log = logging.getLogger(__name__)

#: the byte codecs of the base encodings a PDF may name (StandardEncoding comes from fontTools)
_CODECS = {"/WinAnsiEncoding": "cp1252", "/MacRomanEncoding": "mac_roman"}
_NESTING = 4  # how deep form XObjects inside form XObjects are followed for their fonts


def map_declared_encodings(reader: Any) -> int:
    """Give every embedded Type 1 font of ``reader``'s pages that has a declared encoding and no
    ``/ToUnicode`` map the map that encoding defines, and every Type 3 font whose glyph names are
    its character codes its map and widths (``map_type3_font``). Returns how many fonts were mapped; a font
    that cannot be read is left to pypdf."""
    seen: set[int] = set()
    mapped = 0
    for page in reader.pages:
        try:
            for font in _fonts(page.get("/Resources"), _NESTING, seen):
                mapped += _map_font(font)
        except Exception as exc:  # noqa: BLE001 - a damaged resource dictionary: pypdf reads it as it can
            log.debug("font encodings left as they are: %s", exc)
    return mapped


def _fonts(resources: Any, depth: int, seen: set[int]) -> Iterator[Any]:
    """The font dictionaries of a resource dictionary and of the form XObjects it uses, each once."""
    resources = resources.get_object() if resources is not None else None
    if not hasattr(resources, "get") or id(resources) in seen:
        return
    seen.add(id(resources))
    fonts = resources.get("/Font")
    fonts = fonts.get_object() if fonts is not None else None
    for ref in (fonts.values() if hasattr(fonts, "values") else ()):
        font = ref.get_object()
        if hasattr(font, "get") and id(font) not in seen:
            seen.add(id(font))
            yield font
    if depth > 0:
        xobjects = resources.get("/XObject")
        xobjects = xobjects.get_object() if xobjects is not None else None
        for ref in (xobjects.values() if hasattr(xobjects, "values") else ()):
            xobject = ref.get_object()
            if hasattr(xobject, "get") and xobject.get("/Subtype") == "/Form":
                yield from _fonts(xobject.get("/Resources"), depth - 1, seen)


def _map_font(font: Any) -> int:
    from pypdf.generic import DecodedStreamObject, NameObject

    if font.get("/Subtype") == "/Type3":
        return map_type3_font(font)
    if font.get("/Subtype") not in ("/Type1", "/MMType1") or "/ToUnicode" in font:
        return 0
    descriptor = font.get("/FontDescriptor")
    descriptor = descriptor.get_object() if descriptor is not None else None
    if not hasattr(descriptor, "get") or not ("/FontFile" in descriptor or "/FontFile3" in descriptor):
        return 0  # not embedded: pypdf reads the declared encoding already
    encoding = font.get("/Encoding")
    encoding = encoding.get_object() if encoding is not None else None
    if not hasattr(encoding, "get") or "/Differences" not in encoding:
        return 0
    codes = declared_encoding(str(encoding.get("/BaseEncoding", "")), encoding["/Differences"].get_object())
    if codes is None:
        return 0
    stream = DecodedStreamObject()
    stream.set_data(to_unicode_cmap(codes))
    font[NameObject("/ToUnicode")] = stream
    return 1


def declared_encoding(base: str, differences: Any) -> dict[int, str] | None:
    """Code -> text of a simple font's declared encoding: the base encoding (WinAnsi, MacRoman or
    Standard) with the differences' glyph names over it; None when there is no base encoding (the
    font program's own is the base then) or a glyph name has no Unicode meaning."""
    from fontTools.agl import toUnicode

    if base in _CODECS:
        codes = {c: bytes([c]).decode(_CODECS[base], errors="ignore") for c in range(32, 256)}
        if base == "/WinAnsiEncoding":  # PDF 1.7, D.2: WinAnsi's hyphen and space are also 0xAD and
            # 0xA0 (cp1252's soft hyphen and no-break space), its unused codes a bullet
            codes.update({0xAD: "-", 0xA0: " "} | dict.fromkeys((0x7F, 0x81, 0x8D, 0x8F, 0x90, 0x9D), "•"))
    elif base == "/StandardEncoding":
        from fontTools.encodings.StandardEncoding import StandardEncoding

        codes = {c: toUnicode(name) for c, name in enumerate(StandardEncoding) if name != ".notdef"}
    else:
        return None
    for code, name in _differences(differences):
        text = toUnicode(name.lstrip("/"))
        if not text or not 0 <= code <= 255:
            return None  # "/g12", "/C0052": a name that means nothing (the font program's own map may)
        codes[code] = text
    return {c: t for c, t in codes.items() if t and t.isprintable() or t == " "}


def _differences(items: Any) -> Iterator[tuple[int, str]]:
    """(code, glyph name) of an encoding's ``/Differences`` array: a number sets the code of the
    name after it, and each name after that takes the next code (``[12 /#0C /#0D 44 /,]``)."""
    code = 0
    for item in items:
        if isinstance(item, int) or str(item).lstrip("-").isdigit():
            code = int(item)
            continue
        yield code, str(item)
        code += 1


#: TeX's OT1 text encoding where it is not ASCII: ligatures, accents and dashes (TeXbook, appendix F)
_OT1 = {0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl", 0x10: "ı", 0x11: "ȷ", 0x12: "`",
        0x13: "´", 0x14: "ˇ", 0x15: "˘", 0x16: "¯", 0x17: "˚", 0x18: "¸", 0x19: "ß", 0x1A: "æ", 0x1B: "œ",
        0x1C: "ø", 0x1D: "Æ", 0x1E: "Œ", 0x1F: "Ø", 0x22: "”", 0x5C: "“", 0x7B: "–", 0x7C: "—", 0x7D: "˝",
        0x7E: "˜", 0x7F: "¨"}
_ESCAPE = re.compile(r"#([0-9A-Fa-f]{2})")  # a PDF name's escaped byte: "/#0C"
_THOUSANDTHS = 1000.0  # pypdf's unit of glyph widths: thousandths of an em


def map_type3_font(font: Any) -> int:
    """Give a Type 3 font whose glyphs are named by their character codes (dvips': "/#0C", "/,",
    "/a") a ``/ToUnicode`` map, its ``/Widths`` in thousandths of an em and a space width, as the
    module says. Returns 1 when the font was mapped; a font with a map of its own, or whose names
    are not characters ("/g12", "/a0"), is left to pypdf."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, FloatObject, NameObject, NumberObject

    encoding = font.get("/Encoding")
    encoding = encoding.get_object() if encoding is not None else None
    widths = font.get("/Widths")
    widths = widths.get_object() if widths is not None else None
    if "/ToUnicode" in font or not hasattr(encoding, "get") or "/Differences" not in encoding \
            or not isinstance(widths, list) or "/FirstChar" not in font:
        return 0
    codes: dict[int, str] = {}
    for code, name in _differences(encoding["/Differences"].get_object()):
        name = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), name[1:])
        if len(name) != 1:
            return 0  # "/g12": the names are no characters
        codes[code] = _OT1.get(ord(name), name if name.isprintable() else "")
    codes = {c: t for c, t in codes.items() if t and 0 <= c <= 255}
    if not codes:
        return 0
    try:
        scale = float(font.get("/FontMatrix", [0.001])[0]) * _THOUSANDTHS
        first = int(font["/FirstChar"])
        sizes = [float(w) * scale for w in widths]
    except (TypeError, ValueError, IndexError):
        return 0
    drawn = sorted(w for w in sizes if w > 0)
    if not drawn:
        return 0
    # a code the font does not draw becomes its space, half its median glyph wide (TeX's word space
    # is a third of an em, its letters about two thirds); past the last code when every one is drawn
    free = next((c for c in range(first, first + len(sizes)) if c not in codes and sizes[c - first] == 0), None)
    if free is None and first + len(sizes) <= 255:
        free = first + len(sizes)
        sizes.append(0.0)
        font[NameObject("/LastChar")] = NumberObject(free)
    if free is not None:
        sizes[free - first] = drawn[len(drawn) // 2] / 2
        codes[free] = " "
    font[NameObject("/Widths")] = ArrayObject(FloatObject(w) for w in sizes)
    stream = DecodedStreamObject()
    stream.set_data(to_unicode_cmap(codes))
    font[NameObject("/ToUnicode")] = stream
    return 1


def to_unicode_cmap(codes: dict[int, str]) -> bytes:
    """A ``/ToUnicode`` CMap of one-byte codes."""
    lines = [f"<{c:02X}> <{t.encode('utf-16-be').hex().upper()}>" for c, t in sorted(codes.items())]
    chunks = [lines[i:i + 100] for i in range(0, len(lines), 100)]  # at most 100 entries a block
    body = "\n".join(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar" for chunk in chunks)
    return ("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
            "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
            "1 begincodespacerange\n<00> <FF>\nendcodespacerange\n"
            f"{body}\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n").encode("ascii")


__all__ = ["declared_encoding", "map_declared_encodings", "map_type3_font", "to_unicode_cmap"]
