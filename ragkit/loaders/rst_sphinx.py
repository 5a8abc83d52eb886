"""Sphinx's roles and directives for a plain docutils parse (Sphinx itself is not needed).

Docutils knows reStructuredText; Sphinx projects also use roles (``:attr:`x <y>```, ``:func:``,
``:doc:``, ``:ref:``...) and directives (``py:data``, ``autoclass``, ``versionadded``,
``code-block`` with Sphinx options, ``toctree``, ``tabs``...) that docutils rejects. Here every
role and directive docutils does not know gets a stand-in while :func:`sphinx_lookups` is active,
so no file fails and no markup is left in the text:

- a role becomes its text: the explicit title of ``title <target>``, else the target without
  Sphinx's ``~``/``!``/``.`` prefixes (``~flask.Flask.config`` -> ``config``), with ``()`` after a
  function or method name as Sphinx writes it;
- an object description (``py:data``, ``py:function``, ``class``, ``autofunction``, ``envvar``,
  ``option``...) becomes an :class:`object_desc` node: a heading with the object's name, its
  signature, the options Sphinx shows with it as ``Type: …``/``Default: …``/``Value: …`` lines
  (``confval``'s ``:type:`` and ``:default:``, an attribute's ``:value:``) and its content;
- ``versionadded``/``versionchanged``/``deprecated``, ``seealso`` and tabs keep a label line;
- ``moduleauthor``/``sectionauthor``/``codeauthor`` become ``Module author: NAME`` (no email);
- the ``changelog`` extension's ``changelog`` (a release: its ``:version:`` a heading over
  ``Released: …``) and ``change`` (its ``:tags:`` in brackets before its text, ``:tickets:`` as
  ``References: #…`` after it);
- the ``releases`` extension's ``:release:`3.0.0 <2026-04-05>``` (a changelog's bullet that opens a
  release, as Invoke, Fabric and Paramiko write them) becomes a :class:`release_line` node, which
  the renderer writes as a heading over the bullets after it, with the release's date;
- code directives (``code-block`` and friends, with any option) become literal blocks;
- navigation and build directives (``toctree``, ``index``, ``literalinclude``...) disappear;
- any other directive keeps its content, parsed as reStructuredText.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docutils import nodes, utils
from docutils.parsers.rst import Directive, directives, roles

from ragkit.loaders.sphinx_names import (
    AUTHORS,
    CHANGE,
    CHANGELOG,
    CODE,
    CODE_ROLES,
    DROP,
    LABELS,
    TITLED,
    author_line,
    is_known_object,
    is_object,
    label_line,
    looks_like_code,
    role_text,
    shown_options,
)

_LOCK = threading.RLock()


class object_desc(nodes.Element):  # noqa: N801 - docutils names its node classes in lower case
    """An object description (``py:data:: NAME``): ``name`` and ``signature`` attributes, the
    content as children. Rendered as a heading one level below the section it is in."""


class _AnyOptions(dict):  # type: ignore[type-arg]
    """An option spec accepting every option (Sphinx adds many docutils does not know)."""

    def __missing__(self, key: str) -> Any:
        return directives.unchanged

    def __bool__(self) -> bool:
        return True


class _SphinxDirective(Directive):
    """The stand-in for every directive docutils does not know (and a few it knows differently)."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        name = self.name.lower()
        arg = " ".join(self.arguments[0].split()) if self.arguments else ""
        if name in DROP:
            return []
        if name in AUTHORS:
            line = author_line(name, arg)
            return [nodes.paragraph(line, line)] if line else []
        if name in CODE:
            if not self.content:
                return []
            caption = self.options.get("caption")
            code = _code(self.content, arg if name not in ("prompt", "productionlist") else "")
            if not caption:
                return [code]
            return [self._paragraph(f"{caption}:"), code]
        if name == CHANGELOG:
            return self._release()
        if name == CHANGE:
            return self._change()
        if name not in LABELS and name not in TITLED and not is_known_object(name):
            raw = self._raw_lines()
            if looks_like_code(raw):  # a project's example directive: its argument and content are code
                return [_code(raw, "")]
        if is_object(name):
            return [self._object(name, arg)] if arg else self._content()
        out: list[nodes.Node] = []
        if name in LABELS:
            out.append(self._paragraph(label_line(name, arg)))
        elif name in TITLED and arg:
            out.append(self._paragraph(f"{arg}:"))
        return out + self._content()

    def _option(self, key: str) -> str:
        return " ".join(str(self.options.get(key) or "").split())

    def _release(self) -> list[nodes.Node]:
        """``changelog::`` with ``:version: 2.0.0`` and ``:released: January 26, 2023``: the
        version as a heading over ``Released: …`` and its changes, as the extension shows it."""
        version = self._option("version")
        if not version:
            return self._content()
        node = object_desc(kind=CHANGELOG, name=version, signature=version)
        if released := self._option("released"):
            node.append(self._paragraph(f"Released: {released}"))
        node.extend(self._content())
        return [node]

    def _change(self) -> list[nodes.Node]:
        """``change::`` with ``:tags: bug, orm`` and ``:tickets: 1234``: its text, the tags
        before it in brackets (``[bug] [orm] Fixed …``) and ``References: #1234`` after it."""
        content = self._content()
        tags = [t for t in re.split(r"\s*,\s*", self._option("tags")) if t]
        if tags and content and isinstance(content[0], nodes.paragraph):
            content[0].insert(0, nodes.Text(" ".join(f"[{t}]" for t in tags) + " "))
        tickets = [t for t in re.split(r"[,\s]+", self._option("tickets")) if t]
        if tickets:
            content.append(nodes.paragraph("", "References: " + ", ".join(f"#{t}" for t in tickets)))
        return content

    def _raw_lines(self) -> list[str]:
        """The directive's argument and content as written (code written without the blank line
        after the directive marker is its argument, to docutils)."""
        head = self.arguments[0].split("\n") if self.arguments else []
        return [*head, *self.content]

    def _paragraph(self, text: str) -> nodes.paragraph:
        """A paragraph of ``text`` parsed as inline markup (an argument may hold roles, literals)."""
        inline, _messages = self.state.inline_text(text, self.lineno)
        return nodes.paragraph("", "", *inline)

    def _content(self) -> list[nodes.Node]:
        if not self.content:
            return []
        holder = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, holder)
        return list(holder.children)

    def _object(self, name: str, signature: str) -> nodes.Node:
        node = object_desc(kind=name, name=object_name(signature), signature=signature)
        fields = [self._paragraph(line) for line in shown_options(self.options)]
        if name.startswith("auto") and not self.content and not fields:
            node["bare"] = True  # autodoc: the text lives in the code, only the name is here
        node.extend(fields)
        node.extend(self._content())
        return node


