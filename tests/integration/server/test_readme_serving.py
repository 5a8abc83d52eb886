"""The LangChain example of docs/guides/server.md runs as written: LangChain's ``ChatOpenAI`` uses a real
`ragkit serve` as its chat model with a client tool, and the knowledge base still answers, cited."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...doc_examples import ROOT, block

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
FIRST_LINE = "from langchain_core.messages import HumanMessage, ToolMessage"


def test_langchain_uses_ragkit_serve_as_its_chat_model_with_a_client_tool(tmp_path: Path) -> None:
    from ragkit.config import parse_pipeline
    from ragkit.index.writer import IndexingPipeline
    from ragkit.testing.server_process import ragkit_server

    spec = parse_pipeline({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 256}},
                          origin="readme-test.yaml")
    IndexingPipeline(spec).index_paths([ROOT / "data"])
    with ragkit_server(tmp_path / "index") as server:
        out = block(FIRST_LINE).run({}, **{"http://127.0.0.1:8000/v1": server.base_url})
    weather, *cited = out.strip().split("\n")
    assert "Sunny and 21 degrees" in weather  # the client's tool ran, and its result answered
    answer = "\n".join(cited)
    assert "67" in answer and answer.endswith("Sources:\n[1] field-manual.pdf, p. 2"), answer
