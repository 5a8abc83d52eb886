"""`indexing.engine: ray` on a real local Ray cluster (ray.init with two worker CPUs, so two embed
actors run side by side): the index equals the local engine's, an unchanged re-run ships nothing,
a changed file re-embeds only its changed chunk, a killed worker is retried, a corrupt PDF is
skipped with the local reason, and a driver killed with SIGKILL leaves an index the next run
completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragkit.config import load_pipeline
from ragkit.index.report import IndexReport
from ragkit.index.status import index_status
from ragkit.index.writer import IndexingPipeline

from .index_equality import assert_same, snapshot, write_docs

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


@pytest.fixture(scope="module")
def cluster() -> Any:
    """A real local Ray cluster in this process: two CPUs, so two worker processes for actors."""
    os.environ.update(RAY_ENV)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=200 * 2**20, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        started = psutil.Process().children(recursive=True)
        ray.shutdown()
        _, alive = psutil.wait_procs(started, timeout=10)
        for proc in alive:  # a worker that outlived its raylet: ours, end it by pid
            proc.kill()


def _pipe(tmp_path: Path, name: str, *, engine: str = "ray", delay: float = 0.0, actors: int = 2,
          embedder: dict[str, Any] | None = None, flush: int = 4096) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "index": str(tmp_path / name),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 200, "chunk_overlap": 0},
        "embedder": embedder or {"type": "hashing", "dimension": 32, "delay": delay},
        "store": {"type": "faiss", "index": "flat"},
        "retriever": {"type": "hybrid"},
        "indexing": {"engine": engine, "flush_chunks": flush, "ray": {"embed_actors": actors, "batch_size": 2}},
    }), encoding="utf-8")
    return path


def _index(pipe: Path, docs: Path) -> IndexReport:
    return IndexingPipeline(load_pipeline(pipe)).index_paths([docs])


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **RAY_ENV}
    return subprocess.run([sys.executable, "-m", "ragkit.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_ray_engine_equals_local_then_reruns_ship_only_changes(tmp_path: Path, cluster: str) -> None:
    docs = write_docs(tmp_path)
    local = _index(_pipe(tmp_path, "local", engine="local"), docs)
    pipe = _pipe(tmp_path, "ray")
    first = _index(pipe, docs)
    assert first.skipped == [] and sorted(first.added) == sorted(local.added)
    assert first.chunks_added == local.chunks_added == first.texts_embedded > 0
    assert first.embedding_tokens == local.embedding_tokens > 0  # the workers' usage, summed
    assert_same(snapshot(pipe), snapshot(_pipe(tmp_path, "local", engine="local")))

    # unchanged: nothing is shipped; an unreachable cluster address proves it is never contacted
    again = _cli("index", str(docs), "--pipeline", str(pipe), "--engine", "ray", "--ray-address", "127.0.0.1:9", "--json")
    assert again.returncode == 0, again.stderr
    assert '"chunks_added": 0' in again.stdout and '"texts_embedded": 0' in again.stdout

    # one paragraph of one file changes: only that chunk is embedded (on the cluster)
    target = docs / "f01.txt"
    paras = target.read_text(encoding="utf-8").split("\n\n")
    paras[1] = "a brand new middle paragraph about the lighthouse keeper and the ferry"
    target.write_text("\n\n".join(paras), encoding="utf-8")
    changed = _index(pipe, docs)
    assert changed.updated == ["f01.txt"] and changed.unchanged == len(first.added) - 1
    assert changed.texts_embedded == 1 and changed.chunks_added == 1 and changed.chunks_removed == 1
    assert changed.embedding_tokens == len(paras[1].split())  # the hashing embedder counts words
    _index(_pipe(tmp_path, "local", engine="local"), docs)
    assert_same(snapshot(pipe), snapshot(_pipe(tmp_path, "local", engine="local")))


def _actor_pids() -> list[int]:
    out = []
    try:
        procs = psutil.Process().children(recursive=True)
    except psutil.Error:  # a process ended during the walk: look again next time
        return out
    for p in procs:
        try:
            if "MapBatches(_LoadSplitEmbed)" in " ".join(p.cmdline()):
                out.append(p.pid)
        except psutil.Error:
            continue
    return out


def test_worker_killed_mid_run_is_retried(tmp_path: Path, cluster: str) -> None:
    docs = write_docs(tmp_path, n=60)
    pipe = _pipe(tmp_path, "ray", delay=1.0, flush=6)  # 30 batches of 2 sources, ~1 s each
    killed: list[int] = []

    def kill_one_actor() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            # mid-run: the first batch is committed, and an embed actor is at work on the next
            pids = _actor_pids() if (tmp_path / "ray" / "store").exists() else []
            for pid in pids[:1]:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one_actor, daemon=True)
    killer.start()
    report = _index(pipe, docs)
    killer.join()
    assert killed, "no embed actor was found to kill"
    assert report.skipped == [] and len(report.added) == 60
    _index(_pipe(tmp_path, "local", engine="local"), docs)
    assert_same(snapshot(pipe), snapshot(_pipe(tmp_path, "local", engine="local")))


def test_corrupt_pdf_on_a_worker_is_skipped_with_the_local_reason(tmp_path: Path, cluster: str) -> None:
    docs = write_docs(tmp_path, n=4)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not a pdf body\n%%EOF\n")
    local = _index(_pipe(tmp_path, "local", engine="local"), docs)
    remote = _index(_pipe(tmp_path, "ray"), docs)
    assert [s for s, _ in local.skipped] == ["broken.pdf"]
    assert remote.skipped == local.skipped
    assert sorted(remote.added) == sorted(local.added) and len(remote.added) == 4
    status = _cli("status", "--pipeline", str(_pipe(tmp_path, "ray")))
    assert f"1 file: {local.skipped[0][1]} (broken.pdf)" in status.stdout


def test_driver_sigkill_then_next_run_converges(tmp_path: Path, cluster: str) -> None:
    docs = write_docs(tmp_path, n=30)
    pipe = _pipe(tmp_path, "ray", delay=0.3, flush=4)
    ref = _index(_pipe(tmp_path, "local", engine="local"), docs)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe), "--ray-address",
         cluster, "--engine", "ray"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **RAY_ENV},
    )
    index = tmp_path / "ray"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None and not (index / "store").exists():
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed: " + proc.stderr.read().decode()[-2000:]
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    partial = index_status(pipeline=str(pipe), index=str(index))["totals"]["chunks"]
    assert partial < ref.chunks_total  # really killed mid-run
    rerun = _index(pipe, docs)
    assert rerun.chunks_total == ref.chunks_total
    verify = _cli("status", "--pipeline", str(pipe), "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert_same(snapshot(pipe), snapshot(_pipe(tmp_path, "local", engine="local")))


@pytest.mark.model
def test_real_model_vectors_match_the_local_engine(tmp_path: Path, cluster: str) -> None:
    docs = write_docs(tmp_path, n=8)
    model = {"type": "sentence-transformers", "model": "all-MiniLM-L6-v2"}
    local = _pipe(tmp_path, "local", engine="local", embedder=model)
    remote = _pipe(tmp_path, "ray", embedder=model)
    _index(local, docs)
    _index(remote, docs)
    assert_same(snapshot(remote), snapshot(local))
