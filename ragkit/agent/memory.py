"""``ConversationMemory``: the history an agent keeps across ``run`` calls, as a sliding window.

The window is bounded by message count and/or tokens. Trimming drops whole *turns* from the
oldest end — a turn is a user message and everything up to the next user message — so an
assistant tool-call message is never separated from its tool results, and the kept history always
starts with a user message (which some APIs require). System messages are never dropped. The
latest turn is always kept, even when it alone exceeds the limits.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence

from ragkit.errors import ConfigError
from ragkit.messages import Message

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """About four characters per token, the usual rule of thumb for English."""
    return (len(text) + 3) // 4


class ConversationMemory:
    """Thread-safe message history trimmed to ``max_messages`` and ``max_tokens``."""

    def __init__(
        self,
        *,
        max_messages: int | None = None,
        max_tokens: int | None = None,
        token_counter: TokenCounter = estimate_tokens,
    ) -> None:
        if max_messages is not None and max_messages < 1:
            raise ConfigError(f"max_messages must be at least 1 or None (got {max_messages})")
        if max_tokens is not None and max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1 or None (got {max_tokens})")
        self.max_messages = max_messages
        self.max_tokens = max_tokens
        self.token_counter = token_counter
        self._messages: list[Message] = []
        self._lock = threading.Lock()

    def add(self, *messages: Message) -> None:
        """Append messages, then trim."""
        with self._lock:
            self._messages = self.trim([*self._messages, *messages])

    def extend(self, messages: Iterable[Message]) -> None:
        self.add(*messages)

    def messages(self) -> list[Message]:
        with self._lock:
            return list(self._messages)

    def clear(self) -> None:
        with self._lock:
            self._messages = []

    def __len__(self) -> int:
        return len(self._messages)

    def count_tokens(self, messages: Sequence[Message]) -> int:
        return sum(self.message_tokens(m) for m in messages)

    def message_tokens(self, message: Message) -> int:
        text = message.content
        for call in message.tool_calls:
            text += call.name + json.dumps(call.arguments, default=str)
        return self.token_counter(text) + 4  # per-message overhead (role, separators)

    def trim(self, messages: Sequence[Message]) -> list[Message]:
        """The window of ``messages`` that satisfies the limits (see the module docstring)."""
        system = [m for m in messages if m.role == "system"]
        turns = _turns([m for m in messages if m.role != "system"])
        budget_msgs = None if self.max_messages is None else self.max_messages - len(system)
        budget_tokens = None if self.max_tokens is None else self.max_tokens - self.count_tokens(system)
        kept: list[list[Message]] = []
        n_msgs = n_tokens = 0
        for turn in reversed(turns):
            size, tokens = len(turn), self.count_tokens(turn)
            fits = (budget_msgs is None or n_msgs + size <= budget_msgs) and (
                budget_tokens is None or n_tokens + tokens <= budget_tokens
            )
            if kept and not fits:
                break
            kept.append(turn)
            n_msgs, n_tokens = n_msgs + size, n_tokens + tokens
        return system + [m for turn in reversed(kept) for m in turn]


def _turns(messages: Sequence[Message]) -> list[list[Message]]:
    """Split at each user message; anything before the first user message is its own turn."""
    turns: list[list[Message]] = []
    for m in messages:
        if m.role == "user" or not turns:
            turns.append([m])
        else:
            turns[-1].append(m)
    return turns


__all__ = ["ConversationMemory", "estimate_tokens"]
