"""The guarded RAG agent of the Python guide (docs/guides/python.md) is under fifteen lines and runs (offline: scripted model, hashing embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragkit.testing.scripted import ScriptedProvider, tool_call_response

from ...doc_examples import blocks_run_by
from ..pipeline.helpers import make_spec, write_tree


def snippet() -> str:
    found = blocks_run_by("tests/unit/guarded/test_readme_example.py")
    assert len(found) == 1, "the documentation lost its guarded agent example"
    return found[0].code


def test_the_guarded_agent_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code = snippet()
    assert len(code.strip().splitlines()) < 15
    provider = ScriptedProvider([tool_call_response(("search_knowledge_base", {"query": "ferry"}),
                                                    content="I should search the documents."),
                                 "Channel 67 [1]."], model="gpt-4o-mini")
    offline = code.replace('"data/", provider="openai", model="gpt-4o-mini"', "DOCS, pipeline=SPEC, provider=PROVIDER")
    assert offline != code
    monkeypatch.chdir(tmp_path)
    exec(offline, {"DOCS": write_tree(tmp_path / "docs"), "SPEC": make_spec(tmp_path / "index"), "PROVIDER": provider})
    assert capsys.readouterr().out.startswith("stop Channel 67 [1]. I should search the documents.")
    assert "jo@example.com" not in json.dumps([c.messages[-1].content for c in provider.calls])
    lines = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [line["event"] for line in lines][:3] == ["guardrail", "model_call", "policy"]
