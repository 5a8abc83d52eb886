"""Subtitles and captions (``.srt``, ``.vtt``, ``.sbv``; loader ``subtitles``), read with no extra
package.

A caption file cuts speech into cues of a few words, each with its timing line (SubRip's
``00:01:02,500 --> 00:01:05,000`` under a cue number, WebVTT's ``00:01:02.500 --> …`` with cue
settings after it, YouTube's ``0:01:02.500,0:01:05.000``). Read as text, every chunk would be half
timestamps and a sentence would be cut at every cue. The loader writes the spoken text out as
paragraphs instead: the cues' lines joined, a new paragraph at a pause (``_PAUSE`` seconds), when the
speaker changes (WebVTT's ``<v Name>``, which becomes "Name: "), or after a paragraph's worth of words
at a sentence's end. Cue numbers, timing lines, WebVTT's header and its ``NOTE``, ``STYLE`` and
``REGION`` blocks, markup tags (``<i>``, ``<c.yellow>``, inline timestamps) and SubStation overrides
(``{\\an8}``) are dropped, and a line that repeats the line before it (the rolling captions of
automatic subtitles) is read once. A file of which fewer than half the blocks are cues is no
caption file and is read as the text it is. One pass over the lines.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.loaders.base import MarkupLoader
from ragkit.registry import loaders

_TIME = r"(?:(\d{1,3}):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
#: SubRip's and WebVTT's timing line (cue settings may follow), or YouTube's ``start,end``
_TIMING = re.compile(rf"^\s*{_TIME}\s*(?:-->\s*{_TIME}(?:\s.*)?|,\s*{_TIME})\s*$")
_TAG = re.compile(r"<[^<>\n]{0,200}>")
_VOICE = re.compile(r"^\s*<v(?:\.[\w.-]+)?\s+([^<>\n]{1,100})>")
_OVERRIDE = re.compile(r"\{\\[^{}\n]{0,200}\}")
_VTT_BLOCKS = ("NOTE", "STYLE", "REGION")
_PAUSE = 3.0  # seconds of silence between cues that start a new paragraph
_PARAGRAPH_WORDS = 120  # a paragraph this long ends at the next sentence's end
_MAX_PARAGRAPH_WORDS = 400  # … and at the next cue at the latest
_SENTENCE_END = re.compile(r"[.?!…][\"')\]]*$")


@loaders.register("subtitles")
class SubtitlesLoader(MarkupLoader):
    """One document of a caption file: its spoken text in paragraphs, no timing."""

    name = "subtitles"
    mime = "text/vtt"
    version = 1

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        return subtitles_text(text), None


def _seconds(groups: tuple[str | None, ...]) -> float:
    hours, minutes, seconds, fraction = groups
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(seconds or 0) + float(f"0.{fraction or 0}")


def subtitles_text(text: str) -> str:
    """The spoken text of caption file ``text`` as paragraphs (see the module docstring); ``text``
    itself when fewer than half its blocks are cues."""
    blocks = [b for b in re.split(r"\n[ \t]*\n", text.strip()) if b.strip()]
    cues: list[tuple[float, float, list[str]]] = []
    for block in blocks:
        lines = block.split("\n")
        timing = next((m for line in lines[:2] if (m := _TIMING.match(line))), None)
        if timing is None:
            continue  # a cue number alone, the WEBVTT header, a NOTE, STYLE or REGION block
        groups = timing.groups()
        end = groups[4:8] if groups[5] is not None else groups[8:12]
        at = next(i for i, line in enumerate(lines) if line == timing.string)
        cues.append((_seconds(groups[0:4]), _seconds(end), lines[at + 1:]))
    spoken = [b for b in blocks if not b.lstrip().startswith(("WEBVTT", *_VTT_BLOCKS))]
    if not cues or len(cues) * 2 < len(spoken):
        return text
    paragraphs: list[list[str]] = []
    words = 0
    last_end: float | None = None
    last_line = speaker = ""
    for start, end, lines in cues:
        pause = last_end is not None and start - last_end >= _PAUSE
        last_end = end
        for raw in lines:
            voice = _VOICE.match(raw)
            line = " ".join(_TAG.sub("", _OVERRIDE.sub("", raw)).split())
            if not line or line == last_line:
                continue
            said_by = voice.group(1).strip() if voice else speaker
            if (not paragraphs or pause or said_by != speaker
                    or words >= _PARAGRAPH_WORDS and _SENTENCE_END.search(last_line)
                    or words >= _MAX_PARAGRAPH_WORDS):
                paragraphs.append([f"{said_by}: {line}" if said_by else line])
                words = 0
            else:
                paragraphs[-1].append(line)
            pause = False
            speaker, last_line = said_by, line
            words += len(line.split())
    return "\n\n".join(" ".join(p) for p in paragraphs) + "\n"
