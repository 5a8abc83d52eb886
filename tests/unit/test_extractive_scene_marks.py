"""An acronym or code the question's scene names ("I'm wrapping a raw TCP socket …") need not be
in the passages; one the asking sentence names still must. Documents written for the test."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

PASSAGE = Passage(1, "# Buffers\n\nThe harbour buffer holds messages until the quay reads them. Its maximum size "
                     "defaults to 32 kilobytes; a fuller buffer raises an error.", {"source": "buffers.md"})


def test_an_acronym_of_the_scene_need_not_be_in_the_passages() -> None:
    answer = extractive_answer("I'm reading NMEA sentences from a GPS receiver. What is the maximum size of the "
                               "harbour buffer by default?", [PASSAGE])
    assert "32 kilobytes" in answer


def test_an_acronym_the_asking_sentence_names_must_be() -> None:
    answer = extractive_answer("What is the maximum size of the NMEA buffer by default?", [PASSAGE])
    assert "knowledge base does not contain" in answer


def test_the_first_word_of_a_later_sentence_is_no_name_for_its_capital() -> None:
    """"… this spring. Apart from the paid months …": "Apart" is capitalised as a sentence's first
    word is, as the question's own first word is; before, it was read as a name no passage says, and
    the question was refused. A name inside a sentence still is one."""
    from ragkit.rag.extractive.query import read_question

    leave = [Passage(1, "## Parental leave\n\nThe guild tops up statutory parental pay to full pay for the first "
                        "four months. New parents are entitled to up to 52 weeks of unpaid parental leave, which they "
                        "may take in one or two blocks.", {"source": "handbook/parental-leave.md"})]
    question = ("My partner and I are expecting a child this spring. Apart from the paid months the guild tops up, "
                "how many weeks of unpaid parental leave can a new parent take?")
    assert "52 weeks" in extractive_answer(question, leave)
    assert read_question(question).names == frozenset()
    assert "iri" in read_question("We run Iris 3.0 on Linux. What changed for Iris users in 3.1?").names
