"""PowerPoint 97-2003 ``.ppt`` files built from their records, for tests: ``record`` and
``container`` write the 8-byte record headers of the ``PowerPoint Document`` stream, ``write_ppt``
puts the stream in an OLE file (``write_ole``). Only what a reader of the text needs.

    write_ppt(path, container(0x03E8, container(0x0FF0, slide_persist(256), text_chars("Title"))))
"""

from __future__ import annotations

import struct
from pathlib import Path

from ragkit.testing.ole import write_ole


def record(kind: int, body: bytes = b"", *, instance: int = 0, version: int = 0) -> bytes:
    return struct.pack("<HHI", (instance << 4) | version, kind, len(body)) + body


def container(kind: int, *children: bytes, instance: int = 0) -> bytes:
    return record(kind, b"".join(children), instance=instance, version=0xF)


def slide_persist(slide_id: int) -> bytes:
    """A SlidePersistAtom naming the slide ``slide_id``."""
    return record(0x03F3, struct.pack("<5I", 1, 0, 0, slide_id, 0))


def text_header(kind: int) -> bytes:
    """A TextHeaderAtom: 0 a title, 1 a body, 4 other text."""
    return record(0x0F9F, struct.pack("<I", kind))


def text_chars(text: str) -> bytes:
    return record(0x0FA0, text.encode("utf-16-le"))


def text_bytes(text: str) -> bytes:
    return record(0x0FA8, text.encode("cp1252"))


def notes_atom(slide_id: int) -> bytes:
    """A NotesAtom: the notes page of slide ``slide_id`` (0: the notes master)."""
    return record(0x03F1, struct.pack("<IHH", slide_id, 0, 0))


def write_ppt(path: Path, stream: bytes) -> Path:
    """A ``.ppt`` at ``path`` whose ``PowerPoint Document`` stream is ``stream`` (under 4096 bytes)."""
    return write_ole(path, {"PowerPoint Document": stream})


__all__ = ["container", "notes_atom", "record", "slide_persist", "text_bytes", "text_chars", "text_header",
           "write_ppt"]
