"""``ToolRegistry``: the named set of tools an agent may call. Duplicate names are an error."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ragkit.errors import ToolError
from ragkit.messages import ToolSpec
from ragkit.registry import did_you_mean
from ragkit.tools.tool import Tool, as_tool


class ToolRegistry:
    """Tools by name, in registration order."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.register(t)

    def register(self, obj: Tool | Callable[..., Any]) -> Tool:
        """Add a tool (a plain function is wrapped); a name already taken raises ToolError."""
        t = as_tool(obj)
        if t.name in self._tools:
            raise ToolError(
                f"duplicate tool name '{t.name}': a tool with that name is already registered; "
                f"rename one with @tool(name='...')"
            )
        self._tools[t.name] = t
        return t

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise ToolError(f"unknown tool '{name}'{did_you_mean(name, self._tools)}") from None

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [t.to_spec() for t in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names()})"
