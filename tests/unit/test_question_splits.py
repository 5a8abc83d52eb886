"""The tune / untouched halves of the held-out question sets (``benchmarks/folders/*.yaml`` with a
``split`` per question): each question's half is the one its text hashes to, so nobody can move a
question between halves after seeing results, and ``--split`` scores one half only."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
FOLDERS = REPO / "benchmarks" / "folders"


def _answer_quality() -> ModuleType:
    spec = importlib.util.spec_from_file_location("answer_quality", REPO / "benchmarks" / "answer_quality.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("answer_quality", module)
    spec.loader.exec_module(module)
    return module


aq = _answer_quality()
SPLIT_SETS = sorted(p for p in FOLDERS.glob("*.yaml")
                    if any("split" in q for q in yaml.safe_load(p.read_text(encoding="utf-8"))["questions"]))


def test_there_are_six_split_sets() -> None:
    assert len(SPLIT_SETS) >= 6


@pytest.mark.parametrize("path", SPLIT_SETS, ids=lambda p: p.stem)
def test_every_question_sits_in_the_half_its_text_hashes_to(path: Path) -> None:
    items = yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]
    assert [q.get("split") for q in items] == aq.hash_splits(items)
    for half in aq.SPLITS:  # each half holds answerable questions and at least one to refuse
        chosen = aq.in_split(items, half)
        assert any(q["answer"] is None for q in chosen) and sum(q["answer"] is not None for q in chosen) >= 5


@pytest.mark.parametrize("path", sorted(FOLDERS.glob("*.yaml")), ids=lambda p: p.stem)
def test_no_question_is_cut_short_by_a_yaml_comment(path: Path) -> None:
    """An unquoted " #" starts a YAML comment: "… in the BOLT #10 …" would be asked as "… in the BOLT"."""
    raw = path.read_text(encoding="utf-8")
    asked = {q["question"] for q in yaml.safe_load(raw)["questions"]}
    for line in re.findall(r"^  - question: ([^\"'|>\n].*)$", raw, re.M):
        assert line.rstrip() in asked, f"{path.name}: quote the question {line!r}"


def test_the_halves_depend_on_the_texts_not_the_order() -> None:
    items = [{"question": f"question {i}", "answer": "x"} for i in range(9)] + [{"question": "none", "answer": None},
                                                                                 {"question": "nil", "answer": None}]
    halves = dict(zip([q["question"] for q in items], aq.hash_splits(items), strict=True))
    reordered = list(reversed(items))
    assert dict(zip([q["question"] for q in reordered], aq.hash_splits(reordered), strict=True)) == halves
    assert sorted(halves.values()).count("tune") == 4 + 1  # half of each group, rounded down
    assert aq.in_split(items, None) == items


def test_file_ranking_scores_the_rank_of_the_answers_file() -> None:
    got = aq.file_ranking([1, 3, None, 4])
    assert got["top3"] == 0.5 and got["queries"] == 4
    assert got["mrr@10"] == pytest.approx((1 + 1 / 3 + 1 / 4) / 4)
    assert got["ndcg@10"] == pytest.approx((1 + 0.5 + 1 / 2.321928094887362) / 4)


def _result(name: str, half: str, correct: int, top3: float) -> dict:
    rank = {"queries": 4, "top3": top3, "mrr@10": 0.5, "ndcg@10": 0.6}
    return {"set": name, "split": half, "correct": correct, "partial": 1, "wrong": 4 - correct, "refused": 1,
            "stated": correct + 1, "total": 5, "cited_source": 3, "answerable": 4,
            "file_rank": {"default": rank, "dense": {**rank, "ndcg@10": 0.5}}}


def test_the_table_renders_the_json_results_before_and_after(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("answer_quality_table", REPO / "benchmarks" / "answer_quality_table.py")
    assert spec and spec.loader
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    before, after = tmp_path / "before", tmp_path / "after"
    for folder, correct in ((before, 1), (after, 3)):
        folder.mkdir()
        for name in ("api", "book"):
            aq.write_results(folder, [_result(name, "untouched", correct, 0.75)], {"load": [1.5], "commit": "abc"})
    text = table.render(table.load(after), table.load(before))
    assert "| api | untouched | 1 / 1 / 3 → 3 / 1 / 1 | 1 | 2/5 → 4/5 | 3/4 | 3/4 | 0.600 / 0.500 |" in text
    assert "| **all** | untouched | 2 / 2 / 6 → 6 / 2 / 2 | 2 | 4/10 (40%) → 8/10 (80%) | 6/8 (75%) | 6/8 (75%)" in text


def test_the_retrieval_table_puts_the_beir_sets_beside_the_folders(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("answer_quality_table", REPO / "benchmarks" / "answer_quality_table.py")
    assert spec and spec.loader
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    aq.write_results(tmp_path, [_result("api", "tune", 2, 0.5), _result("api", "untouched", 2, 0.5)], {})
    beir = {"eval": {"datasets": [{"dataset": "msmarco-5k", "results": [
        {"retriever": "dense", "metrics": {"ndcg@10": 0.8}}, {"retriever": "hybrid", "metrics": {"ndcg@10": 0.7995}}]}]}}
    text = table.render_retrieval(table.retrieval_rows(table.load(tmp_path), beir))
    assert "| msmarco-5k | 0.7995 | 0.8000 | -0.0005 |" in text
    assert "| api | 0.6000 | 0.5000 | +0.1000 |" in text
    assert "| **mean of 2** | 0.6997 | 0.6500 | +0.0497 |" in text


EXTRA = FOLDERS / "tune-extra"


@pytest.mark.parametrize("path", sorted(EXTRA.glob("*.yaml")), ids=lambda p: p.stem)
def test_the_extra_tune_sets_are_tune_only_over_the_same_clone(path: Path) -> None:
    """The questions of ``tune-extra/NAME.yaml`` are all in the tune half, over the clone of
    ``NAME.yaml`` (same repository, commit and folder), and none repeats a question of it."""
    extra = yaml.safe_load(path.read_text(encoding="utf-8"))
    main = yaml.safe_load((FOLDERS / path.name).read_text(encoding="utf-8"))
    assert {k: extra[k] for k in ("fetch", "commit", "folder")} == {k: main[k] for k in ("fetch", "commit", "folder")}
    assert all(q["split"] == "tune" for q in extra["questions"]) and len(extra["questions"]) >= 8
    assert not {q["question"] for q in extra["questions"]} & {q["question"] for q in main["questions"]}


def test_sets_dir_scores_the_extra_sets_over_the_same_clones(tmp_path: Path) -> None:
    (tmp_path / "ydkjs" / ".").mkdir(parents=True)
    found = aq.folders_under(tmp_path, EXTRA)
    assert [(name, docs, questions) for name, docs, questions in found] == [
        ("ydkjs", tmp_path / "ydkjs" / ".", EXTRA / "ydkjs.yaml")]
