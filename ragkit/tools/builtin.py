"""Opt-in built-in tools: ``calculator``, ``current_time`` and ``read_file`` (confined to one folder).

    from ragkit.tools import calculator, current_time, default_tools, read_file_tool
    Agent(provider, tools=[calculator, current_time, read_file_tool("docs/")])
    Agent(provider, tools=default_tools(root="docs/"))   # the same three

None is given to an agent unless you pass it. ``calculator`` evaluates arithmetic only (numbers,
``+ - * / // % **``, parentheses) with a parser that refuses everything else and bounds the size
of what it computes; ``read_file`` reads text files under its folder and nothing outside it
(``..``, absolute paths and symlinks that lead out are refused; hidden files too, unless
``allow_hidden=True``).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ragkit.errors import ToolError
from ragkit.tools.tool import Tool, tool

MAX_EXPRESSION = 500  # characters
MAX_BITS = 4096  # integers larger than this are refused (2**4096 has 1,234 digits)
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


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
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))  # type: ignore[no-any-return]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        _check_size(node.op, left, right)
        try:
            result = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise CalculatorError("division by zero") from None
        except OverflowError:
            raise CalculatorError("the result is too large") from None
        if isinstance(result, complex):
            raise CalculatorError("the result is not a real number")
        return result  # type: ignore[no-any-return]
    raise CalculatorError(f"only arithmetic is allowed: numbers, + - * / // % ** and parentheses; "
                          f"refused {ast.unparse(node)!r}")


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


@tool("Evaluate an arithmetic expression exactly: numbers, + - * / // % ** and parentheses "
      "(no functions or names), e.g. '(17.5 * 3 - 2) / 4'.")
def calculator(expression: str) -> str:
    """Args:
        expression: the arithmetic to evaluate, e.g. 2**10 - 3 * (4 + 5)
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


def default_tools(root: str | Path | None = None) -> list[Tool]:
    """The built-in tools, for an agent that should have them: ``calculator`` and ``current_time``,
    plus ``read_file`` confined to ``root`` when a folder is given."""
    tools: list[Tool] = [calculator, current_time]
    if root is not None:
        tools.append(read_file_tool(root))
    return tools


__all__ = ["CalculatorError", "calculator", "current_time", "default_tools", "evaluate", "read_file_tool"]
