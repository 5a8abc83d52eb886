"""A full disk does not wedge a session. The index (and state.db in it) lives
on a small tmpfs; once it is full, a turn is answered 507 naming the cause (never 500, never a
path), an upload is 507 with nothing written, and as soon as space is freed the same session
answers again (its lease was released; no 429). The 507 keeps the connection open: the client's
next request on it is answered, not reset."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ragkit.testing.server_process import ragkit_server

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 32 MB tmpfs (needs root: `mount -t tmpfs`); skipped with the reason where it cannot be mounted."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("the full-disk test mounts a small tmpfs and there is no `mount` command here")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip("the full-disk test needs a small tmpfs and mounting is not permitted here "
                    f"(mount -t tmpfs: {done.stderr.strip() or done.returncode}); run it as root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path) -> Path:
    """Write a file until the disk is full; returns it (remove it to free the space)."""
    filler = disk / "filler.bin"
    block = b"\0" * (1 << 20)
    with open(filler, "wb", buffering=0) as f:
        for size in (len(block), 4096, 1):  # then the last partial megabyte, then the last page
            try:
                while True:
                    f.write(block[:size])
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    return filler


def local_port(response: httpx.Response) -> int | None:
    """The client-side port of the connection that carried ``response`` (None: it is closed)."""
    try:
        return int(response.extensions["network_stream"].get_extra_info("client_addr")[1])
    except OSError:
        return None


def test_a_session_survives_a_full_disk_and_answers_when_space_is_back(small_disk: Path) -> None:
    index = build_index(small_disk)
    with ragkit_server(index, args=["--session-wait", "5"]) as server:
        sid = httpx.post(server.url + "/sessions", json={"title": "full disk"}).json()["id"]
        ok = httpx.post(server.url + "/chat", json={"message": "When does the ferry sail?", "session_id": sid},
                        timeout=60)
        assert ok.status_code == 200 and "Tuesdays" in ok.json()["response"]

        filler = fill(small_disk)
        # a long question: storing it needs new pages, however much room the database's log keeps
        question = "When does the ferry sail? " + "Please answer about the ferry timetable. " * 4000
        with httpx.Client(base_url=server.url, timeout=120) as http:  # one client: one kept-alive connection
            full = http.post("/chat", json={"message": question, "session_id": sid})
            assert full.status_code == 507, full.text
            port = local_port(full)
            error = full.json()["error"]
            assert error["code"] == "insufficient_storage" and "disk is full" in error["message"]
            assert str(small_disk) not in error["message"] and "/" not in error["message"].replace("state.db", "")
            assert full.headers.get("connection", "").lower() != "close"
            up = http.post("/documents", json={"documents": [{"name": "big.md", "text": "tide " * 400_000}]})
            assert up.status_code == 507 and up.json()["error"]["code"] == "insufficient_storage", up.text
            assert port is not None and local_port(up) == port  # the same connection answered both
        assert not (index / "uploads" / "big.md").exists()

        filler.unlink()  # space is back: the same session answers at once, no 429
        again = httpx.post(server.url + "/chat", json={"message": "Who built the lighthouse?", "session_id": sid},
                           timeout=60)
        assert again.status_code == 200, again.text
        assert "Thomas Reid" in again.json()["response"]
        items = httpx.get(f"{server.url}/sessions/{sid}").json()["messages"]
        assert [i["content"] for i in items[::2]] == ["When does the ferry sail?", "Who built the lighthouse?"]
        assert os.statvfs(small_disk).f_bavail > 0
