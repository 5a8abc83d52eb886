from __future__ import annotations

import os
from pathlib import Path

import pytest
from filelock import FileLock

from ragkit.errors import IndexLockedError, LoaderError
from ragkit.index.catalog import Catalog
from ragkit.index.reader import KnowledgeBase
from ragkit.index.status import index_status
from ragkit.index.writer import IndexingPipeline

from .helpers import FILES, make_spec, write_tree


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "docs")


@pytest.fixture(params=["memory", "faiss"])
def spec(request: pytest.FixtureRequest, tmp_path: Path):
    return make_spec(tmp_path / "index", store=request.param)


def run(spec, *paths: Path, **kw):
    return IndexingPipeline(spec, **kw).index_paths(list(paths))


def store_ids(spec) -> set[str]:
    with KnowledgeBase(spec) as kb:
        return kb.store.ids()


def test_first_run_indexes_everything_and_search_finds_facts(spec, tree: Path) -> None:
    rep = run(spec, tree)
    assert sorted(rep.added) == sorted(FILES)
    assert rep.chunks_added == rep.chunks_total > 0
    assert rep.embedding_tokens > 0 and rep.texts_embedded == rep.chunks_added
    with KnowledgeBase(spec) as kb:
        hits = kb.search("when does the ferry sail from the harbour", k=3)
    assert hits[0].source == "notes/gamma.txt"
    assert "Tuesdays" in hits[0].text
    assert hits[0].metadata["start"] >= 0 and hits[0].metadata["end"] > hits[0].metadata["start"]


def test_unchanged_rerun_embeds_and_changes_nothing(spec, tree: Path) -> None:
    first = run(spec, tree)
    before = store_ids(spec)
    again = run(spec, tree)
    assert again.unchanged == len(FILES)
    assert (again.added, again.updated, again.removed) == ([], [], [])
    assert again.texts_embedded == 0 and again.embedding_tokens == 0 and again.chunks_added == 0
    assert store_ids(spec) == before and len(before) == first.chunks_total


def test_touching_files_reembeds_nothing(spec, tree: Path) -> None:
    run(spec, tree)
    for p in tree.rglob("*.*"):
        os.utime(p, (1_000_000_000, 1_000_000_000))
    rep = run(spec, tree)
    assert rep.unchanged == len(FILES) and rep.texts_embedded == 0


def test_changed_file_replaces_exactly_its_own_chunks(spec, tree: Path) -> None:
    run(spec, tree)
    before = chunk_map(spec)
    (tree / "beta.txt").write_text(
        "Beta station records rainfall every morning at nine o'clock.\n\nThe gauge now sends readings by radio.\n",
        encoding="utf-8",
    )
    rep = run(spec, tree)
    assert rep.updated == ["beta.txt"] and rep.unchanged == 2
    after = chunk_map(spec)
    assert after["alpha.md"] == before["alpha.md"] and after["notes/gamma.txt"] == before["notes/gamma.txt"]
    assert after["beta.txt"] != before["beta.txt"]
    # the unchanged first paragraph keeps its id and its embedding came from nowhere new
    assert rep.texts_embedded == 1
    assert store_ids(spec) == {i for ids in after.values() for i in ids}
    with KnowledgeBase(spec) as kb:
        texts = " ".join(h.text for h in kb.search("rain gauge replaced storm bent", k=10))
    assert "bent" not in texts


def test_embedding_cache_avoids_reembedding_moved_text(spec, tree: Path) -> None:
    run(spec, tree)
    text = (tree / "notes/gamma.txt").read_text(encoding="utf-8")
    (tree / "notes/gamma.txt").unlink()
    (tree / "delta.txt").write_text(text, encoding="utf-8")  # same text, new file
    rep = run(spec, tree)
    assert rep.added == ["delta.txt"] and rep.removed == ["notes/gamma.txt"]
    assert rep.texts_embedded == 0 and rep.cache_hits == 1


def test_deleted_file_leaves_the_store(spec, tree: Path) -> None:
    run(spec, tree)
    gone = set(chunk_map(spec)["alpha.md"])
    (tree / "alpha.md").unlink()
    rep = run(spec, tree)
    assert rep.removed == ["alpha.md"] and rep.chunks_removed == len(gone)
    assert not (gone & store_ids(spec))
    with KnowledgeBase(spec) as kb:
        assert all(h.source != "alpha.md" for h in kb.search("lighthouse paraffin lamp", k=10))


