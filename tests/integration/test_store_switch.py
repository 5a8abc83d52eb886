"""Switching the pipeline's store `type:` between all six backends and re-running
`ragkit index data/` + `ragkit search` gives the same top result."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
BACKENDS = ["memory", "faiss", "chroma", "duckdb", "sqlite", "pgvector"]
QUERIES = [
    "Which VHF channel do field parties use for routine radio traffic?",
    "Who has been the director of the observatory since 2016?",
    "How often does the radar tide gauge record the sea level?",
]


@pytest.fixture(scope="module")
def pg_dsn():
    from ragkit.testing.servers_db import postgres_server

    with postgres_server() as dsn:
        yield dsn


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> Path:
    data = tmp_path_factory.mktemp("corpus") / "data"
    shutil.copytree(repo_root / "data", data)
    return data


def _pipeline(tmp: Path, backend: str, dsn: str) -> Path:
    store: dict = {"type": backend}
    if backend == "pgvector":
        store.update(dsn=dsn, table="switch_test")
    spec = yaml.safe_load((Path(__file__).resolve().parents[2] / "pipelines" / "default.yaml").read_text())
    spec.update(index=str(tmp / f"index-{backend}"), store=store,
                embedder={"type": "hashing", "dimension": 256}, retriever={"type": "dense", "top_k": 3})
    path = tmp / f"{backend}.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def test_every_backend_gives_the_same_top_result(tmp_path: Path, corpus: Path, pg_dsn: str) -> None:
    tops: dict[str, list[tuple[str, str]]] = {}
    for backend in BACKENDS:
        pipe = _pipeline(tmp_path, backend, pg_dsn)
        res = CliRunner().invoke(cli, ["index", str(corpus), "--pipeline", str(pipe), "--json"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["chunks_total"] > 0
        tops[backend] = []
        for q in QUERIES:
            res = CliRunner().invoke(cli, ["search", q, "--pipeline", str(pipe), "--json"], catch_exceptions=False)
            hit = json.loads(res.stdout)[0]
            tops[backend].append((hit["source"], hit["id"]))
    reference = tops["memory"]
    for backend, got in tops.items():
        assert got == reference, f"{backend} differs from the exact memory store"
