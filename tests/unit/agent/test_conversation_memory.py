"""ConversationMemory: windows by count and tokens; system prompt and tool pairs never split."""

from __future__ import annotations

import pytest

from ragkit.agent import ConversationMemory, estimate_tokens
from ragkit.errors import ConfigError
from ragkit.messages import Message, ToolCall


def user(text: str) -> Message:
    return Message(role="user", content=text)


def assistant(text: str) -> Message:
    return Message(role="assistant", content=text)


def tool_turn(question: str, n_calls: int) -> list[Message]:
    calls = tuple(ToolCall(id=f"{question}-{i}", name="search", arguments={"q": question}) for i in range(n_calls))
    results = [Message(role="tool", content=f"r{i}", tool_call_id=c.id, name="search") for i, c in enumerate(calls)]
    return [user(question), Message(role="assistant", tool_calls=calls), *results, assistant(f"answer {question}")]


def assert_tool_pairs_intact(messages: list[Message]) -> None:
    for i, m in enumerate(messages):
        if m.role == "tool":
            requesting = [p for p in messages[:i] if any(c.id == m.tool_call_id for c in p.tool_calls)]
            assert requesting, f"tool result {m.tool_call_id} lost its assistant tool-call message"
        for call in m.tool_calls:
            assert any(r.tool_call_id == call.id for r in messages), f"call {call.id} lost its result"


def test_count_window_drops_oldest_whole_turns_and_keeps_system() -> None:
    memory = ConversationMemory(max_messages=7)
    memory.add(Message(role="system", content="sys"))
    memory.extend(tool_turn("a", 1))  # 4 messages
    memory.extend(tool_turn("b", 2))  # 5 messages
    kept = memory.messages()
    assert kept[0].role == "system"
    assert [m.content for m in kept if m.role == "user"] == ["b"]
    assert len(kept) == 6 and kept[1].role == "user"
    assert_tool_pairs_intact(kept)


def test_token_window_keeps_tool_pairs_together() -> None:
    memory = ConversationMemory(max_tokens=60, token_counter=lambda text: len(text.split()))
    for q in ("first", "second", "third"):
        memory.extend(tool_turn(q, 2))
    kept = memory.messages()
    assert memory.count_tokens(kept) <= 60
    assert kept[0].role == "user" and kept[-1].content == "answer third"
    assert_tool_pairs_intact(kept)


def test_latest_turn_is_kept_even_if_it_exceeds_the_window() -> None:
    memory = ConversationMemory(max_messages=2)
    memory.extend(tool_turn("big", 3))
    assert len(memory) == 6
    memory.add(user("next"))
    assert [m.content for m in memory.messages()] == ["next"]


def test_trim_is_pure_and_default_token_estimate() -> None:
    memory = ConversationMemory(max_messages=3)
    history = [user("1"), assistant("1"), user("2"), assistant("2")]
    assert memory.trim(history) == history[2:]
    assert len(memory) == 0
    assert estimate_tokens("abcdefgh") == 2 and estimate_tokens("") == 0


def test_invalid_limits() -> None:
    with pytest.raises(ConfigError, match="max_messages must be at least 1"):
        ConversationMemory(max_messages=0)
    with pytest.raises(ConfigError, match="max_tokens must be at least 1"):
        ConversationMemory(max_tokens=0)
