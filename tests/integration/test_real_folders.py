"""The offline answerer on real folders nobody here wrote: MkDocs', HTTPX's and Flask's
documentation, the tldr pages, a book of notebooks with its CSV data, and a folder of papers as
PDFs. The folders are never committed: clone each repository named in ``benchmarks/folders/NAME.yaml``
(at its commit) into ``$RAGKIT_REAL_FOLDERS/NAME``; without them these tests skip and say so.
``benchmarks/answer_quality.py --folders DIR`` prints the same figures.

Targets (the question sets were written before the answerer was tuned): on the project's own
documentation set (MkDocs) the cited page in at least 80 % of the answerable questions; on each
other kind at least 70 % correct; and Flask's two known failures fixed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from ragkit.agent import AgentConfig, ConversationMemory
from ragkit.config import load_pipeline
from ragkit.rag.agent import RAGAgent
from ragkit.rag.questions import load_questions, run_questions, summary

pytestmark = [pytest.mark.model, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
SETS = REPO / "benchmarks" / "folders"
# set -> minimum share correct (of all questions), minimum share of answerable ones citing the page
TARGETS = {"mkdocs": (0.6, 0.8), "flask": (0.7, 0.8), "tldr": (0.7, 0.8), "handbook": (0.7, 0.7),
           "papers": (0.7, 0.7), "httpx": (0.7, 0.8)}
# sets below their target, run as expected failures (none now: papers reached 12 of 17 correct, 16 of
# 16 pages cited, once a figure's labels stopped heading other subjects and a refusal reads 10 passages more;
# the five misses sit on chunks the questions do not retrieve in the top 10)
SHORT: dict[str, str] = {}


def _folder(name: str) -> Path:
    root = os.environ.get("RAGKIT_REAL_FOLDERS")
    meta = yaml.safe_load((SETS / f"{name}.yaml").read_text(encoding="utf-8"))
    if not root:
        pytest.skip(f"set RAGKIT_REAL_FOLDERS to a directory holding a clone of {meta['fetch']} at {name}/ "
                    f"(commit {meta['commit']}) to run the {name} question set")
    folder = Path(root) / name / meta["folder"]
    if not folder.is_dir():
        pytest.skip(f"{folder} is not there: clone {meta['fetch']} at commit {meta['commit']} into {Path(root) / name}")
    return folder


@pytest.fixture(scope="module", params=[
    pytest.param(n, marks=pytest.mark.xfail(reason=SHORT[n], strict=False)) if n in SHORT else n for n in sorted(TARGETS)])
def answered(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict]]:
    name = request.param
    folder = _folder(name)
    index = Path(os.environ.get("RAGKIT_REAL_FOLDERS_INDEX", tmp_path_factory.mktemp("idx"))) / name
    spec = load_pipeline(REPO / "pipelines" / "default.yaml")
    with RAGAgent.from_directory(folder, pipeline=spec, index=index, provider="local",
                                 config=AgentConfig(memory=ConversationMemory(max_messages=40))) as rag:
        outcomes = run_questions(rag, load_questions(SETS / f"{name}.yaml"))
    yield name, {"summary": summary(outcomes), "outcomes": {o.question: o for o in outcomes}}


def test_each_kind_of_folder_meets_its_target(answered: tuple[str, dict]) -> None:
    name, got = answered
    s = got["summary"]
    min_correct, min_cited = TARGETS[name]
    misses = "; ".join(f"{f['question']} -> {f['answer'][:100]!r}" for f in s["failures"])
    assert s["correct"] >= min_correct * s["total"], f"{name}: {s['correct']}/{s['total']} correct; {misses}"
    assert s["cited_source"] >= min_cited * s["answerable"], f"{name}: {s['cited_source']}/{s['answerable']} cited"


def test_flasks_known_failures_are_fixed(answered: tuple[str, dict]) -> None:
    name, got = answered
    if name != "flask":
        pytest.skip("Flask's documentation only")
    lifetime = got["outcomes"]["What is the default value of PERMANENT_SESSION_LIFETIME?"]
    assert "31 days" in lifetime.answer and "config.rst" in lifetime.cited
    waitress = got["outcomes"]["What port does Waitress listen on by default?"]
    assert waitress.cited and waitress.cited[0] == "deploying/waitress.rst" and "8080" in waitress.answer
