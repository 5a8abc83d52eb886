"""The multi-agent example of the Python guide (docs/guides/python.md), run as written against the
local OpenAI-wire server."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ragkit.sessions.sql import SQLSessionStore
from ragkit.testing.servers import FakeOpenAIServer

from ..doc_examples import blocks_run_by

ROOT = Path(__file__).resolve().parents[2]


def readme_block() -> str:
    found = [b for b in blocks_run_by("tests/integration/test_multi_agent_readme.py")
             if b.code.startswith("from ragkit import AgentDefinition")]
    assert len(found) == 1, "the documentation lost its multi-agent example"
    return found[0].code


def build_index(tmp: Path, name: str, text: str) -> None:
    docs = tmp / f"{name}-docs"
    docs.mkdir()
    (docs / f"{name}.md").write_text(text, encoding="utf-8")
    pipe = tmp / f"{name}.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": str(tmp / "indexes" / name),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 200, "chunk_overlap": 0},
        "embedder": {"type": "hashing", "dimension": 64},
        "store": {"type": "faiss", "index": "flat"},
    }), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=180)
    assert done.returncode == 0, done.stderr


def test_readme_triage_hands_off_to_two_rag_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_index(tmp_path, "billing", "# Invoices\n\nA duplicate charge happens when an invoice is sent twice; "
                                     "refunds of duplicate charges take five working days.")
    build_index(tmp_path, "tech", "# Installation\n\nInstall the agent with the package manager; error E42 "
                                  "means the licence file is missing.")
    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        server.enqueue_tool_call("transfer_to_billing", {})
        server.enqueue_tool_call("search_knowledge_base", {"query": "charged twice"})
        server.enqueue_text("The March invoice was sent twice [1].")
        server.enqueue_text("Five working days [1].")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(readme_block(), "docs/guides/python.md", "exec"), {})
        requests = server.requests_to("/v1/chat/completions")
    lines = out.getvalue().splitlines()
    assert lines[0] == "billing The March invoice was sent twice [1]."
    assert lines[1] == "1 billing.md"
    assert lines[-1] == "billing"
    tools = [[t["function"]["name"] for t in r.body.get("tools", [])] for r in requests]
    assert tools[0] == ["transfer_to_billing", "transfer_to_tech"]
    assert tools[1] == ["search_knowledge_base"] and tools[3] == ["search_knowledge_base"]
    last = requests[3].body["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == [
        "Why was I charged twice in March?", "How long does the refund take?"]
    items = SQLSessionStore(tmp_path / "sessions.db").get_items("customer-42")
    assert [i.agent for i in items if i.role == "assistant"] == ["triage", "billing", "billing", "billing"]
    assert items[-1].content == "Five working days [1]."
