"""Moved to :mod:`ragkit.ids` (chunk ids are values the splitters make, below the index layer);
the names stay importable from here."""

from ragkit.ids import chunk_id, text_hash

__all__ = ["chunk_id", "text_hash"]
