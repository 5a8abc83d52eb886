"""A damaged store (a deleted rows file, a truncated FAISS index) gives a clear
error naming the damage and the fix, `status --verify` reports it, and `ragkit index` rebuilds the
store from the catalog and the embedding cache without embedding anything again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli

from .helpers import make_spec, write_tree


def _delete_rows(store: Path) -> None:
    [rows] = store.glob("s*/rows.z")
    rows.unlink()


def _truncate_index(store: Path) -> None:
    [vectors] = store.glob("s*/vectors.npy")
    vectors.write_bytes(vectors.read_bytes()[:100])


def _garble_manifest(store: Path) -> None:
    (store / "segments.json").write_text("{not json", encoding="utf-8")


@pytest.mark.parametrize("damage", [_delete_rows, _truncate_index, _garble_manifest])
def test_a_damaged_store_is_reported_and_rebuilt_without_embedding(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    pipe = tmp_path / "p.yaml"
    pipe.write_text(yaml.safe_dump(make_spec(index, store="faiss").to_yaml_dict()), encoding="utf-8")
    runner = CliRunner()
    first = runner.invoke(cli, ["index", str(docs), "-p", str(pipe), "--json"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    total = json.loads(first.stdout)["chunks_total"]
    damage(index / "store")

    found = runner.invoke(cli, ["search", "ferry", "--index", str(index)])
    assert found.exit_code == 1 and found.exception is not None and isinstance(found.exception, SystemExit)
    assert "Traceback" not in found.output
    assert "is damaged (" in found.output and "run `ragkit index`" in found.output, found.output

    verify = runner.invoke(cli, ["status", "--verify", "--index", str(index)])
    assert verify.exit_code == 1, verify.output
    assert "verify: DAMAGED: the faiss store at" in verify.output and "nothing is re-embedded" in verify.output
    as_json = runner.invoke(cli, ["status", "--verify", "--json", "--index", str(index)])
    assert json.loads(as_json.stdout)["verify"]["damaged"]

    again = runner.invoke(cli, ["index", str(docs), "--index", str(index), "--json"], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["texts_embedded"] == 0 and report["store_rebuilt"] is True
    assert report["chunks_restored"] == report["chunks_total"] == total
    assert report["updated"] == [] and report["added"] == []

    ok = runner.invoke(cli, ["status", "--verify", "--index", str(index)])
    assert ok.exit_code == 0 and "verify: ok" in ok.output, ok.output
    hits = runner.invoke(cli, ["search", "ferry Tuesdays", "--index", str(index), "--json"], catch_exceptions=False)
    assert json.loads(hits.stdout)[0]["source"] == "notes/gamma.txt"


def test_a_damaged_bm25_index_is_reported_and_rebuilt(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    pipe = tmp_path / "p.yaml"
    pipe.write_text(yaml.safe_dump(make_spec(index, retriever={"type": "hybrid"}).to_yaml_dict()), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(docs), "-p", str(pipe)], catch_exceptions=False).exit_code == 0
    [postings] = (index / "bm25").glob("s*/docs.npy")
    postings.write_bytes(postings.read_bytes()[:60])  # cut in the middle of the array
    found = runner.invoke(cli, ["search", "ferry", "--index", str(index)])
    assert found.exit_code == 1 and "the BM25 index" in found.output and "is damaged (" in found.output
    again = runner.invoke(cli, ["index", str(docs), "--index", str(index), "--json"], catch_exceptions=False)
    report = json.loads(again.stdout)
    assert report["texts_embedded"] == 0 and report["store_rebuilt"] is True
    assert report["chunks_restored"] == report["chunks_total"]
    hits = runner.invoke(cli, ["search", "ferry Tuesdays", "--retriever", "bm25", "--index", str(index), "--json"],
                         catch_exceptions=False)
    assert json.loads(hits.stdout)[0]["source"] == "notes/gamma.txt"
