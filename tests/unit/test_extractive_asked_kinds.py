"""What a number question asks for: a time is not a rate ("after how long … low interest"), a
length of time says "time", and "a single issue" is a number."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.answer_type import has_answer_type, quantity_measure
from ragkit.rag.passages import Passage


def _passage(source: str, heading: str, text: str) -> list[Passage]:
    return [Passage(1, f"## {heading}\n\n{text}", {"source": source, "heading": heading, "start": "0"})]


def test_a_question_that_asks_how_long_wants_no_rate_whatever_it_says() -> None:
    assert quantity_measure("After how long is a stalled proposal considered of low interest and closed?") is None
    assert quantity_measure("How much interest accrues on the loan?") == "rate"
    stalled = _passage("stalled.md", "Stalled proposals",
                       "If a proposal cannot find enough reviewers within 3 months it is considered of low interest "
                       "and closed.")
    answer = extractive_answer("After how long is a proposal without enough reviewers considered of low interest "
                               "and closed?", stalled)
    assert "3 months" in answer


def test_a_length_of_time_answers_how_much_time() -> None:
    lesson = _passage("lessons/json.md", "JSON > Assignment",
                      "Read the two JSON articles below and spend about 10-15 minutes on the exercises.")
    answer = extractive_answer("How much time does the JSON lesson suggest spending on the exercises?", lesson)
    assert answer != REFUSAL and "10-15 minutes" in answer


def test_single_and_once_are_numbers() -> None:
    assert has_answer_type("number", "Each contribution should focus on a single issue.", frozenset())
    assert has_answer_type("number", "The hook runs once per commit.", frozenset())
