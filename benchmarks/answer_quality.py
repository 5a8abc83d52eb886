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
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path

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


def folders_under(root: Path) -> list[tuple[str, Path, Path]]:
    """Every question set of ``benchmarks/folders`` whose repository is cloned at ``root/NAME``:
    (name, the folder to index, the questions file); the others are listed as missing."""
    import yaml

    found = []
    for questions in sorted(FOLDERS.glob("*.yaml")):
        meta = yaml.safe_load(questions.read_text(encoding="utf-8"))
        docs = root / questions.stem / str(meta.get("folder", ""))
        if docs.is_dir():
            found.append((questions.stem, docs, questions))
        else:
            log.warning("skipping %s: %s is not there (clone %s at commit %s into %s)", questions.stem, docs,
                        meta.get("fetch", "?"), meta.get("commit", "?"), root / questions.stem)
    return found


def score_set(name: str, pipeline: Path, index_root: Path, docs: Path | None = None,
              questions: Path | None = None) -> dict:
    from ragkit.agent import ConversationMemory
    from ragkit.config import load_pipeline
    from ragkit.rag.agent import RAGAgent
    from ragkit.rag.questions import load_questions, page_ranks, retrieval_summary, run_questions, summary

    if docs is None or questions is None:
        docs, questions = SETS[name]
    spec = load_pipeline(pipeline)
    items = load_questions(questions)
    k = spec.retriever.top_k
    with RAGAgent.from_directory(docs, pipeline=spec, index=index_root / name, provider="local",
                                 memory=ConversationMemory(max_messages=40)) as agent:
        outcomes = run_questions(agent, items)
        ranks = page_ranks(lambda q: [h.source for h in agent.kb.search(q, k=k)], items)
    return {"set": name, **summary(outcomes), "retrieval": retrieval_summary(ranks, k)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="sets", action="append", choices=sorted(SETS),
                        help="question set to score (repeatable; default: all four, unless --folder is given)")
    parser.add_argument("--folder", dest="folders", action="append", default=[], metavar="NAME=PATH",
                        help="a fetched folder and its question set benchmarks/folders/NAME.yaml (repeatable)")
    parser.add_argument("--folders", dest="folders_root", type=Path, metavar="DIR",
                        help="a directory of clones (DIR/NAME for benchmarks/folders/NAME.yaml): score every one found")
    parser.add_argument("--pipeline", type=Path, default=REPO / "pipelines" / "default.yaml")
    parser.add_argument("--index-dir", type=Path, help="keep the indexes here (default: a temporary dir)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every answer that is not correct")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    folders = [folder_set(arg) for arg in args.folders]
    folders += folders_under(args.folders_root) if args.folders_root else []
    names = args.sets or ([] if args.folders or args.folders_root else list(SETS))
    with tempfile.TemporaryDirectory() as tmp:
        root = args.index_dir or Path(tmp)
        results = [score_set(name, args.pipeline, root) for name in names]
        results += [score_set(name, args.pipeline, root, docs, questions) for name, docs, questions in folders]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"pipeline: {args.pipeline}")
    print("| set | questions | correct | partial | wrong | cited page (answerable) | page retrieved: hit@1 / hit@k / MRR@k |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        ret, k = r["retrieval"], r["retrieval"]["k"]
        print(f"| {r['set']} | {r['total']} | {r['correct']} | {r['partial']} | {r['wrong']} "
              f"| {r['cited_source']}/{r['answerable']} "
              f"| {ret['hit@1']:.2f} / {ret[f'hit@{k}']:.2f} / {ret[f'mrr@{k}']:.3f} (k={k}) |")
    if args.verbose:
        for r in results:
            for f in r["failures"]:
                print(f"\n[{r['set']}] {f['grade'].upper()}: {f['question']}\n  expected {f['expected']!r} "
                      f"from {f['source']}\n  got {f['answer']!r}\n  citing {f['cited']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
