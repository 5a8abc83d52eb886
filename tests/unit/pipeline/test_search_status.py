"""`ragkit status` says how the index searches: exact below the threshold, approximate (IVF) above
it with the recall@10 its approximate segments measured against exact search when they were built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli

pytest.importorskip("faiss")


def _pipeline(tmp_path: Path, exact_max: int) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    words = "tide gauge keeper lamp ferry harbour storm seal gull rain wind survey magnet".split()
    for f in range(24):
        rows = [{"_id": f"{f}-{i}", "text": " ".join(words[(f * 7 + i * j) % len(words)] for j in range(12)) + f" r{f}x{i}"}
                for i in range(100)]
        (docs / f"f{f:02d}.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    pipe = tmp_path / "p.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 32},
        "loaders": {".jsonl": {"type": "jsonl", "text_field": "text", "id_field": "_id"}},
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 4000, "chunk_overlap": 0},
        "store": {"type": "faiss", "index": "auto", "build": {"ann_min": 500}, "search": {"exact_max": exact_max}},
        "retriever": {"type": "dense"}, "indexing": {"flush_chunks": 200},
    }), encoding="utf-8")
    return docs, pipe


@pytest.mark.parametrize(("exact_max", "mode"), [(1000, "approximate"), (100_000, "exact")])
def test_status_reports_the_search_mode_and_measured_recall(tmp_path: Path, exact_max: int, mode: str) -> None:
    docs, pipe = _pipeline(tmp_path, exact_max)
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(docs), "-p", str(pipe)], catch_exceptions=False).exit_code == 0
    out = runner.invoke(cli, ["status", "--index", str(tmp_path / "index")], catch_exceptions=False).output
    assert f"search: {mode} over 2,400 vectors" in out, out
    assert "PQ segments (re-rank" in out and "recall@10 0.9" in out, out  # merges built PQ indexes either way
    info = json.loads(runner.invoke(cli, ["status", "--json", "--index", str(tmp_path / "index")]).stdout)
    si = info["search_index"]
    assert si["search_mode"] == mode and si["pq_segments"] >= 1 and si["recall_at_10"] >= 0.95
