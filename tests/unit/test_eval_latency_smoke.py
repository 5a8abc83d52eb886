"""Smoke test of benchmarks/eval_latency.py on a tiny BEIR dataset with the hashing embedder:
the script runs, prints a row per retriever and the p50 check for each hybrid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "eval_latency.py"


def test_eval_latency_prints_the_hybrid_check(tmp_path: Path) -> None:
    d = tmp_path / "tiny"
    (d / "qrels").mkdir(parents=True)
    docs = {f"d{i}": f"Passage {i} about {topic}." for i, topic in enumerate(["owls", "tides", "kettles", "ferries"])}
    (d / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n" for k, v in docs.items()))
    (d / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{i}", "text": t}) + "\n"
                                             for i, t in enumerate(["owls", "tides and ferries"])))
    (d / "qrels" / "test.tsv").write_text("q0\td0\t1\nq1\td1\t1\nq1\td3\t1\n")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(yaml.safe_dump({"embedder": {"type": "hashing", "dimension": 64}, "store": {"type": "memory"},
                                    "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 200}}))
    out = tmp_path / "lat.json"
    res = subprocess.run(
        [sys.executable, str(SCRIPT), "-d", str(d), "-p", str(pipe), "-r", "hybrid", "-r", "hybrid:fusion=rrf",
         "--rounds", "2", "--index-root", str(tmp_path / "idx"), "--json", str(out)],
        capture_output=True, text=True, cwd=REPO, timeout=300, check=False,
    )
    assert res.returncode in (0, 1), res.stderr  # 1 only when a timing check fails
    rows = [line for line in res.stdout.splitlines() if line.startswith("| tiny |")]
    assert [r.split(" | ")[1] for r in rows] == ["dense", "bm25", "hybrid", "hybrid:fusion=rrf"]
    assert all(r.rstrip(" |").endswith(("PASS", "FAIL")) for r in rows[2:])
    (result,) = json.loads(out.read_text())
    assert result["queries"] == 2 and set(result["gap_ms"]) == {"hybrid", "hybrid:fusion=rrf"}
    assert result["gap_ms"]["hybrid"] == result["p50_ms"]["hybrid"] - result["p50_ms"]["dense"]
