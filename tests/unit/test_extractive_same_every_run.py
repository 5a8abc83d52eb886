"""One answer every run: the answerer's choices do not follow the order Python gives a set of
words, which changes from process to process (``PYTHONHASHSEED``). A passage word that two
question stems begin ("trainer": "train" and "traine") is read as the shorter, its root; equal
scores summed in another order compare equal. The document is written for the test, in the shape
of a handbook page where two runs answered differently."""

from __future__ import annotations

import os
import subprocess
import sys

from ragkit.rag.extractive.engine import _candidate_order, _units
from ragkit.rag.extractive.units import Candidate
from ragkit.rag.passages import Passage

PAGE = (
    "## Checkout\n\n"
    "Trainers confirm each trainee's attendance after the event. Cancellations with less than one "
    "week's notice are treated as no-shows. If a trainee gives at least a week's notice, they keep "
    "their seat for the next training event.\n\n"
    "## Calendar\n\n"
    "The coordinator collects availability from Instructor Trainers and publishes a training calendar "
    "three times a year. Emergency situations are decided by the coordinator.\n"
)
QUESTION = ("If a trainee drops out of an instructor training event with only a couple of days' warning, "
            "how does the coordinator treat it?")


def _in_fresh_processes(script: str, seeds: range = range(8)) -> set[str]:
    """What ``script`` prints in a new interpreter for each hash seed."""
    return {
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.strip()
        for seed in seeds
    }


def test_a_passage_word_two_question_stems_begin_is_read_as_the_shorter() -> None:
    """Before, the stem read last in the set's order won: "train" in some runs, "traine" in others."""
    script = (
        "from ragkit.rag.extractive.engine import _aliases\n"
        "from ragkit.rag.passages import Passage\n"
        f"print(_aliases(frozenset({{'train', 'traine', 'event'}}), [Passage(1, {PAGE!r}, {{'source': 'a.md'}})])['trainer'])\n"
    )
    assert _in_fresh_processes(script) == {"train"}


def test_scores_equal_but_for_their_last_bits_keep_the_passage_order() -> None:
    """0.1 + 0.2 + 0.3 and 0.3 + 0.2 + 0.1 differ in the last bit: the sentence placed first wins either way."""
    units = _units([Passage(1, "Trainers confirm attendance. Trainees keep their seat.", {"source": "a.md"})])
    first, second = units[0], units[1]
    ordered = sorted([Candidate(0.1 + 0.2 + 0.3, second, 1.0, False), Candidate(0.3 + 0.2 + 0.1, first, 1.0, False)],
                     key=_candidate_order)
    assert 0.1 + 0.2 + 0.3 != 0.3 + 0.2 + 0.1
    assert [c.unit for c in ordered] == [first, second]


def test_the_answer_is_the_same_whatever_the_hash_seed() -> None:
    script = (
        "from ragkit.rag.extractive import extractive_answer\n"
        "from ragkit.rag.passages import Passage\n"
        f"print(extractive_answer({QUESTION!r}, [Passage(1, {PAGE!r}, {{'source': 'checkout.md'}})]))\n"
    )
    answers = _in_fresh_processes(script, range(4))
    assert len(answers) == 1, answers
    assert "no-shows" in answers.pop()
