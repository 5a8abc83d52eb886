"""A small indexed corpus and real `ragkit serve` processes on loopback, shared per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragkit.index.writer import IndexingPipeline
from ragkit.testing.server_process import ServerProcess, ragkit_server
from ragkit.testing.servers import FakeOpenAIServer

from ...unit.pipeline.helpers import make_spec, write_tree


def build_index(root: Path, model: str = "text-embedding-3-small") -> Path:
    """The three-file test corpus, indexed with the hashing embedder (no model) priced as ``model``."""
    spec = make_spec(root / "index", embedder={"type": "hashing", "dimension": 64, "model": model})
    IndexingPipeline(spec).index_paths([write_tree(root / "docs")])
    return root / "index"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(tmp_path_factory.mktemp("server"))


@pytest.fixture(scope="module")
def local_server(index_dir: Path) -> Iterator[ServerProcess]:
    """`ragkit serve` with the offline local provider."""
    with ragkit_server(index_dir) as server:
        yield server


@pytest.fixture(scope="module")
def echo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """`ragkit serve` with the echo provider (answers name the question; can fail mid-stream)."""
    index = build_index(tmp_path_factory.mktemp("echo"))
    with ragkit_server(index, provider="echo", args=["--provider-option", "delay=0.01"]) as server:
        yield server


@pytest.fixture(scope="module")
def upstream() -> Iterator[FakeOpenAIServer]:
    """A loopback OpenAI-wire server that records every request (the model behind ``wired``)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def wired(tmp_path_factory: pytest.TempPathFactory, upstream: FakeOpenAIServer) -> Iterator[ServerProcess]:
    """`ragkit serve --provider openai` whose model is the recording ``upstream`` server."""
    index = build_index(tmp_path_factory.mktemp("wired"))
    with ragkit_server(index, provider="openai", args=["--model", "gpt-test", "--base-url", upstream.url],
                       env={"OPENAI_API_KEY": "sk-test"}) as server:
        yield server
