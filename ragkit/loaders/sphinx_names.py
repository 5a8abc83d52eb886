"""The names of Sphinx's roles and directives and what each shows, without docutils: shared by
the reStructuredText loader (``ragkit.loaders.rst_sphinx``) and MyST Markdown
(``ragkit.loaders.myst``)."""

from __future__ import annotations

import re
from collections.abc import Mapping

#: directives whose output is not text: navigation, build settings, file inclusion, graphs
DROP = frozenset({
    "toctree", "index", "highlight", "currentmodule", "py:currentmodule", "module", "py:module",
    "automodule", "autosummary", "literalinclude", "tabularcolumns", "default-role", "default-domain", "rst-class", "graphviz", "graph", "digraph",
    "inheritance-diagram", "mermaid", "plot", "todolist", "testsetup", "testcleanup", "js:module",
    "c:namespace", "cpp:namespace", "c:namespace-push", "c:namespace-pop", "cpp:namespace-push",
    "cpp:namespace-pop", "program", "option-list", "spelling:word-list", "image", "figure-md",
    "changelog_imports",
})  # fmt: skip
#: the ``changelog`` extension's directives (SQLAlchemy, Alembic, Mako): a release, and one change of it
CHANGELOG, CHANGE = "changelog", "change"
#: directives whose content is code (with whatever options Sphinx allows)
CODE = frozenset({
    "code", "code-block", "sourcecode", "doctest", "testcode", "testoutput", "ipython",
    "jupyter-execute", "code-cell", "prompt", "productionlist", "code-tab", "literal",
})  # fmt: skip
#: object descriptions without a domain prefix (the default domain is py; std has the others)
OBJECTS = frozenset({
    "function", "class", "data", "method", "attribute", "exception", "decorator", "decoratormethod",
    "classmethod", "staticmethod", "property", "type", "envvar", "option", "describe", "object",
    "confval", "setting", "cmdoption", "event", "fixture",
})  # fmt: skip
#: label shown before the content of a directive, by name ({arg} is its first argument)
LABELS = {
    "versionadded": "New in version {arg}.",
    "versionchanged": "Changed in version {arg}.",
    "versionremoved": "Removed in version {arg}.",
    "deprecated": "Deprecated since version {arg}.",
    "seealso": "See also:",
    "todo": "To do:",
}
#: directives naming an author, and the line their argument is shown with (the email goes)
AUTHORS = {"moduleauthor": "Module author", "sectionauthor": "Section author", "codeauthor": "Code author"}
#: an object description's options Sphinx shows as fields of the object (a ``confval``'s type and
#: default, a ``py:attribute``'s type and value), and their labels
SHOWN_OPTIONS = {"type": "Type", "default": "Default", "value": "Value"}
#: directives whose argument is a label worth keeping (a tab's name, a card's title)
TITLED = frozenset({"tab", "group-tab", "tab-item", "dropdown", "card", "grid-item-card", "tab-set-code"})
#: roles whose target is a callable: Sphinx writes ``name()``
CALLABLE_ROLES = frozenset({"func", "meth", "py:func", "py:meth", "c:func", "cpp:func", "js:func", "js:meth"})
#: roles whose text is an identifier (shown as inline code, as Sphinx shows it); the others
#: (``:ref:``, ``:doc:``, ``:term:``, a project's ``:issue:``) show words
CODE_ROLES = re.compile(r"^(?:py:|c:|cpp:|js:)?(?:func|meth|class|attr|mod|obj|exc|data|const|"
                        r"envvar|option|samp|file|command|program|kbd|code|setting|confval)$")
_EMAIL = re.compile(r"<[^<>]*>")
_TITLE_TARGET = re.compile(r"^(.*?)\s*<([^<>]*)>$", re.DOTALL)
#: admonition directives and the label their text is shown with (``Note: ...``)
ADMONITIONS = {
    "attention": "Attention", "caution": "Caution", "danger": "Danger", "error": "Error", "hint": "Hint",
    "important": "Important", "note": "Note", "tip": "Tip", "warning": "Warning",
}  # fmt: skip


