"""The offline answerer's quality: correct / partial / wrong on the project's question sets.

Indexes each set's documents with a pipeline (default: ``pipelines/default.yaml``), asks every
question through ``RAGAgent`` with the ``local`` provider and a conversation memory (chat
follow-ups are asked after their earlier question), and grades the answers with
``ragkit.rag.questions`` (correct: every expected text and the expected source cited; partial:
one of the two; wrong: neither, or a refusal). Also prints the cited-page rate: answerable
questions whose answer cites the file that holds the answer, and how well the pipeline's
retriever finds that file (its first passage at rank 1, within the top k, MRR@k).

    .venv/bin/python benchmarks/answer_quality.py                 # all four sets
    .venv/bin/python benchmarks/answer_quality.py --set howto -v  # one set, with every miss
    .venv/bin/python benchmarks/answer_quality.py --index-dir /tmp/aq  # keep the indexes between runs

Real folders nobody here wrote (``benchmarks/folders/NAME.yaml``: questions, expected answers and
files, the repository and commit to fetch, and the folder in it) are never committed: clone one,
then pass its folder, or clone them all under one directory (DIR/NAME is the clone of NAME.yaml's
repository) and pass that:

    git clone https://github.com/mkdocs/mkdocs /tmp/real/mkdocs    # the commit is in mkdocs.yaml
    .venv/bin/python benchmarks/answer_quality.py --folder mkdocs=/tmp/real/mkdocs/docs -v
    .venv/bin/python benchmarks/answer_quality.py --folders /tmp/real   # every set whose clone is there

Sets written for held-out measuring carry a ``split`` per question (``tune`` or ``untouched``,
fixed by a hash of the question text: ``hash_splits``); ``--split untouched`` scores only that
half, and ``--out DIR`` writes one JSON file per set and half (``answer_quality_NAME_SPLIT.json``)
with the machine, the load and the commit. Besides the grades it reports, per set: answers that
state the asked fact (every expected text, whatever the citation; a refusal for an unanswerable
question), answerable questions refused, and where the file that holds the answer ranks in the
pipeline's retriever and in plain dense search (top 3, MRR@10, nDCG@10 with that file as the one
relevant document):

    .venv/bin/python benchmarks/answer_quality.py --folders /tmp/real --only starlette --split untouched -v
    .venv/bin/python benchmarks/answer_quality.py --folders /tmp/real --split tune --out benchmarks/results

``benchmarks/folders/tune-extra/NAME.yaml`` holds more questions over the same folders, all in the
tune half (for fitting the answerer; the held-out halves stay in ``NAME.yaml``); score them with
``--sets-dir``, into another ``--out`` directory (the result files are named by set and half):

    .venv/bin/python benchmarks/answer_quality.py --folders /tmp/real --sets-dir benchmarks/folders/tune-extra --split tune

A set whose questions carry a ``group`` (``scans.yaml``: ``scanned`` pages read by OCR and
``born-digital`` ones) is also scored group by group, side by side, in the printed table and
the JSON (``groups``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("answer_quality")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SETS = {  # name -> (documents, questions)
    "sample": (REPO / "data", REPO / "data" / "questions.yaml"),
    "howto": (REPO / "tests/fixtures/howto-docs/docs", REPO / "tests/fixtures/howto-docs/questions.yaml"),
    "realdocs": (REPO / "tests/fixtures/realdocs/docs", REPO / "tests/fixtures/realdocs/questions.yaml"),
    # written after the engine was tuned on the sets above, never tuned on
    "holdout": (REPO / "tests/fixtures/holdout/docs", REPO / "tests/fixtures/holdout/questions.yaml"),
}


FOLDERS = REPO / "benchmarks" / "folders"  # NAME.yaml: questions over a fetched folder
SPLITS = ("tune", "untouched")
RANK_DEPTH = 10  # how deep the answer's file is looked for in each retriever's ranking


def hash_splits(items: list[dict[str, Any]]) -> list[str]:
    """Each question's half, ``tune`` or ``untouched``: within the answerable questions and within
    the unanswerable ones, the questions sorted by the SHA-256 of their text; the first half (rounded
    down) is ``tune``, the rest ``untouched``. It depends on the question texts only."""
    halves = [""] * len(items)
    for answerable in (True, False):
        group = [i for i, q in enumerate(items) if (q.get("answer") is not None) is answerable]
        group.sort(key=lambda i: hashlib.sha256(str(items[i]["question"]).encode("utf-8")).hexdigest())
        for rank, i in enumerate(group):
            halves[i] = SPLITS[0] if rank < len(group) // 2 else SPLITS[1]
    return halves


def in_split(items: list[dict[str, Any]], split: str | None) -> list[dict[str, Any]]:
    """The questions of one half (all of them when ``split`` is None)."""
    return items if split is None else [q for q in items if q.get("split") == split]


def folder_set(arg: str) -> tuple[str, Path, Path]:
    """``NAME=PATH`` -> (name, the fetched folder, its questions file ``benchmarks/folders/NAME.yaml``)."""
    name, eq, path = arg.partition("=")
    questions = FOLDERS / f"{name}.yaml"
    known = ", ".join(sorted(p.stem for p in FOLDERS.glob("*.yaml")))
    if not eq or not path:
        raise SystemExit(f"--folder {arg}: expected NAME=PATH (NAME one of: {known})")
    if not questions.is_file():
        raise SystemExit(f"--folder {arg}: no question set {questions} (known: {known})")
    if not Path(path).is_dir():
        raise SystemExit(f"--folder {arg}: {path} is not a folder; fetch it first (see {questions})")
    return name, Path(path), questions


def folders_under(root: Path, sets: Path = FOLDERS) -> list[tuple[str, Path, Path]]:
    """Every question set of ``sets`` (default ``benchmarks/folders``) whose repository is cloned at
    ``root/NAME``: (name, the folder to index, the questions file); the others are listed as missing."""
    import yaml

    found = []
    for questions in sorted(sets.glob("*.yaml")):
        meta = yaml.safe_load(questions.read_text(encoding="utf-8"))
        docs = root / questions.stem / str(meta.get("folder", ""))
        if docs.is_dir():
            found.append((questions.stem, docs, questions))
        else:
            log.warning("skipping %s: %s is not there (clone %s at commit %s into %s)", questions.stem, docs,
                        meta.get("fetch", "?"), meta.get("commit", "?"), root / questions.stem)
    return found


def unknown_sources(name: str, docs: Path, questions: Path) -> list[str]:
    """The expected sources of a set that are no file of ``docs`` (a source names a file by its path
    in the folder, as citations and search hits do), each with the paths that end in its name: a
    source written as a bare file name would grade every citation of the right file a miss."""
    from ragkit.rag.questions import load_questions, sources_of

    wrong = []
    for item in load_questions(questions):
        for source in sources_of(item.get("source")):
            if not (docs / source).is_file():
                near = sorted(str(p.relative_to(docs)) for p in docs.rglob(Path(source).name))[:3]
                hint = f" (did you mean {' or '.join(near)}?)" if near else ""
                wrong.append(f"{name}: source {source!r} is no file of {docs}{hint}")
    return wrong


def file_ranking(ranks: list[int | None]) -> dict[str, float]:
    """Where the file that holds the answer ranks (``page_ranks`` at depth ``RANK_DEPTH``): in the
    top 3, MRR@10 and nDCG@10 with that file as the only relevant document (1 / log2(rank + 1))."""
    n = len(ranks) or 1
    hits = [r for r in ranks if r is not None and r <= RANK_DEPTH]
    return {"queries": len(ranks), "top3": sum(r <= 3 for r in hits) / n,
            "mrr@10": sum(1 / r for r in hits) / n, "ndcg@10": sum(1 / math.log2(r + 1) for r in hits) / n}


def answer_facts(outcomes: list[Any]) -> dict[str, int]:
    """Answers that state the asked fact (every expected text, cited or not; for an unanswerable
    question, a refusal) and answerable questions the answerer refused."""
    from ragkit.rag.questions import is_refusal

    def states(o: Any) -> bool:
        if o.expected is None:
            return is_refusal(o.answer)
        texts = o.expected if isinstance(o.expected, list) else [o.expected]
        return all(str(t).lower() in o.answer.lower() for t in texts)

    return {"stated": sum(map(states, outcomes)),
            "refused": sum(o.expected is not None and is_refusal(o.answer) for o in outcomes)}


def score_set(name: str, pipeline: Path, index_root: Path, docs: Path | None = None,
              questions: Path | None = None, split: str | None = None) -> dict:
    from ragkit.agent import ConversationMemory
    from ragkit.config import load_pipeline
    from ragkit.rag.agent import RAGAgent
    from ragkit.rag.questions import load_questions, page_ranks, retrieval_summary, run_questions, summary

    if docs is None or questions is None:
        docs, questions = SETS[name]
    spec = load_pipeline(pipeline)
    items = in_split(load_questions(questions), split)
    k = spec.retriever.top_k
    with RAGAgent.from_directory(docs, pipeline=spec, index=index_root / name, provider="local",
                                 memory=ConversationMemory(max_messages=40)) as agent:
        outcomes = run_questions(agent, items)

        def ranked(kind: str | None) -> Callable[[str], list[str]]:
            return lambda q: [h.source for h in agent.kb.search(q, k=RANK_DEPTH, kind=kind)]

        ranks = page_ranks(ranked(None), items)
        dense = page_ranks(ranked("dense"), items)
        groups = by_group(items, outcomes, ranked(None))
    return {"set": name, "split": split or "all", **summary(outcomes), **answer_facts(outcomes),
            "retrieval": retrieval_summary([r if r is not None and r <= k else None for r in ranks], k),
            "file_rank": {"default": file_ranking(ranks), "dense": file_ranking(dense)},
            **({"groups": groups} if groups else {})}


def by_group(items: list[dict[str, Any]], outcomes: list[Any], search: Callable[[str], list[str]]) -> dict[str, dict]:
    """The figures of each ``group`` of questions (a set whose questions carry one, e.g. ``scanned``
    and ``born-digital``): grades, answers that state the fact, and the answer's file in the top 3."""
    from ragkit.rag.questions import page_ranks, summary

    names = sorted({str(q["group"]) for q in items if q.get("group")})
    out = {}
    for group in names:
        chosen = [i for i, q in enumerate(items) if q.get("group") == group]
        picked = [outcomes[i] for i in chosen]
        figures = {k: v for k, v in summary(picked).items() if k != "failures"}
        out[group] = {**figures, **answer_facts(picked),
                      "file_rank": file_ranking(page_ranks(search, [items[i] for i in chosen]))}
    return out


