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


@pytest.mark.slow
def test_ray_ingest_runs_on_a_small_slice(tmp_path: Path) -> None:
    """benchmarks/ray_ingest.py end to end: local vs Ray (1 and 2 embed actors), real clusters."""
    pytest.importorskip("ray")
    corpus = _corpus(tmp_path / "corpus.jsonl", n=40)
    out = tmp_path / "result.json"
    res = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "ray_ingest.py"), "--corpus", str(corpus), "--embedder", "hashing",
         "--batch-size", "8", "--workdir", str(tmp_path / "work"), "--json-out", str(out)],
        capture_output=True, text=True, cwd=REPO, timeout=600, check=False,
    )
    assert res.returncode == 0, res.stderr
    assert "ray with 2 embed actors <= 1.3 x local wall time" in res.stdout and "cpu flags" in res.stdout
    results = json.loads(out.read_text())["results"]
    assert [r["name"] for r in results] == ["local", "ray, 1 embed actor", "ray, 2 embed actors"]
    assert all(r["added"] == 40 and r["chunks"] == 40 and r["skipped"] == 0 for r in results)
    assert all(r["peak_driver_mb"] > 0 for r in results)
    assert all(r["peak_workers_mb"] > 0 and r["cluster_start"] > 0 for r in results[1:])
