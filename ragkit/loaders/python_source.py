"""Python modules (``.py``), written out as Markdown-structured text with their docstrings as prose.

A library documented in its docstrings keeps its documentation in its source: read as a program,
every passage of a module was one code block, and a default or a reason its docstring states in
a sentence ("the default is 32 kilobytes") was no sentence the answerer could quote. The text
loader hands a ``.py`` file here, which writes it out in the order of its lines:

- the module's docstring under a ``# module`` heading (the file's stem);
- each class and function, at the module's level and in a class's body, a heading of its own
  (``## class BufferedSocket(object)``, ``### def BufferedSocket.recv(self, size, flags=0,
  timeout=_UNSET)``, the signature cut at 160 characters), its docstring as prose under it;
- the code between them, signatures and comments included, fenced as ``python``, so nothing of
  the file is lost;
- an Ansible plugin's documentation, the YAML strings assigned to ``DOCUMENTATION``, ``EXAMPLES``
  and ``RETURN`` at the module's level, as its rendered page shows it (``ansible_docs``).

The module is parsed with ``ast`` (nothing is run or imported). A file that does not parse, one
over 2 MB, or one with no docstring at all is read as it is: a script is code.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass

from ragkit.loaders.ansible_docs import DOC_NAMES, ansible_markdown
from ragkit.loaders.base import escape_markdown_line, fenced_block

MAX_BYTES = 2 * 1024 * 1024  # a larger module (generated tables) is read as it is
_SIGNATURE_CHARS = 160


@dataclass(frozen=True)
class _Definition:
    start: int  # first line (1-based), its decorators included
    level: int  # heading level
    heading: str
    doc: tuple[int, int] | None  # the docstring's first and last line
    text: str  # the docstring, cleaned
    markdown: tuple[str, ...] = ()  # lines written in place of the heading and docstring (``doc`` its lines)


def python_to_markdown(source: str, stem: str) -> str | None:
    """``source`` as Markdown (see the module docstring), or None to read it as it is."""
    if len(source) > MAX_BYTES:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    module_doc = _docstring(tree)
    definitions = sorted(_definitions(tree.body, 2, "") + _plugin_docs(tree.body), key=lambda d: d.start)
    if module_doc is None and not any(d.doc for d in definitions):
        return None
    lines = source.split("\n")
    out = [f"# {stem}", ""]
    code: list[str] = []  # the lines to fence before the next heading: a signature, then the body
    cursor = 1
    if module_doc is not None:
        out += [*_prose(module_doc[2]), ""]
        cursor = module_doc[1] + 1
    for d in definitions:
        out += fenced_block(code + lines[cursor - 1 : d.start - 1], "python")
        if d.markdown and d.doc:
            out += d.markdown
            code, cursor = [], d.doc[1] + 1
            continue
        out += [f"{'#' * d.level} {d.heading}", ""]
        if d.doc is None:
            code, cursor = [], d.start
            continue
        out += [*_prose(d.text), ""]
        code, cursor = lines[d.start - 1 : d.doc[0] - 1], d.doc[1] + 1
    out += fenced_block(code + lines[cursor - 1 :], "python")
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def _definitions(body: list[ast.stmt], level: int, owner: str) -> list[_Definition]:
    """The classes and functions of a module's or a class's body (not those nested in a function,
    which are its code), each with its heading and docstring."""
    found: list[_Definition] = []
    for node in body:
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        doc = _docstring(node)
        found.append(_Definition(start, min(level, 6), _heading(node, owner),
                                 doc[:2] if doc else None, doc[2] if doc else ""))
        if isinstance(node, ast.ClassDef):
            found += _definitions(node.body, level + 1, f"{owner}{node.name}.")
    return found


def _plugin_docs(body: list[ast.stmt]) -> list[_Definition]:
    """An Ansible plugin's documentation strings at the module's level (``ansible_docs``)."""
    found = []
    for node in body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in DOC_NAMES and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str) and node.end_lineno is not None
                and (markdown := ansible_markdown(node.targets[0].id, node.value.value))):
            found.append(_Definition(node.lineno, 2, node.targets[0].id, (node.lineno, node.end_lineno), "",
                                     tuple(markdown)))
    return found


def _heading(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, owner: str) -> str:
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(_unparse(b) for b in node.bases)
        signature = f"class {owner}{node.name}" + (f"({bases})" if bases else "")
    else:
        kind = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        signature = f"{kind} {owner}{node.name}({_unparse(node.args)})"
    signature = " ".join(signature.split())
    return signature if len(signature) <= _SIGNATURE_CHARS else signature[: _SIGNATURE_CHARS - 1] + "…)"


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return "…"


def _docstring(node: ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int, str] | None:
    """The first and last line of ``node``'s docstring and its text, cleaned (``inspect.cleandoc``)."""
    first = node.body[0] if node.body else None
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and first.end_lineno is not None):
        return first.lineno, first.end_lineno, inspect.cleandoc(first.value.value)
    return None


def _prose(text: str) -> list[str]:
    """A docstring's lines, a start Markdown would read as structure escaped."""
    return [escape_markdown_line(line) for line in text.split("\n")]


__all__ = ["python_to_markdown"]
