"""The loader fuzz harness: mutated documents of every format, indexed through the real pipeline.

``write_corpus`` builds a seeded folder of hostile files (``ragkit.testing.fuzz_seeds`` mutated by
``ragkit.testing.fuzz_mutations``); ``run`` indexes it with ``IndexingPipeline`` (the hashing
embedder, an in-memory store: fast and offline) and returns a summary: files per format and
mutation, files indexed, files skipped by reason, runs aborted by an exception (the file found in
its traceback is set aside and the run resumed, so one bad file does not hide the others), the
slowest files and peak RSS. A watchdog samples which file the pipeline is preparing: a file that
takes longer than ``hang_seconds`` ends the process with the summary written (a hang is reported,
never silent). From the command line::

    python -m ragkit.testing.fuzz_loaders --files 10000 --seed 7 --out fuzz-summary.json

runs under an address-space limit (``--memory-mb``), so a decompression bomb that gets through
fails with ``MemoryError`` instead of taking the machine down.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import resource
import shutil
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.testing.fuzz_mutations import MUTATIONS
from ragkit.testing.fuzz_seeds import build_seeds

log = logging.getLogger(__name__)
#: a file taking longer than this is listed as slow
SLOW_SECONDS = 10.0
#: the watchdog's sampling interval
SAMPLE_SECONDS = 0.02
#: aborted runs after which the harness stops resuming
MAX_ABORTS = 500


@dataclass(frozen=True)
class Case:
    name: str
    format: str
    mutation: str


def write_corpus(folder: Path, files: int, seed: int, *, bomb_mb: int = 4) -> list[Case]:
    """``files`` mutated documents in ``folder``, every format and mutation in turn, seeded."""
    seeds = build_seeds()
    rng = random.Random(seed)
    formats, mutations = sorted(seeds), sorted(MUTATIONS)
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    for i in range(files):
        ext = formats[i % len(formats)]
        mutated = MUTATIONS[mutations[(i // len(formats)) % len(mutations)]](ext, seeds[ext], rng, seeds, bomb_mb)
        name = f"f{i:05d}-{mutated.mutation}{mutated.extension}"
        (folder / name).write_bytes(mutated.data)
        cases.append(Case(name, ext, mutated.mutation))
    return cases


@dataclass
class Watchdog:
    """Samples which source the pipeline's threads are preparing (a frame's ``unit`` local), and
    times each one; ends the process when one takes longer than ``hang_seconds``."""

    hang_seconds: float
    on_hang: Any = None
    times: dict[str, float] = field(default_factory=dict)
    _current: str | None = None
    _since: float = 0.0
    _done: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> Watchdog:
        threading.Thread(target=self._watch, name="fuzz-watchdog", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._note(None, time.monotonic())

    def _watch(self) -> None:
        while not self._done.wait(SAMPLE_SECONDS):
            now = time.monotonic()
            source = _preparing()
            if source != self._current:
                self._note(source, now)
            elif source is not None and now - self._since > self.hang_seconds and self.on_hang is not None:
                self.on_hang(source, now - self._since)

    def _note(self, source: str | None, now: float) -> None:
        if self._current is not None:
            self.times[self._current] = max(self.times.get(self._current, 0.0), now - self._since)
        self._current, self._since = source, now


def _preparing() -> str | None:
    from ragkit.index.prepare import Unit

    for frame in list(sys._current_frames().values()):
        f = frame
        while f is not None:
            unit = f.f_locals.get("unit") if "unit" in f.f_code.co_varnames else None
            if isinstance(unit, Unit):
                return unit.source
            f = f.f_back
    return None


def run(folder: Path, workdir: Path, cases: Sequence[Case], *, hang_seconds: float = 120.0,
        on_hang: Any = None) -> dict[str, Any]:
    """Index ``folder`` (holding ``cases``) through ``IndexingPipeline``; the summary of what happened."""
    from ragkit.config import parse_pipeline
    from ragkit.index.writer import IndexingPipeline

    spec = parse_pipeline({
        "index": str(workdir / "index"),
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 800, "chunk_overlap": 0},
        "embedder": {"type": "hashing", "dimension": 32},
        "store": {"type": "memory"},
        "retriever": {"type": "dense"},
    }, origin="fuzz")
    aside = workdir / "aborted"
    aside.mkdir(parents=True, exist_ok=True)
    added: set[str] = set()
    skipped: dict[str, str] = {}
    aborted: list[dict[str, str]] = []
    started = time.monotonic()
    with Watchdog(hang_seconds, on_hang) as dog:
        while True:
            pipe = IndexingPipeline(spec, flush_chunks=64)  # small batches: an abort redoes little
            try:
                report = pipe.index_paths([folder], prune=True)
            except BaseException as exc:  # noqa: BLE001 - every way a run can end is a finding
                if isinstance(exc, KeyboardInterrupt):
                    raise
                _collect(pipe.report, added, skipped)
                culprit = _culprit(exc)
                aborted.append({"source": culprit or "?", "error": f"{type(exc).__name__}: {exc}"[:300]})
                log.warning("run aborted by %s (%s)", culprit, type(exc).__name__)
                if culprit is None or len(aborted) >= MAX_ABORTS:
                    break
                shutil.move(str(folder / culprit), aside / culprit)
                continue
            _collect(report, added, skipped)
            break
    return _summary(cases, added, skipped, aborted, dog.times, time.monotonic() - started)


def _collect(report: Any, added: set[str], skipped: dict[str, str]) -> None:
    if report is None:
        return
    added.update(report.added)
    added.update(report.updated)
    skipped.update(dict(report.skipped))


def _culprit(exc: BaseException) -> str | None:
    """The source whose preparation raised ``exc`` (a ``unit`` local in its traceback)."""
    from ragkit.index.prepare import Unit

    tb = exc.__traceback__
    while tb is not None:
        unit = tb.tb_frame.f_locals.get("unit")
        if isinstance(unit, Unit):
            return unit.source
        tb = tb.tb_next
    return None


def _summary(cases: Sequence[Case], added: set[str], skipped: dict[str, str], aborted: list[dict[str, str]],
             times: dict[str, float], seconds: float) -> dict[str, Any]:
    from ragkit.index.report import group_skips

    by_name = {c.name: c for c in cases}
    gone = {a["source"] for a in aborted}
    unaccounted = sorted(set(by_name) - added - set(skipped) - gone)
    slowest = sorted(times.items(), key=lambda kv: -kv[1])[:10]
    groups = group_skips(sorted(skipped.items()), examples=2)
    return {
        "files": len(cases),
        "formats": dict(sorted(Counter(c.format for c in cases).items())),
        "mutations": dict(sorted(Counter(c.mutation for c in cases).items())),
        "indexed": len(added),
        "skipped": len(skipped),
        "skipped_without_reason": sorted(s for s, r in skipped.items() if not r.strip()),
        "skipped_by_reason": [{"reason": g.reason[:200], "count": g.count, "examples": list(g.examples)}
                              for g in groups],
        "aborted_runs": aborted,
        "unaccounted": unaccounted,
        "controls_not_indexed": sorted(n for n, c in by_name.items() if c.mutation == "none" and n not in added),
        "max_seconds_per_file": round(slowest[0][1], 3) if slowest else 0.0,
        "slowest": [{"source": s, "seconds": round(t, 3), "format": by_name[s].format if s in by_name else "?",
                     "mutation": by_name[s].mutation if s in by_name else "?"} for s, t in slowest],
        "over_time_limit": sorted(s for s, t in times.items() if t > SLOW_SECONDS),
        "peak_rss_mb": _peak_rss_mb(),
        "seconds": round(seconds, 1),
    }


def _peak_rss_mb() -> dict[str, float]:
    scale = 1024 if sys.platform != "darwin" else 1  # ru_maxrss: KiB on Linux, bytes on macOS
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale / 2**20
    return {"process": round(own, 1), "children": round(children, 1)}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    if args.memory_mb:
        limit = args.memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    work = Path(args.workdir) if args.workdir else Path(os.environ.get("TMPDIR", "/tmp")) / f"ragkit-fuzz-{args.seed}"
    shutil.rmtree(work, ignore_errors=True)
    cases = write_corpus(work / "docs", args.files, args.seed, bomb_mb=args.bomb_mb)
    out = Path(args.out)

    def hung(source: str, seconds: float) -> None:
        summary = _summary(cases, set(), {}, [], {source: seconds}, 0.0)
        summary["hung"] = {"source": source, "seconds": round(seconds, 1)}
        out.write_text(json.dumps(summary, indent=2), encoding="utf-8")
        print(f"hang: {source} took over {seconds:.0f} s; summary in {out}", file=sys.stderr)
        os._exit(3)

    summary = run(work / "docs", work, cases, hang_seconds=args.hang_seconds, on_hang=hung)
    summary["seed"] = args.seed
    out.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps({k: summary[k] for k in ("files", "indexed", "skipped", "max_seconds_per_file",
                                              "peak_rss_mb", "seconds")}))
    print(f"aborted runs: {len(summary['aborted_runs'])}; unaccounted files: {len(summary['unaccounted'])}; "
          f"summary in {out}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if summary["aborted_runs"] or summary["unaccounted"] or summary["skipped_without_reason"] else 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ragkit.testing.fuzz_loaders",
                                description="Index mutated documents of every format and report what happened.")
    p.add_argument("--files", type=int, default=1000, help="how many mutated files (default 1000)")
    p.add_argument("--seed", type=int, default=7, help="the random seed (default 7)")
    p.add_argument("--out", default="fuzz-summary.json", help="where the JSON summary goes")
    p.add_argument("--workdir", help="folder for the files and the index (default: a temporary folder)")
    p.add_argument("--bomb-mb", type=int, default=50, help="inflated size of zip bomb members in MB (default 50)")
    p.add_argument("--hang-seconds", type=float, default=420.0,
                   help="a file taking longer is a hang (default 420: past the pipeline's own per-file time limit)")
    p.add_argument("--memory-mb", type=int, default=4096,
                   help="address-space limit of the run in MB (default 4096; 0: none)")
    p.add_argument("--keep", action="store_true", help="keep the files and the index")
    return p


if __name__ == "__main__":
    sys.exit(main())
