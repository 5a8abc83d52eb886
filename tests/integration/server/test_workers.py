"""`ragkit serve --workers N` on Linux: each worker listens on its own SO_REUSEPORT socket, so the
kernel spreads a burst of new connections over the workers; the port stays the server's own."""

from __future__ import annotations

import concurrent.futures as cf
import http.client
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from ragkit.server.workers import balanced
from ragkit.testing.server_process import ragkit_server

pytestmark = [pytest.mark.slow, pytest.mark.network_local,
              pytest.mark.skipif(not balanced(), reason="SO_REUSEPORT balancing is Linux-only")]


def test_a_burst_of_connections_reaches_every_worker(index_dir: Path) -> None:
    with ragkit_server(index_dir, workers=2, provider="echo") as server:
        host, port = server.url.removeprefix("http://").split(":")

        def burst() -> Counter[int]:
            """20 connections opened at once (queued by the kernel before any worker accepts), then
            one question on each."""
            conns = [http.client.HTTPConnection(host, int(port), timeout=60) for _ in range(20)]
            for c in conns:
                c.connect()

            def ask(n: int) -> str:
                conns[n].request("POST", "/chat", json.dumps({"message": f"question {n}"}),
                                 {"Content-Type": "application/json"})
                return json.loads(conns[n].getresponse().read())["trace"]["id"]

            with cf.ThreadPoolExecutor(20) as pool:
                ids = list(pool.map(ask, range(20)))
            for c in conns:
                c.close()
            return Counter(httpx.get(f"{server.url}/traces/{i}").json()["worker"] for i in ids)

        deadline = time.monotonic() + 60
        while len(burst()) < 2 and time.monotonic() < deadline:
            pass  # /readyz answered by one worker says nothing of the other: wait until both serve
        served = burst()
        # every connection is answered (a socket bound but not served would hang its share), and the
        # kernel's hash gives fewer than 3 of 20 to one of two workers with a chance of 0.04%
        assert len(served) == 2 and min(served.values()) >= 3, served
        assert server.proc.pid not in served

        second = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "serve", "--index", str(index_dir),
                                 "--port", port, "--workers", "2", "--provider", "echo"],
                                capture_output=True, text=True, timeout=120)
        assert second.returncode != 0 and f"cannot listen on 127.0.0.1:{port}" in second.stderr
        assert httpx.get(server.url + "/healthz").status_code == 200
