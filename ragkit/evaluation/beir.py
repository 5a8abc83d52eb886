"""Read a dataset in BEIR layout.

::

    DIR/corpus.jsonl     {"_id": ..., "title": ..., "text": ..., "metadata": {...}} one a line
    DIR/queries.jsonl    {"_id": ..., "text": ..., "metadata": {...}} one a line
    DIR/qrels/SPLIT.tsv  query-id <TAB> corpus-id <TAB> score   (header line optional)

Files are split on ``\\n`` only: some corpora contain U+0085 or U+2028, which
``str.splitlines`` would treat as line breaks. Errors name the file and the line.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError

log = logging.getLogger(__name__)


class DatasetError(LoaderError):
    """A BEIR dataset file is missing or malformed; the message names the file and line."""


@dataclass(frozen=True)
class BeirDocument:
    id: str
    title: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def full_text(self) -> str:
        """Title and text joined the way BEIR's BM25 and dense baselines index them."""
        return f"{self.title} {self.text}".strip() if self.title else self.text


@dataclass(frozen=True)
class BeirDataset:
    name: str
    corpus: dict[str, BeirDocument]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    split: str

    @property
    def judged_queries(self) -> dict[str, str]:
        """The queries that have at least one judgment (the ones metrics are computed on)."""
        return {qid: text for qid, text in self.queries.items() if self.qrels.get(qid)}


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if not path.is_file():
        raise DatasetError(
            f"BEIR dataset file not found: {path}; a BEIR dataset directory holds corpus.jsonl, "
            "queries.jsonl and qrels/<split>.tsv",
            path=str(path),
            reason="missing",
        )
    data = path.read_bytes().decode("utf-8")
    for number, line in enumerate(data.split("\n"), start=1):
        line = line.rstrip("\r")
        if line.strip():
            yield number, line


def _json_rows(path: Path, required: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    for number, line in _lines(path):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}: invalid JSON ({exc.msg})", path=str(path)) from exc
        if not isinstance(row, dict):
            raise DatasetError(
                f"{path}:{number}: expected a JSON object, got {type(row).__name__}", path=str(path)
            )
        for key in required:
            if key not in row:
                raise DatasetError(f"{path}:{number}: missing the field {key!r}", path=str(path))
        row["_id"] = str(row["_id"])
        yield row


def read_corpus(path: Path) -> dict[str, BeirDocument]:
    corpus: dict[str, BeirDocument] = {}
    for row in _json_rows(path, ("_id", "text")):
        meta = row.get("metadata") or {}
        corpus[row["_id"]] = BeirDocument(
            id=row["_id"],
            title=str(row.get("title") or ""),
            text=str(row["text"] or ""),
            metadata=dict(meta) if isinstance(meta, dict) else {},
        )
    return corpus


def read_queries(path: Path) -> dict[str, str]:
    return {row["_id"]: str(row["text"]) for row in _json_rows(path, ("_id", "text"))}


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Read ``query-id corpus-id score`` rows; a first line whose score is not a number is a header."""
    qrels: dict[str, dict[str, int]] = {}
    for index, (number, line) in enumerate(_lines(path)):
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) == 4:  # TREC format: qid iter docid rel
            parts = [parts[0], parts[2], parts[3]]
        if len(parts) != 3:
            raise DatasetError(
                f"{path}:{number}: expected 'query-id<TAB>corpus-id<TAB>score', got {line!r}",
                path=str(path),
            )
        qid, did, score = (p.strip() for p in parts)
        try:
            rel = int(float(score))
        except ValueError as exc:
            if index == 0:
                continue  # header line, e.g. "query-id corpus-id score"
            raise DatasetError(
                f"{path}:{number}: the score {score!r} is not a number", path=str(path)
            ) from exc
        qrels.setdefault(qid, {})[did] = rel
    return qrels


def load_beir(directory: str | Path, *, split: str = "test") -> BeirDataset:
    """Load a BEIR-layout dataset; qrels judging unknown queries are kept but logged."""
    root = Path(directory)
    if not root.is_dir():
        raise DatasetError(f"dataset directory not found: {root}", path=str(root), reason="missing")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        splits = sorted(p.stem for p in (root / "qrels").glob("*.tsv")) if (root / "qrels").is_dir() else []
        raise DatasetError(
            f"qrels file not found: {qrels_path}; available splits: {', '.join(splits) or 'none'}",
            path=str(qrels_path),
            reason="missing",
        )
    corpus = read_corpus(root / "corpus.jsonl")
    queries = read_queries(root / "queries.jsonl")
    qrels = read_qrels(qrels_path)
    unknown = [qid for qid in qrels if qid not in queries]
    if unknown:
        log.warning(
            "%s: %d judged queries are not in queries.jsonl (e.g. %s)", qrels_path, len(unknown), unknown[0]
        )
    return BeirDataset(name=root.name, corpus=corpus, queries=queries, qrels=qrels, split=split)
