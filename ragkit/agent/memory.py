"""``ConversationMemory``: the history an agent keeps across ``run`` calls, as a sliding window.

The window is bounded by message count and/or tokens. Trimming drops whole *turns* from the
oldest end — a turn is a user message and everything up to the next user message — so an
assistant tool-call message is never separated from its tool results, and the kept history always
starts with a user message (which some APIs require). System messages are never dropped. The
latest turn is always kept, even when it alone exceeds the limits.

``context_window`` also fits every *request* to the model's context window (``"model"``: the
window the model registry gives for the provider's model; a number: that many tokens), leaving
``answer_tokens`` (or the run's ``max_tokens``) for the answer and room for the tool schemas:
before each model call the agent drops the oldest turns from what it sends, then (if the current
turn alone is too long) the text of its older tool results, and fires ``on_memory_trim``; a request
that still cannot fit is not sent (the run stops with ``limit="context_window"``). Tokens are
counted with ``token_counter`` (an estimate unless you pass the model's tokenizer).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Literal

from ragkit.errors import ConfigError
from ragkit.messages import Message
from ragkit.tokens import estimate_tokens, message_tokens

TokenCounter = Callable[[str], int]
ELIDED = "[tool output removed to fit the model's context window]"


class ConversationMemory:
    """Thread-safe message history trimmed to ``max_messages`` and ``max_tokens``."""

    def __init__(
        self,
        *,
        max_messages: int | None = None,
        max_tokens: int | None = None,
        token_counter: TokenCounter = estimate_tokens,
        context_window: int | Literal["model"] | None = None,
        answer_tokens: int = 1024,
    ) -> None:
        if max_messages is not None and max_messages < 1:
            raise ConfigError(f"max_messages must be at least 1 or None (got {max_messages})")
        if max_tokens is not None and max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1 or None (got {max_tokens})")
        if context_window is not None and context_window != "model" and (
                isinstance(context_window, bool) or not isinstance(context_window, int) or context_window < 1):
            raise ConfigError(f"context_window must be 'model', a number of tokens or None (got {context_window!r})")
        if answer_tokens < 1:
            raise ConfigError(f"answer_tokens must be at least 1 (got {answer_tokens})")
        self.max_messages = max_messages
        self.max_tokens = max_tokens
        self.token_counter = token_counter
        self.context_window = context_window
        self.answer_tokens = answer_tokens
        self._request_limit: int | None = None  # the last request's input budget: history is kept within it
        self._messages: list[Message] = []
        self._lock = threading.Lock()

    def add(self, *messages: Message) -> int:
        """Append messages, then trim (with ``context_window``, also to the last request's input
        budget: history that can no longer be sent is not kept); returns how many were dropped."""
        with self._lock:
            merged = [*self._messages, *messages]
            self._messages = self._trim(merged, self.token_limit)
            return len(merged) - len(self._messages)

    @property
    def token_limit(self) -> int | None:
        """The tokens the kept history may hold: ``max_tokens`` and the last request's input budget."""
        limits = [t for t in (self.max_tokens, self._request_limit) if t is not None]
        return min(limits) if limits else None

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
        return message_tokens(message, self.token_counter)

    def trim(self, messages: Sequence[Message]) -> list[Message]:
        """The window of ``messages`` that satisfies ``max_messages`` and ``max_tokens``."""
        return self._trim(messages, self.max_tokens)

    def window(self, model: str, provider: str | None = None) -> int | None:
        """The context window requests are fitted to: the number given, or the registry's for ``model``."""
        if self.context_window is None or self.context_window != "model":
            return self.context_window
        from ragkit import pricing

        return pricing.context_window(model, provider)

    def fit(self, messages: Sequence[Message], limit: int) -> tuple[list[Message], int]:
        """``messages`` cut to at most ``limit`` tokens if possible: the oldest turns dropped first,
        then the text of the last turn's older tool results; returns them and how many messages
        were dropped or emptied. System messages and the latest turn's structure are kept.
        ``limit`` also bounds the history kept from now on (see :meth:`add`)."""
        with self._lock:
            self._request_limit = limit
        fitted = self._trim(messages, limit)
        changed = len(messages) - len(fitted)
        if self.count_tokens(fitted) <= limit:
            return fitted, changed
        fitted = list(fitted)
        last_user = max((i for i, m in enumerate(fitted) if m.role == "user"), default=0)
        tool_results = [i for i, m in enumerate(fitted) if i > last_user and m.role == "tool" and m.content != ELIDED]
        for i in tool_results[:-1]:  # the newest result is what the model is about to read
            fitted[i] = replace(fitted[i], content=ELIDED)
            changed += 1
            if self.count_tokens(fitted) <= limit:
                break
        return fitted, changed

    def _trim(self, messages: Sequence[Message], max_tokens: int | None) -> list[Message]:
        system = [m for m in messages if m.role == "system"]
        turns = _turns([m for m in messages if m.role != "system"])
        budget_msgs = None if self.max_messages is None else self.max_messages - len(system)
        budget_tokens = None if max_tokens is None else max_tokens - self.count_tokens(system)
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


__all__ = ["ConversationMemory"]
