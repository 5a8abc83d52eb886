"""The files a query names: "the foreword of Get Started" (``get-started/foreword.md``), "Git
v2.30.7" (``2.30.7.adoc``).

People name the document they ask about. A dense model reads such a name as a few common words,
and a lexical index finds its parts scattered over many passages (a version number is not even a
term), but the file's own path is evidence no passage text carries. ``named_sources`` finds it by
comparing words, with no list of known names:

- the words of a path are those of its folders and its file name (the extension dropped),
  lower-cased, a dotted number kept whole (``2.30.7``), letters and digits apart (``v2.30.7`` is
  ``v`` and ``2.30.7``), one-letter words and a few function words left out, a plural ``s``
  dropped; the query's words are read the same way;
- a path is named when the query holds every word of its file name, and the words of the path it
  holds are specific: two words or more, or a word with a digit (one ordinary word such as
  ``responses`` or ``index`` names nothing), and stand together in the query, as a name does (no
  other word among them but function words: "the notes of the release" names ``release-notes.md``,
  "install packages into site-packages with uv pip" does not name ``pip/packages.md``); its score is the share of the path's words the query holds
  (``get-started/foreword`` in full: 1.0; another book's ``foreword`` alone: no match);
- a date or year that opens a file name is not among the words a query must hold, when two words
  or more follow it: "Jimmy Carter" names ``1977-jimmy-carter.txt`` (a share of 2/3), as a post's
  title words name ``2019-06-01-weekly-update.md``; ``2023-04-05.md`` is still named by its date.

A ``NameIndex`` keeps a set of sources by their file-name words, so a query reads only the files
whose file name it holds, not every file of the index. A file whose name has only words that most
of the collection's file names share is named by no query: among ``git-lfs-fetch.adoc``,
``git-lfs-prune.adoc`` and thirty more, "git lfs" in a question names the tool, not the page
``git-lfs.adoc`` (which would otherwise outrank the page the question is about). The words still
count in the names of the other files ("git lfs fetch" names ``git-lfs-fetch.adoc``).

A number is read as its value, without its leading zeros ("PEP 8" names ``pep-0008.rst``, "paper
51" names ``051.md``), and a query that gives a numbered part by its ordinal ("the second paper",
"the third lecture") is also read with the ordinal as its number, so it names ``002.md``; the
query as written still names ``the-first-week.md``.

A query that asks for the collection's first release ("When did the very first Gammapy release
come out?", "the first public version of Bokeh") names the file of the lowest release among the
files named for one (``v0.1.rst`` of ``v0.1.rst`` … ``v1.3.rst``), when the collection has at least
``MIN_SHARING`` of them: which release came first is written in their names, not in a passage. A
first release *with* something ("the first nilearn release to support Python 3.13", "the first
version of the GS stack cookie protection", "the first stable release") is not the collection's
first, and names nothing this way.

Titles are not used: a page titled with words of the query is often *about* something else the
query mentions (an entity search set lost with them); a file name is chosen to name its file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from ragkit.types import SearchHit

_WORD = re.compile(r"\d+(?:\.\d+)+|[^\W\d_]+|\d+")  # dotted numbers whole (versions), letters, digits
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")
_FUNCTION_WORDS = frozenset(
    "a an and the of in on to for with by at from as or is are be its it this that what which who how".split()
)
#: the words of a release notes file's name besides its release ("release_0_4_0", "1.17.0-notes")
_RELEASE_FILE_WORDS = frozenset("release note notes whatsnew changelog change changes history new news v".split())
_UNDERSCORED = re.compile(r"(?<![A-Za-z0-9])(?<!\d_)(\d{1,3}(?:_\d{1,3}){1,3})(?![0-9])")
_ORDINALS = {w: str(n) for n, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(), start=1)}
#: the nouns of a collection's numbered parts, one file each: "the third lecture", "the second paper"
_ORDINAL = re.compile(rf"\b({'|'.join(_ORDINALS)})\s+(paper|essay|chapter|lecture|lesson|episode|article|letter|"
                      r"volume|talk|exercise|part|tutorial|module|unit|week|day)s?\b", re.IGNORECASE)
#: a date or year that opens a file name ("1977-", "2023-04-05-", "2019_06_"): a query need not write it
_LEADING_DATE = re.compile(r"(?:1[5-9]|20)\d\d(?:[-_.]\d{1,2}){0,2}[-_ ]+(?=[^\W\d_])")
MAX_PATH_WORDS = 12  # a longer path names nothing in particular
MAX_NAMED = 10  # the best-named files a query brings in
MIN_SHARING = 4  # files a collection needs before words most file names share name nothing
#: "the (very) first [Gammapy|public] release/version", not followed by what makes it a first of something else
_FIRST_RELEASE = re.compile(
    r"\b(?:first|initial|earliest)\s+(?:(?!stable\b|major\b|minor\b|beta\b|alpha\b|lts\b|patch\b|feature\b)[\w.+-]+\s+)?"
    r"(?:release|version)\b(?!\s+(?:to|that|which|with|where|whose|in|for|since|after|before|supporting|of\s+(?:the|a|an|its|this|that|their)\b))",
    re.IGNORECASE,
)


def name_words(text: str) -> list[str]:
    """The words of a path or a query as they are compared (see the module docstring)."""
    out = []
    for word in _WORD.findall(text.lower()):
        if (len(word) < 2 and not word.isdigit()) or word in _FUNCTION_WORDS:
            continue
        if "." in word:
            out.append(_release(word))
            continue
        if word.isdigit():  # a number as its value: "PEP 8" names ``pep-0008.rst``, "paper 51" ``051.md``
            out.append(word.lstrip("0") or "0")
            continue
        out.append(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return out


def _ordinals_numbered(query: str) -> str:
    """``query`` with an ordinal before a numbered part's noun written as its number: "the second
    paper" names ``002.md``, as "paper 2" does; an ordinal alone ("the first step") numbers nothing."""
    return _ORDINAL.sub(lambda m: f"{_ORDINALS[m.group(1).lower()]} {m.group(2)}", query) if _ORDINAL.search(query) else query


