"""An index built before segments (one FAISS file, one ``bm25.jsonl``) opens and is upgraded in
place with a clear message: nothing is re-embedded, nothing is lost, search works."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragkit.config import parse_pipeline
from ragkit.index.reader import KnowledgeBase
from ragkit.index.status import index_status
from ragkit.index.writer import IndexingPipeline
from ragkit.stores._faiss_single import SingleFileFaiss

from .helpers import make_spec, write_tree

pytest.importorskip("faiss")


def _to_old_layout(index: Path, spec) -> int:
    """Rewrite the store and the BM25 index as an older ragkit wrote them."""
    with KnowledgeBase(spec) as kb:
        rows = [(seg.rows.record(i), np.asarray(seg.payload.vectors[i])) for seg in kb.store._log.live_segments()
                for i in range(len(seg))]
        bm25 = [seg.rows.record(i) for seg in kb.lexical._log.live_segments() for i in range(len(seg))]
        tokens = kb.lexical._analyzer.tokenize([r[2] for r in bm25])
        dim = kb.embedder.dimension
    shutil.rmtree(index / "store")
    shutil.rmtree(index / "bm25")
    old = SingleFileFaiss(dimension=dim, path=index / "store", index="flat")
    old.add([r[0] for r, _ in rows], np.stack([v for _, v in rows]), [r[1] for r, _ in rows])
    old.persist()
    old.close()
    (index / "bm25").mkdir()
    header = {"format": "ragkit-bm25", "version": 1, "params": {"stemmer": "english", "stopwords": "en"}}
    lines = [json.dumps(header)] + [json.dumps({"id": r[0], "text": r[2], "tokens": t, "metadata": r[1]})
                                    for r, t in zip(bm25, tokens, strict=True)]
    (index / "bm25" / "bm25.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(rows)


def test_an_index_from_before_segments_is_upgraded(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    spec = parse_pipeline({**make_spec(index, retriever={"type": "hybrid"}).to_yaml_dict(),
                           "store": {"type": "faiss", "index": "flat"}})
    first = IndexingPipeline(spec).index_paths([docs])
    n = _to_old_layout(index, spec)
    assert n == first.chunks_total and (index / "store" / "manifest.json").is_file()
    with caplog.at_level(logging.WARNING):
        again = IndexingPipeline(spec).index_paths([docs])
    text = caplog.text
    assert "upgraded the faiss store" in text and "nothing is re-embedded" in text
    assert "upgraded the BM25 index" in text
    assert again.texts_embedded == 0 and again.chunks_total == first.chunks_total
    assert not (index / "store" / "manifest.json").exists() and not (index / "bm25" / "bm25.jsonl").exists()
    info = index_status(index=str(index), verify=True)
    assert info["verify"]["ok"], info["verify"]
    with KnowledgeBase(spec) as kb:
        assert kb.search("ferry Tuesdays", k=1)[0].source == "notes/gamma.txt"
        assert kb.search("ferry Tuesdays", k=1, kind="bm25")[0].source == "notes/gamma.txt"
