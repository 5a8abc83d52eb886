"""The sample corpus in data/: every file loads, and every question's answer is in its source."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from ragkit.loaders.base import check_file, loader_name_for
from ragkit.registry import loaders
from ragkit.types import Document

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
QUESTIONS = DATA / "questions.yaml"


def corpus_files() -> list[Path]:
    return sorted(p for p in DATA.iterdir() if p.is_file() and p != QUESTIONS)


def load_all(folder: Path = DATA) -> dict[tuple[str, int | None], Document]:
    """Every file's documents by (file, page); a page's text and its tables' rows joined in one."""
    docs: dict[tuple[str, int | None], Document] = {}
    for path in sorted(folder.iterdir()):
        if path.name == QUESTIONS.name:
            continue
        name = loader_name_for(path, {})
        assert name is not None, f"no default loader for {path.name}"
        check_file(path, max_bytes=1024 * 1024)
        for doc in loaders.get(name)().load(path, source=path.name):
            key = (path.name, doc.metadata.get("page"))
            if key in docs:
                doc = Document(text=f"{docs[key].text}\n\n{doc.text}", metadata=docs[key].metadata)
            docs[key] = doc
    return docs


def test_corpus_has_every_format_and_a_sensible_size() -> None:
    suffixes = [p.suffix for p in corpus_files()]
    for ext in (".md", ".txt", ".html", ".docx", ".pdf"):
        assert ext in suffixes
    assert suffixes.count(".md") >= 3
    docs = load_all()
    assert len({page for (name, page) in docs if name == "field-manual.pdf"}) >= 3
    total = sum(len(d.text) for d in docs.values())
    assert 15_000 <= total <= 30_000
    for doc in docs.values():
        assert doc.metadata["title"], doc.metadata


def test_every_answer_is_literally_in_its_expected_source() -> None:
    questions = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    assert len(questions) >= 20
    docs = load_all()
    unanswerable = 0
    for q in questions:
        assert set(q) <= {"question", "answer", "source", "page"} and q["question"].endswith("?")
        if q["answer"] is None:
            assert q["source"] is None
            unanswerable += 1
            continue
        key = (q["source"], q.get("page"))
        assert key in docs, f"{q['question']!r}: no document {key}"
        assert q["answer"] in docs[key].text, f"{q['question']!r}: {q['answer']!r} not in {key}"
        elsewhere = [k for k, d in docs.items() if k[0] == key[0] and k != key and q["answer"] in d.text]
        assert not elsewhere, f"{q['answer']!r} also on {elsewhere}"
    assert unanswerable >= 2


@pytest.mark.skipif(importlib.util.find_spec("fpdf") is None, reason="fpdf2 (ragkit[dev]) not installed")
def test_generator_is_deterministic_and_matches_the_committed_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_sample_docs", ROOT / "scripts" / "make_sample_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for out in (tmp_path / "a", tmp_path / "b"):
        assert module.main(["--out", str(out)]) == 0
    for name in ("annual-report-2022.docx", "field-manual.pdf"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    regenerated = load_all(tmp_path / "a")
    committed = load_all()
    for key, doc in regenerated.items():
        assert committed[key].text == doc.text, f"data/{key[0]} is stale: rerun scripts/make_sample_docs.py"
