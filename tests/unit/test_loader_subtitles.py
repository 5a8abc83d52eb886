"""Caption files (``.srt``, ``.vtt``, ``.sbv``) are read as their spoken text in paragraphs, with
no cue numbers, timing lines or tags; the files are written for the test."""

from __future__ import annotations

import random
from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.loaders.subtitles import subtitles_text
from ragkit.registry import loaders

SRT = """1
00:00:01,000 --> 00:00:03,500
Welcome back. Today we look at

2
00:00:03,600 --> 00:00:06,000
<i>kiln schedules</i> for stoneware,

3
00:00:06,100 --> 00:00:08,000
which fire to cone 6.

4
00:00:15,000 --> 00:00:17,000
{\\an8}After the break: glazes.
"""

VTT = """WEBVTT - lecture 4

NOTE recorded in hall B

STYLE
::cue { color: yellow }

intro
00:01.000 --> 00:04.000 align:start position:10%
<v Dana Ruiz>Hold the pot <c.yellow>at a 45 degree angle</c>

00:04.000 --> 00:06.000
<v Dana Ruiz>while you dip it.

00:06.500 --> 00:08.000
<v Sam Okafor>How long should the dip take?

00:08.000 --> 00:10.000
<v Dana Ruiz>Three <00:00:08.500>seconds.
"""

SBV = """0:00:00.030,0:00:01.170
OK, so first of all

0:00:01.170,0:00:03.029
the glaze settles overnight
the glaze settles overnight

0:00:03.029,0:00:05.000
so stir it before you dip.
"""


def test_a_subrip_file_is_its_spoken_text_in_paragraphs() -> None:
    text = subtitles_text(SRT)
    assert text == ("Welcome back. Today we look at kiln schedules for stoneware, which fire to cone 6.\n\n"
                    "After the break: glazes.\n")


def test_a_webvtt_files_voices_name_their_speaker_and_its_blocks_are_left_out() -> None:
    text = subtitles_text(VTT)
    assert text == ("Dana Ruiz: Hold the pot at a 45 degree angle while you dip it.\n\n"
                    "Sam Okafor: How long should the dip take?\n\nDana Ruiz: Three seconds.\n")


def test_a_youtube_caption_file_is_read_and_a_rolling_line_read_once() -> None:
    assert subtitles_text(SBV) == "OK, so first of all the glaze settles overnight so stir it before you dip.\n"


def test_a_long_talk_without_pauses_is_cut_at_sentence_ends() -> None:
    cues = "\n".join(f"{i + 1}\n00:{i // 60:02d}:{i % 60:02d},000 --> 00:{i // 60:02d}:{i % 60:02d},900\n"
                     f"Sentence number {i} says a few more words here.\n" for i in range(200))
    paragraphs = subtitles_text(cues).strip().split("\n\n")
    assert len(paragraphs) > 5 and all(p.endswith(".") for p in paragraphs)
    assert all(len(p.split()) <= 130 for p in paragraphs)


def test_a_file_that_is_mostly_not_cues_is_read_as_it_is() -> None:
    notes = "Transcript notes\n\nThe speaker used slides.\n\n00:00:01,000 --> 00:00:02,000\nHello\n\nMore notes.\n"
    assert subtitles_text(notes) == notes


def test_caption_files_go_to_the_subtitles_loader(tmp_path: Path) -> None:
    for name in ("talk.srt", "talk.vtt", "lecture01.sbv"):
        assert loader_name_for(Path(name)) == "subtitles"
    path = tmp_path / "lecture04.vtt"
    path.write_text(VTT, encoding="utf-8")
    [doc] = list(loaders.get("subtitles")().load(path, source=path.name))
    assert doc.metadata["title"] == "lecture04" and "00:01.000" not in doc.text and "Three seconds." in doc.text


def test_random_caption_like_text_never_breaks_the_reader() -> None:
    rng = random.Random(7)
    pieces = ["1", "00:00:01,000 --> 00:00:02,000", "0:00:01.0,0:00:02.0", "WEBVTT", "NOTE x", "<v A>hi", "<i>",
              "{\\an8}", "", "text line.", "-->", "00:00", ",", "<v >", "\u00a0"]
    for _ in range(300):
        text = "\n".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        out = subtitles_text(text)
        assert isinstance(out, str)
