"""The PostgreSQL full-text lexical index (``lexical: {backend: postgres}``) against a real
PostgreSQL: the sink operations, filtered and rare-term search, and a whole index run with a
pgvector store that writes no local sink file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.retrieval.pg_lexical import PgLexicalIndex
from ragkit.stores.base import SinkRecord


def table_for(path: Path) -> str:
    """One table per test, so tests sharing the server do not see each other."""
    import hashlib

    return "lx_" + hashlib.sha1(str(path).encode()).hexdigest()[:16]

pytestmark = [pytest.mark.network_local, pytest.mark.slow]

DOCS = {
    "a1": ("The quick brown fox jumps over the lazy dog", {"source": "animals/fox.md", "page": 1}),
    "a2": ("Foxes are clever; a fox hunts at night", {"source": "animals/fox.md", "page": 2}),
    "b1": ("Python is a programming language with snakes in its logo", {"source": "code/python.md", "page": 1}),
    "c1": ("Sourdough bread needs flour, water and patience", {"source": "food/bake.txt", "page": 1}),
}


def test_sink_operations_and_search(postgres_dsn: str, tmp_path: Path) -> None:
    index = PgLexicalIndex(dsn=postgres_dsn, table=table_for(tmp_path))
    try:
        index.upsert([SinkRecord(i, t, None, m) for i, (t, m) in DOCS.items()])
        assert index.count() == 4 and index.ids() == set(DOCS)
        assert index.sources() == {"animals/fox.md", "code/python.md", "food/bake.txt"}  # the files a query may name
        assert (index.passage_count("animals/fox.md"), index.passage_count("code/python.md"), index.passage_count("x")) == (2, 1, 0)
        assert [h.id for h in index.search("foxes", k=5)] == ["a2", "a1"]  # stemmed, a2 twice
        assert index.best("foxes").id == "a2" and index.best("zeppelin") is None
        hit = index.search("sourdough", k=1)[0]
        assert hit.metadata["text"].startswith("Sourdough") and hit.metadata["source"] == "food/bake.txt"
        assert [h.id for h in index.search("fox", k=5, filter={"page": {"$gte": 2}})] == ["a2"]
        assert {h.id for h in index.search("fox python", k=5, filter={"source": {"$glob": "code/*"}})} == {"b1"}
        assert index.search("zeppelin", k=5) == [] and index.search("the of", k=5) == []
        index.upsert([SinkRecord("c1", "A fox recipe", None, {"source": "food/fox.txt"})])
        assert index.search("bread", k=5) == [] and "c1" in {h.id for h in index.search("fox", k=5)}
        assert index.sources() == {"animals/fox.md", "code/python.md", "food/fox.txt"}  # its own write is seen at once
        index.delete(["a1", "missing"])
        assert index.count() == 3 and "a1" not in index.ids()
        # "python" is in 1 of 3 documents: rare at max_df 0.5, not at 0.2
        assert [h.id for h in index.rare_term_hits("python fox", max_df=0.5, k=5)] == ["b1"]
        assert index.rare_term_hits("python", max_df=0.2, k=5) == []
    finally:
        index.close()


def test_contextual_header_is_searched_not_shown(postgres_dsn: str, tmp_path: Path) -> None:
    """Like the local BM25 index, the table's terms are the chunk's indexed text (its contextual
    header and its text); the hit shows the text alone."""
    index = PgLexicalIndex(dsn=postgres_dsn, table=table_for(tmp_path))
    try:
        index.upsert([SinkRecord("h1", "It listens on port 8080 by default.", None,
                                 {"source": "deploying/waitress.rst", "context_header": "Waitress"}),
                      SinkRecord("h2", "The development server is not for production.", None,
                                 {"source": "server.rst"})])
        hit = index.search("waitress", k=5)
        assert [h.id for h in hit] == ["h1"] and hit[0].metadata["text"] == "It listens on port 8080 by default."
        assert "context_header" not in index.search("development", k=1)[0].metadata
    finally:
        index.close()


def test_index_run_with_pgvector_keeps_no_local_sink(postgres_dsn: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for rel, text in {"alpha.md": "# Alpha\n\nThe lighthouse at Alpha Point was built in 1871.\n",
                      "beta.txt": "Beta station records rainfall every morning at nine o'clock.\n",
                      "notes/gamma.txt": "Gamma notes: the ferry sails on Tuesdays and Fridays from the old harbour.\n"}.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    index = tmp_path / "index"
    table = table_for(tmp_path)
    pipe = tmp_path / "p.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": str(index),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 120, "chunk_overlap": 10},
        "embedder": {"type": "hashing", "dimension": 64},
        "store": {"type": "pgvector", "dsn": postgres_dsn, "table": table},
        "retriever": {"type": "hybrid"},
        "lexical": {"backend": "postgres", "table": table + "_lx"},
    }), encoding="utf-8")
    runner = CliRunner()
    first = runner.invoke(cli, ["index", str(docs), "-p", str(pipe), "--json"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    total = json.loads(first.stdout)["chunks_total"]
    assert not (index / "bm25").exists() and not (index / "store").exists()
    hits = runner.invoke(cli, ["search", "ferry Tuesdays", "--index", str(index), "--json"], catch_exceptions=False)
    assert json.loads(hits.stdout)[0]["source"] == "notes/gamma.txt"
    lexical = runner.invoke(cli, ["search", "ferry", "--retriever", "bm25", "--index", str(index), "--json"],
                            catch_exceptions=False)
    assert json.loads(lexical.stdout)[0]["source"] == "notes/gamma.txt"
    # min_score on the PostgreSQL lexical retriever (ts_rank) and on the pgvector dense one (cosine)
    for kind in ("bm25", "dense"):
        args = ["search", "ferry rainfall lighthouse", "--retriever", kind, "--index", str(index), "--json"]
        every = json.loads(runner.invoke(cli, args, catch_exceptions=False).stdout)
        scores = sorted({h["score"] for h in every}, reverse=True)
        assert len(scores) >= 2, (kind, every)
        between = str((scores[0] + scores[1]) / 2)
        kept = json.loads(runner.invoke(cli, [*args, "--min-score", between], catch_exceptions=False).stdout)
        assert [h["id"] for h in kept] == [h["id"] for h in every if h["score"] >= float(between)] != []
        assert len(kept) < len(every)
    (docs / "beta.txt").unlink()
    again = runner.invoke(cli, ["index", str(docs), "--index", str(index), "--json"], catch_exceptions=False)
    assert json.loads(again.stdout)["removed"] == ["beta.txt"]
    lx = PgLexicalIndex(dsn=postgres_dsn, table=table + "_lx")
    try:
        assert lx.count() == json.loads(again.stdout)["chunks_total"] < total
    finally:
        lx.close()
    ok = runner.invoke(cli, ["status", "--verify", "--index", str(index)])
    assert ok.exit_code == 0 and "verify: ok" in ok.output, ok.output
