"""Simple offline guardrails: ``TopicDenyList`` (keywords per topic) and ``MaxLength``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ragkit.errors import ConfigError
from ragkit.guardrails.base import Guardrail


class TopicDenyList(Guardrail):
    """``TopicDenyList({"weapons": ["bomb", "explosive"]})``: whole-word, case-insensitive matches."""

    name = "topic_deny_list"

    def __init__(self, topics: Mapping[str, Iterable[str]], *, action: str = "block") -> None:
        super().__init__(action=action)
        if not topics:
            raise ConfigError("TopicDenyList needs at least one topic with keywords, e.g. {'weapons': ['bomb']}")
        self.topics = {
            topic: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
            for topic, words in topics.items()
        }

    def findings(self, text: str, context: Mapping[str, Any]) -> list[str]:
        return [f"topic:{topic}" for topic, pattern in self.topics.items() if pattern.search(text)]

    def redact(self, text: str, context: Mapping[str, Any]) -> str:
        for topic, pattern in self.topics.items():
            text = pattern.sub(f"[{topic.upper()}]", text)
        return text


class MaxLength(Guardrail):
    """Texts longer than ``max_chars``: block (default), or rewrite (truncate), or warn."""

    name = "max_length"

    def __init__(self, max_chars: int, *, action: str = "block") -> None:
        super().__init__(action=action)
        if max_chars < 1:
            raise ConfigError(f"MaxLength: max_chars must be at least 1 (got {max_chars})")
        self.max_chars = max_chars

    def findings(self, text: str, context: Mapping[str, Any]) -> list[str]:
        return [f"length>{self.max_chars}"] if len(text) > self.max_chars else []

    def redact(self, text: str, context: Mapping[str, Any]) -> str:
        return text[: self.max_chars]


__all__ = ["MaxLength", "TopicDenyList"]
