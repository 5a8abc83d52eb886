"""Smoke test of benchmarks/index_throughput.py: a 50-passage slice, the hashing embedder.

Runs the real script (subprocesses, ragkit CLI, timing and report) without loading a model, so
CI exercises it without the minutes-long msmarco-5k run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "index_throughput.py"


def _corpus(path: Path, n: int = 60) -> Path:
    topics = ["thermometers", "volcanoes", "sourdough bread", "tidal energy", "glaciers", "jazz harmony"]
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            topic = topics[i % len(topics)]
            text = f"Passage {i} is about {topic}. " + " ".join(f"{topic} fact number {j}." for j in range(i % 7 + 1))
            f.write(json.dumps({"_id": str(1000 + i), "title": "", "text": text}) + "\n")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=REPO, timeout=300, check=False
    )


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["jsonl", "files"])
def test_index_throughput_runs_on_a_small_slice(tmp_path: Path, mode: str) -> None:
    corpus = _corpus(tmp_path / "corpus.jsonl")
    out = tmp_path / "result.json"
    res = _run("--corpus", str(corpus), "--limit", "50", "--embedder", "hashing", "--mode", mode,
               "--workdir", str(tmp_path / "work"), "--json-out", str(out))
    assert res.returncode == 0, res.stderr
    assert "rate ratio ragkit / raw encode" in res.stdout
    assert "unchanged re-run / first run" in res.stdout
    runs = json.loads(out.read_text())[mode][0]
    assert runs["raw"]["report"]["passages"] == 50
    assert runs["first"]["report"]["chunks_added"] >= 50
    assert len(runs["first"]["report"]["added"]) == (1 if mode == "jsonl" else 50)
    assert runs["rerun"]["report"]["chunks_added"] == 0
    assert runs["rerun"]["report"]["unchanged"] == (1 if mode == "jsonl" else 50)
    assert all(r["peak_rss_mb"] > 0 and r["wall"] > 0 for r in runs.values())


def test_index_throughput_without_the_corpus_exits_cleanly(tmp_path: Path) -> None:
    res = _run("--corpus", str(tmp_path / "absent.jsonl"))
    assert res.returncode == 0
    assert "corpus not found" in res.stdout
