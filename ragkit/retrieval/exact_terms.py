"""The query terms that ask for an exact match: identifiers and quoted phrases.

A dense model reads ``SESSION_COOKIE_NAME`` or ``getUserName`` as a handful of sub-words and
finds passages *about* sessions or users; the passage that holds the identifier is the one asked
for. So are the words of a phrase the user put in quotes or backticks. ``exact_terms`` finds
them by their shape alone, with no list of known words:

- a word joined by underscores (``snake_case``, ``SCREAMING_CASE``, ``__init__``);
- a word with a capital after a lower-case letter (``camelCase``, ``PascalCase``);
- a dotted name of two or more word parts (``os.path.join``, ``settings.DEBUG``);
- a command-line long option of two words or more (``--haddock-lib``, ``--no-deps``);
- the text between double quotes or backticks.

Letter-digit mixes (``ww1``, ``mp3``) are not counted: in questions they are more often
abbreviations than identifiers.
"""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:"
    r"_*[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)+_*"  # snake_case, SCREAMING_CASE, __dunder__
    r"|_{2}[A-Za-z0-9]+_{2}"  # __init__
    r"|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*"  # camelCase, PascalCase
    r"|[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+"  # dotted.names (parts of two or more characters: not e.g.)
    r"|(?<!-)--[A-Za-z]\w*(?:-\w+)+"  # a long option of two words or more (--haddock-lib, --no-deps)
    r")(?![\w-])"
)
_QUOTED = re.compile(r"[\"“”`]([^\"“”`\n]{2,200})[\"“”`]")  # not ' (it is also an apostrophe)
MAX_QUERY_CHARS = 4000  # longer queries are searched on their first characters only


def exact_terms(query: str) -> list[str]:
    """The identifiers and quoted phrases of ``query``, in order, each once."""
    text = query[:MAX_QUERY_CHARS]
    found = [m.group(0) for m in _IDENTIFIER.finditer(text)]
    found += [m.group(1).strip() for m in _QUOTED.finditer(text)]
    return list(dict.fromkeys(t for t in found if t.strip("_.")))


__all__ = ["exact_terms"]
