"""Opt-in built-in tools: ``calculator``, ``current_time``, ``read_file`` (confined to one folder)
and ``search_files`` (glob and grep, confined to its folders).

    from ragkit.tools import calculator, current_time, default_tools, read_file_tool
    Agent(provider, tools=[calculator, current_time, read_file_tool("docs/")])
    Agent(provider, tools=default_tools(root="docs/"))   # the same three

None is given to an agent unless you pass it. ``calculator`` evaluates arithmetic (numbers,
``+ - * / // % **``, parentheses) with the ``math`` module's constants and real functions called
by name (``sqrt(2) * pi``, ``log10(x)``, ``max(a, b)``), through a parser that refuses everything
else (attributes, other names, keywords) and bounds the size of what it computes; ``read_file`` reads text files under its folder and nothing outside it
(``..``, absolute paths and symlinks that lead out are refused; hidden files too, unless
``allow_hidden=True``); ``search_files`` finds files by glob and lines by text under its folders,
within the same confinement and with bounded results.
"""

from __future__ import annotations

import ast
import inspect
import math
import operator
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError, RegistryError, ToolError
from ragkit.registry import tools
from ragkit.tools.tool import Tool, as_tool, tool

MAX_EXPRESSION = 500  # characters
MAX_BITS = 4096  # integers larger than this are refused (2**4096 has 1,234 digits)
MAX_INT_ARGUMENT = 10_000  # the largest argument of factorial, comb, perm (their cost grows with it)
MAX_DIGITS = 100  # the largest number of digits round() is asked for
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
#: the names an expression may use: the ``math`` module's constants
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}
#: the functions an expression may call: the ``math`` module's real functions, and abs/round/min/max
FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: getattr(math, name) for name in (
        "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log10", "log2", "log1p", "sin", "cos", "tan", "asin",
        "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "degrees", "radians",
        "hypot", "floor", "ceil", "trunc", "fabs", "fmod", "copysign", "gcd", "lcm", "isqrt", "factorial",
        "comb", "perm", "dist", "erf", "erfc", "gamma", "lgamma", "remainder") if hasattr(math, name)},
    "abs": abs, "round": round, "min": min, "max": max, "pow": pow,
}
_BOUNDED_INT = frozenset({"factorial", "comb", "perm"})
_SYNTAX = ("numbers, + - * / // % ** and parentheses, the constants pi, e and tau, and the functions "
           + ", ".join(sorted(FUNCTIONS)))


class CalculatorError(ToolError):
    """An expression the calculator refuses or cannot evaluate (the message is meant for the model)."""


def evaluate(expression: str) -> int | float:
    """The value of an arithmetic ``expression``; ``CalculatorError`` for anything else."""
    if len(expression) > MAX_EXPRESSION:
        raise CalculatorError(f"the expression is longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise CalculatorError(f"not an arithmetic expression: {expression!r}") from None
    return _value(tree.body)


def _value(node: ast.AST) -> int | float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value  # type: ignore[no-any-return]
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))  # type: ignore[no-any-return]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        _check_size(node.op, left, right)
        return _computed(lambda: _BINARY[type(node.op)](left, right))
    if isinstance(node, ast.Call):
        return _call(node)
    raise CalculatorError(f"only arithmetic is allowed: {_SYNTAX}; refused {ast.unparse(node)!r}{_hint(node)}")


def _hint(node: ast.AST) -> str:
    return "; write sqrt(x), not math.sqrt(x)" if isinstance(node, ast.Attribute) else ""


def _call(node: ast.Call) -> int | float:
    """A call of one of ``FUNCTIONS`` by its plain name, with positional arguments only."""
    name = node.func.id if isinstance(node.func, ast.Name) else None
    if name not in FUNCTIONS or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        raise CalculatorError(f"only these functions may be called, by name and with plain arguments: "
                              f"{', '.join(sorted(FUNCTIONS))}; refused {ast.unparse(node)!r}{_hint(node.func)}")
    args = [_value(a) for a in node.args]
    _check_call(name, args)
    return _computed(lambda: FUNCTIONS[name](*args))


