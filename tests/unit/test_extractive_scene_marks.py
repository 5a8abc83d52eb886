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
