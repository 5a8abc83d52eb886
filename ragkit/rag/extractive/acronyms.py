"""Acronyms a document spells out: "compound annual growth rate (CAGR)" defines CAGR, so a later
sentence that writes only "a CAGR of 6.2%" says "compound annual growth rate" too, in the words a
question may ask with (and a sentence that writes the words out says the acronym)."""

from __future__ import annotations

import re

from ragkit.rag.extractive.answer_type import expands
from ragkit.rag.extractive.text import WORD

#: an acronym in parentheses after its words: "(CAGR)", "(LLMs)", "(W3C)"
_DEFINED = re.compile(r"\(([A-Z][A-Za-z0-9]{0,7}?[A-Z0-9])s?\)")
_MAX_WORDS = 12  # an acronym's words are at most this many before its parenthesis
_LOOK_BACK = 160  # characters read before the parenthesis
MAX_ACRONYMS = 64  # a document's acronyms kept at most (bounded work on a hostile text)


def defined_acronyms(text: str) -> dict[str, str]:
    """The acronyms ``text`` defines, each with the words it stands for (the fewest words before
    its parenthesis that spell it: ``answer_type.expands``)."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        if len(found) >= MAX_ACRONYMS:
            break
        acronym = match.group(1)
        words = WORD.findall(text[max(0, match.start() - _LOOK_BACK):match.start()])[-_MAX_WORDS:]
        for k in range(2, len(words) + 1):
            phrase = " ".join(words[-k:])
            if words[-k][0].upper() == acronym[0] and expands(acronym, phrase):
                found.setdefault(acronym, phrase)
                break
    return found


#: acronyms that documentation writes without spelling them out: what they stand for is common
#: knowledge ("CLI Override: `--no-semi`" for "Which command line flag …?"); a document that
#: spells one out otherwise is read its way
WELL_KNOWN = {
    "CLI": "command line interface", "GUI": "graphical user interface", "OS": "operating system",
    "PR": "pull request", "PTO": "paid time off", "IDE": "integrated development environment",
    "VM": "virtual machine", "SSO": "single sign-on", "MFA": "multi-factor authentication",
    "2FA": "two-factor authentication",
}


def with_defined(known: dict[str, str], text: str) -> dict[str, str]:
    """``known`` and the acronyms ``text`` defines (``known``'s words kept for one it has), at
    most ``MAX_ACRONYMS``."""
    if len(known) >= MAX_ACRONYMS:
        return known
    merged = {**WELL_KNOWN, **known}
    for acronym, words in defined_acronyms(text).items():
        if merged.get(acronym, words) in (words, WELL_KNOWN.get(acronym)):  # the document's own reading first
            merged[acronym] = words
    return dict(list(merged.items())[:MAX_ACRONYMS])


def acronyms_in(text: str, defined: dict[str, str]) -> list[str]:
    """The spelled-out words of each defined acronym ``text`` writes (as a word, plural or not),
    and each acronym whose words it writes out."""
    out = []
    for acronym, phrase in defined.items():
        if re.search(rf"\b{re.escape(acronym)}s?\b", text):
            out.append(phrase)
        elif phrase.lower() in text.lower():
            out.append(acronym)
    return out
