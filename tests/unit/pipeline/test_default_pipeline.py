"""One default pipeline, the same everywhere, saved in full with the index; a
changed store or retriever is rebuilt from the catalog and the embedding cache."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.config import interpolate, load_pipeline, parse_pipeline
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline

from .helpers import FILES, make_spec, write_tree

REPO = Path(__file__).resolve().parents[3]


def _defaults() -> dict:
    return load_pipeline(None).to_yaml_dict()


@pytest.mark.parametrize("env_index", [None, "/somewhere/else"])
def test_default_yaml_parses_to_exactly_the_code_defaults(monkeypatch: pytest.MonkeyPatch, env_index: str | None) -> None:
    if env_index is None:
        monkeypatch.delenv("RAGKIT_INDEX", raising=False)
    else:
        monkeypatch.setenv("RAGKIT_INDEX", env_index)
    assert load_pipeline(REPO / "pipelines" / "default.yaml").to_yaml_dict() == _defaults()
    assert _defaults()["index"] == (env_index or ".ragkit/index")


def test_the_torch_pipeline_is_the_default_with_the_pytorch_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGKIT_INDEX", raising=False)
    torch = load_pipeline(REPO / "pipelines" / "torch.yaml").to_yaml_dict()
    assert torch["embedder"].pop("backend") == "torch" and torch.pop("index") == ".ragkit/index-torch"
    assert torch.pop("name") == "torch"
    default = _defaults()
    assert default["embedder"].pop("backend") == "onnx-int8" and default["embedder"].pop("recipe") == "s8-rr-sqxl"
    default.pop("index"), default.pop("name")
    assert torch == default


def test_the_documented_default_pipeline_is_the_default() -> None:
    guide = (REPO / "docs" / "guides" / "pipelines.md").read_text(encoding="utf-8")
    block = re.search(r"## The default pipeline\n.*?```yaml\n(.*?)```", guide, re.S)
    assert block, "docs/guides/pipelines.md has no default pipeline block"
    data = interpolate(yaml.safe_load(block.group(1)))
    assert parse_pipeline(data).to_yaml_dict() == _defaults()
    # every key of the default is spelled out in the reference (nothing hidden)
    assert set(yaml.safe_load(block.group(1))) == set(_defaults())


def test_the_default_shows_store_index_and_embedder_model() -> None:
    d = _defaults()
    assert d["store"] == {"type": "faiss", "index": "auto"}
    assert d["embedder"]["model"] == "all-MiniLM-L6-v2"
    assert d["splitter"]["type"] == "markdown"
    res = CliRunner().invoke(cli, ["pipeline", "show"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    shown = yaml.safe_load(res.output)
    assert shown["store"] == {"type": "faiss", "index": "auto"} and shown["embedder"]["model"] == "all-MiniLM-L6-v2"


def test_dotfiles_are_not_indexed_by_default(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"a.md": "# A\nvisible\n", ".hidden.md": "secret\n",
                                          ".obsidian/workspace.md": "editor state\n", "sub/.env": "KEY=1\n"})
    report = IndexingPipeline(make_spec(tmp_path / "index")).index_paths([docs])
    assert report.added == ["a.md"] and report.skipped == []


def test_the_index_saves_the_full_pipeline_with_references_unresolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    monkeypatch.setenv("RK_INDEX", str(index))
    pipe = tmp_path / "p.yaml"
    pipe.write_text(yaml.safe_dump({
        "index": "${RK_INDEX}", "embedder": {"type": "hashing", "dimension": 64},
        "store": {"type": "memory"}, "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 120},
    }), encoding="utf-8")
    res = CliRunner().invoke(cli, ["index", str(write_tree(tmp_path / "docs")), "-p", str(pipe), "--json"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    saved = yaml.safe_load((index / "pipeline.yaml").read_text(encoding="utf-8"))
    assert set(saved) == set(_defaults())  # every section, not `{}`
    assert saved["index"] == "${RK_INDEX}"  # the reference as written, not the resolved value
    assert saved["retriever"] == _defaults()["retriever"] and saved["sources"]["exclude"] == ["**/.*", "questions.yaml"]
    assert load_pipeline(index / "pipeline.yaml").to_yaml_dict() == load_pipeline(pipe).to_yaml_dict()


def test_changing_the_store_rebuilds_it_from_the_embedding_cache(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    first = IndexingPipeline(make_spec(index, store="faiss", retriever={"type": "dense"})).index_paths([docs])
    assert first.texts_embedded > 0
    for store in ({"type": "faiss", "index": "flat"}, {"type": "memory"}):
        spec = make_spec(index, store=store["type"])
        spec = parse_pipeline({**spec.to_yaml_dict(), "store": store})
        report = IndexingPipeline(spec).index_paths([docs])
        assert report.texts_embedded == 0 and report.updated == [] and report.added == []
        assert report.chunks_restored == first.chunks_total == report.chunks_total
        with KnowledgeBase(spec) as kb:
            assert kb.store.count() == first.chunks_total
            assert kb.search("ferry Tuesdays", k=1)[0].source == "notes/gamma.txt"


def test_a_lexical_retriever_later_builds_the_bm25_index_from_the_catalog(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs")
    dense = make_spec(tmp_path / "index")
    first = IndexingPipeline(dense).index_paths([docs])
    hybrid = make_spec(tmp_path / "index", retriever={"type": "hybrid"})
    report = IndexingPipeline(hybrid).index_paths([docs])
    assert report.texts_embedded == 0 and report.updated == [] and report.chunks_restored == first.chunks_total
    with KnowledgeBase(hybrid) as kb:
        assert kb.lexical.ids() == kb.store.ids()


def test_search_hybrid_on_a_dense_only_index_from_the_cli(tmp_path: Path) -> None:
    pipe = tmp_path / "p.yaml"
    spec = make_spec(tmp_path / "index").to_yaml_dict()
    pipe.write_text(yaml.safe_dump(spec), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(write_tree(tmp_path / "docs", FILES)), "-p", str(pipe)]).exit_code == 0
    res = runner.invoke(cli, ["search", "ferry Tuesdays", "--retriever", "hybrid", "--index", str(tmp_path / "index"),
                              "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["source"] == "notes/gamma.txt"


def test_an_index_saved_before_the_full_pipeline_keeps_the_settings_it_was_built_with(tmp_path: Path) -> None:
    from ragkit.index.reader import resolve_spec

    index = tmp_path / "index"
    index.mkdir()
    (index / "pipeline.yaml").write_text(  # what an older ragkit saved: the YAML as written
        "embedder: {type: hashing, dimension: 64}\nsplitter: {unit: chars, chunk_size: 120}\n", encoding="utf-8"
    )
    spec, _ = resolve_spec(None, index)
    assert spec.splitter.type == "recursive" and spec.retriever.type == "dense"  # the defaults of that time
    assert spec.store.type == "faiss" and spec.store.options == {} and spec.sources.exclude == []
    assert spec.to_saved_dict()["store"] == {"type": "faiss"}  # rewritten in full by the next run
    (index / "pipeline.yaml").write_text("{}\n", encoding="utf-8")
    assert resolve_spec(None, index)[0].retriever.type == "dense"


def test_search_with_a_pipeline_naming_another_store_reads_the_store_as_built(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    IndexingPipeline(make_spec(index, store="faiss")).index_paths([docs])  # FAISS's own default: hnsw
    flat = tmp_path / "flat.yaml"
    flat.write_text(yaml.safe_dump({**make_spec(index).to_yaml_dict(), "store": {"type": "faiss", "index": "flat"}}),
                    encoding="utf-8")
    with caplog.at_level(logging.WARNING), KnowledgeBase.open(pipeline=flat) as kb:
        assert kb.search("ferry Tuesdays", k=1)[0].source == "notes/gamma.txt"
    assert any("searching the store as built" in r.getMessage() for r in caplog.records)