def run_facts(pipeline: Path) -> dict[str, Any]:
    """The machine, the load, the commit and the pipeline a result was measured with."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _common import machine_facts

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout.strip()

    return {"machine": machine_facts(), "load": list(os.getloadavg()), "commit": git("rev-parse", "HEAD"),
            "branch": git("rev-parse", "--abbrev-ref", "HEAD"), "dirty": bool(git("status", "--porcelain", "--", "ragkit")),
            "pipeline": str(pipeline)}


def write_results(out: Path, results: list[dict], facts: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for r in results:
        path = out / f"answer_quality_{r['set']}_{r['split']}.json"
        path.write_text(json.dumps({**facts, "result": r}, indent=2) + "\n", encoding="utf-8")
        log.warning("wrote %s", path)
        if r.get("groups"):
            write_group_table(out, r)


def write_group_table(out: Path, result: dict[str, Any]) -> Path:
    """``answer-quality-NAME-groups.json``: the groups of one set side by side, as a table the
    documentation renders (``render_tables.py``)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from render_tables import write_result

    def pct(n: int, total: int) -> str:
        return f"{n}/{total} ({100 * n / total:.0f} %)" if total else "-"

    rows = [[group, f["total"], pct(f["stated"], f["total"]), pct(f["correct"], f["total"]),
             f"{f['correct']} / {f['partial']} / {f['wrong']}", f"{f['file_rank']['top3']:.2f}",
             f"{f['file_rank']['mrr@10']:.3f}"] for group, f in result["groups"].items()]
    return write_result(f"answer-quality-{result['set']}-groups", title=f"Answers over the {result['set']} set, group by group",
                        command=f"python benchmarks/answer_quality.py --folder {result['set']}=DIR --out benchmarks/results",
                        columns=["group", "questions", "answer states the fact", "correct (fact and cited file)",
                                 "correct / partial / wrong", "answer's file in top 3", "MRR@10"],
                        rows=rows, align=["left"] + ["right"] * 6, directory=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="sets", action="append", choices=sorted(SETS),
                        help="question set to score (repeatable; default: all four, unless --folder is given)")
    parser.add_argument("--folder", dest="folders", action="append", default=[], metavar="NAME=PATH",
                        help="a fetched folder and its question set benchmarks/folders/NAME.yaml (repeatable)")
    parser.add_argument("--folders", dest="folders_root", type=Path, metavar="DIR",
                        help="a directory of clones (DIR/NAME for benchmarks/folders/NAME.yaml): score every one found")
    parser.add_argument("--sets-dir", type=Path, default=FOLDERS, metavar="DIR",
                        help="with --folders: the question sets to score (default benchmarks/folders; "
                             "benchmarks/folders/tune-extra holds more tune-only questions over the same folders)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="with --folders: score only these sets (repeatable, or comma-separated: a,b)")
    parser.add_argument("--split", choices=SPLITS, help="score only this half of each set's questions")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="write answer_quality_NAME_SPLIT.json per set here (with machine, load, commit)")
    parser.add_argument("--pipeline", type=Path, default=REPO / "pipelines" / "default.yaml")
    parser.add_argument("--index-dir", type=Path, help="keep the indexes here (default: a temporary dir)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every answer that is not correct")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    folders = [folder_set(arg) for arg in args.folders]
    folders += folders_under(args.folders_root, args.sets_dir) if args.folders_root else []
    only = {name.strip() for value in args.only for name in value.split(",") if name.strip()}
    if not_found := sorted(only - {f[0] for f in folders}):  # a misspelt name must not score nothing, silently
        raise SystemExit(f"--only: no laid-out set named {', '.join(not_found)} (a set needs "
                         f"{args.sets_dir}/NAME.yaml and its folder at {args.folders_root or '?'}/NAME; "
                         "the warnings above list the sets whose folder is missing)")
    folders = [f for f in folders if not only or f[0] in only]
    if wrong := [line for f in folders for line in unknown_sources(*f)]:
        raise SystemExit("expected sources that name no file (write each as its path in the folder):\n  "
                         + "\n  ".join(wrong))
    names = args.sets or ([] if args.folders or args.folders_root else list(SETS))
    facts = run_facts(args.pipeline)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.index_dir or Path(tmp)
        results = [score_set(name, args.pipeline, root, split=args.split) for name in names]
        results += [score_set(name, args.pipeline, root, docs, questions, args.split)
                    for name, docs, questions in folders]
    if args.out:
        write_results(args.out, results, facts)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"pipeline: {args.pipeline}; load {facts['load'][0]:.1f}; commit {facts['commit'][:10]}")
    print("| set | half | questions | correct | partial | wrong | refused | states the fact | cited page (answerable) "
          "| file in top 3 | nDCG@10 default / dense |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        rows = [(r["set"], r)] + [(f"{r['set']}: {g}", figures) for g, figures in r.get("groups", {}).items()]
        for name, f in rows:
            fr = f["file_rank"]
            dense = f"{fr['dense']['ndcg@10']:.3f}" if "dense" in fr else "-"
            fr = fr.get("default", fr)  # a group's figures carry the default ranking only
            print(f"| {name} | {r['split']} | {f['total']} | {f['correct']} | {f['partial']} | {f['wrong']} "
                  f"| {f['refused']} | {f['stated']}/{f['total']} | {f['cited_source']}/{f['answerable']} "
                  f"| {fr['top3']:.2f} | {fr['ndcg@10']:.3f} / {dense} |")
    if args.verbose:
        for r in results:
            for f in r["failures"]:
                print(f"\n[{r['set']}] {f['grade'].upper()}: {f['question']}\n  expected {f['expected']!r} "
                      f"from {f['source']}\n  got {f['answer']!r}\n  citing {f['cited']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
