"""Ingest jobs run in a child process, never in a server process.

- The server's event loop and its other threads never wait for a job's CPU work: in a thread of
  the server, the job held the interpreter's lock through long native calls (tokenizers, index
  builds), and ``/healthz`` went unanswered for seconds during a large upload.
- A document that exhausts memory or crashes a native parser takes the child down, not the
  server: the job learns how the child ended (``IngestDied``, naming the signal), and the job
  queue retries it once, then fails it (``jobs.py``).

``IngestWorker`` starts the child (spawned: no state of the server's threads is copied) on the
first job, keeps it for the next ones (its embedding model stays loaded), and stops it after
``IDLE_SECONDS`` without a job and when the server stops. The child writes the index exactly as
a job in the server did (``Library.ingest``: the pipeline's single-writer lock, the
``generation`` file every worker watches); it ends by itself when the server's end of its pipe
closes.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ragkit.errors import IndexLockedError, RagkitError

log = logging.getLogger(__name__)
IDLE_SECONDS = 120.0
POLL_SECONDS = 0.5


class IngestDied(RagkitError):
    """The child process running a job ended before answering (killed, out of memory, crashed)."""


class IngestWorker:
    def __init__(self, index_dir: Path, *, pipeline: str | None, uploads_dir: Path) -> None:
        self.args = (str(index_dir), pipeline, str(uploads_dir))
        self._proc: Any = None
        self._conn: Any = None
        self._last_use = time.monotonic()
        self._lock = threading.Lock()

    def ingest(self) -> dict[str, Any]:
        """Index the upload area in the child; the report as ``Library.ingest`` returns it. Raises
        ``IndexLockedError`` (another writer), ``RagkitError`` (the run failed, said why) or
        ``IngestDied`` (the child ended mid-job)."""
        with self._lock:
            self._start()
            try:
                self._conn.send("ingest")
                kind, value = self._answer()
            finally:
                self._last_use = time.monotonic()
        if kind == "ok":
            return value  # type: ignore[no-any-return]
        if kind == "locked":
            raise IndexLockedError(value)
        raise RagkitError(value)

    def _start(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            return
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=serve, args=(child, *self.args), name="ragkit-ingest", daemon=True)
        self._proc.start()
        child.close()
        log.info("ingest process %d started", self._proc.pid)

    def _answer(self) -> tuple[str, Any]:
        while True:
            try:
                if self._conn.poll(POLL_SECONDS):
                    return self._conn.recv()  # type: ignore[no-any-return]
            except (EOFError, OSError):
                pass  # the child closed its end: it is ending
            else:
                if self._proc.is_alive():
                    continue
            self._proc.join(5)
            reason = ended_how(self._proc.exitcode)
            self._proc = self._conn = None
            raise IngestDied(f"the ingest process was {reason}" if reason.startswith("killed") else
                             f"the ingest process ended with {reason}")

    def close_if_idle(self, idle: float = IDLE_SECONDS) -> None:
        if self._proc is not None and time.monotonic() - self._last_use > idle and self._lock.acquire(blocking=False):
            try:
                self.close()
            finally:
                self._lock.release()

    def close(self) -> None:
        """Stop the child (a job it is running ends where its last commit left the index)."""
        proc, conn, self._proc, self._conn = self._proc, self._conn, None, None
        if proc is None:
            return
        try:
            conn.send(None)
        except OSError:
            pass
        proc.join(2)
        if proc.is_alive():
            proc.terminate()
            proc.join(5)
        conn.close()


def ended_how(exitcode: int | None) -> str:
    """A child's exit code in words (``-9`` -> killed by SIGKILL)."""
    if exitcode is None:
        return "it did not exit"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = ": out of memory?" if exitcode == -signal.SIGKILL else ""
        return f"killed by {name}{hint}"
    return f"exit code {exitcode}"


def serve(conn: Any, index_dir: str, pipeline: str | None, uploads_dir: str) -> None:
    """The child: answer each ``"ingest"`` with ``(kind, value)`` until ``None`` or a closed pipe."""
    from ragkit.server.library import Library

    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     [ingest] %(message)s")
    library = Library(Path(index_dir), pipeline=pipeline, uploads_dir=Path(uploads_dir))
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            if message is None:
                return
            conn.send(_one(library))
    finally:
        library.close()


def _one(library: Any) -> tuple[str, Any]:
    try:
        return "ok", library.ingest()
    except IndexLockedError as exc:
        return "locked", str(exc)
    except RagkitError as exc:
        return "error", str(exc)
    except Exception as exc:  # noqa: BLE001 - reported in the job, logged here
        log.exception("the ingest job failed")
        return "error", f"{type(exc).__name__}: {exc}"


__all__ = ["IngestDied", "IngestWorker", "ended_how"]