def _check_call(name: str, args: list[int | float]) -> None:
    """Refuse calls whose cost grows without bound with their arguments before making them."""
    if name in _BOUNDED_INT and any(isinstance(a, int) and abs(a) > MAX_INT_ARGUMENT for a in args):
        raise CalculatorError(f"{name}() takes arguments up to {MAX_INT_ARGUMENT}")
    if name == "round" and len(args) == 2 and isinstance(args[1], int) and abs(args[1]) > MAX_DIGITS:
        raise CalculatorError(f"round() takes at most {MAX_DIGITS} digits")
    if name == "pow" and len(args) == 2:
        _check_size(ast.Pow(), args[0], args[1])
    if name == "pow" and len(args) == 3 and any(isinstance(a, int) and a.bit_length() > MAX_BITS for a in args):
        raise CalculatorError(f"pow() takes integers up to 2**{MAX_BITS}")


def _computed(compute: Callable[[], Any]) -> int | float:
    """The value of one operation, or the ``CalculatorError`` saying why there is none."""
    try:
        result = compute()
    except ZeroDivisionError:
        raise CalculatorError("division by zero") from None
    except OverflowError:
        raise CalculatorError("the result is too large") from None
    except (ValueError, TypeError) as exc:
        raise CalculatorError(f"cannot compute it: {exc}") from None
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        raise CalculatorError("the result is not a real number")
    if isinstance(result, int) and result.bit_length() > MAX_BITS:
        raise CalculatorError(f"the result is larger than 2**{MAX_BITS}")
    return result


def _check_size(op: ast.operator, left: int | float, right: int | float) -> None:
    """Refuse integer results beyond ``MAX_BITS`` before computing them (``9**9**9`` would hang)."""
    if isinstance(op, ast.Pow):
        if abs(right) > 10_000:
            raise CalculatorError("the exponent is too large (at most 10000)")
        if isinstance(left, int) and isinstance(right, int) and right > 0 and \
                abs(left).bit_length() * right > MAX_BITS:
            raise CalculatorError(f"the result would be larger than 2**{MAX_BITS}")
    elif isinstance(op, ast.Mult) and isinstance(left, int) and isinstance(right, int) and \
            abs(left).bit_length() + abs(right).bit_length() > MAX_BITS:
        raise CalculatorError(f"the result would be larger than 2**{MAX_BITS}")


def _format(value: int | float) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CalculatorError("the result is not a finite number")
        return format(value, ".15g")
    return str(value)


@tool("Evaluate a math expression exactly: numbers, + - * / // % ** and parentheses, the constants "
      "pi, e, tau and math functions such as sqrt, log, log10, exp, sin, floor, ceil, round, abs, min, "
      "max, factorial; e.g. 'sqrt(2) * pi' or '(17.5 * 3 - 2) / 4'.")
def calculator(expression: str) -> str:
    """Args:
        expression: the math to evaluate, e.g. 2**10 - 3 * (4 + 5) or log10(1000) + sqrt(16)
    """
    return _format(evaluate(expression))


@tool("The current date and time (ISO 8601, with the weekday) in a time zone, 'UTC' by default.")
def current_time(timezone: str = "UTC") -> str:
    """Args:
        timezone: an IANA time zone name such as Europe/Paris or America/New_York
    """
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(f"unknown time zone {timezone!r}; use an IANA name such as 'UTC' or 'Europe/Paris'") from None
    now = datetime.now(zone)
    return f"{now.isoformat(timespec='seconds')} ({now.strftime('%A')}, {timezone})"


def read_file_tool(root: str | Path, *, max_bytes: int = 100_000, allow_hidden: bool = False) -> Tool:
    """A ``read_file(path)`` tool that reads text files under ``root`` and nothing outside it.

    ``path`` is relative to ``root``; a directory gives its listing; a file over ``max_bytes`` is
    cut there (and says so). Refused: absolute paths, ``..`` or symlinks leading out of ``root``,
    binary files, and (unless ``allow_hidden``) hidden files and folders such as ``.env``."""
    base = Path(root).expanduser().resolve()
    if not base.is_dir():
        raise ToolError(f"read_file_tool: {root} is not a folder")
    if max_bytes < 1:
        raise ToolError(f"read_file_tool: max_bytes must be at least 1 (got {max_bytes})")

    def read_file(path: str) -> str:
        """Args:
            path: a file or folder path relative to the folder, e.g. notes/todo.md
        """
        target = _confined(base, path, allow_hidden)
        if target.is_dir():
            entries = sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir()
                             if allow_hidden or not p.name.startswith("."))
            return "\n".join(entries[:500]) or "(empty folder)"
        data = target.read_bytes()[: max_bytes + 1]
        if b"\x00" in data[:8192]:
            raise ToolError(f"{path} is a binary file; read_file reads text files only")
        text = data[:max_bytes].decode("utf-8", errors="replace")
        size = target.stat().st_size
        return text + (f"\n[cut at {max_bytes:,} of {size:,} bytes]" if size > max_bytes else "")

    return Tool(read_file, name="read_file", description=(
        f"Read a text file (or list a folder) under the folder {base.name!r}; paths are relative to it."))


