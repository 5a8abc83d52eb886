"""A default said in words ("If not explicitly set, the first free berth is used") answers a
question asking what happens when nothing is set; a sentence that gives an example of the one
before it ("For instance: %h for the height") is read with it. Written for the shape of a class
reference's member descriptions."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

_PIER = [
    Passage(1, "## initial_berth\n\ntype: Berth\n\nThe berth that becomes active when the pier is opened using the "
               "set_open method. If not explicitly set, the first free berth of the Pier will be considered the initial "
               "berth.", {"source": "Pier.xml", "heading": "Pier > initial_berth"}),
    Passage(2, "## set_open\n\nWhen set to `true`, switches the pier to initial_berth and starts docking according to "
               "dock_mode.", {"source": "Pier.xml", "heading": "Pier > set_open"}),
]

_GAUGE = [
    Passage(1, "## label\n\ntype: String\n\nThe text to be shown, which can include multiple placeholders to be "
               "substituted with format arguments. These placeholders follow the same format as C's printf and "
               "typically start with '%' followed by a format specifier. For instance: %t for time, %h for height, "
               "%s for station.", {"source": "Gauge.xml", "heading": "Gauge > label"}),
    Passage(2, "# Gauge\n\nGauge action task that shows a label with format arguments beside each reading of the text.",
            {"source": "Gauge.xml", "heading": "Gauge"}),
]


def test_a_default_said_in_words_answers_what_happens_when_nothing_is_set() -> None:
    answer = extractive_answer("If I never set initial_berth on a Pier, which berth becomes active when the pier "
                               "is opened?", _PIER)
    assert "If not explicitly set, the first free berth of the Pier" in answer, answer


def test_an_example_sentence_is_read_with_the_sentence_it_illustrates() -> None:
    answer = extractive_answer("In a Gauge label's text, which placeholder do I write to insert the height format "
                               "argument?", _GAUGE)
    assert "%h for height" in answer, answer
