"""What every measured path writes for the vector check (``--vectors FILE``): one ``.npz`` with the
file stems of the passages that became exactly one chunk (``ids``) and that chunk's vector
(``vectors``). ``compare_peers.py`` compares them with raw ``SentenceTransformer.encode``.
Used by the peer scripts in the peers' virtualenv, so it needs nothing but NumPy."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np


def write_single_chunk_vectors(path: str | None, chunks: Iterable[tuple[str, object]]) -> int:
    """``chunks``: (source file path or name, vector) per chunk, in any order. Returns how many
    passages were written (those with exactly one chunk)."""
    if not path:
        return 0
    by_source: dict[str, list[object]] = defaultdict(list)
    for source, vec in chunks:
        by_source[Path(str(source)).stem].append(vec)
    single = sorted((stem, vecs[0]) for stem, vecs in by_source.items() if len(vecs) == 1)
    ids = np.array([stem for stem, _ in single])
    vectors = np.array([np.asarray(v, dtype=np.float32) for _, v in single], dtype=np.float32).reshape(len(single), -1)
    np.savez(path, ids=ids, vectors=vectors)
    return len(single)
