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
"""

from __future__ import annotations

import unicodedata

#: below this many non-space characters a text is too short to judge
MIN_CHARS = 40
#: the share of characters in word-like tokens a text needs
MIN_WORDY = 0.5
#: the share of control, private-use, unassigned or replacement characters a text may have (a
#: math page whose minus signs have no mapping has a few per cent)
MAX_BROKEN = 0.3
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
    return None


def _broken(ch: str) -> bool:
    return ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Co", "Cn", "Cs")


def _wordlike(core: str) -> bool:
    alnum = sum(1 for ch in core if unicodedata.category(ch)[0] in "LNM")
    return alnum >= 0.6 * len(core)


__all__ = ["MAX_BROKEN", "MIN_CHARS", "MIN_WORDY", "garbage_reason"]
