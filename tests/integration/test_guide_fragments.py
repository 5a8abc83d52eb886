"""The guides' short fragments run as written, with the names they take as given bound to real
objects: ``kb`` an index of data/ (hashing embedder), ``provider`` the scripted model (the
retrieval guide's ``min_score`` calls, the tools guide's agent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragkit.config import parse_pipeline
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.testing.scripted import ScriptedProvider

from ..doc_examples import ROOT, blocks_run_by

HERE = "tests/integration/test_guide_fragments.py"


def fragment(page: str) -> str:
    found = [b for b in blocks_run_by(HERE) if b.path.name == page]
    assert len(found) == 1, f"docs/guides/{page}: expected one fragment run by {HERE}"
    return found[0].code


@pytest.fixture()
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    spec = parse_pipeline({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 256}},
                          origin="fragments.yaml")
    IndexingPipeline(spec).index_paths([ROOT / "data"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # RAGAgent(provider="openai") builds offline
    with KnowledgeBase(spec) as opened:
        yield opened


def test_the_retrieval_guides_min_score_calls(kb: Any) -> None:
    pytest.importorskip("openai")
    from ragkit import RAGAgent
    from ragkit.rag.tool import make_search_tool

    namespace = {"kb": kb, "RAGAgent": RAGAgent, "make_search_tool": make_search_tool}
    exec(fragment("retrieval.md"), namespace)  # noqa: S102
    hits = kb.search("tide gauge", k=5, kind="dense", min_score=0.35)
    assert all(h.score >= 0.35 for h in hits)


def test_the_tools_guides_agent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    for folder in ("docs", "notes"):
        (tmp_path / folder).mkdir()
    namespace: dict[str, Any] = {"provider": ScriptedProvider(["ok"])}
    exec(fragment("tools.md"), namespace)  # noqa: S102
    names = [t.name for t in namespace["agent"].tools]
    assert "calculator" in names and "current_time" in names and len(names) == 4


def test_the_readme_shows_the_retrieval_guides_min_score_calls() -> None:
    """The README's copy of the fragment is the code the test above runs."""
    assert fragment("README.md") == fragment("retrieval.md")