def label_line(name: str, arg: str) -> str:
    """``versionchanged:: 0.8 Also an int.`` -> ``Changed in version 0.8: Also an int.``"""
    if "{arg}" not in LABELS[name]:
        return f"{LABELS[name]} {arg}".strip()
    version, _, rest = arg.partition(" ")
    label = LABELS[name].format(arg=version) if version else LABELS[name].replace(" {arg}", "")
    return f"{label[:-1]}: {rest}" if rest else label


def author_line(name: str, arg: str) -> str:
    """``moduleauthor:: Ada Lovelace <ada@example.org>`` -> ``Module author: Ada Lovelace``; an
    empty string when no name is given."""
    who = " ".join(_EMAIL.sub(" ", arg).split())
    return f"{AUTHORS[name]}: {who}" if who else ""


def shown_options(options: Mapping[str, object]) -> list[str]:
    """The lines an object description's options show (``Type: int``, ``Default: 5``), in the
    order of ``SHOWN_OPTIONS``; the values keep their markup, for the caller to render."""
    lines = []
    for key, label in SHOWN_OPTIONS.items():
        value = " ".join(str(options.get(key) or "").split())
        if value:
            lines.append(f"{label}: {value}")
    return lines


def is_object(name: str) -> bool:
    """Whether directive ``name`` describes an object (``py:data``, ``function``, ``autoclass``)."""
    if name in DROP or name in CODE:
        return False
    if name.startswith("auto") and name not in ("autosummary", "automodule"):
        return True
    base = name.split(":", 1)[1] if ":" in name else name
    return base in OBJECTS or (":" in name and base not in LABELS)


def is_known_object(name: str) -> bool:
    """Whether ``name`` is one of Sphinx's own object descriptions (``py:function``, ``autoclass``),
    not merely a domain-qualified name (a project's ``click:example``)."""
    base = name.split(":", 1)[1] if ":" in name else name
    return base in OBJECTS or (name.startswith("auto") and name not in ("autosummary", "automodule"))


def role_text(name: str, text: str) -> str:
    """What Sphinx shows for ``:name:`text```: the explicit title, else the target cleaned."""
    text = " ".join(text.split())
    match = _TITLE_TARGET.match(text)
    if match and match.group(1):
        return match.group(1)
    shown = match.group(2) if match else text
    shown = shown.lstrip("!")
    if shown.startswith("~"):
        shown = shown[1:].rsplit(".", 1)[-1]
    shown = shown.lstrip(".")
    if name in ("doc", "std:doc"):
        shown = shown.lstrip("/")
    elif name in ("guilabel", "menuselection"):
        shown = shown.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("-->", "→")
    if name.lower() in CALLABLE_ROLES and shown and not shown.endswith(")"):
        shown += "()"
    return shown


_CODE_LINE = re.compile(
    r"^\s*(?:(?:import|from|def|class|return|if|elif|else|for|while|with|try|except|finally|raise|pass|yield|"
    r"async|await|assert|lambda|print|const|let|var|function|fn|pub|use|package|func)\b"
    r"|@\w|[)\]}]|#|//|\$ |>>> |\.\.\. "
    r"|[\w.\[\]'\"]+\s*[-+*/|&]?=\s*\S"
    r"|[\w.]+\(.*\)?\s*[:;{]?\s*$)"
    r"|[;{:]\s*$"
)


def looks_like_code(lines: list[str]) -> bool:
    """Whether a directive's lines are code rather than prose (a project's own example directives,
    such as ``.. click:example::`` or Django's ``.. console::``): most of its lines look like code."""
    filled = [line for line in lines if line.strip()]
    if not filled:
        return False
    code = sum(1 for line in filled if _CODE_LINE.search(line))
    return code >= 0.6 * len(filled)
