"""The loader fuzz harness: mutated documents of every format, indexed through the real pipeline.

``write_corpus`` builds a seeded folder of hostile files (``ragkit.testing.fuzz_seeds`` mutated by
``ragkit.testing.fuzz_mutations``); ``run`` indexes it with ``IndexingPipeline`` (the hashing
embedder, an in-memory store: fast and offline) and returns a summary (``fuzz_summary.py``): files
per format and mutation with their outcomes, files skipped by reason, runs aborted by an exception
(the file found in its traceback is set aside and the run resumed, so one bad file does not hide
the others), the slowest files, the files past the time limit and peak RSS. A watchdog samples
which file the pipeline is preparing: a file that takes longer than ``hang_seconds`` ends the
process with the summary written (a hang is reported, never silent). From the command line::

    python -m ragkit.testing.fuzz_loaders --files 10000 --seed 7 --out fuzz-summary.json

indexes the files in batches (``--batch``: each a fresh folder, index and loader process, so a
long run costs the same per file as a short one), rewrites the summary after every batch and logs
the progress with the rate and the time left. It runs under an address-space limit
(``--memory-mb``), so a decompression bomb that gets through fails with ``MemoryError`` instead
of taking the machine down.
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.testing.fuzz_mutations import MUTATIONS
from ragkit.testing.fuzz_seeds import build_seeds
from ragkit.testing.fuzz_summary import Case, FuzzTally, Sampler, machine, resources

log = logging.getLogger(__name__)
#: the watchdog's sampling interval
SAMPLE_SECONDS = 0.02
#: aborted runs after which the harness stops resuming
MAX_ABORTS = 500
#: files per index run in the long form (each batch a fresh folder, index and loader process)
BATCH_FILES = 250


def write_corpus(folder: Path, files: int, seed: int, *, bomb_mb: int = 4, start: int = 0) -> list[Case]:
    """Files ``start`` to ``start + files`` of the seeded corpus in ``folder``: every format and
    mutation in turn, each file from its own generator (a batch is the same whatever came before).
    Zip bombs inflate to a quarter, half, once or twice ``bomb_mb``."""
    seeds = build_seeds()
    formats, mutations = sorted(seeds), sorted(MUTATIONS)
    sizes = sorted({max(1, bomb_mb // 4), max(1, bomb_mb // 2), bomb_mb, 2 * bomb_mb})
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    for i in range(start, start + files):
        rng = random.Random(seed * 1_000_003 + i)
        ext = formats[i % len(formats)]
        mutated = MUTATIONS[mutations[(i // len(formats)) % len(mutations)]](ext, seeds[ext], rng, seeds,
                                                                              rng.choice(sizes))
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


def fuzz_spec(index: Path, *, max_unzipped_mb: float | None = None, file_timeout_s: float | None = None) -> Any:
    """The harness's pipeline: the hashing embedder and the in-memory store (fast, offline), the
    default limits unless given."""
    from ragkit.config import parse_pipeline

    limits = {k: v for k, v in (("max_unzipped_mb", max_unzipped_mb), ("file_timeout_s", file_timeout_s))
              if v is not None}
    return parse_pipeline({
        "index": str(index),
        "sources": {"limits": limits},
        "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 800, "chunk_overlap": 0},
        "embedder": {"type": "hashing", "dimension": 32},
        "store": {"type": "memory"},
        "retriever": {"type": "dense"},
    }, origin="fuzz")


def run(folder: Path, workdir: Path, cases: Sequence[Case], *, hang_seconds: float = 120.0,
        on_hang: Any = None) -> dict[str, Any]:
    """Index ``folder`` (holding ``cases``) in one run; the summary of what happened."""
    spec = fuzz_spec(workdir / "index")
    tally = FuzzTally(spec.sources.limits.file_timeout_s)
    tally.expect(cases)
    index_batch(spec, folder, workdir / "aborted", tally, hang_seconds=hang_seconds, on_hang=on_hang)
    return tally.summary()


def index_batch(spec: Any, folder: Path, aside: Path, tally: FuzzTally, *, hang_seconds: float,
                on_hang: Any = None) -> None:
    """Index ``folder`` through ``IndexingPipeline`` into ``tally``: a run aborted by an exception
    sets aside the file found in its traceback and resumes, so one bad file does not hide the others."""
    from ragkit.index.writer import IndexingPipeline

    aside.mkdir(parents=True, exist_ok=True)
    with Watchdog(hang_seconds, on_hang) as dog:
        while True:
            pipe = IndexingPipeline(spec, flush_chunks=512)  # an abort redoes little; the store is saved seldom
            try:
                report = pipe.index_paths([folder], prune=True)
            except BaseException as exc:  # noqa: BLE001 - every way a run can end is a finding
                if isinstance(exc, KeyboardInterrupt):
                    raise
                _collect(pipe.report, tally)
                culprit = _culprit(exc)
                tally.aborted.append({"source": culprit or "?", "error": f"{type(exc).__name__}: {exc}"[:300]})
                log.warning("run aborted by %s (%s)", culprit, type(exc).__name__)
                if culprit is None or len(tally.aborted) >= MAX_ABORTS:
                    break
                shutil.move(str(folder / culprit), aside / culprit)
                continue
            _collect(report, tally)
            break
    for source, seconds in dog.times.items():
        tally.times[source] = max(tally.times.get(source, 0.0), seconds)
    tally.batches += 1


def _collect(report: Any, tally: FuzzTally) -> None:
    if report is None:
        return
    tally.added.update(report.added)
    tally.added.update(report.updated)
    tally.skipped.update(dict(report.skipped))


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


@dataclass
class LongRun:
    """The long form: ``files`` files in batches of ``batch`` (each written, indexed in a fresh
    index and deleted), the summary rewritten to ``out`` after every batch."""

    args: argparse.Namespace
    out: Path
    work: Path
    started: float = field(default_factory=time.monotonic)
    facts: dict[str, Any] = field(default_factory=machine)

    def go(self) -> dict[str, Any]:
        a = self.args
        spec = fuzz_spec(self.work / "index", max_unzipped_mb=a.bomb_mb, file_timeout_s=a.file_timeout)
        tally = FuzzTally(spec.sources.limits.file_timeout_s)
        with Sampler() as load:
            def hung(source: str, seconds: float) -> None:
                self.write(tally, load, spec, hung={"source": source, "seconds": round(seconds, 1)})
                log.error("hang: %s took over %.0f s; summary in %s", source, seconds, self.out)
                os._exit(3)

            for start in range(0, a.files, a.batch):
                folder = self.work / "docs"
                shutil.rmtree(folder, ignore_errors=True)
                shutil.rmtree(self.work / "index", ignore_errors=True)
                tally.expect(write_corpus(folder, min(a.batch, a.files - start), a.seed, bomb_mb=a.bomb_mb,
                                          start=start))
                index_batch(spec, folder, self.work / "aborted", tally, hang_seconds=a.hang_seconds, on_hang=hung)
                summary = self.write(tally, load, spec)
                self.progress(summary, load)
            return self.write(tally, load, spec, complete=True)

    def write(self, tally: FuzzTally, load: Sampler, spec: Any, *, complete: bool = False,
              hung: dict[str, Any] | None = None) -> dict[str, Any]:
        a = self.args
        summary = {"complete": complete, "files_planned": a.files, "seed": a.seed, "batch_files": a.batch,
                   "bomb_mb": a.bomb_mb, "limits": spec.sources.limits.model_dump(), **tally.summary(),
                   **resources(self.started, load), "load_average_1min": load.load_figures(), **self.facts}
        if hung is not None:
            summary["hung"] = hung
        summary["files_per_second"] = round(summary["files"] / max(summary["wall_seconds"], 0.1), 2)
        tmp = self.out.with_suffix(self.out.suffix + ".tmp")
        tmp.write_text(json.dumps(summary, indent=2), encoding="utf-8")
        tmp.replace(self.out)  # a reader never sees half a file
        return summary

    def progress(self, s: dict[str, Any], load: Sampler) -> None:
        done, rate = s["files"], s["files_per_second"]
        eta = (self.args.files - done) / rate if rate else float("inf")
        log.info("%d/%d files (%.0f%%), %.2f files/s, ETA %s; %d indexed, %d skipped, %d aborted runs, "
                 "%d unreported timeouts, slowest %.1f s; peak RSS %s MB; load %.1f",
                 done, self.args.files, 100 * done / self.args.files, rate, _duration(eta), s["indexed"],
                 s["skipped"], len(s["aborted_runs"]), len(s["unreported_timeouts"]), s["max_seconds_per_file"],
                 s["peak_rss_mb"], load.loads[-1])


def _duration(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    m, sec = divmod(int(seconds), 60)
    return f"{m // 60}h{m % 60:02d}m" if m >= 60 else f"{m}m{sec:02d}s"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(asctime)s %(levelname)s %(message)s")
    log.setLevel(logging.INFO)
    if args.memory_mb:
        limit = args.memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    work = Path(args.workdir) if args.workdir else Path(os.environ.get("TMPDIR", "/tmp")) / f"ragkit-fuzz-{args.seed}"
    shutil.rmtree(work, ignore_errors=True)
    out = Path(args.out)
    summary = LongRun(args, out, work).go()
    log.info("%s", json.dumps({k: summary[k] for k in ("files", "indexed", "skipped", "max_seconds_per_file",
                                                       "peak_rss_mb", "wall_seconds")}))
    log.info("aborted runs: %d; unaccounted files: %d; unreported timeouts: %d; summary in %s",
             len(summary["aborted_runs"]), len(summary["unaccounted"]), len(summary["unreported_timeouts"]), out)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    failed = (summary["aborted_runs"] or summary["unaccounted"] or summary["skipped_without_reason"]
              or summary["unreported_timeouts"])
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ragkit.testing.fuzz_loaders",
                                description="Index mutated documents of every format and report what happened.")
    p.add_argument("--files", type=int, default=1000, help="how many mutated files (default 1000)")
    p.add_argument("--seed", type=int, default=7, help="the random seed (default 7)")
    p.add_argument("--out", default="fuzz-summary.json", help="where the JSON summary goes")
    p.add_argument("--workdir", help="folder for the files and the index (default: a temporary folder)")
    p.add_argument("--batch", type=int, default=BATCH_FILES,
                   help=f"files per index run (default {BATCH_FILES}; each batch a fresh index)")
    p.add_argument("--bomb-mb", type=int, default=8,
                   help="zip bombs inflate to 1/4, 1/2, 1 or 2 times this many MB, and the run's "
                        "sources.limits.max_unzipped_mb is this (default 8): half load, half are over the limit")
    p.add_argument("--file-timeout", type=float, default=None,
                   help="the run's sources.limits.file_timeout_s (default: the pipeline default)")
    p.add_argument("--hang-seconds", type=float, default=420.0,
                   help="a file taking longer is a hang (default 420: past the pipeline's own per-file time limit)")
    p.add_argument("--memory-mb", type=int, default=4096,
                   help="address-space limit of the run in MB (default 4096; 0: none)")
    p.add_argument("--keep", action="store_true", help="keep the files and the index of the last batch")
    return p


if __name__ == "__main__":
    sys.exit(main())
