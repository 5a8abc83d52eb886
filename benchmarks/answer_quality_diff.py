"""Two answer-quality runs compared question by question: which questions an answer states the
asked fact for in one run and not in the other (``answer_quality.py --out DIR``, both halves or
one, over the same sets), for measuring a change to the answerer on every set at hand.

    .venv/bin/python benchmarks/answer_quality.py --folders /tmp/real --out /tmp/before   # the code before
    .venv/bin/python benchmarks/answer_quality.py --folders /tmp/real --out /tmp/after    # the code after
    .venv/bin/python benchmarks/answer_quality_diff.py /tmp/before /tmp/after             # + gained, - lost
    .venv/bin/python benchmarks/answer_quality_diff.py /tmp/before /tmp/after -v          # with the answers

A result file lists the answers that are not correct (``failures``); a question it does not list
was answered correctly, so it states the fact. A listed one states it when its answer holds every
expected text (an unanswerable question: when it is a refusal), as ``answer_quality.py`` counts.
Only the sets and halves found in both directories are compared; the others are named.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def stated(failure: dict[str, Any]) -> bool:
    """Whether a listed (not correct) answer still states the asked fact."""
    from ragkit.rag.questions import is_refusal

    expected = failure["expected"]
    if expected is None:
        return is_refusal(failure["answer"])
    texts = expected if isinstance(expected, list) else [expected]
    return all(str(t).lower() in failure["answer"].lower() for t in texts)


def failures(folder: Path) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    """(set, half) -> question -> its listed answer, from every ``answer_quality_*.json`` in ``folder``."""
    out = {}
    for path in sorted(folder.glob("answer_quality_*.json")):
        r = json.loads(path.read_text(encoding="utf-8"))["result"]
        out[(r["set"], r["split"])] = {f["question"]: f for f in r["failures"]}
    return out


def compare(before: Path, after: Path) -> dict[str, Any]:
    """The questions gained and lost (set, half, question, answer before, answer after), the
    answers that changed without either, and the sets and halves found in one directory only."""
    a, b = failures(before), failures(after)
    gained, lost, changed = [], [], []
    for key in sorted(a.keys() & b.keys()):
        for question in sorted(a[key].keys() | b[key].keys()):
            fa, fb = a[key].get(question), b[key].get(question)
            sa, sb = fa is None or stated(fa), fb is None or stated(fb)
            row = (*key, question, fa["answer"] if fa else "(correct)", fb["answer"] if fb else "(correct)")
            if sa != sb:
                (gained if sb else lost).append(row)
            elif row[3] != row[4]:
                changed.append(row)
    return {"gained": gained, "lost": lost, "changed": changed, "compared": len(a.keys() & b.keys()),
            "only": sorted(f"{s} {h}" for s, h in a.keys() ^ b.keys())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="the directory answer_quality.py --out wrote for the code before")
    parser.add_argument("after", type=Path, help="the directory for the code after")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the answers, and those that changed")
    args = parser.parse_args(argv)
    for folder in (args.before, args.after):
        if not folder.is_dir():
            raise SystemExit(f"{folder}: not a directory (give the --out directories of two answer_quality.py runs)")
    d = compare(args.before, args.after)
    for sign, rows in (("+", d["gained"]), ("-", d["lost"]), ("=", d["changed"] if args.verbose else [])):
        for name, half, question, was, now in rows:
            print(f"{sign} [{name} {half}] {question}")
            if args.verbose:
                print(f"    before: {was[:300]!r}\n    after:  {now[:300]!r}")
    print(f"{d['compared']} sets and halves compared: +{len(d['gained'])} -{len(d['lost'])}; "
          f"{len(d['changed'])} other answers changed")
    if d["only"]:
        print("in one directory only: " + ", ".join(d["only"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
