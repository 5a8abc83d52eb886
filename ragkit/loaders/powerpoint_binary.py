"""Old binary PowerPoint presentations (``.ppt``, PowerPoint 97-2003; loader ``ppt``) via olefile
(``pip install 'ragkit[doc]'``, the extra that reads ``.doc`` too), with no office suite.

A ``.ppt`` is an OLE compound file whose ``PowerPoint Document`` stream is a tree of records (an
8-byte header: version and instance, type, length; a container's version is ``0xF``). Text sits in
text atoms (UTF-16 ``TextCharsAtom``, 8-bit ``TextBytesAtom``): the placeholders' text (titles,
bullets) in the document's slide list, one run per slide after each ``SlidePersistAtom``, and the
notes in the notes list; other text boxes inside each slide's drawing. One document per slide
(``page``: its number), its title (the first title placeholder) a ``#`` heading, its text boxes
after, its notes after ``Notes:``. Master slides (their "Click to edit" prompts) are left out.

Record lengths are checked against the stream and the tree's depth is bounded, so a damaged or
hostile file is skipped with its reason; so is an encrypted presentation.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError
from ragkit.loaders.base import Loader, strip_encoded_data
from ragkit.loaders.office_binary import read_ole
from ragkit.registry import loaders
from ragkit.types import Document

MAX_DEPTH = 32  # containers nested deeper are not read
_SLIDE_LIST, _SLIDE_PERSIST, _TEXT_HEADER = 0x0FF0, 0x03F3, 0x0F9F
_TEXT_CHARS, _TEXT_BYTES = 0x0FA0, 0x0FA8
_SLIDE, _MAIN_MASTER, _NOTES, _NOTES_ATOM = 0x03EE, 0x03F8, 0x03F0, 0x03F1
_CRYPT_SESSION = 0x2F14  # CryptSession10Container: the presentation is encrypted
_TITLE_TYPES = (0, 6)  # TextHeaderAtom types: title, centred title
_SLIDES = 0  # the slide list's instance that lists the slides (2: the notes pages)


@dataclass
class _Slide:
    title: str = ""
    texts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@loaders.register("ppt")
class PptLoader(Loader):
    """One document per slide of a PowerPoint 97-2003 ``.ppt``."""

    name = "ppt"
    mime = "application/vnd.ms-powerpoint"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        slides = read_ole(path, lambda ole: read_ppt(ole, path), extra="doc", what="a PowerPoint presentation",
                          fix="open it in PowerPoint or LibreOffice and save it as .pptx")
        docs = []
        for number, slide in enumerate(slides, start=1):
            blocks = ([f"# {slide.title}"] if slide.title else []) + slide.texts
            if slide.notes:
                blocks.append("Notes: " + " ".join(slide.notes))
            text = strip_encoded_data("\n\n".join(blocks))
            if text.strip():
                docs.append((number, text, slide.title))
        if not docs:
            raise LoaderError(f"{path}: the presentation has no text on any of its {len(slides)} slide(s)",
                              path=str(path), reason="empty file")
        title = next((t for _, _, t in docs if t), "") or path.stem
        return iter([Document(text=text, metadata=self._metadata(source, title=title, page=number, markup="markdown"))
                     for number, text, _ in docs])


def _stream(ole: Any, path: Path) -> bytes:
    if not ole.exists("PowerPoint Document"):
        raise LoaderError(f"{path}: not a PowerPoint 97-2003 presentation (no PowerPoint Document stream); open it "
                          "in the program that made it and save it as .pptx", path=str(path),
                          reason="not a PowerPoint presentation")
    return ole.openstream("PowerPoint Document").read()


def _records(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
    """(version, instance, type, body start, body end) of the records between ``start`` and ``end``."""
    at = start
    while at + 8 <= end:
        head, kind, length = struct.unpack_from("<HHI", data, at)
        body = at + 8
        stop = min(body + length, end)
        yield head & 0xF, head >> 4, kind, body, stop
        at = body + length


def _text(data: bytes, kind: int, start: int, end: int) -> str:
    raw = data[start:end]
    text = raw.decode("utf-16-le", errors="replace") if kind == _TEXT_CHARS else raw.decode("cp1252", errors="replace")
    lines = (" ".join(line.split()) for line in text.replace("\x0b", "\r").split("\r"))
    return "\n".join(line for line in lines if line)


def read_ppt(ole: Any, path: Path) -> list[_Slide]:
    """The slides of an open ``.ppt``: each slide's text from the slide list (placeholders, in
    files that keep it there) and from its drawing (text boxes; all of it in files saved by later
    PowerPoints), and the text of the notes page that names the slide."""
    data = _stream(ole, path)
    listed: list[_Slide] = []  # from the slide list, one per SlidePersistAtom
    ids: list[int] = []  # their slide ids
    drawn: list[_Slide] = []  # from each slide's drawing, in the stream's order
    notes: dict[int, list[str]] = {}  # slide id -> its notes page's text
    state = {"title_next": False, "notes_of": 0}

    def add(slide: _Slide, text: str) -> None:
        if state["title_next"] and not slide.title:
            slide.title = " ".join(text.split())
        else:
            slide.texts.append(text)

    def walk(start: int, end: int, depth: int, where: str) -> None:
        for version, instance, kind, body, stop in _records(data, start, end):
            if kind == _CRYPT_SESSION:
                raise LoaderError(f"{path}: password-protected (encrypted) PowerPoint presentation; remove the "
                                  "password in PowerPoint and save it, or decrypt a copy: msoffcrypto-tool -p "
                                  "PASSWORD in out", path=str(path), reason="encrypted presentation")
            if version == 0xF:
                if depth >= MAX_DEPTH or kind == _MAIN_MASTER:
                    continue
                if kind == _SLIDE_LIST:
                    walk(body, stop, depth + 1, "slides" if instance == _SLIDES else "other")
                elif kind == _SLIDE:
                    drawn.append(_Slide())
                    walk(body, stop, depth + 1, "slide")
                elif kind == _NOTES:
                    state["notes_of"] = 0
                    walk(body, stop, depth + 1, "notes")
                else:
                    walk(body, stop, depth + 1, where)
            elif kind == _SLIDE_PERSIST and where == "slides" and stop - body >= 16:
                listed.append(_Slide())
                ids.append(struct.unpack_from("<I", data, body + 12)[0])
            elif kind == _NOTES_ATOM and where == "notes" and stop - body >= 4:
                state["notes_of"] = struct.unpack_from("<I", data, body)[0]  # 0: the notes master
            elif kind == _TEXT_HEADER and stop - body >= 4:
                state["title_next"] = struct.unpack_from("<I", data, body)[0] in _TITLE_TYPES
            elif kind in (_TEXT_CHARS, _TEXT_BYTES) and (text := _text(data, kind, body, stop)):
                if where == "slides" and listed:
                    add(listed[-1], text)
                elif where == "slide" and drawn:
                    add(drawn[-1], text)
                elif where == "notes" and state["notes_of"] and not text.isdigit():  # not its slide-number field
                    notes.setdefault(state["notes_of"], []).append(text)
                state["title_next"] = False

    walk(0, len(data), 0, "document")
    count = max(len(listed), len(drawn))
    slides = []
    for i in range(count):
        slide = listed[i] if i < len(listed) else _Slide()
        if i < len(drawn):
            slide.title = slide.title or drawn[i].title
            seen = {slide.title, *slide.texts}
            slide.texts += [t for t in ([drawn[i].title] if drawn[i].title != slide.title else []) + drawn[i].texts
                            if t and t not in seen]
        slide.notes = notes.get(ids[i], []) if i < len(ids) else []
        slides.append(slide)
    return slides


__all__ = ["PptLoader", "read_ppt"]
