"""Tools: typed Python functions the model can call (``@tool``), and the registry of them."""

from __future__ import annotations

from ragkit.tools.registry import ToolRegistry
from ragkit.tools.schema import Injected, parse_docstring
from ragkit.tools.tool import Tool, ToolArgumentError, ToolOutput, ToolResult, as_tool, tool

__all__ = [
    "Injected",
    "Tool",
    "ToolArgumentError",
    "ToolOutput",
    "ToolRegistry",
    "ToolResult",
    "as_tool",
    "parse_docstring",
    "tool",
]
