"""Caption files (.vtt, .srt, .sbv): the words spoken as running paragraphs, without cue numbers,
timing lines or tags, so a sentence cut over three cues is one sentence again and an answer is no
cue's fragment with its timestamps. Each file is written by the test in the shape its format has."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.loaders.subtitles import caption_text
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from ragkit.types import Document

VTT = """\ufeffWEBVTT - Tide gauges on the web
Kind: captions

NOTE written for the test

STYLE
::cue { color: yellow }

slide-1
0:00:08.160 --> 0:00:10.320
<v Ada Quill>Hello, I'm Ada Quill.</v>

2
0:00:10.320 --> 0:00:15.320 line:15%
Each inference of the upsampling model
gets <i>four to eight</i> milliseconds

3
0:00:15.320 --> 0:00:17.840
before frames are dropped &amp; lost.

4
0:00:30.000 --> 0:00:33.000
<v Tom Reed>Thanks, Ada. Next slide.
"""

SRT = """1
00:00:01,000 --> 00:00:04,000
{\\an8}The harbour gauge logs the sea level

2
00:00:04,000 --> 00:00:06,500
every six minutes.
"""

ROLLING = """WEBVTT

00:00:01.000 --> 00:00:03.000
the buoy reports
<00:00:02.000><c>its</c><00:00:02.500><c> depth</c>

00:00:03.000 --> 00:00:05.000
its depth
every hour at the hour.

00:00:05.000 --> 00:00:07.000
every hour at the hour.
"""

SBV = """0:00:00.030,0:00:10.010
So the gauge is calibrated

0:00:10.010,0:00:16.109
once a month by the harbour master.
"""

MACHINE = """0:00:00.030,0:00:10.010
okay so let's get back to the gauges that we

0:00:10.010,0:00:16.109
started last week right and so let's restart

0:00:16.109,0:00:22.140
by having a quick review of the buoys
"""


def _load(tmp_path: Path, name: str, text: str) -> Document:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert loader_name_for(path) == "subtitles"
    (doc,) = loaders.get("subtitles")().load(path, source=name)
    return doc


def test_cues_are_joined_into_paragraphs_without_numbers_timings_or_tags(tmp_path: Path) -> None:
    doc = _load(tmp_path, "talk.vtt", VTT)
    assert doc.metadata["title"] == "Tide gauges on the web" and doc.metadata["mime"] == "text/vtt"
    assert doc.text.strip().split("\n\n") == [
        "Ada Quill: Hello, I'm Ada Quill. Each inference of the upsampling model gets four to eight milliseconds "
        "before frames are dropped & lost.",
        "Tom Reed: Thanks, Ada. Next slide.",  # a pause of over two seconds, and another voice
    ]
    assert "-->" not in doc.text and "slide-1" not in doc.text and "Kind:" not in doc.text and "cue" not in doc.text


def test_subrip_and_subviewer_files_read_the_same_way(tmp_path: Path) -> None:
    srt = _load(tmp_path, "gauge.srt", SRT)
    assert srt.text.strip() == "The harbour gauge logs the sea level every six minutes."
    assert srt.metadata["title"] == "gauge"
    sbv = _load(tmp_path, "lecture.sbv", SBV)
    assert sbv.text.strip() == "So the gauge is calibrated once a month by the harbour master."


def test_a_line_rolled_up_into_the_next_cue_is_read_once(tmp_path: Path) -> None:
    assert _load(tmp_path, "auto.vtt", ROLLING).text.strip() == "the buoy reports its depth every hour at the hour."


def test_captions_without_sentences_keep_each_cue_apart(tmp_path: Path) -> None:
    """A machine's captions have no punctuation: joined, a paragraph is one "sentence" of hundreds
    of words, quoted for any question its words match; each cue stays a paragraph of its own."""
    assert _load(tmp_path, "auto.sbv", MACHINE).text.strip().split("\n\n") == [
        "okay so let's get back to the gauges that we", "started last week right and so let's restart",
        "by having a quick review of the buoys"]


def test_a_file_without_cues_is_read_as_text(tmp_path: Path) -> None:
    text = "Notes for the talk, no captions yet.\n"
    assert _load(tmp_path, "draft.vtt", text).text == text
    assert caption_text("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\none cue only\n") is None


def test_an_answer_is_the_spoken_sentence_not_a_cue_fragment(tmp_path: Path) -> None:
    """Read as text, the answer was a cue with its number and timing line ("2 0:00:10.320 --> …
    Each inference of the upsampling model"), cut before the figure asked for."""
    doc = _load(tmp_path, "talk.vtt", VTT)
    answer = extractive_answer("How long does each inference of the upsampling model get?",
                               [Passage(1, doc.text, {"source": "talk.vtt", "title": doc.metadata["title"]})])
    assert "four to eight milliseconds" in answer and "-->" not in answer
