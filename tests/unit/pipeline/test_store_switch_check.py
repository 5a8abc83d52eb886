"""Switching an index to a store that cannot be opened changes nothing: the old store keeps serving."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli

from .helpers import write_tree


def pipeline(tmp_path: Path, name: str, store: dict) -> Path:  # type: ignore[type-arg]
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "index": str(tmp_path / "index"),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 120, "chunk_overlap": 10},
        "embedder": {"type": "hashing", "dimension": 64},
        "store": store, "retriever": {"type": "hybrid"},
    }), encoding="utf-8")
    return path


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.output


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def assert_index_still_works(index: Path) -> None:
    code, out = run("search", "ferry sails Tuesdays", "--index", str(index), "--json")
    assert code == 0, out
    assert json.loads(out)[0]["source"] == "notes/gamma.txt"
    code, out = run("status", "--index", str(index), "--verify", "--json")
    info = json.loads(out)
    assert code == 0 and info["store"] == "faiss" and info["verify"]["ok"] and info["totals"]["sources"] == 3
    assert yaml.safe_load((index / "pipeline.yaml").read_text())["store"]["type"] == "faiss"


@pytest.mark.parametrize("target", ["missing extra", "unreachable server"])
def test_a_store_that_cannot_be_opened_leaves_the_index_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    code, out = run("index", str(docs), "--pipeline", str(pipeline(tmp_path, "faiss", {"type": "faiss"})))
    assert code == 0, out
    before = sorted(p.name for p in (index / "store").iterdir())
    if target == "missing extra":
        monkeypatch.setitem(sys.modules, "chromadb", None)  # as if ragkit[chroma] were not installed
        new = pipeline(tmp_path, "chroma", {"type": "chroma"})
        fix = "pip install 'ragkit[chroma]'"
    else:
        pytest.importorskip("psycopg")
        new = pipeline(tmp_path, "pg", {"type": "pgvector", "dsn": f"postgresql://u@127.0.0.1:{closed_port()}/db"})
        fix = "127.0.0.1"
    code, out = run("index", str(docs), "--pipeline", str(new))
    assert code == 1 and fix in out
    assert sorted(p.name for p in (index / "store").iterdir()) == before
    assert_index_still_works(index)
    assert "cannot switch the index" in out and "keeps its faiss store" in out
    assert not [p for p in index.iterdir() if p.name.startswith(".store-check")]
    code, out = run("index", str(docs), "--pipeline", str(pipeline(tmp_path, "faiss", {"type": "faiss"})))
    assert code == 0 and "3 unchanged" in out  # and the old pipeline goes on as if nothing happened
