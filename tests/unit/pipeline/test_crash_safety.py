"""A real `ragkit index` subprocess killed with SIGKILL mid-run leaves an index the next run
completes, with no duplicate and no orphan chunk. Two concurrent runs never corrupt the index."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from ragkit.config import load_pipeline
from ragkit.index.reader import KnowledgeBase
from ragkit.index.status import index_status
from ragkit.index.writer import IndexingPipeline

pytestmark = pytest.mark.slow
N_FILES = 60


#: a store that merges at almost every commit (and builds IVF segments), with a BM25 index
#: merging too: a kill lands mid-merge as often as mid-flush
MERGING = {"store": {"type": "faiss", "index": "auto", "build": {"ann_min": 40, "merge_factor": 2},
                     "search": {"exact_max": 60}}, "lexical": {"enabled": True}}


def _setup(tmp_path: Path, *, delay: float = 0.1, **over: object) -> tuple[Path, Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    rng = random.Random(7)
    words = "tide gauge keeper lamp ferry harbour storm seal gull rain wind survey magnet".split()
    for i in range(N_FILES):
        paras = [" ".join(rng.choice(words) for _ in range(30)) + f" item{i}p{j}." for j in range(3)]
        (docs / f"f{i:03d}.txt").write_text("\n\n".join(paras), encoding="utf-8")
    index = tmp_path / "index"
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": str(index),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 150, "chunk_overlap": 0},
        "embedder": {"type": "hashing", "dimension": 32, "delay": delay},
        "store": {"type": "faiss", "index": "flat"},
        "indexing": {"flush_chunks": 7},
        **over,
    }), encoding="utf-8")
    return docs, index, pipe


def _start(docs: Path, pipe: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _wait_for_first_commit(index: Path, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if (index / "store").exists():
            return
        time.sleep(0.02)


def _assert_consistent(index: Path, pipe: Path, expected_chunks: int) -> None:
    info = index_status(pipeline=str(pipe), index=str(index), verify=True)
    assert info["verify"]["ok"], info["verify"]
    assert info["totals"]["chunks"] == expected_chunks
    with KnowledgeBase.open(pipeline=pipe, index=index) as kb:
        ids = kb.store.ids()
        assert kb.store.count() == len(ids) == expected_chunks
        if kb.spec.uses_lexical:  # the BM25 index holds the same chunks
            assert kb.lexical.ids() == ids and kb.lexical.count() == expected_chunks


@pytest.mark.parametrize("kill_after", [0.0, 0.3, 0.9, 1.7])
@pytest.mark.parametrize("layout", ["flat", "merging"])
def test_sigkill_mid_run_then_rerun_completes(tmp_path: Path, kill_after: float, layout: str) -> None:
    docs, index, pipe = _setup(tmp_path, **(MERGING if layout == "merging" else {}))
    # reference: the same corpus indexed in one go
    ref = IndexingPipeline(load_pipeline(pipe), index_dir=tmp_path / "ref").index_paths([docs])
    proc = _start(docs, pipe)
    _wait_for_first_commit(index, proc)
    time.sleep(kill_after)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    partial = index_status(pipeline=str(pipe), index=str(index))["totals"]["chunks"]
    assert partial < ref.chunks_total  # really killed mid-run
    rep = IndexingPipeline(load_pipeline(pipe)).index_paths([docs])
    assert rep.chunks_total == ref.chunks_total
    _assert_consistent(index, pipe, ref.chunks_total)
    again = IndexingPipeline(load_pipeline(pipe)).index_paths([docs])
    assert again.chunks_added == 0 and again.unchanged == N_FILES


def test_second_concurrent_run_stops_with_clear_message(tmp_path: Path) -> None:
    docs, index, pipe = _setup(tmp_path, delay=0.3)
    first = _start(docs, pipe)
    try:
        _wait_for_first_commit(index, first)
        assert first.poll() is None, "the first run finished too early to test concurrency"
        second = subprocess.run(
            [sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe)],
            capture_output=True, text=True, timeout=120,
        )
        assert second.returncode == 3
        assert "already running" in second.stderr
    finally:
        first.wait(timeout=300)
    assert first.returncode == 0, first.stderr.decode()
    _assert_consistent(index, pipe, IndexingPipeline(load_pipeline(pipe)).index_paths([docs]).chunks_total)
