"""An emptied root (an unmounted drive) must not silently delete everything
indexed from it: removing all, or more than half, of a folder's sources needs --prune."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.errors import RagkitError
from ragkit.index.writer import IndexingPipeline

from .helpers import make_spec, write_tree

TEN = {f"doc{i}.md": f"# Doc {i}\nFact number {i} about the harbour.\n" for i in range(10)}


def _index(tmp_path: Path) -> tuple[Path, Path]:
    docs = write_tree(tmp_path / "docs", TEN)
    pipe = tmp_path / "p.yaml"
    pipe.write_text(yaml.safe_dump(make_spec(tmp_path / "index").to_yaml_dict()), encoding="utf-8")
    res = CliRunner().invoke(cli, ["index", str(docs), "-p", str(pipe)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return docs, pipe


def test_an_emptied_root_is_refused_without_prune(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    docs, pipe = _index(tmp_path)
    docs.rename(tmp_path / "docs.bak")  # mv docs docs.bak; mkdir docs
    docs.mkdir()
    with caplog.at_level(logging.WARNING):
        res = CliRunner().invoke(cli, ["index", str(docs), "-p", str(pipe)])
    assert res.exit_code == 1, res.output
    assert f"refusing to remove 10 of the 10 sources indexed from {docs.resolve()}" in res.output
    assert "empty now" in res.output and "--prune" in res.output
    assert any("no files to index under" in r.getMessage() for r in caplog.records)  # the empty-folder warning
    status = CliRunner().invoke(cli, ["status", "--json", "-p", str(pipe)], catch_exceptions=False)
    assert json.loads(status.stdout)["totals"]["sources"] == 10  # nothing was removed

    pruned = CliRunner().invoke(cli, ["index", str(docs), "-p", str(pipe), "--prune", "--json"], catch_exceptions=False)
    assert pruned.exit_code == 0, pruned.output
    report = json.loads(pruned.stdout)
    assert len(report["removed"]) == 10 and report["chunks_total"] == 0


def test_losing_more_than_half_of_a_folder_needs_prune(tmp_path: Path) -> None:
    docs, pipe = _index(tmp_path)
    for i in range(6):
        (docs / f"doc{i}.md").unlink()
    spec = make_spec(tmp_path / "index")
    with pytest.raises(RagkitError, match=r"refusing to remove 6 of the 10 sources .* lost 6 of its 10 files"):
        IndexingPipeline(spec).index_paths([docs])
    report = IndexingPipeline(spec).index_paths([docs], prune=True)
    assert len(report.removed) == 6


def test_ordinary_deletions_need_no_flag(tmp_path: Path) -> None:
    docs, _ = _index(tmp_path)
    for i in range(5):  # half is not more than half
        (docs / f"doc{i}.md").unlink()
    report = IndexingPipeline(make_spec(tmp_path / "index")).index_paths([docs])
    assert len(report.removed) == 5
