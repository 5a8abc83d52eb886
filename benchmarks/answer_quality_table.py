"""Markdown tables of the held-out answer-quality results that ``answer_quality.py --out DIR``
wrote (``answer_quality_NAME_SPLIT.json``), so the figures in the docs come from the JSON.

    .venv/bin/python benchmarks/answer_quality_table.py benchmarks/results            # one run
    .venv/bin/python benchmarks/answer_quality_table.py benchmarks/results --set prettier --set ocrnotes  # one round
    .venv/bin/python benchmarks/answer_quality_table.py benchmarks/results --before benchmarks/results/main
    .venv/bin/python benchmarks/answer_quality_table.py benchmarks/results --beir benchmarks/results/retrieval_beir.json

Per set and half: questions; correct / partial / wrong and refused (answerable questions the
answerer declined); answers that state the asked fact; answerable questions citing the file that
holds the answer; that file in the default retriever's top 3; nDCG@10 of that file in the default
and in plain dense search. Then the totals per half, against the acceptance targets. With
``--before``, each cell shows ``before → after``. With ``--beir FILE`` (``ragkit eval --json``
over the shared BEIR sets with ``-r dense -r hybrid``, saved under ``"eval"``), the retrieval
table: nDCG@10 of the default retriever and of dense on each BEIR set and on each folder (both
halves), and the mean over all of them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

TARGETS = {"top3": 0.90, "stated": 0.75, "cited": 0.80}  # share of the untouched half


def load(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(set, half) -> the result and its run facts, from every ``answer_quality_*.json`` in ``folder``."""
    out = {}
    for path in sorted(folder.glob("answer_quality_*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        r = data["result"]
        out[(r["set"], r["split"])] = {**r, "_load": data.get("load", [0.0])[0], "_commit": data.get("commit", "")}
    return out


def cells(r: dict[str, Any]) -> list[str]:
    fr = r["file_rank"]
    queries = fr["default"]["queries"]
    top3 = round(fr["default"]["top3"] * queries)
    return [f"{r['correct']} / {r['partial']} / {r['wrong']}", str(r["refused"]), f"{r['stated']}/{r['total']}",
            f"{r['cited_source']}/{r['answerable']}", f"{top3}/{queries}",
            f"{fr['default']['ndcg@10']:.3f} / {fr['dense']['ndcg@10']:.3f}"]


def totals(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Summed counts over sets; nDCG@10 averaged per query over the sets."""
    t: dict[str, Any] = defaultdict(float)
    for r in results:
        q = r["file_rank"]["default"]["queries"]
        for key in ("correct", "partial", "wrong", "refused", "stated", "total", "cited_source", "answerable"):
            t[key] += r[key]
        t["queries"] += q
        t["top3_hits"] += round(r["file_rank"]["default"]["top3"] * q)
        t["ndcg_default"] += r["file_rank"]["default"]["ndcg@10"] * q
        t["ndcg_dense"] += r["file_rank"]["dense"]["ndcg@10"] * q
    return t


def total_cells(t: dict[str, Any]) -> list[str]:
    q = t["queries"] or 1
    return [f"{t['correct']:.0f} / {t['partial']:.0f} / {t['wrong']:.0f}", f"{t['refused']:.0f}",
            f"{t['stated']:.0f}/{t['total']:.0f} ({t['stated'] / (t['total'] or 1):.0%})",
            f"{t['cited_source']:.0f}/{t['answerable']:.0f} ({t['cited_source'] / (t['answerable'] or 1):.0%})",
            f"{t['top3_hits']:.0f}/{t['queries']:.0f} ({t['top3_hits'] / q:.0%})",
            f"{t['ndcg_default'] / q:.3f} / {t['ndcg_dense'] / q:.3f}"]


HEADERS = ["set", "half", "correct / partial / wrong", "refused", "states the fact", "cites the file",
           "file in top 3", "nDCG@10 default / dense"]


def render(after: dict, before: dict | None = None) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]

    def row(name: str, half: str, now: list[str], then: list[str] | None) -> str:
        shown = now if then is None else [f"{b} → {a}" if a != b else a for a, b in zip(now, then, strict=True)]
        return "| " + " | ".join([name, half, *shown]) + " |"

    for half in ("tune", "untouched"):
        keys = sorted(k for k in after if k[1] == half)
        for key in keys:
            then = cells(before[key]) if before and key in before else None
            lines.append(row(key[0], half, cells(after[key]), then))
        if keys:
            then_t = total_cells(totals([before[k] for k in keys if k in before])) if before else None
            lines.append(row("**all**", half, total_cells(totals([after[k] for k in keys])), then_t))
    return "\n".join(lines)


def run_line(results: dict) -> str:
    """The commits and loads the results were measured at (printed on stderr: not for the docs)."""
    loads = sorted({f"{r['_load']:.1f}" for r in results.values()})
    commits = sorted({r["_commit"][:10] for r in results.values()})
    return f"commit {', '.join(commits)}; 1-minute load average at the start of the runs: {', '.join(loads)}"


def retrieval_rows(results: dict, beir: dict | None) -> list[tuple[str, float, float]]:
    """(set, default nDCG@10, dense nDCG@10): the BEIR sets (``hybrid`` is the default pipeline's
    retriever), then each folder over both halves, per query."""
    rows = []
    for ds in (beir or {}).get("eval", {}).get("datasets", []):
        got = {r["retriever"]: r["metrics"]["ndcg@10"] for r in ds["results"]}
        rows.append((ds["dataset"], got["hybrid"], got["dense"]))
    for name in sorted({k[0] for k in results}):
        t = totals([r for k, r in results.items() if k[0] == name])
        q = t["queries"] or 1
        rows.append((name, t["ndcg_default"] / q, t["ndcg_dense"] / q))
    return rows


def render_retrieval(rows: list[tuple[str, float, float]]) -> str:
    lines = ["| set | default nDCG@10 | dense nDCG@10 | default − dense |", "|---|---|---|---|"]
    lines += [f"| {name} | {a:.4f} | {b:.4f} | {a - b:+.4f} |" for name, a, b in rows]
    if rows:
        mean_a, mean_b = (sum(r[i] for r in rows) / len(rows) for i in (1, 2))
        lines.append(f"| **mean of {len(rows)}** | {mean_a:.4f} | {mean_b:.4f} | {mean_a - mean_b:+.4f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="the directory answer_quality.py --out wrote")
    parser.add_argument("--before", type=Path, help="an earlier run's directory, shown as before → after")
    parser.add_argument("--beir", type=Path, help="ragkit eval --json results (under 'eval'): the retrieval table too")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME",
                        help="only this set (repeat for a round of several); default: every set found")
    args = parser.parse_args(argv)
    after = {key: r for key, r in load(args.results).items() if not args.sets or key[0] in args.sets}
    if not after:
        raise SystemExit(f"{args.results}: no answer_quality_*.json files{' of ' + ', '.join(args.sets) if args.sets else ''} "
                         f"(run answer_quality.py --out {args.results})")
    before = {key: r for key, r in load(args.before).items() if key in after} if args.before else None
    print(render(after, before))
    if args.beir:
        beir = json.loads(args.beir.read_text(encoding="utf-8"))
        print()
        print(render_retrieval(retrieval_rows(after, beir)))
    if before:
        print(f"before: {run_line(before)}", file=sys.stderr)
    print(f"{'after' if before else 'run'}: {run_line(after)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
