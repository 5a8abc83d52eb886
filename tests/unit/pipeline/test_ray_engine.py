"""`indexing.engine: ray` on a real local Ray cluster (ray.init with two worker CPUs, so two embed
actors run side by side): the index equals the local engine's, an unchanged re-run ships nothing,
a changed file re-embeds only its changed chunk, a killed worker is retried, a corrupt PDF is
skipped with the local reason, and a driver killed with SIGKILL leaves an index the next run
completes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from ragkit.config import PipelineSpec, load_pipeline
from ragkit.index.catalog import Catalog
from ragkit.index.reader import KnowledgeBase
from ragkit.index.report import IndexReport
from ragkit.index.status import index_status
from ragkit.index.writer import IndexingPipeline

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]
WORDS = "tide gauge keeper lamp ferry harbour storm seal gull rain wind survey magnet".split()
QUERIES = ["ferry harbour storm", "lamp keeper", "rain gauge survey"]
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


def _docs(root: Path, n: int = 24) -> Path:
    rng = random.Random(15)
    docs = root / "docs"
    for i in range(n):
        paras = [" ".join(rng.choice(WORDS) for _ in range(25)) + f" item{i}p{j}." for j in range(3)]
        p = docs / ("sub" if i % 3 == 0 else "") / f"f{i:02d}.{'md' if i % 4 == 0 else 'txt'}"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n\n".join(paras), encoding="utf-8")
    return docs


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


def _snapshot(pipe: Path) -> dict[str, Any]:
    """What an index holds: catalog rows, chunk rows, the vectors of its chunks, search results."""
    spec: PipelineSpec = load_pipeline(pipe)
    index = Path(spec.index)
    cat = Catalog(index / "catalog.duckdb", read_only=True)
    try:
        sources = sorted(cat.con.execute(
            "SELECT source, content_hash, size, status, reason, loader, chunks FROM sources").fetchall())
        chunks = sorted(cat.con.execute(
            "SELECT id, source, ordinal, part, start_offset, end_offset, text_hash, tokens FROM chunks").fetchall())
        current = {c[6] for c in chunks}
        rows = cat.con.execute("SELECT text_hash, vector FROM embeddings WHERE model = ?",
                               [cat.get_meta("embedder")]).fetchall()
        vectors = {h: np.frombuffer(blob, dtype=np.float32) for h, blob in rows if h in current}
    finally:
        cat.close()
    ids = [c[0] for c in chunks]
    assert len(set(ids)) == len(ids)
    with KnowledgeBase.open(pipeline=pipe, index=index) as kb:
        # nothing duplicated, nothing missing: each store holds exactly the catalog's chunks, once
        assert kb.store.count() == len(ids) and kb.store.ids() == set(ids)
        lexical = list(kb.lexical.iter_ids())
        assert len(lexical) == kb.lexical.count() == len(ids) and set(lexical) == set(ids)
        searches = {(kind, q): _ranking(kb.search(q, k=10, kind=kind), k=10)
                    for kind in ("dense", "bm25") for q in QUERIES}
    return {"sources": sources, "chunks": chunks, "vectors": vectors, "searches": searches}


def _ranking(hits: list[Any], *, k: int, tol: float = 1e-6) -> list[tuple[str, float]]:
    """Hits as (id, score) with equal scores (within ``tol``) ordered by id: the order of a tie is
    the index's commit order, which differs between engines (a retried Ray batch commits later).
    With ``k`` hits the last tie group is cut, as its members depend on that order too."""
    pairs = sorted(((h.id, h.score) for h in hits), key=lambda p: -p[1])
    groups: list[list[tuple[str, float]]] = []
    for pair in pairs:
        if groups and abs(groups[-1][-1][1] - pair[1]) <= tol:
            groups[-1].append(pair)
        else:
            groups.append([pair])
    if len(pairs) == k and groups:
        groups.pop()
    return [p for g in groups for p in sorted(g)]


def _assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["sources"] == b["sources"]
    assert a["chunks"] == b["chunks"]
    assert a["vectors"].keys() == b["vectors"].keys() == {c[6] for c in a["chunks"]}
    for h, v in a["vectors"].items():
        np.testing.assert_allclose(v, b["vectors"][h], atol=1e-5)
    for key, hits in a["searches"].items():
        other = b["searches"][key]
        assert [i for i, _ in hits] == [i for i, _ in other], key
        np.testing.assert_allclose([s for _, s in hits], [s for _, s in other], atol=1e-5)


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **RAY_ENV}
    return subprocess.run([sys.executable, "-m", "ragkit.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_ray_engine_equals_local_then_reruns_ship_only_changes(tmp_path: Path, cluster: str) -> None:
    docs = _docs(tmp_path)
    local = _index(_pipe(tmp_path, "local", engine="local"), docs)
    pipe = _pipe(tmp_path, "ray")
    first = _index(pipe, docs)
    assert first.skipped == [] and sorted(first.added) == sorted(local.added)
    assert first.chunks_added == local.chunks_added == first.texts_embedded > 0
    assert first.embedding_tokens == local.embedding_tokens > 0  # the workers' usage, summed
    _assert_same(_snapshot(pipe), _snapshot(_pipe(tmp_path, "local", engine="local")))

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
    _assert_same(_snapshot(pipe), _snapshot(_pipe(tmp_path, "local", engine="local")))


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
    docs = _docs(tmp_path, n=60)
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
    _assert_same(_snapshot(pipe), _snapshot(_pipe(tmp_path, "local", engine="local")))


def test_corrupt_pdf_on_a_worker_is_skipped_with_the_local_reason(tmp_path: Path, cluster: str) -> None:
    docs = _docs(tmp_path, n=4)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not a pdf body\n%%EOF\n")
    local = _index(_pipe(tmp_path, "local", engine="local"), docs)
    remote = _index(_pipe(tmp_path, "ray"), docs)
    assert [s for s, _ in local.skipped] == ["broken.pdf"]
    assert remote.skipped == local.skipped
    assert sorted(remote.added) == sorted(local.added) and len(remote.added) == 4
    status = _cli("status", "--pipeline", str(_pipe(tmp_path, "ray")))
    assert f"1 file: {local.skipped[0][1]} (broken.pdf)" in status.stdout


def test_driver_sigkill_then_next_run_converges(tmp_path: Path, cluster: str) -> None:
    docs = _docs(tmp_path, n=30)
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
    _assert_same(_snapshot(pipe), _snapshot(_pipe(tmp_path, "local", engine="local")))


@pytest.mark.model
def test_real_model_vectors_match_the_local_engine(tmp_path: Path, cluster: str) -> None:
    docs = _docs(tmp_path, n=8)
    model = {"type": "sentence-transformers", "model": "all-MiniLM-L6-v2"}
    local = _pipe(tmp_path, "local", engine="local", embedder=model)
    remote = _pipe(tmp_path, "ray", embedder=model)
    _index(local, docs)
    _index(remote, docs)
    _assert_same(_snapshot(remote), _snapshot(local))
