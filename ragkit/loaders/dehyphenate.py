"""Words a PDF's lines break with a hyphen, made whole again: ``learn-`` at the end of one line and
``ing`` at the start of the next are ``learning`` in the stored text, so search, the answerer and
a quoted answer see the word and not two pieces of it.

A word that the document writes with a hyphen elsewhere on one line (``large-scale``) keeps it;
every other break at a line's end before a lower-case letter is a syllable break (``regulariza-`` /
``tion``) and is joined. A soft hyphen (U+00AD) is a break the typesetter was allowed to make and
always goes. One pass over the text, each match bounded in length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: a word broken at a line's end: letters, a hyphen (ASCII or U+2010), the line break, lower-case
#: letters; each side at most 40 letters so a run of letters without a break costs a bounded try
_BROKEN = re.compile(r"(?<![^\W\d_])([^\W\d_]{1,40})[-\u2010]\n[ \t]*(?=[^\W\d_A-Z])([^\W\d_]{1,40})(?![^\W\d_])")
#: words written with a hyphen inside a line (the forms a break at that hyphen keeps)
_COMPOUND = re.compile(r"(?<![^\W\d_])([^\W\d_]{1,40})[-\u2010]([^\W\d_]{1,40})(?![^\W\d_])")
_SOFT = re.compile("\u00ad\n?[ \t]*")


def hyphenated_words(texts: Iterable[str]) -> frozenset[str]:
    """The hyphenated words written within one line anywhere in ``texts``, lower-cased (``large-scale``)."""
    return frozenset(f"{a}-{b}".lower() for text in texts for a, b in _COMPOUND.findall(text))


def dehyphenate(text: str, compounds: frozenset[str] = frozenset()) -> str:
    """``text`` with the words broken across lines joined (:mod:`ragkit.loaders.dehyphenate`);
    a break whose hyphenated form is in ``compounds`` keeps its hyphen."""
    def join(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        return f"{left}-{right}" if f"{left}-{right}".lower() in compounds else left + right

    return _BROKEN.sub(join, _SOFT.sub("", text))


__all__ = ["dehyphenate", "hyphenated_words"]
