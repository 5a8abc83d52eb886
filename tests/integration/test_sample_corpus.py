"""The default pipeline (real all-MiniLM-L6-v2 model, FAISS HNSW) over data/: the right passage
comes first for the facts in data/questions.yaml, with source path and PDF page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from ragkit.config import load_pipeline
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, repo_root: Path):
    data = tmp_path_factory.mktemp("corpus") / "data"
    shutil.copytree(repo_root / "data", data)
    spec = load_pipeline(repo_root / "pipelines" / "default.yaml")
    index = tmp_path_factory.mktemp("idx") / "index"
    report = IndexingPipeline(spec, index_dir=index).index_paths([data])
    assert report.skipped == [] and len(report.added) == 9
    again = IndexingPipeline(spec, index_dir=index).index_paths([data])
    assert again.unchanged == 9 and again.texts_embedded == 0
    with KnowledgeBase(spec, index) as kb:
        yield kb


def questions(repo_root: Path) -> list[dict]:
    data = yaml.safe_load((repo_root / "data" / "questions.yaml").read_text(encoding="utf-8"))
    return [q for q in data["questions"] if q["source"]]


def test_fact_search_returns_right_passage_first(kb) -> None:
    hit = kb.search("Who has been the director of the observatory since 2016?", k=3)[0]
    assert hit.source == "history.md" and "Ines Okonkwo-Barr" in hit.text
    hit = kb.search("Which VHF channel do field parties use for routine radio traffic?", k=3)[0]
    assert hit.source == "field-manual.pdf" and hit.metadata["page"] == 2 and "67" in hit.text


def test_question_set_retrieval(kb, repo_root: Path) -> None:
    qs = questions(repo_root)
    first = top3 = 0
    for q in qs:
        hits = kb.search(q["question"], k=3)
        ok = [h.source == q["source"] and (q.get("page") is None or h.metadata.get("page") == q["page"]) for h in hits]
        first += ok[0]
        top3 += any(ok)
    assert first / len(qs) >= 0.8, f"right source first for only {first}/{len(qs)}"
    assert top3 / len(qs) >= 0.9, f"right source in top 3 for only {top3}/{len(qs)}"
