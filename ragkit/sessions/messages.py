"""Agent messages ⇄ session items: what an ``AgentRunner`` reads from and writes to a session.

An item keeps the message's role, text and agent; tool calls, the tool call id and the tool name
go in ``data``. System prompts are not stored (each agent brings its own).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from ragkit.messages import Message, ToolCall
from ragkit.sessions.base import SessionItem


def message_to_item(message: Message, **fields: Any) -> SessionItem:
    data: dict[str, Any] = {}
    if message.tool_calls:
        data["tool_calls"] = [asdict(c) for c in message.tool_calls]
    if message.tool_call_id:
        data["tool_call_id"] = message.tool_call_id
    if message.name:
        data["name"] = message.name
    return SessionItem(role=message.role, content=message.content, agent=message.agent, data=data, **fields)


def item_to_message(item: SessionItem) -> Message:
    calls = tuple(ToolCall(**c) for c in item.data.get("tool_calls", ()))
    return Message(role=item.role, content=item.content, tool_calls=calls,  # type: ignore[arg-type]
                   tool_call_id=item.data.get("tool_call_id"), name=item.data.get("name"), agent=item.agent)


def items_to_messages(items: Iterable[SessionItem], answered: Iterable[str] = ()) -> list[Message]:
    """The conversation of a session, without system items and without an unanswered tool call
    (``answered``: ids of tool calls the new input answers, a client's tool results)."""
    messages = [item_to_message(i) for i in items if i.role != "system"]
    answered = {*answered, *(m.tool_call_id for m in messages if m.role == "tool")}
    return [m for m in messages
            if not (m.role == "assistant" and m.tool_calls and not all(c.id in answered for c in m.tool_calls))]


def last_agent(messages: Sequence[Message]) -> str | None:
    """The agent that last spoke (the newest assistant message that names one)."""
    return next((m.agent for m in reversed(messages) if m.role == "assistant" and m.agent), None)


__all__ = ["item_to_message", "items_to_messages", "last_agent", "message_to_item"]