def test_indexing_one_file_does_not_remove_its_siblings(spec, tree: Path) -> None:
    run(spec, tree)
    rep = run(spec, tree / "beta.txt")
    assert rep.removed == [] and rep.unchanged == 1
    assert len(chunk_map(spec)) == len(FILES)


def test_bad_files_are_skipped_with_reasons_and_nothing_is_lost(spec, tree: Path) -> None:
    run(spec, tree)
    (tree / "binary.txt").write_bytes(b"\x00\x01\x02PNG\x00" * 50)
    (tree / "empty.md").write_text("", encoding="utf-8")
    (tree / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (tree / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tree / "dangling.txt").symlink_to(tree / "does-not-exist.txt")
    rep = run(spec, tree)
    reasons = dict(rep.skipped)
    assert set(reasons) == {"binary.txt", "empty.md", "latin1.txt", "broken.pdf", "dangling.txt"}
    assert "binary" in reasons["binary.txt"].lower()
    assert "empty" in reasons["empty.md"].lower()
    assert rep.unchanged == len(FILES)
    assert len(chunk_map(spec)) == len(FILES)
    info = index_status(pipeline=None, index=str(spec.index))
    assert {s for s, _ in info["skipped"]} == set(reasons)


def test_strict_fails_the_run_naming_the_file(spec, tree: Path) -> None:
    (tree / "binary.txt").write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(LoaderError, match="binary.txt"):
        run(spec, tree, strict=True)


def test_oversize_file_is_skipped_with_the_fix(tmp_path: Path, tree: Path) -> None:
    spec = make_spec(tmp_path / "index", sources={"max_file_size_mb": 0.0001})
    (tree / "big.txt").write_text("word " * 200, encoding="utf-8")
    rep = run(spec, tree)
    reasons = dict(rep.skipped)
    assert "max_file_size_mb" in reasons["big.txt"]


def test_second_writer_stops_with_a_clear_message(spec, tree: Path) -> None:
    index = Path(spec.index)
    index.mkdir(parents=True)
    with FileLock(str(index / "index.lock")):
        with pytest.raises(IndexLockedError, match="already running"):
            run(spec, tree)


def test_reconcile_repairs_orphans_and_missing_chunks(spec, tree: Path) -> None:
    import numpy as np

    run(spec, tree)
    ids = chunk_map(spec)
    victim = ids["beta.txt"][0]
    with KnowledgeBase(spec) as kb:  # simulate a crash between store and catalog writes
        kb.store.delete([victim])
        kb.store.add(["orphan-1"], np.ones((1, 64), dtype=np.float32) / 8.0, [{"source": "ghost.txt", "text": "x"}])
        kb.store.persist()
    info = index_status(index=str(spec.index), verify=True)
    assert not info["verify"]["ok"]
    assert info["verify"]["orphans_in_store"] == ["orphan-1"]
    assert info["verify"]["missing_from_store"] == [victim]
    rep = run(spec, tree)
    # the missing chunk comes back from the catalog's text and the embedding cache: no file re-read
    assert rep.updated == [] and rep.chunks_restored == 1 and rep.texts_embedded == 0
    assert index_status(index=str(spec.index), verify=True)["verify"]["ok"]
    with KnowledgeBase(spec) as kb:
        hit = next(h for h in kb.search("rain gauge replaced storm", k=10) if h.id == victim)
        assert hit.source == "beta.txt" and hit.text and hit.metadata["end"] > hit.metadata["start"]


def test_pipeline_settings_change_resplits_everything(tmp_path: Path, tree: Path) -> None:
    run(make_spec(tmp_path / "index"), tree)
    spec2 = make_spec(tmp_path / "index", splitter={"type": "recursive", "unit": "chars", "chunk_size": 60, "chunk_overlap": 0})
    rep = run(spec2, tree)
    assert sorted(rep.updated) == sorted(FILES)
    assert index_status(index=str(tmp_path / "index"), verify=True)["verify"]["ok"]


def test_index_documents_in_memory(tmp_path: Path) -> None:
    from ragkit.types import Document

    spec = make_spec(tmp_path / "index")
    docs = [Document("Zebras graze on the plain.", {"source": "a"}), Document("Owls hunt at night.", {"source": "b"})]
    rep = IndexingPipeline(spec).index_documents(docs)
    assert sorted(rep.added) == ["a", "b"]
    rep2 = IndexingPipeline(spec).index_documents(docs)
    assert rep2.unchanged == 2 and rep2.texts_embedded == 0


def chunk_map(spec) -> dict[str, list[str]]:
    cat = Catalog(Path(spec.index) / "catalog.duckdb", read_only=True)
    try:
        return cat.chunk_ids()
    finally:
        cat.close()



def test_clean_rerun_skips_reconcile_until_the_store_files_change(spec, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from ragkit.index import writer as pipeline_mod

    run(spec, tree)
    calls: list[int] = []
    original = pipeline_mod._Run._reconcile
    monkeypatch.setattr(pipeline_mod._Run, "_reconcile", lambda self: (calls.append(1), original(self))[1])
    run(spec, tree)
    assert calls == []  # files exactly as the last clean run left them: the store is not even opened
    with KnowledgeBase(spec) as kb:  # someone writes to the store behind the catalog's back
        kb.store.add(["stray"], np.ones((1, 64), dtype=np.float32) / 8.0, [{"source": "x", "text": "x"}])
        kb.store.persist()
    run(spec, tree)
    assert calls == [1]
    assert "stray" not in store_ids(spec)


@pytest.mark.parametrize("keyed", [False, True], ids=["new catalog", "catalog made with a primary key"])
def test_embedding_cache_put_keeps_the_first_vector_of_a_text(tmp_path: Path, keyed: bool) -> None:
    """Each text once, and on a text already cached the old vector stays: in a new catalog (no
    primary key, whose index DuckDB rewrote at every checkpoint) and in one made with the key."""
    import duckdb
    import numpy as np

    if keyed:  # the table as catalogs made before had it
        con = duckdb.connect(str(tmp_path / "catalog.duckdb"))
        con.execute("CREATE TABLE embeddings(model VARCHAR, text_hash VARCHAR, vector BLOB, PRIMARY KEY (model, text_hash))")
        con.close()
    cat = Catalog(tmp_path / "catalog.duckdb")
    try:
        cat.put_embeddings("m", {"h1": np.ones(4), "h2": np.full(4, 2.0)})
        cat.put_embeddings("m", {"h2": np.full(4, 9.0), "h3": np.full(4, 3.0)})  # h2 already there
        cat.put_embeddings("other", {"h2": np.full(4, 5.0)})  # the same text under another model
        got = cat.cached_embeddings("m", ["h1", "h2", "h3"], 4)
        assert sorted(got) == ["h1", "h2", "h3"] and got["h2"].tolist() == [2.0] * 4
        assert cat.cached_embeddings("other", ["h2"], 4)["h2"].tolist() == [5.0] * 4
        rows = cat.con.execute("SELECT model, text_hash, count(*) FROM embeddings GROUP BY ALL ORDER BY ALL").fetchall()
        assert rows == [("m", "h1", 1), ("m", "h2", 1), ("m", "h3", 1), ("other", "h2", 1)]
    finally:
        cat.close()


def _pdf(path: Path, title: str) -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "The tide gauge at the north pier is read every morning at seven by the harbour keeper.")
    pdf.output(str(path))


def test_a_metadata_only_change_updates_the_stored_metadata(spec, tmp_path: Path) -> None:
    """A PDF whose title changes and whose text does not: the run says "updated", and what search
    returns carries the new title (nothing is embedded again)."""
    docs = tmp_path / "pdfs"
    docs.mkdir()
    _pdf(docs / "gauge.pdf", "Harbour Notes, first edition")
    run(spec, docs)
    _pdf(docs / "gauge.pdf", "Harbour Notes, second edition")
    rep = run(spec, docs)
    assert rep.updated == ["gauge.pdf"] and rep.texts_embedded == 0 and rep.chunks_added == 0
    with KnowledgeBase(spec) as kb:
        for kind in ("dense", "bm25"):
            hits = kb.search("when is the tide gauge read", k=1, kind=kind)
            assert hits[0].metadata["title"] == "Harbour Notes, second edition", kind
