"""`indexing.engine: ray` on a real multi-node Ray cluster on this machine (``ray start --head`` and
``ray start --address``, each node with its own CPUs and temp dir: ``ragkit.testing.ray_cluster``),
indexing into a real PostgreSQL (pgvector store, PostgreSQL full-text lexical index).

Each run is compared with a local build of the same folder (catalog rows, chunk ids, vectors,
dense and BM25 rankings with ties ordered by id) and each store is checked to hold exactly the
catalog's chunks, once. The faults: a worker node killed mid-run, the driver killed mid-run, a node
added mid-run. Runs are held at known points by the hashing embedder's gate file (each embed
call notes itself, with its process id, in a calls file); timeouts only bound a failure.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragkit.config import load_pipeline
from ragkit.index.report import IndexReport
from ragkit.index.status import index_status
from ragkit.index.writer import IndexingPipeline
from ragkit.testing.ray_cluster import RAY_ENV, LocalRayCluster, RayNode

from ..unit.pipeline.index_equality import assert_same, snapshot, write_docs

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
REPO = Path(__file__).resolve().parents[2]
BOUND = 240.0  # seconds: only a failure waits this long


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRayCluster]:
    """A head that runs no actors (0 CPUs: it coordinates) and two 1-CPU worker nodes; this
    process is a driver connected to it."""
    os.environ.update(RAY_ENV)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    with LocalRayCluster(tmp_path_factory.mktemp("ray")) as c:
        c.start_head(num_cpus=0)
        c.add_node("w1")
        c.add_node("w2")
        ray.init(address=c.address, logging_level="WARNING", log_to_driver=False)
        try:
            yield c
        finally:
            ray.shutdown()


def _workers(cluster: LocalRayCluster, n: int) -> list[RayNode]:
    """At least ``n`` live worker nodes (adding 1-CPU nodes as needed)."""
    live = [node for node in cluster.nodes if node.name != "head" and not node.killed]
    while len(live) < n:
        live.append(cluster.add_node(f"w{len(cluster.nodes)}"))
    return live


def _pipe(tmp_path: Path, dsn: str, name: str, *, engine: str = "ray", actors: int = 2, flush: int = 4096,
          embedder: dict[str, Any] | None = None) -> Path:
    table = "rc_" + hashlib.sha1(f"{tmp_path}/{name}".encode()).hexdigest()[:16]
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "index": str(tmp_path / name),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 200, "chunk_overlap": 0},
        "embedder": {"type": "hashing", "dimension": 32, **(embedder or {})},
        "store": {"type": "pgvector", "dsn": dsn, "table": table, "ef_search": 1000},  # exact at this size
        "lexical": {"backend": "postgres", "table": table + "_lx"},
        "retriever": {"type": "hybrid"},
        "indexing": {"engine": engine, "flush_chunks": flush,
                     "ray": {"embed_actors": actors, "batch_size": 2, "num_cpus_per_worker": 1}},
    }), encoding="utf-8")
    return path


def _gated(tmp_path: Path, after: int = 0) -> dict[str, Any]:
    """Embedder options: every call is noted in ``calls``; calls past the first ``after`` wait for ``gate``."""
    return {"calls_file": str(tmp_path / "calls"), "gate_file": str(tmp_path / "gate"), "gate_after": after}


def _calls(tmp_path: Path) -> list[tuple[int, int]]:
    """(texts, pid) of each embed call so far."""
    path = tmp_path / "calls"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [(int(n), int(pid)) for n, pid, _ in (line.split() for line in lines)]


def _wait(what: str, done: Callable[[], bool], alive: Callable[[], bool] = lambda: True) -> None:
    deadline = time.monotonic() + BOUND
    while not done():
        assert alive(), f"the run ended before {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class _Run(threading.Thread):
    """An index run in a thread of this process (the driver), its report or error kept."""

    def __init__(self, pipe: Path, docs: Path) -> None:
        super().__init__(daemon=True)
        self.pipe, self.docs = pipe, docs
        self.report: IndexReport | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.report = IndexingPipeline(load_pipeline(self.pipe)).index_paths([self.docs])
        except BaseException as exc:  # noqa: BLE001 - re-raised by finish()
            self.error = exc

    def finish(self) -> IndexReport:
        self.join(BOUND)
        assert not self.is_alive(), "the index run did not finish"
        if self.error is not None:
            raise self.error
        assert self.report is not None
        return self.report


def _setup(tmp_path: Path, dsn: str, n: int) -> tuple[Path, Path, IndexReport]:
    """A folder of ``n`` files and its local build: (docs, the local pipeline, its report)."""
    docs = write_docs(tmp_path, n=n)
    pipe = _pipe(tmp_path, dsn, "local", engine="local")
    return docs, pipe, IndexingPipeline(load_pipeline(pipe)).index_paths([docs])


def _node_of(cluster: LocalRayCluster, pid: int) -> RayNode:
    for node in cluster.nodes:
        if not node.killed and pid in {p.pid for p in node.processes()}:
            return node
    raise AssertionError(f"no live node runs pid {pid}")


def test_two_worker_nodes_build_the_same_index_as_a_local_run(
    tmp_path: Path, postgres_dsn: str, cluster: LocalRayCluster
) -> None:
    _workers(cluster, 2)
    docs, local_pipe, local = _setup(tmp_path, postgres_dsn, 24)
    pipe = _pipe(tmp_path, postgres_dsn, "ray", embedder=_gated(tmp_path))
    run = _Run(pipe, docs)
    run.start()
    # both actors are inside an embed call at once: each node (1 CPU, 1 actor) holds a batch
    _wait("two embed calls", lambda: len(_calls(tmp_path)) >= 2, run.is_alive)
    held = {_node_of(cluster, pid).name for _, pid in _calls(tmp_path)}
    assert len(held) == 2
    (tmp_path / "gate").touch()
    report = run.finish()
    assert report.skipped == [] and sorted(report.added) == sorted(local.added)
    assert report.chunks_added == local.chunks_added == report.texts_embedded > 0
    assert report.embedding_tokens == local.embedding_tokens
    assert set(report.ray_nodes) == {cluster.node_id(name) for name in held}
    assert sum(report.ray_nodes.values()) == 12 and report.ray_reshipped == 0  # 24 sources, 2 per batch
    assert_same(snapshot(pipe), snapshot(local_pipe))


def test_a_node_added_mid_run_takes_work(tmp_path: Path, postgres_dsn: str, cluster: LocalRayCluster) -> None:
    live = _workers(cluster, 2)
    docs, local_pipe, _ = _setup(tmp_path, postgres_dsn, 16)
    # one more actor than the cluster has CPUs: the third waits for a node
    pipe = _pipe(tmp_path, postgres_dsn, "ray", actors=len(live) + 1, embedder=_gated(tmp_path))
    run = _Run(pipe, docs)
    run.start()
    _wait("every placed actor in an embed call", lambda: len(_calls(tmp_path)) >= len(live), run.is_alive)
    assert len(_calls(tmp_path)) == len(live)  # the third actor has nowhere to run yet
    new = cluster.add_node(f"w{len(cluster.nodes)}")
    _wait("the new node's actor in an embed call", lambda: len(_calls(tmp_path)) > len(live), run.is_alive)
    assert _node_of(cluster, _calls(tmp_path)[-1][1]) is new
    (tmp_path / "gate").touch()
    report = run.finish()
    assert cluster.node_id(new.name) in report.ray_nodes
    assert sum(report.ray_nodes.values()) == 8
    assert_same(snapshot(pipe), snapshot(local_pipe))


def test_a_worker_node_killed_mid_run_loses_nothing(
    tmp_path: Path, postgres_dsn: str, cluster: LocalRayCluster
) -> None:
    _workers(cluster, 3)  # two actors, and a spare node for the one that is lost
    docs, local_pipe, local = _setup(tmp_path, postgres_dsn, 20)
    done = 3  # embed calls let through before the gate: some batches are committed before the kill
    pipe = _pipe(tmp_path, postgres_dsn, "ray", flush=1, embedder=_gated(tmp_path, after=done))
    run = _Run(pipe, docs)
    run.start()
    _wait("both actors held at the gate", lambda: len(_calls(tmp_path)) >= done + 2, run.is_alive)
    victim = _node_of(cluster, _calls(tmp_path)[done][1])  # it holds a batch that is not done
    victim_id = cluster.node_id(victim.name)
    pids = {p.pid for p in victim.processes()}
    finished_there = sum(1 for _, pid in _calls(tmp_path)[:done] if pid in pids)
    cluster.kill_node(victim)
    (tmp_path / "gate").touch()
    report = run.finish()
    assert report.skipped == [] and sorted(report.added) == sorted(local.added)
    assert report.chunks_total == local.chunks_total
    # the batch held on the killed node was done again on another: the killed node is credited
    # with no more batches than it finished before the kill
    assert report.ray_nodes.get(victim_id, 0) <= finished_there
    if not report.ray_reshipped:  # Ray's actor restart and task retry redid it: the same 10 batches
        assert sum(report.ray_nodes.values()) == 10
    assert_same(snapshot(pipe), snapshot(local_pipe))
    status = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "status", "--pipeline", str(pipe), "--verify"],
                            capture_output=True, text=True, timeout=BOUND, env={**os.environ, **RAY_ENV})
    assert status.returncode == 0 and "verify: ok" in status.stdout, status.stdout + status.stderr


def _sources_in(dsn: str, table: str) -> int:
    import psycopg

    with psycopg.connect(dsn) as conn:
        try:
            return int(conn.execute(f"SELECT count(DISTINCT metadata->>'source') FROM {table}").fetchone()[0])
        except psycopg.errors.UndefinedTable:
            return 0


def test_the_driver_killed_mid_run_then_the_next_run_completes_it(
    tmp_path: Path, postgres_dsn: str, cluster: LocalRayCluster
) -> None:
    _workers(cluster, 2)
    docs, local_pipe, local = _setup(tmp_path, postgres_dsn, 20)
    done = 3  # batches of 2 sources embedded before the gate holds the run
    pipe = _pipe(tmp_path, postgres_dsn, "ray", flush=1, embedder=_gated(tmp_path, after=done))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe),
         "--ray-address", cluster.address],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **RAY_ENV},
    )
    try:
        lexical = load_pipeline(pipe).lexical.table
        # flush_chunks 1: one source per commit; a third source in the lexical table means the
        # first two are committed in the catalog (each flush writes lexical, store, then catalog)
        _wait("sources committed", lambda: _sources_in(postgres_dsn, lexical) >= 3, lambda: proc.poll() is None)
        _wait("the run held at the gate", lambda: len(_calls(tmp_path)) > done, lambda: proc.poll() is None)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()[-3000:] if proc.stderr else ""
    status = index_status(pipeline=str(pipe))
    assert status["last_run"]["status"] == "interrupted"
    assert 0 < status["totals"]["chunks"] < local.chunks_total  # really killed mid-run
    (tmp_path / "gate").touch()
    rerun = IndexingPipeline(load_pipeline(pipe)).index_paths([docs])
    assert rerun.chunks_total == local.chunks_total and rerun.skipped == []
    assert_same(snapshot(pipe), snapshot(local_pipe))


def test_an_address_nothing_answers_on_is_a_clear_error_not_a_hang(tmp_path: Path) -> None:
    from ragkit.testing.servers.base import free_port

    docs = write_docs(tmp_path, n=2)
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"index": str(tmp_path / "idx"), "embedder": {"type": "hashing", "dimension": 16},
                                    "store": {"type": "faiss", "index": "flat"}, "indexing": {"engine": "ray"}}))
    address = f"127.0.0.1:{free_port()}"
    out = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(path),
                          "--ray-address", address], capture_output=True, text=True, timeout=BOUND,
                         env={**os.environ, **RAY_ENV})
    assert out.returncode != 0
    assert f"could not connect to the Ray cluster at {address}" in out.stderr and "Traceback" not in out.stderr
