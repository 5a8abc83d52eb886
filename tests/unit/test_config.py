from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.config import PipelineSpec, load_pipeline, parse_pipeline
from ragkit.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "pipe.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_pipeline(write(tmp_path, text))
    return str(info.value)


def test_default_pipeline_file_is_valid_and_matches_defaults(repo_root: Path) -> None:
    spec = load_pipeline(repo_root / "pipelines" / "default.yaml")
    assert spec.embedder.type == "sentence-transformers" and spec.store.type == "faiss"
    assert spec.splitter.unit == "tokens"
    assert isinstance(load_pipeline(None), PipelineSpec)


def test_unknown_key_names_file_key_path_and_suggestion(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "splitter:\n  type: recursive\n  chunk_sise: 100\n")
    assert "pipe.yaml" in msg
    assert "splitter.chunk_sise" in msg and "did you mean 'chunk_size'" in msg


def test_unknown_top_level_key(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "embeder:\n  type: hashing\n")
    assert "embeder" in msg and "did you mean 'embedder'" in msg


def test_wrong_type_names_key_path_and_value(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "splitter:\n  chunk_size: lots\n")
    assert "splitter.chunk_size" in msg and "'lots'" in msg


def test_out_of_range_value(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "splitter:\n  chunk_size: 0\n")
    assert "splitter.chunk_size" in msg and "0" in msg


def test_bad_literal_lists_allowed_values(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "splitter:\n  unit: words\n")
    assert "splitter.unit" in msg and "'tokens'" in msg and "'chars'" in msg


def test_unknown_type_gets_did_you_mean(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "store:\n  type: fiass\n")
    assert "store.type" in msg and "did you mean 'faiss'" in msg


def test_unknown_type_lists_allowed_when_nothing_is_close(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "embedder:\n  type: zzzz\n")
    assert "embedder.type" in msg and "sentence-transformers" in msg


def test_unknown_component_option(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "embedder:\n  type: hashing\n  dimensoin: 8\n")
    assert "embedder.dimensoin" in msg and "did you mean 'dimension'" in msg


def test_unknown_loader_type(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "loaders:\n  .log: txt\n")
    assert "loaders..log" in msg or "loaders.log" in msg
    assert "did you mean 'text'" in msg


def test_env_interpolation_with_default_and_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RK_TEST_INDEX", raising=False)
    p = write(tmp_path, "index: ${RK_TEST_INDEX:-/tmp/fallback}\nname: ${RK_NAME:-x}\n")
    assert load_pipeline(p).index == "/tmp/fallback"
    monkeypatch.setenv("RK_TEST_INDEX", "/data/idx")
    assert load_pipeline(p).index == "/data/idx"


def test_missing_env_variable_names_variable_and_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RK_NOPE", raising=False)
    msg = error_of(tmp_path, "store:\n  type: faiss\n  index: ${RK_NOPE}\n")
    assert "RK_NOPE" in msg and "store.index" in msg


def test_invalid_yaml_and_non_mapping(tmp_path: Path) -> None:
    assert "invalid YAML" in error_of(tmp_path, "splitter: [unclosed\n")
    assert "mapping" in error_of(tmp_path, "- a\n- b\n")


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_pipeline("/nonexistent/pipe.yaml")


def test_saved_pipeline_keeps_env_references_not_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ragkit.config import parse_pipeline

    monkeypatch.setenv("RK_SECRET", "sk-very-secret")
    p = write(tmp_path, "embedder:\n  type: hashing\n  model: ${RK_SECRET}\n")
    saved = load_pipeline(p).to_saved_dict()
    assert saved["embedder"]["model"] == "${RK_SECRET}"
    resolved = parse_pipeline({"store": {"type": "pgvector", "dsn": "postgresql://u:pw@h/db"}})
    assert "pw@" not in str(resolved.to_saved_dict()) and "u:***@" in resolved.to_saved_dict()["store"]["dsn"]


def test_store_options_are_checked_before_anything_runs() -> None:
    # stores take keyword-only options, so the pipeline check sees them (no **options)
    with pytest.raises(ConfigError, match=r"store\.ef_serch: unknown option for store 'faiss'; did you mean 'search'"):
        parse_pipeline({"store": {"type": "faiss", "ef_serch": 10}})
    with pytest.raises(ConfigError, match=r"store\.tabel: unknown option for store 'pgvector'; did you mean 'table'"):
        parse_pipeline({"store": {"type": "pgvector", "tabel": "t"}})
    with pytest.raises(ConfigError, match=r"store\.dimension: set by ragkit"):
        parse_pipeline({"store": {"type": "memory", "dimension": 3}})
    assert parse_pipeline({"store": {"type": "sqlite", "busy_timeout": 5}}).store.options == {"busy_timeout": 5}


def test_indexing_engine_and_ray_options_are_validated_with_key_paths(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "indexing:\n  engine: rey\n")
    assert "pipe.yaml" in msg and "indexing.engine" in msg and "'local'" in msg and "'ray'" in msg
    msg = error_of(tmp_path, "indexing:\n  ray: {embed_actors: 0}\n")
    assert "indexing.ray.embed_actors" in msg and "(got 0)" in msg
    msg = error_of(tmp_path, "indexing:\n  ray: {address: 'my cluster'}\n")
    assert "indexing.ray.address" in msg and "ray://HOST:PORT" in msg
    msg = error_of(tmp_path, "indexing:\n  ray: {actors: 2}\n")
    assert "indexing.ray.actors" in msg and "did you mean 'embed_actors'" in msg
    spec = load_pipeline(write(tmp_path, "indexing:\n  engine: ray\n  ray: {address: 'ray://head:10001', embed_actors: 4}\n"))
    assert spec.indexing.engine == "ray" and spec.indexing.ray.embed_actors == 4
    assert spec.indexing.ray.address == "ray://head:10001" and spec.indexing.ray.batch_size == 64


def test_engine_from_the_command_line_is_validated_and_not_saved(tmp_path: Path) -> None:
    spec = load_pipeline(write(tmp_path, "indexing: {flush_chunks: 10}\n"))
    ray_spec = spec.with_engine("ray", "10.0.0.5:6379")
    assert ray_spec.indexing.engine == "ray" and ray_spec.indexing.ray.address == "10.0.0.5:6379"
    assert ray_spec.indexing.flush_chunks == 10 and ray_spec.to_saved_dict() == spec.to_saved_dict()
    with pytest.raises(ConfigError, match="--ray-address.*indexing.ray.address"):
        spec.with_engine("ray", "not an address")
    with pytest.raises(ConfigError, match="--ray-address needs the ray engine"):
        spec.with_engine(None, "10.0.0.5:6379")