def object_name(signature: str) -> str:
    """``send_file(path, mimetype=None) -> Response`` -> ``send_file``; ``DEBUG`` -> ``DEBUG``."""
    first = signature.split("\n", 1)[0].strip()
    cut = re.split(r"[(\[=]| -> ", first, maxsplit=1)[0].strip()
    return cut or first


def _code(content: Any, language: str) -> nodes.literal_block:
    text = "\n".join(content)
    node = nodes.literal_block(text, text)
    if language:
        node["language"] = language.split()[0]
    return node


class release_line(nodes.Inline, nodes.TextElement):  # noqa: N801 - docutils names node classes in lower case
    """The ``releases`` extension's ``:release:`VERSION <DATE>``` role: its text is the version and
    its date as the changelog page shows them ("3.0.0 (2026-04-05)")."""


#: the ``releases`` extension's ``:release:`` role's text: a version and the date it came out
_RELEASED = re.compile(r"^\s*(?P<version>[^<>\s]+)\s*<(?P<date>[^<>]+)>\s*$")


def _sphinx_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                 options: Any = None, content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    if name.lower() == "release" and (released := _RELEASED.match(utils.unescape(text))):
        return [release_line(rawtext, f"{released['version']} ({' '.join(released['date'].split())})")], []
    shown = role_text(name.lower(), utils.unescape(text))
    return [nodes.literal(rawtext, shown) if CODE_ROLES.match(name.lower()) else nodes.inline(rawtext, shown)], []


@contextmanager
def sphinx_lookups() -> Iterator[None]:
    """While active, docutils finds a stand-in for every directive and role it does not know
    (and Sphinx's meaning for the few names both use). Process-wide, so serialized by a lock."""
    with _LOCK:
        find_directive, find_role = directives.directive, roles.role

        def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
            low = name.lower()
            if low in CODE or low in DROP or low in AUTHORS or is_object(low) or low in LABELS or low in TITLED:
                return _SphinxDirective, []
            found, messages = find_directive(name, language, document)
            return (found or _SphinxDirective), ([] if found is None else messages)

        def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
            found, messages = find_role(name, language, lineno, reporter)
            return (found or _sphinx_role), ([] if found is None else messages)

        directives.directive, roles.role = directive, role
        try:
            yield
        finally:
            directives.directive, roles.role = find_directive, find_role


__all__ = ["object_desc", "object_name", "release_line", "role_text", "sphinx_lookups"]
