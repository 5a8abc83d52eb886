"""A minimal OLE compound-file writer, for tests: small streams (each under 4096 bytes, kept in
the mini stream) in the root storage or one storage down, as an Outlook ``.msg`` file holds its
MAPI properties and its attachments' properties.

    write_ole(path, {"__substg1.0_0037001F": "Subject".encode("utf-16-le"),
                     "__attach_version1.0_#00000000/__substg1.0_3707001F": "a.pdf".encode("utf-16-le")})
"""

from __future__ import annotations

import struct
from pathlib import Path

_SECTOR, _MINI = 512, 64
_FREE, _END, _FATSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD
_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CUTOFF = 4096


def _chain(first: int, count: int) -> list[int]:
    """FAT entries of ``count`` consecutive sectors from ``first``: each points to the next."""
    return [first + i + 1 for i in range(count - 1)] + [_END] if count else []


def _entry(name: str, kind: int, start: int, size: int, *, right: int = _FREE, child: int = _FREE) -> bytes:
    encoded = (name + "\x00").encode("utf-16-le")
    return (encoded.ljust(64, b"\x00") + struct.pack("<HBB", len(encoded), kind, 1)
            + struct.pack("<III", _FREE, right, child) + b"\x00" * 16 + b"\x00" * 4 + b"\x00" * 16
            + struct.pack("<IQ", start, size))


def write_ole(path: Path, streams: dict[str, bytes]) -> Path:
    """Write ``streams`` (name -> bytes, each under 4096 bytes) as an OLE compound file."""
    if any(len(data) >= _CUTOFF or not data for data in streams.values()):
        raise ValueError("write_ole keeps streams of 1 to 4095 bytes (the mini stream) only")
    names = list(streams)
    mini_data, mini_fat, starts = b"", [], []
    for name in names:
        data = streams[name]
        sectors = -(-len(data) // _MINI)
        starts.append(len(mini_data) // _MINI)
        mini_fat += _chain(len(mini_data) // _MINI, sectors)
        mini_data += data.ljust(sectors * _MINI, b"\x00")
    # the directory: the root's items (streams, and storages holding streams: "storage/stream"), each
    # level a chain of right siblings, a storage's streams right after it
    top: list[str] = []
    inside: dict[str, list[str]] = {}
    for name in names:
        storage, _, stream = name.rpartition("/")
        if storage and storage not in inside:
            inside[storage] = []
            top.append(storage)
        (inside[storage] if storage else top).append(stream if storage else name)
    index: dict[str, int] = {}
    order: list[str] = []
    for item in top:
        index[item] = len(order) + 1
        order.append(item)
        for stream in inside.get(item, []):
            index[f"{item}/{stream}"] = len(order) + 1
            order.append(f"{item}/{stream}")
    start_of = dict(zip(names, starts, strict=True))

    def sibling(level: list[str], i: int, prefix: str = "") -> int:
        return index[prefix + level[i + 1]] if i + 1 < len(level) else _FREE

    entries = [_entry("Root Entry", 5, 0, 0, child=1 if names else _FREE)]  # start set below
    for item in order:
        storage, _, leaf = item.rpartition("/")
        level, prefix = (inside[storage], f"{storage}/") if storage else (top, "")
        right = sibling(level, level.index(leaf), prefix)
        if item in inside:
            entries.append(_entry(item, 1, 0, 0, right=right, child=index[f"{item}/{inside[item][0]}"]))
        else:
            entries.append(_entry(leaf, 2, start_of[item], len(streams[item]), right=right))
    dir_sectors = -(-len(entries) // 4)
    minifat_sectors = -(-len(mini_fat) // 128)
    stream_sectors = -(-len(mini_data) // _SECTOR)
    first_dir, first_minifat = 1, 1 + dir_sectors
    first_stream = first_minifat + minifat_sectors
    total = first_stream + stream_sectors
    if total > 128:
        raise ValueError("write_ole writes one FAT sector: too many streams")
    entries[0] = _entry("Root Entry", 5, first_stream if stream_sectors else _END, len(mini_data),
                        child=1 if names else _FREE)
    fat = [_FATSECT] + _chain(first_dir, dir_sectors) + _chain(first_minifat, minifat_sectors)
    fat += _chain(first_stream, stream_sectors)
    header = (_MAGIC + b"\x00" * 16 + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6) + b"\x00" * 6
              + struct.pack("<IIIIIIIII", 0, 1, first_dir, 0, _CUTOFF,
                            first_minifat if minifat_sectors else _END, minifat_sectors, _END, 0)
              + struct.pack("<I", 0) + struct.pack("<108I", *[_FREE] * 108))
    body = [
        struct.pack(f"<{128}I", *(fat + [_FREE] * (128 - len(fat)))),
        b"".join(entries).ljust(dir_sectors * _SECTOR, b"\x00"),
        struct.pack(f"<{len(mini_fat)}I", *mini_fat).ljust(minifat_sectors * _SECTOR, b"\xff"),
        mini_data.ljust(stream_sectors * _SECTOR, b"\x00"),
    ]
    path.write_bytes(header + b"".join(body))
    return path


__all__ = ["write_ole"]
