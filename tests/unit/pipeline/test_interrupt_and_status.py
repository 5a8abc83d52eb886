"""On real `ragkit index` subprocesses: Ctrl-C (SIGINT) keeps the
embeddings computed so far (the next run takes them from the cache), and `ragkit status` works
while an index run holds the catalog."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from ragkit.config import load_pipeline
from ragkit.index.writer import EMBED_SLICE, IndexingPipeline

pytestmark = pytest.mark.slow
N_CHUNKS = 12 * EMBED_SLICE


def _setup(tmp_path: Path, delay: float, gate: Path | None = None) -> tuple[Path, Path, Path]:
    """A folder of 12 files, an index and a pipeline whose fake embedder sleeps ``delay`` per call
    and notes each call in ``tmp_path / "calls"`` (with ``gate``: then waits until that file exists)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for f in range(12):  # one flush batch (flush_chunks 4096): before the fix nothing was kept
        paras = [f"File {f} paragraph {i}: the tide gauge reads {f * 1000 + i} centimetres." for i in range(EMBED_SLICE)]
        (docs / f"f{f:02d}.txt").write_text("\n\n".join(paras), encoding="utf-8")
    index = tmp_path / "index"
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": str(index),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 80, "chunk_overlap": 0},
        "embedder": {"type": "hashing", "dimension": 32, "delay": delay, "calls_file": str(tmp_path / "calls"),
                     **({"gate_file": str(gate)} if gate else {})},
        "store": {"type": "faiss", "index": "flat"},
        "retriever": {"type": "dense"},
    }), encoding="utf-8")
    return docs, index, pipe


def _start(docs: Path, pipe: Path) -> subprocess.Popen[str]:
    # Ctrl-C as in a terminal: a shell's background job (how CI may run us) inherits SIGINT
    # ignored, and Python then installs no KeyboardInterrupt handler
    return subprocess.Popen(
        [sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _wait_for_run(index: Path, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if (index / "index.pid").exists():
            return
        time.sleep(0.02)
    raise AssertionError("the index run did not start")


def test_sigint_keeps_the_embeddings_computed_so_far(tmp_path: Path) -> None:
    docs, index, pipe = _setup(tmp_path, delay=0.4)
    proc = _start(docs, pipe)
    _wait_for_run(index, proc)
    calls = tmp_path / "calls"  # a third embed call started: two slices of 256 texts are embedded,
    deadline = time.monotonic() + 60  # far from all 12 (whatever the machine's load)
    while time.monotonic() < deadline and proc.poll() is None and len(_lines(calls)) < 3:
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    said = re.search(r"interrupted: the (\d+) embeddings computed in this run are saved in the embedding cache", err)
    assert said, err
    kept = int(said.group(1))
    assert 0 < kept < N_CHUNKS
    spec = load_pipeline(pipe)
    report = IndexingPipeline(spec.model_copy(update={"embedder": spec.embedder.model_copy(
        update={"delay": 0.0})})).index_paths([docs])
    assert report.cache_hits >= kept  # nothing computed before the interrupt is computed again
    assert report.cache_hits + report.texts_embedded == report.chunks_total == N_CHUNKS


def test_status_works_during_an_index_run(tmp_path: Path) -> None:
    """The run is held open by construction: its first embed call waits for a file the test creates
    only after both status calls, so no load can make the run end in between."""
    gate = tmp_path / "release"
    docs, index, pipe = _setup(tmp_path, delay=0.0, gate=gate)
    spec = load_pipeline(pipe)
    gate.touch()  # the first run (one file) is not held
    first = IndexingPipeline(spec).index_paths([docs / "f00.txt"])
    assert first.chunks_total == EMBED_SLICE
    gate.unlink()
    proc = _start(docs, pipe)
    try:
        _wait_for_run(index, proc)
        calls = tmp_path / "calls"
        deadline = time.monotonic() + 120  # the run is inside an embed call, waiting for the gate
        while time.monotonic() < deadline and proc.poll() is None and len(_lines(calls)) < 2:
            time.sleep(0.02)
        assert proc.poll() is None and len(_lines(calls)) >= 2, "the held run did not reach its embed call"
        out = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "status", "--index", str(index)],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert f"an index run is in progress (pid {proc.pid})" in out.stdout, out.stdout
        as_json = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "status", "--json", "--index", str(index)],
                                 capture_output=True, text=True, timeout=120)
        assert json.loads(as_json.stdout)["running"] == {"pid": proc.pid}
        assert proc.poll() is None  # still held: both answers were given during the run
    finally:
        gate.touch()
        proc.wait(timeout=120)
    assert proc.returncode == 0
    assert json.loads(proc.stdout.read())["chunks_total"] == N_CHUNKS
