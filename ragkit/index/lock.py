"""The index's single-writer lock, and what a reader can tell about the run holding it.

``index.lock`` is held (filelock) by the one process writing the index; ``index.pid`` names that
process while it runs. A run killed with SIGKILL leaves ``index.pid`` and a ``running`` row in the
catalog behind, but never a held lock, so "the lock is free" is what tells a stale run from a live one.
"""

from __future__ import annotations

from ragkit.index.layout import IndexLayout


def is_locked(layout: IndexLayout) -> bool:
    """Whether a process holds the index's write lock right now."""
    from filelock import FileLock, Timeout

    if not layout.lock.exists():
        return False
    probe = FileLock(str(layout.lock))
    try:
        probe.acquire(timeout=0)
    except Timeout:
        return True
    probe.release()
    return False


def running_pid(layout: IndexLayout) -> int | None:
    """The pid the current (or last, if it was killed) index run wrote, if any."""
    try:
        return int(layout.run_file.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def describe_holder(layout: IndexLayout) -> str:
    """``, pid 1234`` for messages about the running index run (empty when unknown)."""
    pid = running_pid(layout)
    return f", pid {pid}" if pid is not None else ""


__all__ = ["describe_holder", "is_locked", "running_pid"]
