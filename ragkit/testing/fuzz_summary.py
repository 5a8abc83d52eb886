"""What a loader fuzz run found, accumulated batch by batch and written as one JSON summary.

:class:`FuzzTally` gathers each index run's outcome (files indexed, skipped with their reasons,
runs aborted, the time each file took); :meth:`FuzzTally.summary` turns it into the figures the
harness writes after every batch, so a run stopped half-way still has its figures: files per
format and mutation with their outcomes, the skip reasons grouped, the slowest files, the files
past the time limit (reported as skipped or not), peak RSS (the harness's and the loader
processes'), wall and CPU time, the load average
and the machine (CPU model, commit).
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: a file taking longer than this is listed as slow
SLOW_SECONDS = 10.0
#: how many of the slowest files the summary lists
SLOWEST = 20
#: a file may run this much past the time limit before it counts as not stopped by it (the
#: watchdog's sampling and the child's restart)
TIMEOUT_GRACE_SECONDS = 15.0
#: the words of a skip reason for the per-file time limit
TIMEOUT_KEY = "sources.limits.file_timeout_s"


@dataclass(frozen=True)
class Case:
    name: str
    format: str
    mutation: str


@dataclass
class FuzzTally:
    """Every file's outcome over the batches of one run."""

    file_timeout_s: float
    cases: dict[str, Case] = field(default_factory=dict)
    added: set[str] = field(default_factory=set)
    skipped: dict[str, str] = field(default_factory=dict)
    aborted: list[dict[str, str]] = field(default_factory=list)
    times: dict[str, float] = field(default_factory=dict)
    batches: int = 0

    def expect(self, cases: Iterable[Case]) -> None:
        self.cases.update((c.name, c) for c in cases)

    def outcome(self, name: str) -> str:
        if name in self.added:
            return "indexed"
        if name in self.skipped:
            return "skipped"
        if any(a["source"] == name for a in self.aborted):
            return "aborted"
        return "unaccounted"

    def summary(self) -> dict[str, Any]:
        from ragkit.index.report import group_skips

        cases = self.cases
        aborted = {a["source"] for a in self.aborted}
        slowest = sorted(self.times.items(), key=lambda kv: -kv[1])[:SLOWEST]
        timed_out = sorted(s for s, r in self.skipped.items() if TIMEOUT_KEY in r)
        return {
            "files": len(cases),
            "batches": self.batches,
            "formats": _outcomes(cases, "format", self._outcomes()),
            "mutations": _outcomes(cases, "mutation", self._outcomes()),
            "indexed": len(self.added),
            "skipped": len(self.skipped),
            "skipped_without_reason": sorted(s for s, r in self.skipped.items() if not r.strip()),
            "skipped_by_reason": [{"reason": g.reason[:240], "count": g.count, "examples": list(g.examples)}
                                  for g in group_skips(sorted(self.skipped.items()), examples=2)],
            "aborted_runs": self.aborted,
            "unaccounted": sorted(set(cases) - self.added - set(self.skipped) - aborted),
            "controls_not_indexed": sorted(n for n, c in cases.items() if c.mutation == "none" and n not in self.added),
            "max_seconds_per_file": round(slowest[0][1], 3) if slowest else 0.0,
            "slowest": [_timed(s, t, cases.get(s), self.outcome(s)) for s, t in slowest],
            "slow_files": sum(1 for t in self.times.values() if t > SLOW_SECONDS),
            "file_timeout_s": self.file_timeout_s,
            "timed_out_and_reported": timed_out,
            "unreported_timeouts": sorted(
                s for s, t in self.times.items()
                if t > self.file_timeout_s + TIMEOUT_GRACE_SECONDS and s not in set(timed_out)),
        }

    def _outcomes(self) -> dict[str, str]:
        return {name: self.outcome(name) for name in self.cases}


def _outcomes(cases: Mapping[str, Case], attr: str, outcome: Mapping[str, str]) -> dict[str, dict[str, int]]:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for name, case in cases.items():
        table[getattr(case, attr)]["files"] += 1
        table[getattr(case, attr)][outcome[name]] += 1
    return {key: dict(sorted(counts.items())) for key, counts in sorted(table.items())}


def _timed(source: str, seconds: float, case: Case | None, outcome: str) -> dict[str, Any]:
    return {"source": source, "seconds": round(seconds, 3), "format": case.format if case else "?",
            "mutation": case.mutation if case else "?", "outcome": outcome}


class Sampler:
    """Every ``interval`` seconds while the run goes: the 1-minute load average, and the peak RSS
    (``VmHWM``) of each child process (the loader process: ``getrusage``'s figure for children
    counts the parent's RSS at the fork, so it is read from ``/proc`` instead; Linux)."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self.loads: list[float] = [os.getloadavg()[0]]
        self.child_peak_mb = 0.0
        self._done = threading.Event()

    def __enter__(self) -> Sampler:
        threading.Thread(target=self._sample, name="fuzz-sampler", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()

    def _sample(self) -> None:
        while not self._done.wait(self.interval):
            self.loads.append(os.getloadavg()[0])
            for pid in _children():
                self.child_peak_mb = max(self.child_peak_mb, _peak_rss_mb(pid))

    def load_figures(self) -> dict[str, float]:
        s = self.loads
        return {"start": round(s[0], 2), "now": round(s[-1], 2), "mean": round(sum(s) / len(s), 2),
                "max": round(max(s), 2), "samples": len(s)}


def _children() -> list[int]:
    try:
        tasks = list(Path("/proc/self/task").iterdir())
    except OSError:
        return []
    pids = []
    for task in tasks:
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return pids


def _peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def resources(started: float, sampler: Sampler) -> dict[str, Any]:
    """Wall and CPU time since ``started`` (``time.monotonic``), of this process and of the
    loader processes that have ended; peak RSS of this process and of the loader processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    scale = 1024 if sys.platform != "darwin" else 1  # ru_maxrss: KiB on Linux, bytes on macOS
    return {
        "wall_seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": {"harness": round(own.ru_utime + own.ru_stime, 1),
                        "loader_processes": round(kids.ru_utime + kids.ru_stime, 1)},
        "peak_rss_mb": {"harness": round(own.ru_maxrss * scale / 2**20, 1),
                        "loader_process": round(sampler.child_peak_mb, 1)},
    }


def machine() -> dict[str, Any]:
    """The CPU model and count, Python, and the commit of the ragkit that ran."""
    return {"cpu_model": _cpu_model(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "commit": _commit()}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _commit() -> str:
    import ragkit

    root = Path(ragkit.__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,  # noqa: S607
                             text=True, timeout=10, check=True)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],  # noqa: S607
                               capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() + (" (modified)" if dirty.stdout.strip() else "")


__all__ = ["Case", "FuzzTally", "SLOW_SECONDS", "Sampler", "machine", "resources"]
