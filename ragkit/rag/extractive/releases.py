"""Questions about one release, and the sentences about another: "How many pull requests went
into NumPy 2.0.0?" is not answered by "NumPy 1.22.0 … 609 pull requests", and "On what date was
SQLAlchemy 2.0.0 released?" is answered by "Released: January 26, 2023" under the heading
"2.0.0" of a change log that never says "SQLAlchemy". A release is a version written as one
(``ragkit.retrieval.heading_match.release_versions``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragkit.rag.extractive.text import STOPWORDS
from ragkit.retrieval.heading_match import release_versions, written_versions
from ragkit.retrieval.name_match import (
    asks_first_release,
    dotted_releases,
    numbering_first_release,
    release_key,
)

_RELEASE_WORD = re.compile(r"\b(?:versions?|releases?|series)\b", re.IGNORECASE)
_NUMBERED = re.compile(r"v?\d+(?:\.\d+)*", re.IGNORECASE)
_ARTICLES = frozenset({"the", "a", "an"})
_WINDOW = 200  # characters read on either side of a release word for the words beside it


def asks_release(question: str, *, version: bool = True) -> bool:
    """Whether the question asks about a release it does not number ("which Black *release* …?",
    "the minimum HDF5 *version* since h5py 3.10 …", not "the NumPy 2.0.0 release" nor "version
    2.1"): the release the answer names is what it asks for. Without ``version``, only "release"
    and "series" ask for one ("Which Python *version* did Bokeh 3.5.0 drop?" asks for Python's).
    A release word set after a numbered release, between commas, describes it ("On what date was
    Nix 2.0, the release that introduced …, published?")."""
    for m in _RELEASE_WORD.finditer(question):
        if not version and m.group().lower().startswith("version"):
            continue
        # the two words before it and the one after, read from a bounded window of the question
        words = question[max(0, m.start() - _WINDOW): m.start()].rsplit(None, 2)[-2:]
        before, after = words[-1:], question[m.end(): m.end() + _WINDOW].split(None, 1)[:1]
        if len(words) >= 2 and words[-1].lower() in _ARTICLES and words[-2].endswith(","):
            before = [words[-2]]  # "Nix 2.0, the release that …"
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


_FILE_RELEASE = re.compile(r"(?<![A-Za-z0-9.])v?(\d+(?:\.\d+)+)(?![\w])")


def file_releases(source: str) -> list[str]:
    """The releases a file's name writes (its last part, without the extension): "5.5" of
    ``whatsnew-5.5.rst``, "3.5" of ``CHANGELOG-3.5.md``, "1.17.0" of ``1.17.0-notes.rst``, "0.4.0"
    of ``release_0_4_0.md``; a release notes folder names each file for its release."""
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if re.search(r"\.[A-Za-z]\w*$", name) else name
    return _FILE_RELEASE.findall(dotted_releases(stem))


def first_release_numbered(question: str, sources: Iterable[str]) -> str:
    """``question`` numbering the release it asks about when it asks for the first one ("When did
    the very first Gammapy release come out?") and the ``sources`` (the passages' files) are named
    for two releases or more: the lowest of them, which retrieval brings for such a question
    (``ragkit.retrieval.name_match``). Unchanged otherwise."""
    if not asks_first_release(question):
        return question
    named = {r for s in sources if len(found := file_releases(s)) == 1 for r in found}
    if len({same_release(r) for r in named}) < 2:
        return question
    return numbering_first_release(question, min(named, key=release_key))


_FILE_DATE = re.compile(r"^(\d{4})[-_](\d{2})[-_](\d{2})(?!\d)")


def file_date(source: str) -> str:
    """The date a file's name opens with, as ``YYYY-MM-DD`` ("2025-01-27" of
    ``_posts/2025-01-27-jekyll-4-4-0-released.markdown``, of ``minutes/2021_04_26.md``): a blog
    post or a meeting's minutes is dated so, and its text often says the date nowhere else."""
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    match = _FILE_DATE.match(name)
    return "-".join(match.groups()) if match else ""


def another_file_release(source: str, versions: Iterable[str]) -> bool:
    """Whether ``source``'s name writes a release and none of ``versions`` (the question's) nor a
    release of their series: ``changelog-4.3.rst`` is about another release than "Celery 5.5", and
    ``3.5.4.rst`` is not (3.5.4 is of the 3.5 series), nor, for "3.5.4", is ``CHANGELOG-3.5.md``."""
    named, asked = file_releases(source), list(versions)
    return bool(named and asked) and not any(_of_release(n, a) for n in named for a in asked)


def _of_release(one: str, other: str) -> bool:
    """Whether two releases are one, or one is of the other's series ("3.5.4" of "3.5"); releases
    of as many parts are one only when equal ("0.4.7" is not "0.4.0", "v2.44.0" is "2.44.0")."""
    a, b = one.lower().lstrip("v").split("."), other.lower().lstrip("v").split(".")
    if len(a) == len(b):
        return same_release(one) == same_release(other)
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return long[: len(short)] == short


def under_release(headings: Iterable[str], question: str) -> bool:
    """Whether ``headings`` (those above a sentence) name every release the question names (three
    dotted parts or more, or two after a product's name: "Gunicorn 20.0" under "20.0 /
    2019/10/30"): the sentence is about the release asked for, whatever product name its document
    leaves unsaid."""
    releases = set(release_versions(question)) | {v for _, v in product_releases(question)}
    return bool(releases) and releases <= set(written_versions(" ".join(headings)))


#: a release written after the name of what it is a release of: "Gammapy 3.0", "etcd 2.3.8"
_PRODUCT_RELEASE = re.compile(r"\b([A-Za-z][\w+-]*)\s+v?(\d+(?:\.\d+)+)(?![\d.]*\w)")
_DOTTED_RELEASE = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+)")
_NOT_PRODUCTS = STOPWORDS | {"version", "versions", "release", "releases", "v", "since", "before", "after", "until"}


def product_releases(question: str) -> list[tuple[str, str]]:
    """The (product, version) pairs ``question`` writes as a release of a named thing: ("Gammapy",
    "3.0") of "What does Gammapy 3.0 require?"; not "version 3.0" nor "since 3.0"."""
    return [(product, version) for product, version in _PRODUCT_RELEASE.findall(question)
            if product.lower() not in _NOT_PRODUCTS]


#: the product whose version a question asks for: "Which Kotlin version …", "the first Python release …",
#: "which version of Kotlin …"
_ASKED_PRODUCT = (re.compile(r"\b([A-Z][\w+-]*)\s+(?:versions?|releases?)\b(?!\s+v?\d)"),
                  re.compile(r"\b(?:versions?|releases?)\s+of\s+([A-Z][\w+-]*)\b(?!\s+v?\d)"),
                  re.compile(r"\b(?i:oldest|newest|latest|earliest|lowest|highest|minimum|maximum)\s+"
                             r"(?:(?i:supported)\s+)?([A-Z][\w+-]*(?:\.[A-Za-z]+)?)\b(?!\s+v?\d)"))


def asked_product(question: str) -> str:
    """The named product whose version or release ``question`` asks for ("Kotlin" of "In which Kotlin
    version was Uuid first implemented?", "Node.js" of "… the oldest Node.js …"), or "" (none
    named, or one it numbers: "Kotlin 2.0")."""
    for pattern in _ASKED_PRODUCT:
        for match in pattern.finditer(question):
            if match.group(1).lower() not in _NOT_PRODUCTS:
                return match.group(1)
    return ""


def releases_of(text: str, product: str) -> bool:
    """Whether ``text`` writes a release right after ``product``'s name ("Implemented in Kotlin
    2.0.20-Beta2" for Kotlin): the release is the product's, not a UUID's "version 4"."""
    return any(name.lower() == product.lower() for name, _ in _PRODUCT_RELEASE.findall(text))


#: a version after a comparison is one a requirement names: "scipy >= 1.13", "numpy<2.0"
_REQUIRED = re.compile(r"([\w.-]+)\s*(?:>=|<=|==|~=|!=|>|<)\s*$")


def of_product(text: str, product: str, version: str) -> bool:
    """Whether ``text`` writes ``version`` other than as the release of another named product: after
    the product, after a word in lower case or none ("in 3.0", a heading "3.0"), not only after
    another capitalised name ("Astropy 3.0" for "Gammapy 3.0") nor in another's requirement
    ("scipy >= 1.13")."""
    wanted = same_release(version)
    for match in _DOTTED_RELEASE.finditer(text):
        if same_release(match.group(1)) != wanted:
            continue
        lead = text[max(0, match.start() - 60):match.start()]  # the word before it, if a space parts them
        if required := _REQUIRED.search(lead):  # "scipy >= 1.13" is a requirement on scipy
            if required.group(1).strip("([{\"'`*_:,;").lower() == product.lower():
                return True
            continue
        before = lead.split()[-1].strip("([{\"'`*_:,;") if lead[-1:] in (" ", "\t") and lead.strip() else ""
        if not before or before.lower() == product.lower() or not before[:1].isupper() or before.lower() in _NOT_PRODUCTS:
            return True
    return False


def anothers_releases(text: str, product: str) -> bool:
    """Whether ``text`` writes releases and each right after another capitalised name ("Welcome to
    Mantid 4.0" for "Which Python version …?"; not "releases >= 0.20.0 of Kiln")."""
    found = [m.group(1) for m in _DOTTED_RELEASE.finditer(text)]
    named = {version: name for name, version in _PRODUCT_RELEASE.findall(text)
             if name[:1].isupper() and name.lower() not in _NOT_PRODUCTS}
    return bool(found) and all(version in named and named[version].lower() != product.lower() for version in found)


__all__ = [
    "another_file_release", "another_release", "anothers_releases", "asked_product", "asks_release", "file_releases",
    "first_release_numbered", "of_product", "product_releases", "releases_of", "same_release", "under_release",
]
