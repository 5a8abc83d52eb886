"""The section a query names by its release: "On what date was SQLAlchemy 2.0.0 released?" names
the section headed "2.0.0" of a change log that holds every release of a series in one file.

A dense model reads "2.0.0" as a few digits, and the passage that opens the release's section
is mostly about its first change; a lexical index matches the version in every passage that
mentions it ("backported to 2.0.0"), and prefers short passages that say "released" and "date".
The heading path a Markdown-aware splitter gives each chunk (``heading``: "2.0 Changelog >
2.0.0") is evidence no passage text carries: the section *is* that release.

``query_releases`` reads the versions a query writes whole, three dotted parts or more (``2.0.0``,
``v3.5.0``; "3.8" or "2.5 times" name no release); ``names_release`` whether a heading path's
last part writes one of them (``2.0.0``, ``v2.0.0 (2023-01-26)``, ``Version 2.0.0``), read whole
("Migration to 2.0" heads no section of 2.0.0). The hybrid retriever looks the versions up in
its lexical index and raises the first passage of the section so headed.
"""

from __future__ import annotations

import re

_RELEASE = re.compile(r"(?<![\w.])v?(\d+\.\d+\.\d+(?:\.\d+)*)(?![\w-]|\.\d)", re.IGNORECASE)
_LABELLED = re.compile(r"\b(?:version|release|v)\s*(\d+\.\d+)(?![\w-]|\.\d)", re.IGNORECASE)
_DOTTED = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+)(?![\w-]|\.\d)", re.IGNORECASE)
#: two parts after a name: "Gunicorn 20.0", "Falcon 3.1" (a product's release); not Python's ("Python
#: 3.12" is what a project requires, not one of its releases), nor a ratio ("Kiln 2.5 times faster")
_NAMED = re.compile(r"(?<![\w+-])(?!Python\b)[A-Z][\w+-]*\s+v?(\d+\.\d+)(?![\w-]|\.\d)(?!\s*(?:times|x|%|percent)\b)")
# (a name starts after no word character, "+" or "-": one try a token, linear in the query)
MAX_RELEASES = 3  # a query naming more is comparing releases, not asking about one


def release_versions(text: str, *, labelled: bool = False) -> list[str]:
    """The versions ``text`` writes as releases, each once, in order: three dotted parts or more
    (``2.0.0``, ``v3.5.0``); with ``labelled``, also two after "version", "release" or "v"
    ("version 2.1", "v3.7"). A decimal ("2.5 times") or a Python version ("Python 3.8") is none."""
    found = _RELEASE.findall(text) + (_LABELLED.findall(text) if labelled else [])
    return list(dict.fromkeys(found))


def query_releases(query: str) -> list[str]:
    """The releases ``query`` names (three dotted parts or more, or two after a name or "version":
    "Gunicorn 20.0", "version 2.1"), each once, in order; none when it names more than
    ``MAX_RELEASES``."""
    found = list(dict.fromkeys(release_versions(query, labelled=True) + _NAMED.findall(query)))
    return found if len(found) <= MAX_RELEASES else []


def names_release(heading: str, version: str) -> bool:
    """Whether the last part of a heading path (``"2.0 Changelog > 2.0.0"``) writes ``version``
    whole (a ``v`` before it aside: "Migration to 2.0" heads no section of 2.0.0)."""
    last = heading.rsplit(" > ", 1)[-1]
    return version in written_versions(last)


def written_versions(text: str) -> list[str]:
    """Every dotted number ``text`` writes, each read whole (``2.0`` of "20.0 / 2019/10/30" is
    none; ``v`` before it dropped): the releases a heading may name."""
    return _DOTTED.findall(text)


__all__ = ["MAX_RELEASES", "names_release", "query_releases", "release_versions", "written_versions"]
