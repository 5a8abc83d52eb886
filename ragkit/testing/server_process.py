"""``ragkit_server()``: a real ``ragkit serve`` process on a free loopback port, for tests and
benchmarks. Started in its own process group so ``kill9()`` takes every uvicorn worker down
at once, as a crash would."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ragkit.errors import RagkitError
from ragkit.testing.servers_db import free_port

log = logging.getLogger(__name__)
STARTUP_DEADLINE = 120.0


@dataclass
class ServerProcess:
    url: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    @property
    def base_url(self) -> str:
        """What to give an OpenAI client as ``base_url``."""
        return self.url + "/v1"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill9(self) -> None:
        """SIGKILL the server and all its workers (no shutdown handlers run)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill9()


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=2) as resp:
            return bool(resp.status == 200 and json.load(resp).get("status") == "ready")
    except (urllib.error.URLError, OSError, ValueError):
        return False


@contextmanager
def ragkit_server(index: str | Path, *, workers: int = 1, provider: str = "local", args: Sequence[str] = (),
                  log_path: Path | None = None, env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    """Run ``ragkit serve --index INDEX`` on 127.0.0.1 and a free port until ready; stop it after."""
    port = free_port()
    log_path = Path(log_path) if log_path is not None else Path(index).parent / f"serve-{port}.log"
    cmd = [sys.executable, "-m", "ragkit.cli.main", "serve", "--index", str(index), "--host", "127.0.0.1",
           "--port", str(port), "--workers", str(workers), "--provider", provider, *args]
    with open(log_path, "ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, **(env or {})}, start_new_session=True)
    server = ServerProcess(f"http://127.0.0.1:{port}", proc, log_path)
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE
        while not _ready(server.url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RagkitError(f"`{' '.join(cmd)}` did not become ready (exit code {proc.poll()}); "
                                  f"its log ends with:\n{server.log()[-3000:]}")
            time.sleep(0.1)
        log.info("ragkit serve up at %s (pid %d)", server.url, proc.pid)
        yield server
    finally:
        server.stop()


__all__ = ["ServerProcess", "ragkit_server"]
