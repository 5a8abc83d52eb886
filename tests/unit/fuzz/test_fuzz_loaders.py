"""The loader fuzz harness: hostile files of every format through the real indexing path.

The bounded run here indexes a few hundred seeded mutations in a child process (so a hang or a
memory blow-up is caught and reported, never the test process's); the long form is
``python -m ragkit.testing.fuzz_loaders --files 10000 --seed N`` (docs/guides/limits.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragkit.testing.fuzz_loaders import run, write_corpus
from ragkit.testing.fuzz_mutations import MUTATIONS
from ragkit.testing.fuzz_seeds import build_seeds

ROOT = Path(__file__).resolve().parents[3]
#: exceptions a loader raises that the pipeline does not yet turn into a skipped file (the
#: isolation of loaders in bounded workers handles every exception); until then such a run is expected to abort
PENDING_ISOLATION = "a loader raised something other than LoaderError and the run aborted"


def test_every_seed_is_indexed_and_every_mutation_is_deterministic(tmp_path: Path) -> None:
    seeds = build_seeds()
    assert {".txt", ".md", ".html", ".csv", ".pdf", ".docx", ".eml", ".ipynb"} <= set(seeds)
    first = write_corpus(tmp_path / "a", len(seeds) * 2, seed=3, bomb_mb=1)
    again = write_corpus(tmp_path / "b", len(seeds) * 2, seed=3, bomb_mb=1)
    assert [c.name for c in first] == [c.name for c in again]
    assert all((tmp_path / "a" / c.name).read_bytes() == (tmp_path / "b" / c.name).read_bytes() for c in first)
    controls = tmp_path / "controls"
    cases = [c for c in write_corpus(controls, len(seeds) * len(MUTATIONS), seed=3, bomb_mb=1) if c.mutation == "none"]
    for other in set(os.listdir(controls)) - {c.name for c in cases}:
        (controls / other).unlink()
    summary = run(controls, tmp_path / "work", cases)
    assert summary["indexed"] == len(seeds) and not summary["skipped"] and not summary["aborted_runs"]


@pytest.mark.slow
def test_a_bounded_fuzz_run_completes_and_accounts_for_every_file(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    files = len(build_seeds()) * len(MUTATIONS)  # every format under every mutation once (the corpus goes in turn)
    proc = subprocess.run(
        [sys.executable, "-m", "ragkit.testing.fuzz_loaders", "--files", str(files), "--seed", "11", "--bomb-mb", "1",
         "--hang-seconds", "360", "--memory-mb", "3072", "--workdir", str(tmp_path / "work"), "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=1200, cwd=ROOT,
    )
    assert out.exists(), proc.stderr[-3000:]
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert "hung" not in summary, summary.get("hung")
    assert summary["files"] == files and len(summary["formats"]) >= 12 and len(summary["mutations"]) == len(MUTATIONS)
    assert summary["unaccounted"] == [] and summary["skipped_without_reason"] == []
    assert summary["controls_not_indexed"] == []
    assert summary["indexed"] + summary["skipped"] + len(summary["aborted_runs"]) == files
    if summary["aborted_runs"]:
        pytest.xfail(f"{PENDING_ISOLATION}: {summary['aborted_runs'][:3]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
