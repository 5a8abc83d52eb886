"""Deterministic identifiers and content hashes.

Hashes cover content only (never mtime or size), so touching a file changes nothing. A chunk id
is derived from its source, its position and its text, so re-indexing the same content yields the
same ids (no duplicates) and a changed chunk gets a new id.
"""

from __future__ import annotations

import hashlib


def text_hash(text: str) -> str:
    """SHA-256 of the UTF-8 text, hex (64 chars)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def chunk_id(source: str, part: str | int, ordinal: int, text: str) -> str:
    """Stable id of the ``ordinal``-th chunk of ``part`` (page/row key) of ``source``."""
    h = hashlib.sha256()
    for piece in (source, str(part), str(ordinal), text):
        h.update(piece.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:32]
