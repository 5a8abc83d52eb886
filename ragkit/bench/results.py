"""The DuckDB results file: every run appended, with versions, parameters and machine info.

Tables: ``runs`` (one row per run: profile, dataset, plan, versions, machine, servers as JSON) and
``results`` (one row per backend and sweep setting, the figures as columns plus the full row as
JSON). ``latest`` returns, per dataset/backend/params, the newest result, for ``--compare``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragkit.bench.report import rows

DEFAULT_RESULTS = Path(".ragkit/bench/results.duckdb")
FIGURES = (
    "recall_10",
    "recall_100",
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "best_qps",
    "build_s",
    "disk_mb",
    "mem_mb",
    "filtered_recall_10",
    "filtered_p50_ms",
)
_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS runs (run_id VARCHAR PRIMARY KEY, started_at TIMESTAMPTZ,
       profile VARCHAR, dataset VARCHAR, seconds DOUBLE, dataset_params JSON, plan JSON,
       versions JSON, machine JSON, servers JSON)""",
    "CREATE TABLE IF NOT EXISTS results (run_id VARCHAR, backend VARCHAR, store VARCHAR, params VARCHAR, "
    + ", ".join(f"{f} DOUBLE" for f in FIGURES)
    + ", valid BOOLEAN, status VARCHAR, row JSON)",
]


def _connect(path: Path) -> Any:
    import duckdb

    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    for stmt in _SCHEMA:
        con.execute(stmt)
    return con


def append(record: dict[str, Any], path: Path | str = DEFAULT_RESULTS) -> int:
    """Store one run; returns the number of result rows written."""
    con = _connect(Path(path))
    try:
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                record["run_id"],
                record["started_at"],
                record["profile"],
                record["dataset"]["name"],
                record["seconds"],
                _j(record["dataset"]),
                _j(record["plan"]),
                _j(record["versions"]),
                _j(record["machine"]),
                _j(record.get("servers", {})),
            ],
        )
        table = rows(record)
        for r in table:
            con.execute(
                f"INSERT INTO results VALUES (?, ?, ?, ?, {', '.join('?' for _ in FIGURES)}, ?, ?, ?)",
                [
                    record["run_id"],
                    r["backend"],
                    r["store"],
                    r["params"],
                    *[_num(r.get(f)) for f in FIGURES],
                    bool(r.get("valid", False)),
                    r["status"],
                    _j(r),
                ],
            )
        return len(table)
    finally:
        con.close()


def latest(path: Path | str = DEFAULT_RESULTS, *, runs: int = 2) -> list[dict[str, Any]]:
    """Newest ``runs`` results per (dataset, backend, params), newest first, for ``--compare``."""
    p = Path(path)
    if not p.exists():
        from ragkit.errors import ConfigError

        raise ConfigError(f"no benchmark results at {p}; run `ragkit bench` first (or pass --results FILE)")
    con = _connect(p)
    try:
        cur = con.execute(
            f"""SELECT * FROM (
                  SELECT ru.dataset, ru.run_id, CAST(ru.started_at AS VARCHAR) AS started_at, r.backend, r.params,
                         {", ".join("r." + f for f in FIGURES)}, r.status,
                         row_number() OVER (PARTITION BY ru.dataset, r.backend, r.params
                                            ORDER BY ru.started_at DESC) AS age
                  FROM results r JOIN runs ru USING (run_id))
                WHERE age <= ? ORDER BY dataset, backend, params, age""",
            [runs],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    finally:
        con.close()


def _j(value: Any) -> str:
    return json.dumps(value, default=str)


def _num(value: Any) -> float | None:
    return None if value is None else float(value)
