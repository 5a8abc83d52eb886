"""Linear time, checked by how a reader's time grows with its input, not by a clock threshold.

An input eight times longer takes about eight times as long to read when reading is linear and
sixty-four times as long when it is quadratic, on any machine and at any load: the check compares
the two reads' times with the two inputs' lengths. Seconds would
depend on the machine: a reader well inside a fixed budget on one machine is outside it on a slower one.

The cyclic garbage collector is paused while a read is timed: a full collection walks every object
the test process holds, so late in a long test run it would time the suite rather than the reader.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

GROWTH = 8  # the large input has this many times the small one's repeats
SLACK = 3  # linear reading may take this many times the length ratio (caches, n log n); quadratic, about GROWTH


def _cpu_seconds(read: Callable[[str], object], text: str) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()  # this process's CPU time: other processes' load does not count
        read(text)
        return time.process_time() - start
    finally:
        if enabled:
            gc.enable()


def assert_linear(read: Callable[[str], object], make: Callable[[int], str], n: int) -> None:
    """Fail when ``read(make(n))`` takes far longer than ``read(make(n // GROWTH))`` for its length.

    ``make(k)`` builds the hostile input with ``k`` repeats of its pattern."""
    small, large = make(n // GROWTH), make(n)
    small_seconds = min(_cpu_seconds(read, small) for _ in range(3))
    times = len(large) / len(small)
    bound = SLACK * times * small_seconds + 0.05  # the 50 ms: reads too short to time
    large_seconds = _cpu_seconds(read, large)
    if large_seconds >= bound:  # once more: a single read can be slowed by the machine
        large_seconds = min(large_seconds, _cpu_seconds(read, large))
    assert large_seconds < bound, (
        f"{large[:40]!r}: {len(large):,} characters took {large_seconds:.3f} s and {len(small):,} took "
        f"{small_seconds:.3f} s, more than {SLACK} times longer than linear reading would take")
