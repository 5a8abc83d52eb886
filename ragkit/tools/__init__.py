"""Tools: typed Python functions the model can call (``@tool``), the registry of them, and the
opt-in built-ins (``calculator``, ``current_time``, ``read_file_tool``, ``search_files_tool``,
``default_tools``; ``named_tool`` builds one by its registry name)."""

from __future__ import annotations

from ragkit.tools.builtin import (
    calculator,
    current_time,
    default_tools,
    named_tool,
    read_file_tool,
    search_files_tool,
)
from ragkit.tools.registry import ToolRegistry
from ragkit.tools.schema import Injected, parse_docstring
from ragkit.tools.tool import Tool, ToolArgumentError, ToolOutput, ToolResult, as_tool, current_attempt, tool

__all__ = [
    "Injected",
    "Tool",
    "ToolArgumentError",
    "ToolOutput",
    "ToolRegistry",
    "ToolResult",
    "as_tool",
    "calculator",
    "current_attempt",
    "current_time",
    "default_tools",
    "named_tool",
    "parse_docstring",
    "read_file_tool",
    "search_files_tool",
    "tool",
]
