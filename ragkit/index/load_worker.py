"""The loader process: files of the parsed formats (PDF, Office, EPUB, HTML, mail, ...) are loaded
in a child process, one at a time, so a file that hangs its parser or makes it allocate without
end costs that file, never the run or the server.

The child (``python -m ragkit.index.load_worker``) runs :func:`~ragkit.index.loading.load_file`
under an address-space limit (``RLIMIT_AS``: its size at rest plus ``limits.max_memory_mb``);
the parent waits at most ``limits.file_timeout_s`` per file, then kills it. A killed or dead child
is started again for the next file. Requests and replies are length-prefixed pickles on the
child's stdin/stdout (the child's own stdout goes to stderr, so nothing a library prints can mix
in). It starts on the first file that needs it, and ends when its parent closes it or exits.
"""

from __future__ import annotations

import logging
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import IO, Any

from ragkit.config import PipelineSpec
from ragkit.errors import LoaderError
from ragkit.loaders.limits import MB, over_limit
from ragkit.types import Document

log = logging.getLogger(__name__)
_HEADER = struct.Struct("!Q")
#: seconds the child may take to start (import ragkit) before it counts as broken
_START_TIMEOUT = 120.0


class LoaderProcess:
    """A child process loading files for one pipeline (see the module's docstring).

    Files are submitted ahead (``submit``) and their results taken in the same order
    (``result``), so the child loads the next file while the caller splits the last one; the time
    limit runs for each file from when the child starts it (the previous result's arrival)."""

    def __init__(self, spec: PipelineSpec) -> None:
        self.spec = spec
        self.limits = spec.sources.limits.load_limits()
        self._proc: subprocess.Popen[bytes] | None = None
        #: submitted, not yet answered: (loader name, path, source), oldest first
        self._pending: deque[tuple[str, Path, str]] = deque()
        #: when the child started on the oldest pending file
        self._since = 0.0

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    def load(self, name: str, path: Path, source: str) -> tuple[list[Document], list[str]]:
        """``submit`` then ``result``: one file, on its own."""
        self.submit(name, path, source)
        return self.result()

    def submit(self, name: str, path: Path, source: str) -> None:
        """Send ``path`` to the child to load after the files already submitted."""
        proc = self._started()
        if not self._pending:
            self._since = time.monotonic()
        self._pending.append((name, path, source))
        _send(proc, ("load", name, str(path), source))

    def result(self) -> tuple[list[Document], list[str]]:
        """The oldest submitted file's documents and warnings; :class:`LoaderError` when it fails
        in the child, takes longer than the time limit or takes the child down (the files
        submitted after it go to a new child)."""
        _, path, _ = self._pending[0]
        proc = self._proc or self._started()
        try:
            reply = self._reply(proc, self._since + self.limits.file_timeout_s - time.monotonic(), path)
        except LoaderError:
            self._pending.popleft()
            self._resubmit()
            raise
        self._pending.popleft()
        self._since = time.monotonic()
        if reply[0] == "ok":
            return reply[1], reply[2]
        if reply[0] == "memory":  # the child's heap may be half-built: the rest go to a new one
            self._resubmit()
        raise LoaderError(reply[1], path=str(path), reason=reply[2])

    def close(self) -> None:
        self._pending.clear()
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()  # the child ends at the end of its input
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def _resubmit(self) -> None:
        """The files still waiting, sent to a new child (the last one was killed or died)."""
        self._kill()
        if self._pending:
            self._started()

    # ------------------------------------------------------------------ parent side
    def _started(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._proc = None
        import ragkit

        env = dict(os.environ)
        package_root = str(Path(ragkit.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        proc = subprocess.Popen(  # noqa: S603 - this interpreter, a fixed module
            [sys.executable, "-m", "ragkit.index.load_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, bufsize=0,
        )
        self._proc = proc
        _send(proc, self.spec)
        self._reply(proc, _START_TIMEOUT, None)
        self._since = time.monotonic()
        for name, path, source in self._pending:  # what the last child had not answered
            _send(proc, ("load", name, str(path), source))
        return proc

    def _reply(self, proc: subprocess.Popen[bytes], timeout: float, path: Path | None) -> Any:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], max(timeout, 0.0))
        if not ready:
            self._kill()
            if path is None:
                raise LoaderError(f"the loader process did not start within {timeout:g} s", reason="loader process")
            limit = self.limits.file_timeout_s
            raise over_limit(path, f"loading took longer than {limit:g} s", "file_timeout_s", limit, "s")
        try:
            return _recv(proc.stdout)
        except (EOFError, pickle.UnpicklingError, OSError):
            code = self._kill()
            where = path if path is not None else "the loader process"
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            raise over_limit(where, f"the loader process ended while reading it ({how}; most likely it "
                             "needed more memory than allowed)", "max_memory_mb", self.limits.max_memory_mb,
                             "MB") from None

    def _kill(self) -> int | None:
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        proc.kill()
        return proc.wait()


def _send(proc: subprocess.Popen[bytes], message: Any) -> None:
    assert proc.stdin is not None
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        proc.stdin.write(_HEADER.pack(len(data)) + data)
    except (BrokenPipeError, OSError):
        pass  # the child is gone: reading its reply says how


def _recv(stream: IO[bytes]) -> Any:
    (size,) = _HEADER.unpack(_read_exact(stream, _HEADER.size))
    return pickle.loads(_read_exact(stream, size))  # noqa: S301 - our own child's reply


def _read_exact(stream: IO[bytes], n: int) -> bytes:
    parts: list[bytes] = []
    while n:
        chunk = stream.read(n)
        if not chunk:
            raise EOFError
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


# ---------------------------------------------------------------------- child side
def _serve() -> None:
    from ragkit.index.loading import PipelineLoaders, load_file, out_of_memory

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends this process
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what libraries print goes to stderr, never into the replies
    spec: PipelineSpec = _recv(requests)
    loaders = PipelineLoaders(spec)
    _limit_memory(loaders.limits.max_memory_mb)
    _reply_to(replies, ("ready",))
    while True:
        try:
            _, name, where, source = _recv(requests)
        except EOFError:
            return
        path = Path(where)
        try:
            docs, warnings = load_file(loaders, name, path, source)
            reply: tuple[Any, ...] = ("ok", docs, warnings)
        except LoaderError as exc:
            reply = ("error", str(exc), exc.reason)
        except MemoryError:
            exc = out_of_memory(path, loaders.limits)
            reply = ("memory", str(exc), exc.reason)
        except Exception as exc:  # noqa: BLE001 - building the loader failed: this file's error
            reply = ("error", f"{path}: {type(exc).__name__}: {exc}", f"loader failed: {type(exc).__name__}")
        _reply_to(replies, reply)


def _reply_to(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _limit_memory(max_mb: float) -> None:
    """Cap this process's address space at its size now plus ``max_mb`` (Linux; elsewhere the
    time limit alone holds)."""
    try:
        import resource

        with open("/proc/self/statm") as fh:
            at_rest = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        cap = at_rest + int(max_mb * MB)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    except (ImportError, OSError, ValueError) as exc:
        log.warning("the loader process runs without a memory ceiling (%s)", exc)


if __name__ == "__main__":
    _serve()


__all__ = ["LoaderProcess"]
