"""Shared helpers for the indexing benchmarks (scripts, not library code).

- the msmarco-5k corpus: read it (split on ``\\n`` only: six passages hold a raw U+0085), write
  it as one ``.txt`` file per passage;
- whole-process timing of a subprocess: wall time (``time.perf_counter`` around spawn → exit),
  the child's own CPU time (user + system) and peak RSS from ``os.wait4`` (exact per child,
  unlike polling), the load average when it started, plus the last JSON object the child printed
  on stdout (its in-process phase times);
- medians, ratios and a Markdown table;
- the machine and library versions to record with every result.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "datasets" / "msmarco-5k" / "corpus.jsonl"
PEERS_DIR = Path(__file__).resolve().parent / "peers"


# --------------------------------------------------------------------------- corpus


@dataclass(frozen=True)
class Passage:
    id: str
    text: str


def passage_text(row: Mapping[str, Any]) -> str:
    """What every measured path embeds for a BEIR row: ``title`` + blank line + ``text``.

    msmarco-5k has empty titles, so this is just ``text``; the rule is written once so both
    paths stay consistent on corpora that do have titles."""
    title = str(row.get("title") or "").strip()
    text = str(row.get("text") or "")
    return f"{title}\n\n{text}" if title else text


def read_corpus(path: str | Path, limit: int | None = None) -> list[Passage]:
    """Rows of a BEIR ``corpus.jsonl`` (split on ``\\n`` only; blank lines ignored)."""
    out: list[Passage] = []
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        row = json.loads(line)
        out.append(Passage(str(row["_id"]), passage_text(row)))
        if limit is not None and len(out) >= limit:
            break
    return out


def write_jsonl(passages: Sequence[Passage], path: Path) -> Path:
    """A corpus slice as JSON Lines with ``_id`` and ``text`` (what the jsonl loader reads)."""
    with path.open("w", encoding="utf-8") as f:
        for p in passages:
            f.write(json.dumps({"_id": p.id, "text": p.text}, ensure_ascii=False) + "\n")
    return path


def write_txt_files(passages: Sequence[Passage], folder: Path) -> Path:
    """One ``<id>.txt`` file per passage: the design's reference setup (5,000 small files)."""
    folder.mkdir(parents=True, exist_ok=True)
    for p in passages:
        (folder / f"{p.id}.txt").write_text(p.text, encoding="utf-8")
    return folder


def missing_corpus_message(path: Path) -> str:
    return (
        f"corpus not found: {path}\n"
        "this benchmark needs msmarco-5k (BEIR layout) next to the repository, at "
        "../shared/datasets/msmarco-5k/corpus.jsonl; pass --corpus PATH to use another copy. Nothing to do."
    )


# --------------------------------------------------------------------------- subprocess timing


@dataclass
class Measured:
    """One whole-process run: wall seconds, the child's peak RSS and what it reported."""

    name: str
    wall: float
    peak_rss_mb: float
    returncode: int
    report: dict[str, Any] = field(default_factory=dict)
    stderr_tail: str = ""
    #: CPU seconds of the child (user + system, its own children included), from ``os.wait4``
    cpu: float = float("nan")
    #: 1-minute load average when the run started
    load: float = float("nan")

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def bench_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every measured process gets: offline model hubs, nothing else changed."""
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("HF_DATASETS_OFFLINE", "1")
    env.update(extra or {})
    return env


def run_measured(
    name: str, cmd: Sequence[str], *, cwd: str | Path | None = None, env: Mapping[str, str] | None = None
) -> Measured:
    """Run ``cmd`` to completion; wall time spans spawn to exit (imports and model load included).

    Peak RSS comes from ``os.wait4`` on this very child (``ru_maxrss``, KiB on Linux), so it is
    exact and unaffected by other children. The child's stdout is scanned for its last line that
    parses as a JSON object (its in-process report)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=dict(env) if env else bench_env(), stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    rss_mb = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    tail = "\n".join(stderr.strip().splitlines()[-15:]) if proc.returncode else ""
    cpu = usage.ru_utime + usage.ru_stime
    return Measured(name, wall, rss_mb, proc.returncode, last_json(stdout), tail, cpu, load)


def last_json(stdout: str) -> dict[str, Any]:
    """The last stdout line (or the whole output) that parses as a JSON object."""
    candidates = [stdout] + stdout.strip().splitlines()[::-1]
    for text in candidates:
        text = text.strip()
        if not text.startswith("{"):
            continue
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def check_ok(m: Measured) -> Measured:
    if not m.ok:
        print(f"!! {m.name} failed (exit {m.returncode}):\n{m.stderr_tail}", file=sys.stderr)
    return m


# --------------------------------------------------------------------------- statistics and tables


def median(values: Iterable[float]) -> float:
    vals = [v for v in values if v == v]  # drop NaN
    return statistics.median(vals) if vals else float("nan")


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def fmt(value: Any, digits: int = 1) -> str:
    if isinstance(value, float):
        if value != value:
            return "n/a"
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(fmt(v) if not isinstance(v, str) else v for v in row) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- provenance


def versions(python: str | None = None, packages: Sequence[str] = ()) -> dict[str, str]:
    """Installed versions of ``packages`` in this interpreter, or in ``python`` (another venv)."""
    if python is None:  # (venv interpreters are symlinks to one binary: never compare resolved paths)
        out = {"python": platform.python_version()}
        for pkg in packages:
            out[pkg] = _version(pkg)
        return out
    code = (
        "import json, platform, sys\nfrom importlib import metadata\nout={'python': platform.python_version()}\n"
        "for p in sys.argv[1:]:\n    for name in (p, p.replace('-', '_')):\n        try:\n"
        "            out[p] = metadata.version(name); break\n"
        "        except metadata.PackageNotFoundError: out[p] = 'not installed'\nprint(json.dumps(out))"
    )
    res = subprocess.run([python, "-c", code, *packages], capture_output=True, text=True, check=False)
    return last_json(res.stdout) or {"python": "unavailable"}


def _version(pkg: str) -> str:
    """Installed version; tries the ``a_b`` spelling too (Python 3.11 does not normalize ``a-b``)."""
    for name in (pkg, pkg.replace("-", "_")):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "not installed"


def machine_facts() -> dict[str, str]:
    """CPU model, flags (from /proc/cpuinfo and as cpuid shows them) and ISA class, cores, memory,
    load, OS and date: what every benchmark prints beside its figures."""
    from ragkit.embedders.isa import cpu_description

    try:
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        load = "n/a"
    mem = "n/a"
    try:
        import psutil

        mem = f"{psutil.virtual_memory().total / 2**30:.1f} GiB"
    except ImportError:
        pass
    return {
        **cpu_description(), "cores": str(os.cpu_count()), "memory": mem, "load average at start": load,
        "os": f"{platform.system()} {platform.release()}", "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


def print_facts(title: str, facts: Mapping[str, str]) -> None:
    print(f"{title}: " + "; ".join(f"{k} {v}" for k, v in facts.items()))


#: short msmarco-style questions the cold-start benchmarks (cold_search.py, cold_ask.py) take turns on
COLD_QUERIES = [
    "what is the highest mountain above sea level",
    "how does photosynthesis convert light energy",
    "what does a thermometer measure",
    "interest rate of a bank savings account",
    "capital of japan",
    "symptoms of the common cold",
    "how long to boil an egg",
]
