"""Benchmark output: flat result rows, a Markdown table, and a PNG (recall vs QPS; build time).

:func:`rows` flattens a run record to one row per backend and sweep setting; the same row shape
is stored in the DuckDB results file (:mod:`ragkit.bench.results`) and read back by ``--compare``.
A row whose sanity checks failed says ``INVALID`` in the table; a backend that failed has a row
with its error. Nothing is dropped.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

COLUMNS: list[tuple[str, str, str]] = [  # (key, header, format)
    ("backend", "backend", "s"),
    ("params", "params", "s"),
    ("recall_10", "recall@10", ".3f"),
    ("recall_100", "recall@100", ".3f"),
    ("p50_ms", "p50 ms", ".2f"),
    ("p99_ms", "p99 ms", ".2f"),
    ("best_qps", "best QPS", ",.0f"),
    ("build_s", "build s", ".1f"),
    ("disk_mb", "disk MB", ".1f"),
    ("mem_mb", "build mem MB", ".0f"),
    ("server_mem_mb", "server MB", ".0f"),
    ("filtered_recall_10", "filtered recall@10", ".3f"),
    ("filtered_p50_ms", "filtered p50 ms", ".2f"),
    ("status", "status", "s"),
]


def _params(setting: dict[str, Any]) -> str:
    return " ".join(f"{k.split('.')[-1]}={v}" for k, v in setting.items()) or "-"


def rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per (backend, sweep setting); failed backends give one row with the error."""
    out: list[dict[str, Any]] = []
    for b in record["backends"]:
        build = b.get("build") or {}
        base = {
            "backend": b["backend"],
            "store": b["store"],
            "options": b.get("options") or {},
            "build_s": build.get("build_s"),
            "insert_s": build.get("insert_s"),
            "persist_s": build.get("persist_s"),
            "vectors_per_s": build.get("vectors_per_s"),
            "disk_mb": build["disk_bytes"] / 1e6 if build.get("disk_bytes") is not None else None,
            "mem_mb": build.get("build_mem_mb"),
            "peak_rss_mb": build.get("peak_rss_mb"),
            "server_mem_mb": build.get("server_mem_mb"),
        }
        if "error" in b:
            out.append({**base, "params": "-", "setting": {}, "status": f"ERROR: {b['error']}"[:200]})
            continue
        for s in b["settings"]:
            out.append({**base, **_setting_row(s, build)})
    return out


def _setting_row(s: dict[str, Any], build: dict[str, Any]) -> dict[str, Any]:
    k = s["k"]
    filtered = s.get("filtered") or {}
    f_lat = [v["latency"]["p50_ms"] for v in filtered.values() if isinstance(v, dict) and "latency" in v]
    sanity = s["sanity"]
    problems = ", ".join(f"{kind} x{n}" for kind, n in sanity["problems"].items())
    status = "ok" if sanity["valid"] else f"INVALID ({problems})"
    if not build.get("count_ok", True):
        status = f"INVALID (count {build.get('count')} after insert)" if status == "ok" else status
    errors = [f"{name}: {v['error']}" for name, v in filtered.items() if isinstance(v, dict) and "error" in v]
    if errors and status == "ok":
        status = "ok; filter error: " + "; ".join(errors)[:120]
    return {
        "params": _params(s["setting"]),
        "setting": s["setting"],
        "queries": s["queries"],
        "recall_10": s[f"recall@{k}"],
        "recall_100": s.get("recall@100"),
        "p50_ms": s["latency"]["p50_ms"],
        "p95_ms": s["latency"]["p95_ms"],
        "p99_ms": s["latency"]["p99_ms"],
        "best_qps": s.get("best_qps"),
        "qps": s.get("qps"),
        "filtered_recall_10": filtered.get("mean_recall"),
        "filtered_p50_ms": sum(f_lat) / len(f_lat) if f_lat else None,
        "valid": sanity["valid"] and build.get("count_ok", True),
        "status": status,
        "sanity": sanity,
    }


def _fmt(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if fmt == "s":
        return str(value).replace("|", "\\|")
    return format(value, fmt)


def markdown(table: list[dict[str, Any]], columns: list[tuple[str, str, str]] | None = None) -> str:
    cols = columns or COLUMNS
    lines = [
        "| " + " | ".join(h for _, h, _ in cols) + " |",
        "|" + "|".join("---" if f == "s" else "---:" for _, _, f in cols) + "|",
    ]
    for row in table:
        lines.append("| " + " | ".join(_fmt(row.get(key), f) for key, _, f in cols) + " |")
    return "\n".join(lines)


def caption(record: dict[str, Any]) -> str:
    d, m, v = record["dataset"], record["machine"], record["versions"]
    libs = ", ".join(f"{k} {val}" for k, val in v.items() if val and k != "ragkit")
    srv = record.get("servers", {}).get("postgres", {})
    pg = f"; PostgreSQL {srv['postgres_version']} + pgvector {srv['pgvector_ext']}" if srv else ""
    return (
        f"Run {record['run_id']} ({record['profile']} profile, {record['seconds']:.0f} s): "
        f"{d['name']} ({d['n']:,} x {d['dimension']}, {d['queries']} queries); "
        f"{m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM, load avg {m['load_avg'][0]:.1f}; "
        f"{libs}{pg}."
    )


def plot(record: dict[str, Any], path: Path | str) -> Path:
    """PNG: recall@10 vs best QPS per backend (sweeps as lines), and build time bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = [r for r in rows(record) if r.get("recall_10") is not None]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5.5), gridspec_kw={"width_ratios": [3, 2]})
    by_backend: dict[str, list[dict[str, Any]]] = {}
    for r in table:
        by_backend.setdefault(r["backend"], []).append(r)
    for name, pts in by_backend.items():
        ax1.plot([p["recall_10"] for p in pts], [p["best_qps"] for p in pts], marker="o", label=name)
        for p in pts:
            if p["params"] != "-":
                ax1.annotate(
                    p["params"].split("=")[-1],
                    (p["recall_10"], p["best_qps"]),
                    fontsize=7,
                    textcoords="offset points",
                    xytext=(3, 3),
                )
    ax1.set_xlabel("recall@10")
    ax1.set_ylabel("best QPS (log)")
    ax1.set_yscale("log")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    ax1.set_title("recall vs throughput (up and right is better)")
    builds = [(b["backend"], (b.get("build") or {}).get("build_s")) for b in record["backends"]]
    builds = [(n, s) for n, s in builds if s is not None]
    ax2.barh([n for n, _ in builds], [s for _, s in builds], color="tab:gray")
    ax2.set_xlabel("build time, s (insert + persist)")
    ax2.invert_yaxis()
    ax2.set_title("build time")
    d = record["dataset"]
    m = record["machine"]
    fig.suptitle(
        f"ragkit bench: {d['n']:,} x {d['dimension']} ({d['kind']}), {m['cores']} cores, "
        f"load avg {m['load_avg'][0]:.1f} at start; lines follow each backend's query-parameter sweep",
        fontsize=11,
    )
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
