"""An Ansible plugin's documentation, kept in its Python module as YAML strings (``DOCUMENTATION``,
``EXAMPLES``, ``RETURN``), written out as the Markdown its rendered page shows.

``DOCUMENTATION``: the short description and description as prose, then each option under a
heading of its name (a suboption under ``parent.sub``) with its description as prose and its
``default``, ``type``, ``choices``, ``required`` and ``aliases`` as ``key: value`` lines; notes and
requirements as lists. ``EXAMPLES``: a fenced YAML block. ``RETURN``: each value under a heading with
its description, ``returned``, ``type`` and ``sample``. Ansible's inline markup is read as shown:
``C(x)``, ``V(x)``, ``O(x)`` and ``RV(x)`` are code spans, ``I(x)``, ``B(x)`` and ``M(x)`` their
text, ``L(text,url)`` its text, ``U(url)`` the address. YAML that does not parse, or a value of
another shape, is no documentation (None: the string stays code). The output is bounded: at most
``MAX_ENTRIES`` options and return values, nested at most ``MAX_DEPTH`` deep, ``MAX_ITEMS`` items
of a list, and a nested list shown as no text (YAML aliases can make a small string a large tree).
"""

from __future__ import annotations

import re
from typing import Any

from ragkit.loaders.base import escape_markdown_line

#: the module-level names whose strings are an Ansible plugin's documentation
DOC_NAMES = frozenset({"DOCUMENTATION", "EXAMPLES", "RETURN"})
MAX_ENTRIES = 2000
MAX_DEPTH = 4
MAX_ITEMS = 200  # a list's items shown (choices, notes, aliases)
_FIELDS = ("default", "type", "choices", "required", "aliases", "elements", "version_added")
_RETURN_FIELDS = ("returned", "type", "sample")
_CODE = re.compile(r"\b(?:C|V|O|RV)\(([^()]*)\)")
_TEXT = re.compile(r"\b(?:I|B|M)\(([^()]*)\)")
_LINK = re.compile(r"\bL\(([^(),]*),[^()]*\)")
_URL = re.compile(r"\bU\(([^()]*)\)")


def ansible_markdown(name: str, value: str) -> list[str] | None:
    """The Markdown lines of the documentation string ``value`` assigned to ``name``, or None."""
    if name == "EXAMPLES":
        body = value.strip("\n")
        return ["## Examples", "", "```yaml", *body.split("\n"), "```", ""] if body.strip() else None
    import yaml

    try:
        data = yaml.safe_load(value)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    budget = [MAX_ENTRIES]
    if name == "RETURN":
        return ["## Return values", "", *_entries(data, 3, "", _RETURN_FIELDS, "contains", budget)]
    if not ({"module", "name", "short_description"} & data.keys()):
        return None
    out = ["## Documentation", ""]
    for key in ("short_description", "description"):
        out += _prose(data.get(key))
    if isinstance(data.get("options"), dict):
        out += ["## Options", "", *_entries(data["options"], 3, "", _FIELDS, "suboptions", budget)]
    for key, title in (("notes", "Notes"), ("requirements", "Requirements")):
        items = _texts(data.get(key))
        if items:
            out += [f"## {title}", "", *(f"- {item}" for item in items), ""]
    authors = _texts(data.get("author"))
    if authors:
        out += [f"author: {', '.join(authors)}", ""]
    return out


def _entries(entries: dict[Any, Any], level: int, owner: str, fields: tuple[str, ...], nested: str,
             budget: list[int]) -> list[str]:
    out: list[str] = []
    for key, spec in entries.items():
        if budget[0] <= 0:
            break
        budget[0] -= 1
        out += [f"{'#' * min(level, 6)} {owner}{key}", ""]
        if not isinstance(spec, dict):
            out += _prose(spec)
            continue
        out += _prose(spec.get("description"))
        for field in fields:
            if field in spec and spec[field] is not None and not isinstance(spec[field], dict):
                shown = ", ".join(_texts(spec[field])) if isinstance(spec[field], list) else _inline(spec[field])
                if shown:
                    out += [f"{field}: {shown}", ""]
        if isinstance(spec.get(nested), dict) and level - 2 < MAX_DEPTH:
            out += _entries(spec[nested], level + 1, f"{owner}{key}.", fields, nested, budget)
    return out


def _texts(value: Any) -> list[str]:
    """A value's or a list's scalar items as text (at most ``MAX_ITEMS``; a nested list or mapping,
    which YAML aliases may make huge, is left out)."""
    items = value if isinstance(value, list) else [value] if value is not None else []
    return [_inline(item) for item in items[:MAX_ITEMS] if item is not None and not isinstance(item, (dict, list))]


def _prose(value: Any) -> list[str]:
    out: list[str] = []
    for text in _texts(value):
        out += [escape_markdown_line(text), ""]
    return out


def _inline(value: Any) -> str:
    """A scalar as its page shows it: Ansible's markup read (see the module docstring), one line; a
    list or a mapping is no scalar ("")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return ""
    text = " ".join(str(value).split())
    text = _CODE.sub(lambda m: f"`{m.group(1)}`", text)
    return _URL.sub(r"\1", _LINK.sub(r"\1", _TEXT.sub(r"\1", text)))


__all__ = ["DOC_NAMES", "ansible_markdown"]
