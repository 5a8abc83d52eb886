"""The conversation vocabulary: what a run, a provider, a tool, a session and a cache all speak.

``Message`` (with its ``ToolCall`` s and, on tool messages, the ``Citation`` s the tool returned),
``ToolSpec`` (what a model is told about a tool), ``Usage`` (tokens), ``Response`` (one model
reply) and ``StreamEvent`` (a piece of one). Plain frozen dataclasses at the bottom of the layers
(like pydantic-ai's ``messages.py`` and haystack's ``dataclasses/``): every layer may import them,
they import nothing but ``ragkit.types``. Each provider module translates them to and from its wire
format; :mod:`ragkit.providers.base` re-exports them beside the ``Provider`` protocol.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ragkit.types import Citation

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """A model's request to call a tool. ``arguments`` is parsed JSON; when the model sent
    malformed JSON, ``arguments`` is empty and ``parse_error`` says why (the agent reports it
    back to the model instead of calling the tool)."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    raw_arguments: str | None = None
    parse_error: str | None = None


@dataclass(frozen=True)
class Message:
    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None  # tool name, on role="tool" messages
    agent: str | None = None  # the agent that wrote an assistant message (multi-agent runs)
    #: on role="tool" messages: the structured passages the tool returned (its ``ToolOutput``
    #: citations), for providers that read them rather than the text (the ``local`` provider)
    citations: tuple[Citation, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The message as JSON-able data (the citations live in ``AgentResult.citations``)."""
        data = asdict(self)
        del data["citations"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """The inverse of ``to_dict``."""
        calls = tuple(ToolCall(**c) for c in data.get("tool_calls", ()))
        return cls(role=data["role"], content=data.get("content", ""), tool_calls=calls,
                   tool_call_id=data.get("tool_call_id"), name=data.get("name"), agent=data.get("agent"))


@dataclass(frozen=True)
class ToolSpec:
    """What a provider sends to the model about a tool: name, description, JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Tokens of one model call. ``cached_input_tokens``: the part of ``input_tokens`` read from the
    vendor's prompt cache (billed at its cached-input price)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                     self.cached_input_tokens + other.cached_input_tokens)


@dataclass(frozen=True)
class Response:
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    stop_reason: str = "stop"  # "stop" | "tool_calls" | "length" | provider-specific
    reasoning: str = ""  # the model's reasoning/thinking content, when the API returns it

    def to_message(self, agent: str | None = None) -> Message:
        return Message(role="assistant", content=self.content, tool_calls=self.tool_calls, agent=agent)


@dataclass(frozen=True)
class StreamEvent:
    """``text`` deltas as they arrive, then exactly one ``done`` carrying the full Response."""

    type: Literal["text", "done"]
    text: str = ""
    response: Response | None = None


__all__ = ["Message", "Response", "Role", "StreamEvent", "ToolCall", "ToolSpec", "Usage"]
