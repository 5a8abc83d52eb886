"""Ingest jobs under stress, against a real `ragkit serve`: the server answers `/healthz` all through
a large upload's job (the job runs in a child process, off the event loop); every start of a job is
counted, and a job whose process ended during it twice (the ingest process killed, or the whole
server killed) is failed with the reason, its documents set aside, and never run again: no crash
loop, and the next upload is indexed. A decompression bomb uploaded fails its job naming the limit,
with the server answering and its memory bounded all along."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragkit.testing.server_process import ServerProcess, ragkit_server

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
BIG_BYTES = 4_000_000
HEALTH_DEADLINE = 600.0  # seconds the responsiveness check may take in all (a bound, not a threshold)
MAX_HEALTH_CHECKS = 2000


def big_text(seed: int, size: int = BIG_BYTES) -> bytes:
    """``size`` bytes of prose-like text (random words): thousands of chunks to index."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(4000)]
    parts: list[str] = []
    total = 0
    while total < size:
        paragraph = " ".join(rng.choice(words) for _ in range(80)) + ".\n\n"
        parts.append(paragraph)
        total += len(paragraph)
    return "".join(parts).encode()


def upload(server: ServerProcess, name: str, data: bytes) -> str:
    r = httpx.post(server.url + "/documents", files={"files": (name, data, "text/plain")},
                   headers={"X-Ragkit-Client": "test"}, timeout=120)
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


def job(server: ServerProcess, job_id: str) -> dict[str, Any]:
    return httpx.get(f"{server.url}/jobs/{job_id}", timeout=60).json()  # type: ignore[no-any-return]


def wait_for(server: ServerProcess, job_id: str, done: Any, deadline: float = 600) -> dict[str, Any]:
    end = time.monotonic() + deadline
    while True:
        state = job(server, job_id)
        if done(state) or time.monotonic() > end:
            return state
        time.sleep(0.05)


def finished(state: dict[str, Any]) -> bool:
    return state["status"] in ("succeeded", "failed")


