"""Subtitles and captions (``.srt``, ``.vtt``, ``.sbv``; loader ``subtitles``): the words spoken, as paragraphs.

A caption file cuts speech into cues of a few words, each under a number and a timing line
(``147`` / ``0:08:14.990 --> 0:08:19.203``). Read as text, those lines sat inside the sentences
they split, and an answer was a cue's fragment with its timestamps ("147 0:08:14.990 --> …
public samples in GitHub called the Super Resolution Demo."). Here the cues' text is joined into
running paragraphs, so a sentence spread over three cues is one sentence again:

- a cue's number or identifier and its timing line (with WebVTT's cue settings, ``line:15%``; a
  YouTube ``.sbv`` file's ``0:00:00.030,0:00:10.010``) are left out, as are the ``WEBVTT`` header's other lines and WebVTT's ``NOTE``, ``STYLE`` and
  ``REGION`` blocks; a title on the header line (``WEBVTT - Keynote``) is the document's ``title``,
  else the file stem;
- tags (``<i>``, ``<c.yellow>``, SubRip's ``{\\an8}``, a karaoke cue's ``<00:00:01.000>``) are taken out
  and their text kept; ``&amp;``, ``&lt;``, ``&gt;`` and ``&nbsp;`` read as what they stand for;
- a new paragraph starts where the speech pauses (``PAUSE_S`` between one cue's end and the next
  one's start) or a WebVTT voice changes (``<v Ann>``: the paragraph opens with ``Ann:``);
- a line a cue repeats from the cue before (captions that roll up, two lines at a time) is read once;
- captions not written in sentences (a machine's, unpunctuated: fewer sentence ends than one per
  ``_SENTENCE_WORDS`` words) keep each cue a paragraph of its own: joined, a paragraph would be one
  "sentence" of hundreds of words, quoted for any question its many words match.

A file with fewer than ``MIN_CUES`` timing lines is no caption file: it is read as the text loader
reads it. One pass over the lines, in time linear in the file (``read_text`` bounds its size).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ragkit.loaders.base import Loader, read_text
from ragkit.registry import loaders
from ragkit.types import Document

PAUSE_S = 2.0  # a silence this long between cues starts a new paragraph
MIN_CUES = 2  # a file with fewer timing lines is read as text
_TIME = r"(?:(\d{1,3}):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_TIME}\s*(?:-->|,)\s*{_TIME}(?:\s.*)?$")  # SubRip, WebVTT; SubViewer's ","
_TAG = re.compile(r"<[^<>\n]{0,200}>|\{\\[^{}\n]{0,50}\}")  # <i>, <c.x>, <v Ann>, <00:00:01.000>, {\an8}
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^<>\n]{1,80}?)\s*>")
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&nbsp;": " ", "&lrm;": "", "&rlm;": ""}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))
_SKIPPED_BLOCKS = ("NOTE", "STYLE", "REGION")
_MIMES = {".vtt": "text/vtt", ".sbv": "text/x-sbv"}
_SENTENCE_END = re.compile(r"[.?!…][\"'”’)\]]*(?=\s|$)|[。！？]")
_SENTENCE_WORDS = 40  # captions with fewer sentence ends than one per this many words are not in sentences


@loaders.register("subtitles")
class SubtitlesLoader(Loader):
    """Reads a SubRip or WebVTT file as the paragraphs its cues' text makes; a file that has no
    cues as plain text."""

    name = "subtitles"
    mime = "text/vtt"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        text = read_text(path)
        read = caption_text(text)
        if read is None:
            return iter([Document(text=text, metadata=self._metadata(source, title=path.stem))])
        body, title = read
        mime = _MIMES.get(path.suffix.lower(), "application/x-subrip")
        return iter([Document(text=body, metadata={**self._metadata(source, title=title or path.stem), "mime": mime})])


def _seconds(hours: str | None, minutes: str, seconds: str, fraction: str) -> float:
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(fraction.ljust(3, "0")) / 1000


def _cue_text(line: str) -> str:
    return " ".join(_ENTITY.sub(lambda m: _ENTITIES[m.group()], _TAG.sub("", line)).split())


def caption_text(text: str) -> tuple[str, str] | None:
    """The spoken text of a SubRip or WebVTT file as paragraphs, and the title its ``WEBVTT``
    header line gives ("" for none); None when it has fewer than ``MIN_CUES`` cues."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    title = ""
    if lines and lines[0].lstrip("\ufeff").startswith("WEBVTT"):
        title = lines[0].lstrip("\ufeff")[len("WEBVTT"):].strip(" \t-")
    paragraphs: list[list[str]] = []
    cues = 0
    previous_end: float | None = None
    voice = ""
    last_line = ""
    in_cue = skipping = False
    for i, line in enumerate(lines):
        if not line.strip():
            in_cue = skipping = False
            continue
        timing = _TIMING.match(line)
        if timing:
            cues += 1
            groups = timing.groups()
            start, end = _seconds(*groups[:4]), _seconds(*groups[4:])
            if previous_end is None or start - previous_end >= PAUSE_S:
                paragraphs.append([])
            previous_end = end
            in_cue, skipping = True, False
            continue
        if skipping:
            continue
        if not in_cue:
            # a block's first line: a cue's number or identifier (its timing line follows), the
            # header's other lines, a NOTE, STYLE or REGION block
            skipping = line.split(maxsplit=1)[0] in _SKIPPED_BLOCKS or cues == 0 or (
                i + 1 < len(lines) and _TIMING.match(lines[i + 1]) is not None)
            if skipping:
                continue
        spoken = _VOICE.search(line)
        said = _cue_text(line)
        if not said or said == last_line:  # a rolled-up line, shown again in the next cue
            continue
        last_line = said
        if spoken and spoken.group(1).strip(" -") and spoken.group(1) != voice:
            voice = spoken.group(1)
            paragraphs.append([f"{_cue_text(voice)}:"])
        if not paragraphs:
            paragraphs.append([])
        paragraphs[-1].append(said)
    if cues < MIN_CUES:
        return None
    said = [" ".join(p) for p in paragraphs if p]
    if not _punctuated(said):  # machine captions: no sentences to join, each cue is a unit of its own
        said = [cue for p in paragraphs for cue in p]
    return "\n\n".join(said).strip() + "\n", title


def _punctuated(paragraphs: list[str]) -> bool:
    """Whether the captions are written in sentences: a sentence's end for every ``_SENTENCE_WORDS``
    words or fewer. Machine captions ("so let's get back to the auto-encoders that we have started")
    are not: joined, a paragraph would be one sentence of hundreds of words that matches any question."""
    words = sum(len(p.split()) for p in paragraphs)
    ends = sum(len(_SENTENCE_END.findall(p)) for p in paragraphs)
    return ends * _SENTENCE_WORDS >= words


__all__ = ["MIN_CUES", "PAUSE_S", "SubtitlesLoader", "caption_text"]
