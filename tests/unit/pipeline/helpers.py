"""Shared set-up for pipeline tests: a fast, deterministic pipeline over a small folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.config import PipelineSpec, parse_pipeline

FILES = {
    "alpha.md": "# Alpha\n\nThe lighthouse at Alpha Point was built in 1871 by Thomas Reid.\n\n"
    "## Lamp\n\nIts lamp burns paraffin and turns twice a minute.\n",
    "beta.txt": "Beta station records rainfall every morning at nine o'clock.\n\n"
    "The rain gauge was replaced in 1999 after a storm bent it.\n",
    "notes/gamma.txt": "Gamma notes: the ferry sails on Tuesdays and Fridays from the old harbour.\n",
}


def write_tree(root: Path, files: dict[str, str] | None = None) -> Path:
    for rel, text in (files or FILES).items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def make_spec(index: Path, *, store: str = "memory", **over: Any) -> PipelineSpec:
    data: dict[str, Any] = {
        "index": str(index),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 120, "chunk_overlap": 10},
        "embedder": {"type": "hashing", "dimension": 64},
        "store": {"type": store},
        "retriever": {"type": "dense"},
    }
    data.update(over)
    return parse_pipeline(data, origin="test.yaml")


def write_cli_pipeline(tmp_path: Path) -> tuple[Path, Path]:
    """A docs tree and a pipeline file over it (hashing embedder, flat FAISS) for CLI tests."""
    import yaml

    docs = write_tree(tmp_path / "docs")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": str(tmp_path / "index"),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 120, "chunk_overlap": 10},
        "embedder": {"type": "hashing", "dimension": 64},
        "store": {"type": "faiss", "index": "flat"},
    }), encoding="utf-8")
    return docs, pipe
