"""The offline answerer's quality: correct / partial / wrong on the project's question sets.

Indexes each set's documents with a pipeline (default: ``pipelines/default.yaml``), asks every
question through ``RAGAgent`` with the ``local`` provider and a conversation memory (chat
follow-ups are asked after their earlier question), and grades the answers with
``ragkit.rag.questions`` (correct: every expected text and the expected source cited; partial:
one of the two; wrong: neither, or a refusal). Also prints the cited-page rate: answerable
questions whose answer cites the file that holds the answer.

    .venv/bin/python benchmarks/answer_quality.py                 # all four sets
    .venv/bin/python benchmarks/answer_quality.py --set howto -v  # one set, with every miss
    .venv/bin/python benchmarks/answer_quality.py --index-dir /tmp/aq  # keep the indexes between runs
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SETS = {  # name -> (documents, questions)
    "sample": (REPO / "data", REPO / "data" / "questions.yaml"),
    "howto": (REPO / "tests/fixtures/howto-docs/docs", REPO / "tests/fixtures/howto-docs/questions.yaml"),
    "realdocs": (REPO / "tests/fixtures/realdocs/docs", REPO / "tests/fixtures/realdocs/questions.yaml"),
    # written after the engine was tuned on the sets above, never tuned on
    "holdout": (REPO / "tests/fixtures/holdout/docs", REPO / "tests/fixtures/holdout/questions.yaml"),
}


def score_set(name: str, pipeline: Path, index_root: Path) -> dict:
    from ragkit.agent import ConversationMemory
    from ragkit.config import load_pipeline
    from ragkit.rag.agent import RAGAgent
    from ragkit.rag.questions import load_questions, run_questions, summary

    docs, questions = SETS[name]
    spec = load_pipeline(pipeline)
    with RAGAgent.from_directory(docs, pipeline=spec, index=index_root / name, provider="local",
                                 memory=ConversationMemory(max_messages=40)) as agent:
        outcomes = run_questions(agent, load_questions(questions))
    return {"set": name, **summary(outcomes)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="sets", action="append", choices=sorted(SETS),
                        help="question set to score (repeatable; default: all)")
    parser.add_argument("--pipeline", type=Path, default=REPO / "pipelines" / "default.yaml")
    parser.add_argument("--index-dir", type=Path, help="keep the indexes here (default: a temporary dir)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every answer that is not correct")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.index_dir or Path(tmp)
        results = [score_set(name, args.pipeline, root) for name in args.sets or list(SETS)]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"pipeline: {args.pipeline}")
    print("| set | questions | correct | partial | wrong | cited page (answerable) |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['set']} | {r['total']} | {r['correct']} | {r['partial']} | {r['wrong']} "
              f"| {r['cited_source']}/{r['answerable']} |")
    if args.verbose:
        for r in results:
            for f in r["failures"]:
                print(f"\n[{r['set']}] {f['grade'].upper()}: {f['question']}\n  expected {f['expected']!r} "
                      f"from {f['source']}\n  got {f['answer']!r}\n  citing {f['cited']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
