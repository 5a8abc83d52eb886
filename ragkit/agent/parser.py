"""Moved to :mod:`ragkit.providers.text_tools` (tool calls written as text are a provider's wire
format, read by ``RemoteProvider(native_tools=False)``); the names stay importable from here."""

from ragkit.providers.text_tools import (
    ParsedToolCalls,
    parse_tool_calls,
    schema_errors,
    text_tool_messages,
    tool_prompt,
    with_text_tool_calls,
)

__all__ = ["ParsedToolCalls", "parse_tool_calls", "schema_errors", "text_tool_messages", "tool_prompt",
           "with_text_tool_calls"]
