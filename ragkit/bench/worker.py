"""One backend, measured in its own process: ``python -m ragkit.bench.worker JOB.json``.

A process per backend makes peak memory (``ru_maxrss``) belong to that backend alone. The job
file names the dataset folder (``.npy`` files written by the runner), the store and its options,
the sweep and the query settings; the result is written as JSON next to it.

Build phase: create the store, ``add`` in batches (timed: insert seconds and vectors/s),
``persist`` (timed separately: the optimize/flush step), close. Query phase, once per sweep
setting: reopen the store with that setting, then :func:`ragkit.bench.measure.measure_queries`.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from ragkit.bench.config import Backend, set_dotted
from ragkit.bench.datasets import Dataset
from ragkit.bench.measure import QueryPlan, measure_queries

log = logging.getLogger(__name__)


def rss_mb() -> float:
    """Current resident set size of this process in MB."""
    import psutil

    return float(psutil.Process().memory_info().rss) / 2**20


class PeakRss:
    """Samples this process's RSS every ``interval`` s in a thread; ``peak_mb`` is the maximum.

    ``ru_maxrss`` cannot be used: Linux carries the parent's high-water mark across fork+exec,
    so a worker would report the runner's peak (which holds the dataset and the ground truth).
    """

    def __init__(self, interval: float = 0.02) -> None:
        import threading

        self.interval = interval
        self.peak_mb = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="peak-rss", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_mb = max(self.peak_mb, rss_mb())

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_mb = max(self.peak_mb, rss_mb())


def du_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def server_options(backend: Backend, server: dict[str, Any], table: str) -> dict[str, Any]:
    """Options that point a store at the server the runner started."""
    if backend.server == "chroma":
        return {"mode": "http", "host": server["host"], "port": server["port"], "collection": table}
    if backend.server == "postgres":
        return {"dsn": server["dsn"], "table": table}
    return {}


def open_store(backend: Backend, options: dict[str, Any], *, dimension: int, path: Path) -> Any:
    from ragkit.registry import stores

    return stores.get(backend.store)(dimension=dimension, path=path, **options)


def build(backend: Backend, ds: Dataset, options: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    """Insert every row in batches and persist; returns timings, sizes and memory."""
    path = Path(job["store_dir"])
    rss_before = rss_mb()
    disk_before = _server_disk(backend, job, options)
    with PeakRss() as mem:
        t0 = time.perf_counter()
        store = open_store(backend, options, dimension=ds.dimension, path=path)
        open_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        _insert(
            store,
            ds,
            int(job["batch_size"]),
            desc=f"{backend.name}: insert",
            progress=job.get("progress", False),
        )
        insert_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        store.persist()
        persist_s = time.perf_counter() - t0
        count = store.count()
        describe = store.describe() if hasattr(store, "describe") else None
        rss_built = rss_mb()
        store.close()
    return {
        "open_s": open_s,
        "insert_s": insert_s,
        "persist_s": persist_s,
        "build_s": open_s + insert_s + persist_s,
        "vectors_per_s": ds.n / insert_s if insert_s else None,
        "count": count,
        "count_ok": count == ds.n,
        "disk_bytes": du_bytes(path) + max(0, _server_disk(backend, job, options) - disk_before),
        "rss_before_mb": rss_before,
        "rss_built_mb": rss_built,
        "peak_rss_mb": mem.peak_mb,
        "build_mem_mb": max(0.0, mem.peak_mb - rss_before),
        "server_mem_mb": _server_mem_mb(job.get("server") or {}),
        "describe": describe,
    }


def _insert(store: Any, ds: Dataset, batch: int, *, desc: str, progress: bool) -> None:
    from tqdm import tqdm

    with tqdm(total=ds.n, desc=desc, unit="vec", file=sys.stderr, disable=not progress, leave=False) as bar:
        for start in range(0, ds.n, batch):
            rows = range(start, min(ds.n, start + batch))
            store.add(ds.ids(rows), ds.vectors[start : rows.stop], ds.metadata(rows))
            bar.update(len(rows))


def _server_disk(backend: Backend, job: dict[str, Any], options: dict[str, Any]) -> int:
    """Bytes the backend's server holds for this benchmark (0 without a server)."""
    server = job.get("server") or {}
    if backend.server == "postgres":
        import psycopg

        with psycopg.connect(server["dsn"]) as conn:
            row = conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c WHERE c.relname = %s",
                [options["table"]],
            ).fetchone()
            return int(row[0]) if row else 0
    if backend.server == "chroma" and server.get("data_dir"):
        return du_bytes(Path(server["data_dir"]))
    return 0


def _server_mem_mb(server: dict[str, Any]) -> float | None:
    """Proportional set size (PSS) of the server's process tree, or None without one."""
    import psutil

    pid = server.get("pid")
    if not pid:
        return None
    try:
        root = psutil.Process(int(pid))
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return None
    total = 0.0
    for proc in procs:  # a backend process may exit while we look: skip it
        try:
            total += float(proc.memory_full_info().pss)
        except (psutil.Error, AttributeError):
            continue
    return total / 2**20


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    backend = Backend(**{**job["backend"], "sweep_values": tuple(job["backend"]["sweep_values"])})
    ds = Dataset.load(Path(job["data_dir"]))
    table = job.get("table", "ragkit_bench")
    options = {**backend.options, **server_options(backend, job.get("server") or {}, table)}
    result: dict[str, Any] = {"backend": backend.name, "store": backend.store, "options": backend.options}
    result["build"] = build(backend, ds, options, job)
    plan = QueryPlan(
        k=int(job["k"]),
        warmup=int(job["warmup"]),
        concurrency=tuple(job["concurrency"]),
        max_queries=backend.max_queries,
        filtered_queries=int(job["filtered_queries"]),
        progress=bool(job.get("progress", False)),
    )
    result["settings"] = []
    for setting in backend.settings():
        opts = options
        for key, value in setting.items():
            opts = set_dotted(opts, key, value)
        t0 = time.perf_counter()
        store = open_store(backend, opts, dimension=ds.dimension, path=Path(job["store_dir"]))
        reopen_s = time.perf_counter() - t0
        try:
            label = f"{backend.name} {' '.join(f'{k}={v}' for k, v in setting.items())}".strip()
            figures = measure_queries(store, ds, plan, label=label)
        finally:
            store.close()
        result["settings"].append({"setting": setting, "reopen_s": reopen_s, **figures})
    return result


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    job_path = Path(args[0])
    job = json.loads(job_path.read_text())
    logging.basicConfig(
        level=job.get("log_level", logging.WARNING),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        result = run_job(job)
    except Exception as exc:  # noqa: BLE001 - reported as the backend's error, never hidden
        log.exception("backend %s failed", job["backend"]["name"])
        result = {
            "backend": job["backend"]["name"],
            "store": job["backend"]["store"],
            "error": f"{type(exc).__name__}: {exc}",
        }
    Path(job["result_path"]).write_text(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