def _release(dotted: str) -> str:
    """A dotted number as a release, its zero parts after the second dropped: ``0.12.0`` and
    ``0.12`` are one release ("nilearn 0.12" names ``0.12.0.rst``), ``2.0.0`` is ``2.0``."""
    parts = dotted.split(".")
    while len(parts) > 2 and parts[-1].strip("0") == "":
        parts.pop()
    return ".".join(parts)


@lru_cache(maxsize=200_000)
def _path_words(source: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """(the file name's words, all the path's words). A file named for a release is named by
    its release alone: the words every release's file shares (``release``, ``notes``,
    ``whatsnew``, ``changelog``) are left out, and a release written with underscores is read
    dotted (``release_0_4_0.md`` is ``0.4.0``, ``whatsnew-5.5.rst`` is ``5.5``)."""
    parts = [p for p in re.split(r"[\\/]", source) if p]
    if not parts:
        return frozenset(), ()
    name = dotted_releases(_EXTENSION.sub("", parts[-1]))
    stem = name_words(name)
    words = tuple(w for part in parts[:-1] for w in name_words(part)) + tuple(stem)
    dated = _LEADING_DATE.match(name)
    after = name_words(name[dated.end():]) if dated else []
    if sum(not w.isdigit() for w in after) >= 2:
        stem = after  # "Jimmy Carter" names ``1977-jimmy-carter.txt``
    if any("." in w for w in stem):  # a release's file
        stem = [w for w in stem if w not in _RELEASE_FILE_WORDS]
        words = tuple(w for w in words if w not in _RELEASE_FILE_WORDS)
    return frozenset(stem), words


def _first_release_words(query: str) -> re.Match[str] | None:
    """The words by which ``query`` asks for the collection's first release, when it names no
    release of its own."""
    found = _FIRST_RELEASE.search(query)
    return found if found and not any("." in w for w in name_words(query)) else None


def asks_first_release(query: str) -> bool:
    """Whether ``query`` asks for the collection's first release, and names no release of its own."""
    return _first_release_words(query) is not None


def numbering_first_release(query: str, release: str) -> str:
    """``query`` numbering the first release it asks about, in place of the words that ask for it:
    "the very first Gammapy release" is "the Gammapy 0.1", as "Gammapy 0.1" would be asked;
    unchanged when it asks for none (``asks_first_release``)."""
    found = _first_release_words(query)
    if not found:
        return query
    start = found.start()
    if query[:start].lower().endswith("very "):
        start -= len("very ")
    between = found.group().split()[1:-1]  # the words between "first" and "release": "Gammapy", "public"
    return f"{query[:start]}{' '.join([*between, release])}{query[found.end():]}"


def release_key(release: str) -> tuple[tuple[int, str], ...]:
    """A dotted release as numbers, to order releases (``0.9`` before ``0.10``): each part by its
    count of digits, then its digits, so a part of any length (a hostile name's thousands of
    digits) orders without being converted to a number."""
    return tuple((len(digits), digits) for part in release.split(".") for digits in [part.lstrip("0") or "0"])


def dotted_releases(name: str) -> str:
    """``name`` with its releases written with underscores read dotted: ``release_0_4_0`` is
    ``release_0.4.0`` (parts of one to three digits, none after a digit: ``2025_08_29`` is a date)."""
    return _UNDERSCORED.sub(lambda m: m.group(1).replace("_", "."), name)


def _specific(words: Iterable[str]) -> bool:
    found = set(words)
    return len(found) >= 2 or any(c.isdigit() for w in found for c in w)


def _together(query: Sequence[str], held: set[str]) -> bool:
    """Whether the ``held`` words stand together in the ``query``'s words: some run of the query
    holds each of them and no other word (function words are not among a query's words)."""
    longest = len(held)
    for start, word in enumerate(query):
        if word in held:
            window = query[start:start + longest]
            if held <= set(window):
                return True
    return False


def _held_share(query: Sequence[str], words: tuple[str, ...]) -> float:
    """The share of a path's ``words`` the query holds, when those it holds are specific and stand
    together in the query."""
    found = set(query)
    held = [w for w in words if w in found]
    return len(held) / len(words) if _specific(held) and _together(query, set(held)) else 0.0


def path_score(query_words: Sequence[str], source: str) -> float:
    """How fully a query (its ``name_words``, in order) names the file ``source``, in [0, 1]."""
    stem, words = _path_words(source)
    if not stem or len(words) > MAX_PATH_WORDS or not stem <= set(query_words):
        return 0.0
    return _held_share(query_words, words)


class NameIndex:
    """The files of an index looked up by their file-name words: ``named(query)`` equals
    ``named_sources(query, sources)`` but reads only the files whose file name the query holds.

    Files are grouped by their file name's words (``index.md`` of every folder is one group), and
    each group is kept under the one of its words that fewest groups share, so a query visits the
    groups filed under its own words and keeps those whose every word it holds. Built once for a
    set of sources (in time linear in their number); a query then costs what its words find."""

    def __init__(self, sources: Iterable[str]) -> None:
        groups: dict[frozenset[str], list[tuple[str, tuple[str, ...]]]] = {}
        for source in dict.fromkeys(sources):
            stem, words = _path_words(source)
            if stem and len(words) <= MAX_PATH_WORDS:
                groups.setdefault(stem, []).append((source, words))
        shared: dict[str, int] = {}
        for stem in groups:
            for word in stem:
                shared[word] = shared.get(word, 0) + 1
        common = {w for w, n in shared.items() if 2 * n > len(groups)} if len(groups) >= MIN_SHARING else set()
        self._by_word: dict[str, list[frozenset[str]]] = {}
        self._required: dict[frozenset[str], frozenset[str]] = {}  # the words a query must hold
        for stem in groups:
            if stem <= common:  # the collection's own name ("git-lfs" among "git-lfs-*")
                continue
            # nor must a query write the collection's words to name a file ("Nix 2.0": ``rl-2.0.md``
            # among ``rl-*.md``); the words it holds must still be specific (``_held_share``)
            own = self._required[stem] = stem - common
            self._by_word.setdefault(min(own, key=lambda w: (shared[w], w)), []).append(stem)
        self._groups = groups
        # the files named for one release and nothing else; those of the lowest release
        releases = [(release_key(next(iter(stem))), source)
                    for stem, files in groups.items() if len(stem) == 1 and "." in next(iter(stem))
                    for source, _ in files]
        lowest = min((key for key, _ in releases), default=None)
        self._first = sorted(s for key, s in releases if key == lowest)[:MAX_NAMED] \
            if len(releases) >= MIN_SHARING else []

    def __len__(self) -> int:
        return sum(len(files) for files in self._groups.values())

    def named(self, query: str) -> dict[str, float]:
        """The files ``query`` names, with their ``path_score`` (the best ``MAX_NAMED``, best first)."""
        best: dict[str, float] = {}
        numbered = _ordinals_numbered(query)  # "the second paper" as "2 paper", and as written ("the-first-week.md")
        for sequence in {tuple(name_words(text)) for text in (query, numbered)}:
            words = frozenset(sequence)
            for word in words:
                for stem in self._by_word.get(word, ()):
                    if not self._required[stem] <= words:
                        continue
                    for source, path in self._groups[stem]:
                        if (score := _held_share(sequence, path)) > best.get(source, 0.0):
                            best[source] = score
        return dict(sorted(best.items(), key=lambda item: (-item[1], item[0]))[:MAX_NAMED])

    def first_release(self, query: str) -> list[str]:
        """The files of the collection's lowest release when ``query`` asks for its first release
        (``asks_first_release``) and at least ``MIN_SHARING`` files are named for one release each."""
        return list(self._first) if self._first and asks_first_release(query) else []


def named_sources(query: str, sources: Iterable[str]) -> dict[str, float]:
    """The files among ``sources`` that ``query`` names, with their ``path_score`` (the best
    ``MAX_NAMED``, best first). For many queries on one set of sources, build a ``NameIndex``."""
    return NameIndex(sources).named(query)


#: a line that only underlines the one above it (a setext heading's ``---`` or ``===``) or breaks the page
_RULE = re.compile(r"^\s*(?:-{3,}|={3,}|\*{3,}|_{3,})\s*$")


def has_body(text: str) -> bool:
    """Whether a passage holds text besides Markdown headings (``# rich.progress_bar`` alone, the
    page an API reference generates for a module, holds nothing to read; nor does a title
    underlined by ``---``, nor the rule itself)."""
    lines = text.splitlines()
    return any(
        line.strip() and not line.lstrip().startswith("#") and not _RULE.match(line)
        and not (i + 1 < len(lines) and _RULE.match(lines[i + 1]))
        for i, line in enumerate(lines)
    )


def boost_named(hits: Sequence[SearchHit], named: Mapping[str, float], *, boost: float) -> list[SearchHit]:
    """``hits`` re-ranked with ``boost`` times its name score added to the first (best) passage of
    each named file that holds more than headings; with nothing named the order of ``hits`` is kept."""
    if not named or not boost:
        return list(hits)
    seen: set[str] = set()
    scored = []
    for rank, hit in enumerate(hits):
        body = has_body(hit.text)
        extra = boost * named.get(hit.source, 0.0) if hit.source not in seen and body else 0.0
        if body:
            seen.add(hit.source)
        scored.append((-(hit.score + extra), rank, hit, extra))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [SearchHit(id=h.id, score=-neg, metadata=h.metadata) if extra else h for neg, _, h, extra in scored]


__all__ = [
    "NameIndex", "asks_first_release", "boost_named", "dotted_releases", "has_body", "name_words", "named_sources",
    "numbering_first_release", "path_score", "release_key",
]