def _confined(base: Path, path: str, allow_hidden: bool) -> Path:
    rel = Path(path.strip() or ".")
    if rel.is_absolute():
        raise ToolError(f"{path!r} is absolute; give a path relative to the folder")
    target = (base / rel).resolve()  # follows symlinks: one that leads out is caught below
    if target != base and base not in target.parents:
        raise ToolError(f"{path!r} is outside the folder read_file may read")
    if not allow_hidden and any(part.startswith(".") for part in target.relative_to(base).parts):
        raise ToolError(f"{path!r} is hidden; read_file does not read hidden files or folders")
    if not target.exists():
        raise ToolError(f"{path!r} does not exist in the folder")
    return target


def search_files_tool(*roots: str | Path, max_results: int = 50, max_file_bytes: int = 1_000_000,
                      max_files: int = 10_000, allow_hidden: bool = False) -> Tool:
    """A ``search_files(pattern, contains)`` tool: the files under ``roots`` whose path matches a
    glob, and with ``contains`` the lines holding that text (case-insensitive), like ``grep -n``.

    Nothing outside the roots is read or named: patterns with ``..`` or an absolute path are
    refused, symlinked folders are not followed, and a symlinked file leading out of every root is
    skipped. Bounded: at most ``max_results`` results, ``max_files`` files looked at, and files over
    ``max_file_bytes`` (or binary ones) are not searched for text; hidden files and folders are
    skipped unless ``allow_hidden``. With several roots a path starts with its root's name."""
    bases = _search_roots(roots)
    limits = {"max_results": max_results, "max_file_bytes": max_file_bytes, "max_files": max_files}
    for name, value in limits.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ToolError(f"search_files_tool: {name} must be a positive integer (got {value!r})")

    def search_files(pattern: str = "**/*", contains: str | None = None) -> str:
        """Args:
            pattern: a glob over paths relative to the folder, e.g. **/*.md or notes/*.txt (a pattern
                without / matches file names in every folder)
            contains: optional text to look for in the files (case-insensitive); each matching line
                is returned as path:line: text
        """
        match = _glob_matcher(pattern)
        found: list[str] = []
        for label, base, path in _walk(bases, max_files, allow_hidden):
            rel = path.relative_to(base).as_posix()
            if not match(rel):
                continue
            shown = f"{label}/{rel}" if len(bases) > 1 else rel
            if contains is None:
                found.append(shown)
            else:
                found += _grep(path, shown, contains, max_file_bytes, max_results - len(found))
            if len(found) >= max_results:
                return "\n".join(found[:max_results]) + f"\n[stopped at {max_results} results]"
        return "\n".join(found) or "no matching files" + (f" containing {contains!r}" if contains else "")

    names = ", ".join(repr(label) for label, _ in bases)
    return Tool(search_files, name="search_files", description=(
        f"Find files by glob pattern under the folder(s) {names}, and optionally the lines containing "
        "a text (like grep -n); paths are relative to the folder."))


def _search_roots(roots: tuple[str | Path, ...]) -> list[tuple[str, Path]]:
    if not roots:
        raise ToolError("search_files_tool: give at least one folder to search")
    bases: list[tuple[str, Path]] = []
    for root in roots:
        base = Path(root).expanduser().resolve()
        if not base.is_dir():
            raise ToolError(f"search_files_tool: {root} is not a folder")
        label = base.name or str(base)
        if any(label == other for other, _ in bases):
            raise ToolError(f"search_files_tool: two folders are named {label!r}; give folders with distinct names")
        bases.append((label, base))
    return bases


