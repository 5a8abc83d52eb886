"""Whether extracted text is words at all: the check that keeps a broken text layer out of the index.

A PDF whose fonts have no Unicode map extracts as symbol soup (``3G+G(3#3/@1 %*#!``) or control
and private-use characters. :func:`garbage_reason` measures, over the non-space characters, the
share that sits in word-like tokens: tokens at least 60% letters, digits and marks of any script
(words, numbers such as ``1,024.5``, ``H2O``, ``range(10)``, ``∑i=1``). Punctuation around a token
(quotes, brackets, a full stop) is ignored; a token of punctuation only (``—``, ``•``) counts
neither way. Text with at least
:data:`MIN_CHARS` such characters is garbage when less than :data:`MIN_WORDY` of them are
word-like, or when control, private-use or replacement characters make up more than
:data:`MAX_BROKEN` of it. Tables of figures, formulas amid prose, CJK and code pass.

A font whose encoding is broken in another way gives words split apart at kerning gaps
("P ageRank", "T he w eb") and digits as glyph names ("/1/5/0 million"): :func:`broken_words_reason`
finds such a text by the page's own vocabulary (a one-letter token that, joined to the next one,
makes a word the page has elsewhere: "T he" beside "the"), by letter-spaced text (most tokens
one letter) and by glyph-name digits; variables in formulas ("let x be") join into no word.
"""

from __future__ import annotations

import re
import unicodedata

#: below this many non-space characters a text is too short to judge
MIN_CHARS = 40
#: the share of characters in word-like tokens a text needs
MIN_WORDY = 0.5
#: the share of control, private-use, unassigned or replacement characters a text may have (a
#: math page whose minus signs have no mapping has a few per cent)
MAX_BROKEN = 0.3
#: a text is broken apart when this share of its words are split fragments that join into a word
#: it has elsewhere (and at least :data:`MIN_SPLITS` of them)
MAX_SPLIT = 0.05
MIN_SPLITS = 3
#: ... or when this share of its words are single letters in runs of three or more (letter-spaced text)
MAX_SINGLE_LETTERS = 0.5
#: ... or when it has this many numbers written as glyph names ("/1/5/0")
MIN_GLYPH_NUMBERS = 3
_MIN_WORDS = 20
_GLYPH_NUMBER = re.compile(r"(?:/(?:\d|zero|one|two|three|four|five|six|seven|eight|nine)){2,}[.,;:]?")
_EDGE = "\"'“”‘’«»()[]{}<>.,;:!?*-–—…/\\|•·"


def garbage_reason(text: str) -> str | None:
    """Why ``text`` is not words (``"62% of the characters are not in words"``), or None."""
    total = wordy = broken = 0
    for token in text.split():
        broken += sum(1 for ch in token if _broken(ch))
        core = token.strip(_EDGE)
        if not core:
            continue
        total += len(core)
        if _wordlike(core):
            wordy += len(core)
    if total < MIN_CHARS:
        return None
    if broken > MAX_BROKEN * total:
        return f"{broken} control or unmapped characters"
    if wordy < MIN_WORDY * total:
        return f"{round(100 * (total - wordy) / total)}% of the characters are not in words"
    return broken_words_reason(text)


def broken_words_reason(text: str) -> str | None:
    """Why ``text`` is words broken apart by a bad font encoding (``"words broken apart: 14 split
    like 'T he'"``), or None."""
    tokens = text.split()
    glyph_numbers = sum(1 for t in tokens if _GLYPH_NUMBER.fullmatch(t))
    if glyph_numbers >= MIN_GLYPH_NUMBERS:
        example = next(t for t in tokens if _GLYPH_NUMBER.fullmatch(t))
        return f"words broken apart: {glyph_numbers} numbers written as glyph names like {example!r}"
    words = [w for w in (t.strip(_EDGE) for t in tokens) if w.isalpha()]
    if len(words) < _MIN_WORDS:
        return None
    spaced = _letter_spaced(tokens)
    if spaced > MAX_SINGLE_LETTERS * len(words):
        return f"words broken apart: {round(100 * spaced / len(words))}% of the words are letters spaced apart"
    vocabulary = {w.lower() for w in words}
    splits = [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)
              if len(a) == 1 and b[0].islower() and (a + b).lower() in vocabulary]
    if len(splits) >= MIN_SPLITS and len(splits) > MAX_SPLIT * len(words):
        return f"words broken apart: {len(splits)} split like {splits[0]!r}"
    return None


def _letter_spaced(tokens: list[str]) -> int:
    """How many of ``tokens`` are single letters in runs of three or more ("T h e")."""
    count = run = 0
    for token in [*tokens, ""]:
        if len(token) == 1 and token.isalpha():
            run += 1
            continue
        count += run if run >= 3 else 0
        run = 0
    return count


def _broken(ch: str) -> bool:
    return ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Co", "Cn", "Cs")


def _wordlike(core: str) -> bool:
    alnum = sum(1 for ch in core if unicodedata.category(ch)[0] in "LNM")
    return alnum >= 0.6 * len(core)


__all__ = ["MAX_BROKEN", "MAX_SINGLE_LETTERS", "MAX_SPLIT", "MIN_CHARS", "MIN_GLYPH_NUMBERS", "MIN_SPLITS",
           "MIN_WORDY", "broken_words_reason", "garbage_reason"]
