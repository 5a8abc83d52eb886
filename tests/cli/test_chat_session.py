"""`ragkit chat --session NAME`: two separate processes continue one conversation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ragkit.sessions.sql import SQLSessionStore
from ragkit.testing.servers import FakeOpenAIServer

from ..unit.pipeline.helpers import write_cli_pipeline

ROOT = Path(__file__).resolve().parents[2]


def chat(pipe: Path, server: FakeOpenAIServer, stdin: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "test", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "ragkit.cli.main", "chat", "--pipeline", str(pipe), "--session", "demo",
         "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", server.url],
        input=stdin, capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_chat_session_continues_across_invocations(tmp_path: Path) -> None:
    docs, pipe = write_cli_pipeline(tmp_path)
    indexed = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe)],
                             capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=180)
    assert indexed.returncode == 0, indexed.stderr
    with FakeOpenAIServer() as server:  # answers "echo: <last user message>"
        first = chat(pipe, server, "What is the capital of Atlantis?\n")
        assert "echo: What is the capital of Atlantis?" in first and "resuming" not in first
        second = chat(pipe, server, "And its population?\n")
        assert "resuming session 'demo' (2 earlier messages)" in second
        sent = server.requests_to("/v1/chat/completions")[-1].body["messages"]
    contents = [(m["role"], m.get("content")) for m in sent]
    assert ("user", "What is the capital of Atlantis?") in contents
    assert ("assistant", "echo: What is the capital of Atlantis?") in contents
    assert contents[-1] == ("user", "And its population?")
    items = SQLSessionStore(tmp_path / "index" / "state.db").get_items("demo")
    assert [(i.role, i.content) for i in items] == [
        ("user", "What is the capital of Atlantis?"), ("assistant", "echo: What is the capital of Atlantis?"),
        ("user", "And its population?"), ("assistant", "echo: And its population?")]
    assert items[-1].agent == "rag" and items[-1].usage["input_tokens"] > 0
