"""Questions about one release, and the sentences about another: "How many pull requests went
into NumPy 2.0.0?" is not answered by "NumPy 1.22.0 … 609 pull requests", and "On what date was
SQLAlchemy 2.0.0 released?" is answered by "Released: January 26, 2023" under the heading
"2.0.0" of a change log that never says "SQLAlchemy". A release is a version written as one
(``ragkit.retrieval.heading_match.release_versions``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragkit.retrieval.heading_match import release_versions

_RELEASE_WORD = re.compile(r"\b(?:versions?|releases?|series)\b", re.IGNORECASE)
_NUMBERED = re.compile(r"v?\d+(?:\.\d+)*", re.IGNORECASE)


def asks_release(question: str) -> bool:
    """Whether the question asks about a release it does not number ("which Black *release* …?",
    "the minimum HDF5 *version* since h5py 3.10 …", not "the NumPy 2.0.0 release" nor "version
    2.1"): the release the answer names is what it asks for."""
    for m in _RELEASE_WORD.finditer(question):
        before, after = question[: m.start()].split()[-1:], question[m.end():].split()[:1]
        if not any(_NUMBERED.fullmatch(w.strip(",.?;:()")) for w in before + after):
            return True
    return False


def same_release(version: str) -> str:
    """A version as a release: without a ``v`` before it nor ``.0`` parts after it ("v2.44.0" is
    "2.44"), so two ways of writing one release compare equal."""
    return re.sub(r"(?:\.0)+$", "", version.lower().lstrip("v"))


def another_release(text: str, versions: Iterable[str]) -> bool:
    """Whether ``text`` names a release and none of ``versions``, the question's: it is about
    another release. Not asked of a question that asks for a version or a release it does not
    number (``asks_release``): there the sentence's version is the answer."""
    named = {same_release(v) for v in release_versions(text, labelled=True)}
    return bool(named) and not named & {same_release(v) for v in versions}


def under_release(headings: Iterable[str], question: str) -> bool:
    """Whether ``headings`` (those above a sentence) name every release the question names (three
    dotted parts or more): the sentence is about the release asked for, whatever product name its
    document leaves unsaid."""
    releases = set(release_versions(question))
    return bool(releases) and releases <= set(release_versions(" ".join(headings)))


__all__ = ["another_release", "asks_release", "same_release", "under_release"]
