from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli

from ..unit.pipeline.helpers import write_cli_pipeline, write_tree


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[Path, Path]:
    return write_cli_pipeline(tmp_path)


def invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def test_index_search_status_round_trip(setup: tuple[Path, Path]) -> None:
    docs, pipe = setup
    code, out, _ = invoke("index", str(docs), "--pipeline", str(pipe), "--json")
    assert code == 0
    rep = json.loads(out)
    assert len(rep["added"]) == 3 and rep["chunks_added"] > 0 and rep["skipped"] == []
    # search reuses the pipeline saved in the index: no --pipeline needed
    index = str(pipe.parent / "index")
    code, out, _ = invoke("search", "ferry sails Tuesdays", "--index", index, "--json", "-k", "2")
    hits = json.loads(out)
    assert code == 0 and hits[0]["source"] == "notes/gamma.txt" and len(hits) == 2
    code, out, _ = invoke("search", "ferry sails Tuesdays", "--index", index)
    assert "notes/gamma.txt" in out and "Tuesdays" in out
    code, out, _ = invoke("status", "--index", index, "--verify", "--json")
    info = json.loads(out)
    assert code == 0 and info["verify"]["ok"] and info["totals"]["sources"] == 3
    code, out, _ = invoke("index", str(docs), "--index", index)
    assert code == 0 and "0 added, 0 updated, 3 unchanged" in out


def test_search_filter_by_source_glob(setup: tuple[Path, Path]) -> None:
    docs, pipe = setup
    invoke("index", str(docs), "--pipeline", str(pipe))
    code, out, _ = invoke("search", "ferry", "--pipeline", str(pipe), "--source", "*.md", "--json")
    assert code == 0 and {h["source"] for h in json.loads(out)} == {"alpha.md"}


def test_human_report_lists_skipped_files(setup: tuple[Path, Path]) -> None:
    docs, pipe = setup
    (docs / "bin.txt").write_bytes(b"\x00" * 64)
    code, out, _ = invoke("index", str(docs), "--pipeline", str(pipe))
    assert code == 0 and "skipped files:" in out and "bin.txt" in out


def test_errors_become_messages_and_exit_codes(tmp_path: Path, setup: tuple[Path, Path]) -> None:
    code, _, err = invoke("search", "x", "--index", str(tmp_path / "nothing"))
    assert code == 1 and "no index at" in err and "ragkit index" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("store:\n  type: fiass\n", encoding="utf-8")
    code, _, err = invoke("pipeline", "validate", str(bad))
    assert code == 2 and "did you mean 'faiss'" in err
    code, _, err = invoke("index", str(tmp_path / "missing-dir"), "--pipeline", str(setup[1]))
    assert code == 2 and "does not exist" in err


def test_pipeline_show_resolves_defaults(setup: tuple[Path, Path]) -> None:
    code, out, _ = invoke("pipeline", "show", str(setup[1]), "--json")
    data = json.loads(out)
    assert code == 0 and data["retriever"]["top_k"] == 5 and data["sources"]["max_file_size_mb"] == 50


# Neither `import ragkit` nor `ragkit --help` may load a model, database driver, server or SDK
# (top-level package names; the extras: local, faiss, chroma, duckdb, server, mcp, redis, otel, ray,
# pgvector, sqlite, bm25, onnx and the vendor SDKs).
HEAVY = {"torch", "faiss", "duckdb", "chromadb", "openai", "anthropic", "cohere", "sentence_transformers",
         "transformers", "onnxruntime", "onnx", "pydantic", "fastapi", "starlette", "uvicorn", "mcp",
         "playwright", "httpx", "ray", "redis", "opentelemetry", "psycopg", "pgvector", "sqlite_vec",
         "bm25s", "unstructured"}


def test_help_is_light_and_teaches() -> None:
    code = (
        "import sys; from ragkit.cli.main import cli\n"
        "try:\n    cli(['--help'])\nexcept SystemExit:\n    pass\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(HEAVY)!r})\n"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out
    for taught in ("ragkit index data/", "ragkit chat --session", "ragkit serve", "ragkit mcp"):
        assert taught in out
    code2 = f"import sys, ragkit; print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(HEAVY)!r}))"
    assert subprocess.run([sys.executable, "-c", code2], capture_output=True, text=True, check=True).stdout.strip() == "[]"


def test_two_roots_with_the_same_file_name_stay_apart(setup: tuple[Path, Path]) -> None:
    _, pipe = setup
    base = pipe.parent
    write_tree(base, {"projA/README.md": "# Alpha\nProject Alpha uses PostgreSQL.\n",
                      "projB/README.md": "# Beta\nProject Beta uses MongoDB.\n"})
    index = str(base / "index")
    for _ in range(3):
        code, out, _ = invoke("index", str(base / "projA"), str(base / "projB"), "--pipeline", str(pipe), "--json")
        assert code == 0 and json.loads(out)["chunks_total"] == 2 and json.loads(out)["updated"] == []
    code, out, _ = invoke("search", "which database", "--index", index)
    assert code == 0 and "projA/README.md" in out and "projB/README.md" in out
