"""Every Python example of the README and the documentation site runs, as written, and prints what
the text says it prints.

The code blocks are read from the files themselves (``tests/doc_examples.py``), so an example that
goes stale fails here. A block run by another test says so in an HTML comment above it
(``<!-- ... tests/PATH runs this block -->``); every other block must be one this module knows how
to run.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ..doc_examples import ROOT, block, blocks

#: the first line of each block this module runs
HERE = ("from ragkit import Agent, LocalProvider, tool", "from ragkit.models import OpenAI\n",
        "from ragkit import RAGAgent\n", "from openai import OpenAI")


def test_every_python_example_is_run_by_a_test() -> None:
    for b in blocks():
        if b.run_by is not None:
            runner = ROOT / b.run_by
            assert runner.is_file(), f"{b.where} names {b.run_by}, which does not exist"
            text = runner.read_text(encoding="utf-8")
            assert "doc_examples" in text or b.path.name in text, f"{b.run_by} does not read {b.path.name}"
        else:
            assert any(b.code.startswith(h) for h in HERE), (
                f"{b.where}: a Python example no test runs; add it to {Path(__file__).name} "
                "or name the test that runs it in a <!-- ... tests/PATH runs this block --> comment")


def test_the_first_example_counts_the_quoted_words(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace: dict[str, Any] = {}
    out = block(HERE[0]).run(namespace)
    assert out == "The word_count tool returned: 3\n"  # 'a b c', not the 6 words of the whole prompt
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    block(HERE[1]).run(namespace)  # the same agent against OpenAI-compatible servers: builds offline
    agent, local = namespace["agent"], namespace["local"]
    assert [t.name for t in agent.tools] == [t.name for t in local.tools] == ["word_count"]
    assert (agent.provider.model, local.provider.model) == ("gpt-4o-mini", "llama3.2")


@pytest.mark.slow
@pytest.mark.model
def test_questions_over_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "data", tmp_path / "data")
    shutil.copytree(ROOT / "pipelines", tmp_path / "pipelines")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAGKIT_INDEX", str(tmp_path / ".ragkit" / "index"))
    lines = block(HERE[2]).run({}).splitlines()
    assert "67" in lines[0] and "[1]" in lines[0], lines[0]  # "... channel 67 ... [1]"
    number, source, page, start, end = lines[1].split()
    assert (number, source, page) == ("1", "field-manual.pdf", "2") and int(start) < int(end)
    assert "embedding" in lines[-1] and "$" in lines[-1]  # the usage line


@pytest.mark.slow
@pytest.mark.network_local
def test_any_openai_client_against_ragkit_serve(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from ragkit.config import parse_pipeline
    from ragkit.index.writer import IndexingPipeline
    from ragkit.testing.server_process import ragkit_server

    spec = parse_pipeline({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 256}},
                          origin="readme-test.yaml")
    IndexingPipeline(spec).index_paths([ROOT / "data"])
    with ragkit_server(tmp_path / "index") as server:
        out = block(HERE[3]).run({}, **{"http://127.0.0.1:8000/v1": server.base_url})
    content, citations, usage = out.splitlines()
    assert "67" in content and content.endswith("[1]"), content  # "... VHF channel 67. [1]"
    assert "'source': 'field-manual.pdf'" in citations and "'page': 2" in citations
    assert "'embedding_tokens'" in usage and "'cost'" in usage