def ingest_child(server: ServerProcess) -> int:
    """The pid of the server's ingest process (a spawned child of the server process)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for pid in _children(server.proc.pid):
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
                return pid
        time.sleep(0.05)
    raise AssertionError("the server started no ingest process")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    index = build_index(tmp_path_factory.mktemp("jobs"))
    with ragkit_server(index) as running:
        yield running


def test_healthz_answers_all_through_a_large_uploads_job(server) -> None:
    job_id = upload(server, "big.txt", big_text(1))
    answered_while_running = 0
    worker = None
    start = time.monotonic()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for _ in range(MAX_HEALTH_CHECKS):
            assert http.get("/healthz").status_code == 200  # a timeout here fails the test
            state = http.get(f"/jobs/{job_id}").json()
            if finished(state) or time.monotonic() - start > HEALTH_DEADLINE:
                break
            answered_while_running += state["status"] == "running"
            if state["status"] == "running" and worker is None:
                worker = ingest_child(server)  # the job runs in its own process, not the server's
            time.sleep(0.05)
    assert state["status"] == "succeeded", state
    assert state["result"]["counts"]["chunks_added"] > 1000 and state["attempts"] == 1
    assert answered_while_running >= 3 and worker != server.proc.pid  # the checks really overlapped the job


def test_a_job_whose_ingest_process_dies_twice_fails_and_is_set_aside(server) -> None:
    index = Path(server.proc.args[server.proc.args.index("--index") + 1])
    job_id = upload(server, "bomb.txt", big_text(2))
    for start in (1, 2):
        state = wait_for(server, job_id, lambda s, n=start: s["status"] == "running" and s["attempts"] == n
                         or finished(s))
        assert state["status"] == "running", state
        os.kill(ingest_child(server), signal.SIGKILL)  # as the kernel's OOM killer would
        if start == 1:  # queued again and started once more
            state = wait_for(server, job_id, lambda s: s["attempts"] == 2 or finished(s))
    state = wait_for(server, job_id, finished)
    assert state["status"] == "failed" and state["attempts"] == 2, state
    assert "killed by SIGKILL" in state["error"] and "set aside" in state["error"]
    assert server.proc.poll() is None and httpx.get(server.url + "/healthz").status_code == 200
    assert (index / "quarantine" / job_id / "bomb.txt").is_file() and not (index / "uploads" / "bomb.txt").exists()

    after = upload(server, "after.md", b"# After\n\nThe pier lamp is lit at dusk.")
    assert wait_for(server, after, finished)["status"] == "succeeded"
    sources = {d["source"] for d in httpx.get(server.url + "/documents").json()["data"]}
    assert "after.md" in sources and "bomb.txt" not in sources
    time.sleep(1)
    assert job(server, job_id)["status"] == "failed" and job(server, job_id)["attempts"] == 2  # never run again


def test_a_job_whose_server_is_killed_twice_is_never_resumed(tmp_path: Path) -> None:
    index = build_index(tmp_path)
    with ragkit_server(index) as first:
        job_id = upload(first, "crash.txt", big_text(3))
        state = wait_for(first, job_id, lambda s: s["status"] == "running" or finished(s))
        assert state["status"] == "running" and state["attempts"] == 1, state
        first.kill9()  # the whole server dies during the job
    with ragkit_server(index) as second:  # the job is queued again and started a second time
        state = wait_for(second, job_id, lambda s: s["attempts"] == 2 or finished(s))
        assert state["status"] == "running" and state["attempts"] == 2, state
        second.kill9()
    with ragkit_server(index) as third:  # a third start would be the crash loop: the job is failed
        state = wait_for(third, job_id, finished, deadline=60)
        assert state["status"] == "failed" and state["attempts"] == 2, state
        assert "ended 2 times" in state["error"] and "killed" in state["error"]
        assert (index / "quarantine" / job_id / "crash.txt").is_file()
        time.sleep(1)
        assert job(third, job_id)["status"] == "failed"


def _tree_peak_rss_mb(pid: int) -> float:
    """The largest peak RSS (``VmHWM``) among ``pid`` and its descendants alive now."""
    peak, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            todo += _children(p)
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]) / 1024)
    return peak


def test_a_bomb_upload_fails_its_job_naming_the_limit_and_is_not_resumed_after_a_restart(tmp_path: Path) -> None:
    from ...unit.pipeline.office_files import docx_bomb

    index = build_index(tmp_path)
    bomb = docx_bomb(tmp_path / "bomb.docx", inflated_mb=300).read_bytes()  # under 1 MB, 300 MB of XML inflated
    docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    peak_mb = 0.0
    with ragkit_server(index) as first:
        r = httpx.post(first.url + "/documents", files={"files": ("bomb.docx", bomb, docx)},
                       headers={"X-Ragkit-Client": "test"}, timeout=120)
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        start = time.monotonic()
        with httpx.Client(base_url=first.url, timeout=30) as http:
            for _ in range(MAX_HEALTH_CHECKS):
                assert http.get("/healthz").status_code == 200  # a timeout here fails the test
                state = http.get(f"/jobs/{job_id}").json()
                peak_mb = max(peak_mb, _tree_peak_rss_mb(first.proc.pid))
                if finished(state) or time.monotonic() - start > HEALTH_DEADLINE:
                    break
                time.sleep(0.05)
        assert state["status"] == "failed" and state["attempts"] == 1, state
        assert state["error"].startswith("nothing of this job could be indexed: bomb.docx: zip container too large")
        assert "raise sources.limits.max_unzipped_mb in the pipeline YAML (now 256)" in state["error"]
        assert state["result"]["counts"]["skipped"] == 1
        assert peak_mb < 2048, f"peak RSS of the server and its processes: {peak_mb:.0f} MB"
        assert first.proc.poll() is None
    with ragkit_server(index) as second:  # a restart does not run the job again: no crash loop
        again = wait_for(second, job_id, lambda s: s["status"] != "failed", deadline=3)
        assert again["status"] == "failed" and again["attempts"] == 1, again
        assert httpx.get(second.url + "/healthz").status_code == 200 and second.proc.poll() is None
        documents = {d["source"]: d for d in httpx.get(second.url + "/documents").json()["data"]}
        assert documents.get("bomb.docx", {}).get("chunks", 0) == 0 and "alpha.md" in documents
