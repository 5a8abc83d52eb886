"""Progress (labels, embedding progress, log lines through tqdm, each
skip once, no re-loading of unchanged unreadable files) and report / status wording (recovered
files count as added, the chunk line adds up, a killed run is `interrupted`)."""

from __future__ import annotations

import io
import logging
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit.cli.index_cmd import _Progress
from ragkit.cli.main import cli
from ragkit.index.catalog import Catalog
from ragkit.index.status import index_status
from ragkit.index.writer import EMBED_SLICE, IndexingPipeline

from .helpers import make_spec, write_tree


def test_a_recovered_file_counts_as_added_and_the_chunk_line_adds_up(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"a.md": "# A\nThe lamp turns twice a minute.\n", "b.md": "   \n\n  \n"})
    spec = make_spec(tmp_path / "index")
    first = IndexingPipeline(spec).index_paths([docs])
    assert first.added == ["a.md"] and [s for s, _ in first.skipped] == ["b.md"]
    (docs / "b.md").write_text("# B\nThe ferry sails on Tuesdays.\n", encoding="utf-8")
    (docs / "a.md").write_text("# A\nThe lamp turns three times a minute now.\n", encoding="utf-8")
    second = IndexingPipeline(spec).index_paths([docs])
    assert second.added == ["b.md"] and second.updated == ["a.md"] and second.skipped == []
    assert second.chunks_before == first.chunks_total
    assert second.chunks_before + second.chunks_added - second.chunks_removed == second.chunks_total
    line = next(x for x in second.summary_lines() if x.startswith("chunks:"))
    assert line == (f"chunks: {second.chunks_before} + {second.chunks_added} added - {second.chunks_removed} removed "
                    f"= {second.chunks_total} in the index")


def test_an_unchanged_unreadable_file_is_not_loaded_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    docs = write_tree(tmp_path / "docs", {"a.md": "# A\ntext\n", "blank.md": "  \n \n"})
    spec = make_spec(tmp_path / "index")
    with caplog.at_level(logging.INFO, logger="ragkit.index.prepare"):
        first = IndexingPipeline(spec).index_paths([docs])
        loaded_first = [r for r in caplog.records if "skipped blank.md" in r.getMessage()]
        caplog.clear()
        second = IndexingPipeline(spec).index_paths([docs])
        loaded_second = [r for r in caplog.records if "skipped blank.md" in r.getMessage()]
    assert len(loaded_first) == 1 and loaded_first[0].levelno == logging.INFO  # the report lists it, once
    assert loaded_second == []  # same content: not loaded again
    assert second.skipped == first.skipped and first.skipped[0][0] == "blank.md"  # still listed, same reason
    assert second.unchanged == 1
    (docs / "blank.md").write_text("# Blank\nnow with text\n", encoding="utf-8")
    assert IndexingPipeline(spec).index_paths([docs]).added == ["blank.md"]


def test_a_killed_run_shows_as_interrupted_not_running(tmp_path: Path) -> None:
    spec = make_spec(tmp_path / "index")
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs")])
    cat = Catalog(tmp_path / "index" / "catalog.duckdb")  # what SIGKILL leaves: a run row never finished
    cat.start_run()
    cat.close()
    info = index_status(index=str(tmp_path / "index"))
    assert info["last_run"]["status"] == "interrupted" and info["running"] is None
    out = CliRunner().invoke(cli, ["status", "--index", str(tmp_path / "index")], catch_exceptions=False).output
    assert "last run: #2 interrupted" in out and "running" not in out


def test_embedding_progress_advances_per_slice(tmp_path: Path) -> None:
    words = "tide gauge keeper lamp ferry harbour storm seal gull rain wind survey".split()
    n = 3 * EMBED_SLICE + 10
    text = "\n\n".join(f"{words[i % len(words)]} {words[(i * 7) % len(words)]} number {i}." for i in range(n))
    docs = write_tree(tmp_path / "docs", {"long.txt": text})
    events: list[tuple[str, int]] = []
    spec = make_spec(tmp_path / "index", splitter={"type": "recursive", "unit": "chars", "chunk_size": 40,
                                                   "chunk_overlap": 0})
    report = IndexingPipeline(spec, progress=lambda e, k: events.append((e, k))).index_paths([docs])
    names = [e for e, _ in events]
    embedded = [k for e, k in events if e == "embedded"]
    assert len(embedded) >= 4 and sum(embedded) == report.texts_embedded
    assert sum(k for e, k in events if e == "embed_total") == report.texts_embedded
    assert names.index("embedded") < names.index("chunks")  # it moves before the batch is stored


def test_progress_bars_have_units_rate_eta_and_log_lines_go_through_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    root = logging.getLogger()
    handler = logging.StreamHandler(sys.stderr)
    root.addHandler(handler)
    try:
        with _Progress(disable=False) as progress:
            assert handler not in root.handlers  # replaced by tqdm's handler while bars are shown
            progress("total", 3)
            progress("file", 1)
            progress("embed_total", 512)
            progress("embedded", 256)
            progress("embedded", 256)
            progress("chunks", 512)
            logging.getLogger("ragkit.test").warning("a warning between bars")
        assert handler in root.handlers
    finally:
        root.removeHandler(handler)
    out = err.getvalue()
    assert "chunkss" not in out
    assert re.search(r"embedding: +100%\|.*\| 512/512 \[[0-9:]+<[0-9:]+, +[0-9.?]+ ?chunk/s\]", out), out
    assert "stored" in out and "files" in out
    assert "a warning between bars" in out


@pytest.mark.slow
def test_each_skip_is_printed_once(tmp_path: Path) -> None:
    import subprocess

    import yaml

    docs = write_tree(tmp_path / "docs", {"a.md": "# A\ntext\n"})
    (docs / "bad.pdf").write_bytes(b"not a pdf at all")
    pipe = tmp_path / "p.yaml"
    pipe.write_text(yaml.safe_dump(make_spec(tmp_path / "index").to_yaml_dict()), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "-p", str(pipe)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert (out.stdout + out.stderr).count("bad.pdf") == 1, (out.stdout, out.stderr)
    assert "  1 file: corrupt or unreadable PDF" in out.stdout and "pypdf" not in out.stderr
