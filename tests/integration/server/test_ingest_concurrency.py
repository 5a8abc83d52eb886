"""Uploads, listings and searches while an ingest job runs get no 5xx (the
catalog has one writer: workers read what the last job wrote, never the DuckDB file while a job
writes it), and a job killed with `kill -9` is resumed and completes after a restart."""

from __future__ import annotations

import concurrent.futures as cf
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragkit.index.writer import IndexingPipeline
from ragkit.testing.server_process import ServerProcess, ragkit_server

from ...unit.pipeline.helpers import make_spec, write_tree

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
BULK = [{"name": f"bulk/d{i:02d}.md", "text": f"# Note {i}\n\nDocument {i} is about the tide table of week {i}. " * 8}
        for i in range(30)]


def slow_index(root: Path, delay: float) -> Path:
    """The test corpus with an embedder that sleeps ``delay`` seconds per batch: jobs take a while."""
    spec = make_spec(root / "index", embedder={"type": "hashing", "dimension": 64, "delay": delay},
                     indexing={"flush_chunks": 16})
    IndexingPipeline(spec).index_paths([write_tree(root / "docs")])
    return root / "index"


def job(server: ServerProcess, job_id: str) -> dict[str, Any]:
    return httpx.get(f"{server.url}/jobs/{job_id}", timeout=30).json()


def wait_status(server: ServerProcess, job_id: str, wanted: set[str], timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        j = job(server, job_id)
        if j["status"] in wanted or time.monotonic() > deadline:
            return j
        time.sleep(0.05)


def test_sixty_concurrent_requests_during_a_job_get_no_5xx(tmp_path: Path) -> None:
    index = slow_index(tmp_path, delay=0.3)
    with ragkit_server(index, workers=2) as server:
        first = httpx.post(server.url + "/documents", json={"documents": BULK}).json()["id"]
        assert wait_status(server, first, {"running", "succeeded", "failed"})["status"] == "running"

        def one(n: int) -> httpx.Response:
            if n % 3 == 0:
                body = {"documents": [{"name": f"burst/b{n:02d}.md", "text": f"Burst note {n} about the tide."}]}
                return httpx.post(server.url + "/documents", json=body, timeout=60)
            if n % 3 == 1:
                return httpx.get(server.url + "/documents", timeout=60)
            return httpx.post(server.url + "/search", json={"query": "tide table"}, timeout=60)

        with cf.ThreadPoolExecutor(20) as pool:
            responses = list(pool.map(one, range(60)))
        errors = [(r.request.method, r.request.url.path, r.status_code, r.text[:200]) for r in responses
                  if r.status_code >= 500]
        assert not errors, errors
        assert all(r.status_code in (200, 202) for r in responses), {r.status_code for r in responses}
        assert job(server, first)["status"] in ("running", "queued", "succeeded")  # the burst came during the job
        jobs = [first] + [r.json()["id"] for r in responses if r.status_code == 202]
        for job_id in jobs:
            assert wait_status(server, job_id, {"succeeded", "failed"})["status"] == "succeeded", job(server, job_id)
        docs = {d["source"]: d for d in httpx.get(server.url + "/documents").json()["data"]}
        expected = {d["name"] for d in BULK} | {f"burst/b{n:02d}.md" for n in range(0, 60, 3)}
        assert expected <= {s for s, d in docs.items() if d["status"] == "indexed"}
        assert "internal_error" not in server.log() and "Traceback" not in server.log()


def test_a_job_killed_with_kill9_completes_after_a_restart(tmp_path: Path) -> None:
    index = slow_index(tmp_path, delay=0.5)
    with ragkit_server(index) as server:
        job_id = httpx.post(server.url + "/documents", json={"documents": BULK}).json()["id"]
        assert wait_status(server, job_id, {"running", "succeeded", "failed"})["status"] == "running"
        time.sleep(1.0)  # well into the job
        server.kill9()
    assert len(list((index / "uploads" / "bulk").iterdir())) == 30
    with ragkit_server(index, workers=2) as server:
        done = wait_status(server, job_id, {"succeeded", "failed"})
        assert done["status"] == "succeeded", done
        docs = {d["source"]: d for d in httpx.get(server.url + "/documents").json()["data"]}
        assert all(docs[d["name"]]["status"] == "indexed" for d in BULK), docs
        hits = httpx.post(server.url + "/search", json={"query": "tide table of week 17"}).json()["data"]
        assert hits[0]["source"] == "bulk/d17.md"
