"""Benchmark tables, rendered from the result files in ``benchmarks/results/`` (JSON).

A result file holds one table and where it came from::

    {
      "title": "what was compared",
      "command": "python benchmarks/... (the command that measured it)",
      "machine": {"cpu": "...", "cores": 2, ...},          # the box, as the script saw it
      "conditions": {"date": "...", "load_average": "...", "commit": "..."},
      "columns": ["path", "wall s", ...],
      "align": ["left", "right", ...],                      # optional, per column
      "rows": [["raw encode", 91.1, ...], ...]
    }

``hidden_columns`` (optional) are kept in the file but not shown (a run's load average beside
each path, say: a condition of the run, not a result). A cell is a string, a number (``decimals`` per column says how it prints: ``[null, 1, ...]``),
``null`` (printed as an empty cell) or ``{"value": ..., "bold": true}``. The documentation renders
the table where a page says ``<!-- benchmark: NAME -->`` (``tools/docs_hooks.py``); the machine and
the conditions stay in the file, so the prose never carries a date or a load average.

    python benchmarks/render_tables.py                   # every table, as Markdown
    python benchmarks/render_tables.py vector-stores     # one

:func:`write_result` is what a benchmark script calls to write a file of this shape.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
log = logging.getLogger("render_tables")


def render(path: Path) -> str:
    """The Markdown table of one result file."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such result file; benchmarks/results/ has: {', '.join(names())}")
    data = json.loads(path.read_text(encoding="utf-8"))
    columns: list[str] = data["columns"]
    decimals: list[int | None] = data.get("decimals") or [None] * len(columns)
    align = data.get("align") or ["left"] * len(columns)
    if len(decimals) != len(columns) or len(align) != len(columns):
        raise ValueError(f"{path.name}: 'decimals' and 'align' need one entry per column ({len(columns)})")
    shown = [i for i, c in enumerate(columns) if c not in data.get("hidden_columns", [])]
    lines = [_row([columns[i] for i in shown]), "|" + "|".join(_rule(align[i]) for i in shown) + "|"]
    for n, row in enumerate(data["rows"]):
        if len(row) != len(columns):
            raise ValueError(f"{path.name}: row {n + 1} has {len(row)} cells for {len(columns)} columns")
        lines.append(_row([_cell(row[i], decimals[i]) for i in shown]))
    return "\n".join(lines) + "\n"


def names() -> list[str]:
    """The result files that are tables (other JSON files there are raw run data)."""
    return sorted(p.stem for p in RESULTS.glob("*.json")
                  if {"columns", "rows"} <= set(json.loads(p.read_text(encoding="utf-8"))))


def _rule(align: str) -> str:
    return {"left": "---", "right": "---:", "center": ":---:"}[align]


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell(cell: Any, decimals: int | None) -> str:
    if isinstance(cell, dict):
        text = _cell(cell["value"], decimals)
        return f"**{text}**" if cell.get("bold") and text else text
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    if isinstance(cell, (int, float)):
        places = decimals if decimals is not None else (0 if isinstance(cell, int) else None)
        return f"{cell:,.{places}f}" if places is not None else f"{cell:,}"
    return str(cell)


def _machine_facts() -> dict[str, str]:
    """``_common.machine_facts()`` (beside this file; loaded by path, so the docs hook needs no sys.path)."""
    common = sys.modules.get("_common")
    if common is None:
        spec = importlib.util.spec_from_file_location("_common", Path(__file__).resolve().parent / "_common.py")
        assert spec and spec.loader
        common = sys.modules["_common"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(common)
    return common.machine_facts()


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def write_result(name: str, *, title: str, command: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                 decimals: Sequence[int | None] | None = None, align: Sequence[str] | None = None,
                 conditions: dict[str, Any] | None = None, hidden_columns: Sequence[str] = (),
                 directory: Path = RESULTS) -> Path:
    """Write ``directory/NAME.json`` in the shape :func:`render` reads, with this machine's facts."""
    machine = _machine_facts()
    facts = {"date": machine.pop("date"), "load_average": machine.pop("load average at start"), "commit": _commit(),
             **(conditions or {})}
    data: dict[str, Any] = {"title": title, "command": command, "machine": machine, "conditions": facts,
                            "columns": list(columns), "rows": [list(r) for r in rows]}
    if decimals is not None:
        data["decimals"] = list(decimals)
    if align is not None:
        data["align"] = list(align)
    if hidden_columns:
        data["hidden_columns"] = list(hidden_columns)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    log.info("wrote %s", path)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"result names (default: all): {', '.join(names())}")
    args = parser.parse_args(argv)
    for name in args.names or names():
        path = RESULTS / f"{name}.json"
        title = json.loads(path.read_text(encoding="utf-8"))["title"] if path.is_file() else name
        print(f"## {title}\n\n{render(path)}")  # noqa: T201 - this script's output is the tables
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
