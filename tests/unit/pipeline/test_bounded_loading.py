"""Loading is bounded: whatever a loader raises skips that file (named, with its reason) and the run
goes on; a broken DOCX table drops the table, not the document; zip containers, extracted text, time
and memory are limited by the pipeline's ``sources.limits``, and a file over a limit is skipped naming the
key to raise."""

from __future__ import annotations

import logging
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragkit import registry
from ragkit.errors import ConfigError, LoaderError
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.loaders.base import Loader
from ragkit.loaders.docx import DocxLoader
from ragkit.loaders.limits import LoadLimits
from ragkit.loaders.zipcheck import check_zip
from ragkit.types import Document

from .helpers import make_spec, write_tree
from .office_files import broken_table_docx, docx_bomb

GOOD = {"good.txt": "The ferry sails on Tuesdays and Fridays from the old harbour.\n"}


class RaisingLoader(Loader):
    """A plugin loader that fails the way a parser can: the file's text names what it raises."""

    name = "test-raising"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        kind = path.read_text(encoding="utf-8").strip()
        if kind == "recursion":
            raise RecursionError("maximum recursion depth exceeded")
        if kind == "memory":
            raise MemoryError
        raise ValueError(f"no tc element at grid_offset=1 ({kind})")


registry.loaders.register("test-raising")(RaisingLoader)


def _index(spec: Any, folder: Path) -> Any:
    return IndexingPipeline(spec).index_paths([folder])


def _reasons(report: Any) -> dict[str, str]:
    return dict(report.skipped)


def _search(spec: Any, query: str) -> list[Any]:
    with KnowledgeBase(spec) as kb:
        return kb.search(query, k=3)


def test_a_broken_docx_table_drops_the_table_not_the_document(tmp_path: Path, caplog: Any) -> None:
    path = broken_table_docx(tmp_path / "grid.docx", before="The intro reads fine.", after="So does the end.")
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders"):
        [doc] = DocxLoader().load(path, source="grid.docx")
    assert "The intro reads fine." in doc.text and "So does the end." in doc.text
    assert "table 1 dropped" in caplog.text and "grid_offset=1" in caplog.text and str(path) in caplog.text


def test_a_broken_docx_in_a_folder_is_indexed_with_a_warning_and_the_rest_goes_on(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "docs", GOOD)
    broken_table_docx(folder / "grid.docx", before="The lighthouse keeper logs the weather.",
                      after="Storms are noted in red ink.")
    spec = make_spec(tmp_path / "index")
    report = _index(spec, folder)
    assert sorted(report.added) == ["good.txt", "grid.docx"] and not report.skipped
    [(source, warning)] = report.warnings
    assert source == "grid.docx" and "table 1 dropped" in warning and "grid_offset=1" in warning
    assert any("grid.docx: table 1 dropped" in line for line in report.summary_lines())
    assert "red ink" in _search(spec, "storms noted in red ink")[0].text


def test_whatever_a_loader_raises_skips_that_file_and_the_run_goes_on(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "docs", {**GOOD, "a.boom": "value", "b.boom": "recursion", "c.boom": "memory"})
    spec = make_spec(tmp_path / "index", loaders={".boom": "test-raising"})
    report = _index(spec, folder)
    assert report.added == ["good.txt"]
    reasons = _reasons(report)
    assert "ValueError: no tc element at grid_offset=1 (value)" in reasons["a.boom"]
    assert "test-raising loader" in reasons["a.boom"]
    assert "nests too deep" in reasons["b.boom"] and "sources.limits.max_memory_mb" in reasons["c.boom"]
    # a file added later gets in, while the bad ones stay skipped with their reasons
    (folder / "later.txt").write_text("Added later: the pier opens at dawn.\n", encoding="utf-8")
    again = _index(spec, folder)
    assert again.added == ["later.txt"] and _reasons(again) == reasons
    assert "pier opens at dawn" in _search(spec, "when does the pier open")[0].text


def test_a_docx_bomb_is_skipped_naming_the_limit_and_the_good_files_are_searchable(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "docs", GOOD)
    docx_bomb(folder / "bomb.docx", inflated_mb=300)
    broken_table_docx(folder / "fine.docx", before="The orchard's apples ripen in September.", after="Pears later.")
    assert (folder / "bomb.docx").stat().st_size < 2 * 1024 * 1024
    spec = make_spec(tmp_path / "index")  # the default limits
    report = _index(spec, folder)
    assert sorted(report.added) == ["fine.docx", "good.txt"]
    reason = _reasons(report)["bomb.docx"]
    assert "sources.limits.max_unzipped_mb" in reason and "pipeline YAML" in reason
    assert re.search(r"declares 30\d MB uncompressed \(limit 256 MB\)", reason)
    assert "September" in _search(spec, "when do the apples ripen")[0].text
    assert "Tuesdays" in _search(spec, "when does the ferry sail")[0].text


