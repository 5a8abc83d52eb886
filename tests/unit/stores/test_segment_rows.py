"""A segment's rows in compressed blocks: read back row by row and in order, a merge copies the
blocks whose rows all survive byte for byte, and a log written before blocks (rows as JSON lines,
manifest format 2) is read as it is and rewritten as blocks by its merges."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("faiss")

from ragkit.stores._rows import BLOCK_ROWS, Rows, blocks_of, merged_blocks, save_npy, write_blocks  # noqa: E402
from ragkit.stores._segments import MANIFEST  # noqa: E402
from ragkit.stores.faiss import FaissStore  # noqa: E402
from ragkit.testing.contract import make_rows  # noqa: E402

DIM = 16
WORDS = "the ferry leaves the harbour at seven and returns from the island before dusk every day".split()


def _lines(n: int, start: int = 0) -> list[bytes]:
    rng = np.random.default_rng(start)
    return [Rows.encode(f"id-{i:06d}", {"source": f"doc{i % 5}.md", "start": i * 10},
                        " ".join(rng.choice(WORDS, 40))) for i in range(start, start + n)]


def _write(folder: Path, lines: list[bytes]) -> Rows:
    folder.mkdir(parents=True)
    write_blocks(folder, blocks_of(lines))
    return Rows.open(folder)


def test_rows_read_back_from_compressed_blocks(tmp_path: Path) -> None:
    lines = _lines(3 * BLOCK_ROWS + 5)
    rows = _write(tmp_path / "seg", lines)
    assert len(rows) == len(lines)
    assert [rows.line(i) for i in (0, BLOCK_ROWS - 1, BLOCK_ROWS, len(lines) - 1)] == \
        [lines[i] for i in (0, BLOCK_ROWS - 1, BLOCK_ROWS, len(lines) - 1)]
    assert list(rows.lines()) == lines
    assert rows.get(7) == ("id-000007", {"source": "doc2.md", "start": 70})
    assert (tmp_path / "seg" / "rows.z").stat().st_size < 0.6 * sum(map(len, lines))


def test_a_merge_copies_whole_live_blocks_and_rewrites_the_others(tmp_path: Path) -> None:
    a_lines, b_lines = _lines(3 * BLOCK_ROWS, 0), _lines(2 * BLOCK_ROWS + 3, 1000)
    a, b = _write(tmp_path / "a", a_lines), _write(tmp_path / "b", b_lines)
    dead = {5, BLOCK_ROWS + 1}  # one dead row in each of a's first two blocks
    live_a = np.asarray([i for i in range(len(a_lines)) if i not in dead])
    live_b = np.arange(len(b_lines))
    out = tmp_path / "merged"
    out.mkdir()
    write_blocks(out, merged_blocks([(a, live_a), (b, live_b)]))
    merged = Rows.open(out)
    assert list(merged.lines()) == [a_lines[i] for i in live_a] + b_lines
    data = (out / "rows.z").read_bytes()
    whole = [(a, 2), (b, 0), (b, 1), (b, 2)]  # a's third block and every block of b
    for rows, blk in whole:
        _, block, lines = list(rows.live_blocks(np.arange(len(rows))))[blk]
        assert block is not None and not lines and block in data
    _, block, lines = next(a.live_blocks(live_a))
    assert block is None and len(lines) == BLOCK_ROWS - 1


def _to_json_lines(store_dir: Path) -> None:
    """Rewrite a log as a store written before blocks keeps it."""
    for seg in sorted(p for p in store_dir.glob("s*") if p.is_dir()):
        lines = list(Rows.open(seg).lines())
        (seg / "rows.jsonl").write_bytes(b"".join(lines))
        save_npy(seg / "rows.idx.npy", np.cumsum([0] + [len(x) for x in lines]).astype(np.int64))
        (seg / "rows.z").unlink()
        (seg / "rows.blocks.npy").unlink()
    manifest = json.loads((store_dir / MANIFEST).read_text(encoding="utf-8"))
    (store_dir / MANIFEST).write_text(json.dumps({**manifest, "format": 2}), encoding="utf-8")


def test_a_store_of_json_lines_rows_is_read_and_merged_into_blocks(tmp_path: Path) -> None:
    path = tmp_path / "s"
    ids, x, meta = make_rows(400, DIM, 3)
    old = FaissStore(dimension=DIM, path=path, index="auto", build={"merge_factor": 1000})
    for a in range(0, 300, 100):
        old.add(ids[a : a + 100], x[a : a + 100], meta[a : a + 100])
        old.persist()
    old.close()
    _to_json_lines(path)

    store = FaissStore(dimension=DIM, path=path, index="auto", build={"merge_factor": 4})
    assert store.count() == 300
    [hit] = store.search(x[42], k=1)
    assert hit.id == ids[42] and hit.metadata["text"] == meta[42]["text"]
    store.delete(ids[:10])
    store.add(ids[300:], x[300:], meta[300:])
    store.persist()  # the 4th segment: its class merges
    store.wait_merges()
    assert not list(path.glob("s*/rows.jsonl")) and list(path.glob("s*/rows.z"))
    store.close()
    again = FaissStore(dimension=DIM, path=path, index="auto")
    assert again.count() == 390 and json.loads((path / MANIFEST).read_text(encoding="utf-8"))["format"] == 3
    assert {h.id: h.metadata["source"] for h in again.search(x[200], k=400)} == \
        {i: m["source"] for i, m in zip(ids[10:], meta[10:], strict=True)}