def _glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test of a relative POSIX path against ``pattern`` (``**`` spans folders, ``*`` and ``?``
    stay within one); a pattern without ``/`` is matched against the file name."""
    import re

    pattern = pattern.strip() or "**/*"
    parts = pattern.replace("\\", "/").split("/")
    if pattern.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", pattern):
        raise ToolError(f"{pattern!r} leaves the folder; give a pattern relative to it, e.g. **/*.md")
    if len(pattern) > 300:
        raise ToolError("the pattern is longer than 300 characters")
    regex = ""
    for i, part in enumerate(parts):
        if part == "**":
            regex += "(?:.*/)?" if i < len(parts) - 1 else ".*"
            continue
        regex += "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
        regex += "/" if i < len(parts) - 1 else ""
    compiled = re.compile(regex + r"\Z", re.IGNORECASE)
    if "/" not in pattern:
        return lambda rel: compiled.match(rel.rsplit("/", 1)[-1]) is not None
    return lambda rel: compiled.match(rel) is not None


def _walk(bases: list[tuple[str, Path]], max_files: int, allow_hidden: bool) -> Iterator[tuple[str, Path, Path]]:
    """Every regular file under the roots (in name order, symlinked folders not followed), at most
    ``max_files`` of them; a symlinked file is given only when it resolves inside a root."""
    import os

    seen = 0
    for label, base in bases:
        for folder, dirs, files in os.walk(base, followlinks=False):
            dirs[:] = sorted(d for d in dirs if allow_hidden or not d.startswith("."))
            for name in sorted(files):
                if not allow_hidden and name.startswith("."):
                    continue
                path = Path(folder) / name
                real = path.resolve()
                if not any(real == b or b in real.parents for _, b in bases) or not real.is_file():
                    continue
                seen += 1
                if seen > max_files:
                    return
                yield label, base, path


def _grep(path: Path, shown: str, text: str, max_bytes: int, room: int) -> list[str]:
    """``path:line: text`` for the lines of a text file holding ``text`` (case-insensitive)."""
    if path.stat().st_size > max_bytes:
        return []
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        return []
    needle, hits = text.lower(), []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if needle in line.lower():
            hits.append(f"{shown}:{number}: {line.strip()[:300]}")
            if len(hits) >= room:
                break
    return hits


def default_tools(root: str | Path | None = None) -> list[Tool]:
    """The built-in tools, for an agent that should have them: ``calculator`` and ``current_time``,
    plus ``read_file`` confined to ``root`` when a folder is given."""
    tools: list[Tool] = [calculator, current_time]
    if root is not None:
        tools.append(read_file_tool(root))
    return tools


# ------------------------------------------------------------------ by name (a server's configured tools)
@tools.register("calculator")
def _calculator() -> Tool:
    return calculator


@tools.register("current_time")
def _current_time() -> Tool:
    return current_time


@tools.register("read_file")
def _read_file(*, root: str, max_bytes: int = 100_000, allow_hidden: bool = False) -> Tool:
    return read_file_tool(root, max_bytes=max_bytes, allow_hidden=allow_hidden)


@tools.register("search_files")
def _search_files(*, roots: list[str], max_results: int = 50, max_file_bytes: int = 1_000_000,
                  max_files: int = 10_000, allow_hidden: bool = False) -> Tool:
    if isinstance(roots, str) or not isinstance(roots, list) or not roots:
        raise ToolError(f"search_files: roots must be a list of folders (got {roots!r})")
    return search_files_tool(*roots, max_results=max_results, max_file_bytes=max_file_bytes,
                             max_files=max_files, allow_hidden=allow_hidden)


def named_tool(name: str, options: Mapping[str, Any] | None = None, *, where: str = "tools") -> Tool:
    """The tool registered as ``name`` (a built-in, or a plugin's ``ragkit.tools`` entry point),
    built with ``options``; a name is never imported as a dotted path. ``ConfigError`` naming
    ``where``, the tool and its allowed options for anything wrong."""
    try:
        factory = tools.get(name)
    except RegistryError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    params = inspect.signature(factory).parameters
    unknown = sorted(set(options or {}) - set(params))
    if unknown:
        allowed = ", ".join(params) or "none"
        raise ConfigError(f"{where}: unknown option {unknown[0]!r} for the tool '{name}'; allowed: {allowed}")
    try:
        built = factory(**dict(options or {}))
    except (ToolError, TypeError) as exc:
        raise ConfigError(f"{where}: the tool '{name}': {exc}") from None
    return as_tool(built)


__all__ = ["CalculatorError", "calculator", "current_time", "default_tools", "evaluate", "read_file_tool",
           "named_tool", "search_files_tool"]
