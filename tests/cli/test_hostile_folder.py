"""One folder of what real folders hold, indexed by the real CLI in a subprocess: a DOCX whose
``document.xml`` inflates to 300 MB, two links to the folder itself, UTF-16 and UTF-32 text without
a BOM, a ``;``-delimited CSV, a DOCX with a table python-docx cannot lay out and a truncated one,
beside good files. The run finishes, each bad file is skipped with its reason (the limit's key for
the bomb), the links are reported as cycles, memory stays bounded, and the good files are found
by search with their text right."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..unit.pipeline.office_files import broken_table_docx, docx_bomb

pytestmark = pytest.mark.slow  # a few CLI processes
ROOT = Path(__file__).resolve().parents[2]
#: what the index run (the CLI and its loader process) may reach: the bomb inflated is 300 MB of XML
#: (gigabytes once parsed); the run, refusing it, needs a fraction of this
PEAK_RSS_BOUND_MB = 1024
#: runs a command and prints the largest peak RSS (MB) of its process tree, from getrusage
PEAK_RSS = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, file=sys.stderr); sys.exit(code)")


def hostile_folder(docs: Path) -> None:
    docs.mkdir()
    docx_bomb(docs / "bomb.docx", inflated_mb=300)
    broken_table_docx(docs / "grid.docx", before="The mill grinds barley on Mondays.",
                      after="The mill is closed on Sundays.")
    whole = broken_table_docx(docs.parent / "whole.docx", before="x", after="y").read_bytes()
    (docs / "truncated.docx").write_bytes(whole[: len(whole) // 2])
    (docs / "tides16.txt").write_bytes("The tide turns at noon in Leith harbour.\n".encode("utf-16-le"))
    (docs / "ferry32.txt").write_bytes("The night ferry leaves Bergen at eleven.\n".encode("utf-32-be"))
    (docs / "ports.csv").write_text("port;ships;berth\nLeith;4;north quay\nBergen;7;fjord pier\n", encoding="utf-8")
    (docs / "notes.md").write_text("# Lighthouse\n\nThe lighthouse at Alpha Point was built in 1871 by Thomas Reid.\n",
                                   encoding="utf-8")
    os.symlink(".", docs / "a")
    os.symlink(".", docs / "b")


def ragkit(*args: str, rss: bool = False) -> tuple[dict | list, int]:  # type: ignore[type-arg]
    cmd = [sys.executable, "-m", "ragkit.cli.main", *args, "--json"]
    if rss:
        cmd = [sys.executable, "-c", PEAK_RSS, *cmd]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    peak = int(proc.stderr.strip().splitlines()[-1]) if rss else 0
    return json.loads(proc.stdout), peak


def test_a_hostile_folder_indexes_its_good_files_and_skips_the_rest_with_reasons(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    hostile_folder(docs)
    assert (docs / "bomb.docx").stat().st_size < 2 * 1024 * 1024
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(f"index: {tmp_path / 'index'}\nsplitter: {{type: recursive, unit: chars, chunk_size: 400, "
                    "chunk_overlap: 0}\nembedder: {type: hashing, dimension: 64}\nstore: {type: faiss, index: flat}\n",
                    encoding="utf-8")
    report, peak_mb = ragkit("index", str(docs), "-p", str(pipe), rss=True)
    assert isinstance(report, dict)
    assert sorted(report["added"]) == ["ferry32.txt", "grid.docx", "notes.md", "ports.csv", "tides16.txt"]
    skipped = {s["source"]: s["reason"] for s in report["skipped"]}
    assert sorted(skipped) == ["bomb.docx", "truncated.docx"]
    assert "sources.limits.max_unzipped_mb" in skipped["bomb.docx"] and "limit 256 MB" in skipped["bomb.docx"]
    assert "not a readable .docx file (not a zip package: the file is truncated" in skipped["truncated.docx"]
    assert sorted(report["links_not_followed"]) == [f"{n}: a symlink to . (a folder that holds the link: a cycle); "
                                                    "not followed" for n in ("a", "b")]
    assert [w["source"] for w in report["warnings"]] == ["grid.docx"]  # its broken table dropped, its text kept
    assert peak_mb < PEAK_RSS_BOUND_MB, f"peak RSS {peak_mb} MB"

    def top(query: str) -> dict:  # type: ignore[type-arg]
        hits, _ = ragkit("search", query, "-p", str(pipe), "-k", "1", "--retriever", "bm25")
        assert isinstance(hits, list) and hits, query
        return hits[0]  # type: ignore[no-any-return]

    assert (top("tide turns noon")["source"], top("tide turns noon")["text"]) == (
        "tides16.txt", "The tide turns at noon in Leith harbour.")
    assert top("night ferry Bergen")["text"] == "The night ferry leaves Bergen at eleven."
    csv = top("Leith ships berth quay")
    assert csv["source"] == "ports.csv" and csv["text"] == "table: ports\nport: Leith\nships: 4\nberth: north quay"
    assert top("mill barley Mondays")["text"] == "The mill grinds barley on Mondays.\n\nThe mill is closed on Sundays."
    assert "Thomas Reid" in top("who built the lighthouse")["text"]
