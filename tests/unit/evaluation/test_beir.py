"""The BEIR reader: layout, optional qrels header, line-break quirks, and errors with file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragkit.evaluation.beir import DatasetError, load_beir, read_qrels


def write_dataset(root: Path, *, qrels: str, corpus_extra: str = "") -> Path:
    (root / "qrels").mkdir(parents=True)
    docs = [
        {"_id": "d1", "title": "Cats", "text": "Cats purr.\u0085 They sleep a lot."},  # NEL inside a value
        {"_id": 2, "title": "", "text": "Dogs bark."},
    ]
    (root / "corpus.jsonl").write_text(
        "\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n" + corpus_extra, encoding="utf-8"
    )
    queries = [{"_id": "q1", "text": "do cats purr"}, {"_id": "q2", "text": "unjudged query"}]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries) + "\n", encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text(qrels, encoding="utf-8")
    return root


@pytest.mark.parametrize("header", ["query-id\tcorpus-id\tscore\n", ""])
def test_reads_corpus_queries_and_qrels_with_or_without_header(tmp_path: Path, header: str) -> None:
    ds = load_beir(write_dataset(tmp_path / "tiny", qrels=header + "q1\td1\t2\nq1\t2\t0\n"))
    assert ds.name == "tiny"
    assert set(ds.corpus) == {"d1", "2"}  # ids are strings even when the file has numbers
    assert ds.corpus["d1"].text == "Cats purr.\u0085 They sleep a lot."  # split on \n only
    assert ds.corpus["d1"].full_text == "Cats Cats purr.\u0085 They sleep a lot."
    assert ds.corpus["2"].full_text == "Dogs bark."
    assert ds.qrels == {"q1": {"d1": 2, "2": 0}}
    assert ds.judged_queries == {"q1": "do cats purr"}


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "ds", qrels="q1\td1\t1\n", corpus_extra="{not json\n")
    with pytest.raises(DatasetError, match=r"corpus\.jsonl:3: invalid JSON"):
        load_beir(root)


def test_missing_field_names_file_and_line(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "ds", qrels="q1\td1\t1\n", corpus_extra='{"title": "no id"}\n')
    with pytest.raises(DatasetError, match=r"corpus\.jsonl:3: missing the field '_id'"):
        load_beir(root)


def test_bad_qrels_score_after_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "q.tsv"
    path.write_text("q1\td1\t1\nq1\td2\thigh\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"q\.tsv:2: the score 'high' is not a number"):
        read_qrels(path)


def test_qrels_with_wrong_column_count(tmp_path: Path) -> None:
    path = tmp_path / "q.tsv"
    path.write_text("q1\td1\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"q\.tsv:1: expected"):
        read_qrels(path)


def test_trec_format_qrels_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 2\nq1 0 d2 0\n", encoding="utf-8")
    assert read_qrels(path) == {"q1": {"d1": 2, "d2": 0}}


def test_missing_split_lists_the_available_ones(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "ds", qrels="q1\td1\t1\n")
    with pytest.raises(DatasetError, match="available splits: test"):
        load_beir(root, split="dev")


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="dataset directory not found"):
        load_beir(tmp_path / "nope")


def test_reads_the_shared_msmarco_subset(msmarco_dir: Path) -> None:
    ds = load_beir(msmarco_dir)
    assert len(ds.corpus) == 5000  # six passages hold U+0085; splitting on \n only keeps 5,000
    assert len(ds.queries) == 50
    assert len(ds.judged_queries) == 43
    assert all(1 <= rel <= 3 for docs in ds.qrels.values() for rel in docs.values())
