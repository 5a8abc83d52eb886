"""Run pieces of work at once, each in its own thread: how the conformance suites check that a
store or cache may be used from several threads."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

#: how long to wait for the threads: a deadlock guard, not a performance threshold
DEADLOCK_GUARD_S = 300.0


def run_in_threads(work: Iterable[Callable[[], object]]) -> list[BaseException]:
    """Start one thread per callable, wait for all of them, and return what they raised (in the
    order they raised it). Threads still running after :data:`DEADLOCK_GUARD_S` fail the check."""
    errors: list[BaseException] = []

    def guarded(call: Callable[[], object]) -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(call,)) for call in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=DEADLOCK_GUARD_S)
    assert not any(t.is_alive() for t in threads), "threads did not finish (deadlock?)"
    return errors


__all__ = ["DEADLOCK_GUARD_S", "run_in_threads"]