def test_a_zip_inflating_past_what_it_declares_is_stopped_while_inflating(tmp_path: Path) -> None:
    liar = docx_bomb(tmp_path / "liar.docx", inflated_mb=300, declared_mb=1)
    with pytest.raises(LoaderError, match="damaged zip container") as err:
        check_zip(liar, LoadLimits(), what=".docx file")
    assert "CRC" in str(err.value) or "Bad" in str(err.value)
    honest = docx_bomb(tmp_path / "honest.docx", inflated_mb=3)
    with pytest.raises(LoaderError, match=r"sources\.limits\.max_unzipped_mb in the pipeline YAML \(now 2\)"):
        check_zip(honest, LoadLimits(max_unzipped_mb=2), what=".docx file")
    check_zip(honest, LoadLimits(max_unzipped_mb=4), what=".docx file")  # under the limit: fine


def test_a_file_over_the_time_limit_is_skipped_and_loads_once_the_limit_is_raised(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "docs", GOOD)
    broken_table_docx(folder / "slow.docx", before="The mill grinds barley on Mondays.", after="Closed Sundays.")
    report = _index(make_spec(tmp_path / "index", sources={"limits": {"file_timeout_s": 0.001}}), folder)
    assert report.added == ["good.txt"]
    reason = _reasons(report)["slow.docx"]
    assert "took longer than 0.001 s" in reason and "sources.limits.file_timeout_s" in reason
    again = _index(make_spec(tmp_path / "index"), folder)  # the limit changed: the file is tried again
    assert again.added == ["slow.docx"] and not again.skipped


def test_a_loader_over_the_memory_ceiling_is_skipped_naming_the_limit(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "docs", GOOD)
    docx_bomb(folder / "big.docx", inflated_mb=200)  # under max_unzipped_mb, over the memory ceiling
    report = _index(make_spec(tmp_path / "index", sources={"limits": {"max_memory_mb": 64}}), folder)
    assert report.added == ["good.txt"]
    reason = _reasons(report)["big.docx"]
    assert "sources.limits.max_memory_mb" in reason and "(now 64)" in reason


def test_text_per_file_and_per_run_are_limited(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "docs", {"long.txt": "word " * 400, "a.txt": "alpha " * 15, "b.txt": "beta " * 15})
    spec = make_spec(tmp_path / "index", sources={"limits": {"max_text_per_file_mb": 0.001, "max_text_per_run_mb": 0.0001}})
    report = _index(spec, folder)
    reasons = _reasons(report)
    assert "sources.limits.max_text_per_file_mb" in reasons["long.txt"]
    assert report.added == ["a.txt"] and "sources.limits.max_text_per_run_mb" in reasons["b.txt"]
    # the run's limit is the run's: the next run loads what the last one had no room for
    again = _index(spec, folder)
    assert again.added == ["b.txt"] and "long.txt" in _reasons(again)


def test_limits_are_pipeline_keys_checked_by_name() -> None:
    spec = make_spec(Path("unused"), sources={"limits": {"max_unzipped_mb": 10}})
    assert spec.sources.limits.load_limits() == LoadLimits(max_unzipped_mb=10)
    assert make_spec(Path("unused")).sources.limits.load_limits() == LoadLimits()
    with pytest.raises(ConfigError, match=r"sources\.limits\.max_unziped_mb: unknown key; did you mean 'max_unzipped_mb'"):
        make_spec(Path("unused"), sources={"limits": {"max_unziped_mb": 10}})
    with pytest.raises(ConfigError, match=r"sources\.limits\.file_timeout_s"):
        make_spec(Path("unused"), sources={"limits": {"file_timeout_s": 0}})


def test_the_servers_ingest_loads_uploads_under_the_same_limits(tmp_path: Path) -> None:
    from ragkit.server.library import Library

    _index(make_spec(tmp_path / "index"), write_tree(tmp_path / "docs", GOOD))
    library = Library(tmp_path / "index", pipeline=None, uploads_dir=tmp_path / "index" / "uploads")
    try:
        library.uploads_dir.mkdir(parents=True)
        docx_bomb(library.uploads_dir / "bomb.docx", inflated_mb=300)
        (library.uploads_dir / "winter.md").write_text("In winter the ferry sails on Fridays.\n", encoding="utf-8")
        report = library.ingest()
    finally:
        library.close()
    assert report["added"] == ["winter.md"]
    [skip] = report["skipped"]
    assert skip["source"] == "bomb.docx" and "sources.limits.max_unzipped_mb" in skip["reason"]


def test_a_loader_process_that_dies_costs_one_file_and_the_next_files_go_to_a_new_one(tmp_path: Path) -> None:
    from ragkit.index.load_worker import LoaderProcess

    pages = []
    for name in ("one", "two", "three"):
        page = tmp_path / f"{name}.html"
        page.write_text(f"<html><body><p>Page {name} of the harbour guide.</p></body></html>", encoding="utf-8")
        pages.append(page)
    process = LoaderProcess(make_spec(tmp_path / "index"))
    try:
        child = process._started()
        os.kill(child.pid, signal.SIGSTOP)  # it answers nothing before it is killed
        for page in pages:
            process.submit("html", page, page.name)
        assert process.in_flight == 3
        child.kill()  # as the kernel's OOM killer would
        with pytest.raises(LoaderError, match=r"loader process ended.*sources\.limits\.max_memory_mb"):
            process.result()
        texts = [process.result()[0][0].text for _ in range(2)]
        assert texts == ["Page two of the harbour guide.", "Page three of the harbour guide."]
    finally:
        process.close()
