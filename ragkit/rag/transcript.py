"""A question written as a chat transcript, as clients of the legacy completions endpoint send a
conversation (LlamaIndex's ``OpenAILike`` by default: ``"user: When does the ferry sail?\\nassistant: "``):
its turns, so the offline answerer reads the last user turn as the question and the earlier ones
as the conversation, instead of searching and matching the words ``user`` and ``assistant``."""

from __future__ import annotations

import re

_ROLE = re.compile(r"^[ \t]*(user|human|assistant|ai|system)[ \t]*:[ \t]?(.*)$", re.IGNORECASE)
_USER = ("user", "human")


def transcript_turns(text: str) -> tuple[str, list[str]] | None:
    """``(last user turn, earlier user turns)`` when ``text`` starts with a role label (``user:``,
    ``human:``, ``system:``) and has a user turn, else None (a question that is just a question)."""
    lines = text.strip().splitlines()
    if not lines or not _ROLE.match(lines[0]):
        return None
    turns: list[tuple[str, list[str]]] = []
    for line in lines:
        labelled = _ROLE.match(line)
        if labelled:
            turns.append((labelled.group(1).lower(), [labelled.group(2)]))
        else:
            turns[-1][1].append(line)
    users = [" ".join(" ".join(body).split()) for role, body in turns if role in _USER]
    users = [u for u in users if u]
    if not users:
        return None
    return users[-1], users[:-1]


__all__ = ["transcript_turns"]
