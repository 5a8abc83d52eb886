"""The Provider contract: chat completion with native tool calling and token usage.

Messages and responses are provider-neutral dataclasses; each provider module translates them to
and from its wire format. ``BaseProvider`` derives ``stream``/``acomplete``/``astream`` from
``complete`` so a provider only has to implement what its API does natively.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

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


@dataclass(frozen=True)
class ToolSpec:
    """What a provider sends to the model about a tool: name, description, JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


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


@runtime_checkable
class Provider(Protocol):
    name: str
    model: str

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Response: ...

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Iterator[StreamEvent]: ...

    async def acomplete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Response: ...

    def astream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> AsyncIterator[StreamEvent]: ...


class BaseProvider:
    """Derives the other three methods from ``complete``; override where the API streams natively."""

    name: str = "base"
    model: str = ""

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Response:
        raise NotImplementedError

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Iterator[StreamEvent]:
        resp = self.complete(messages, tools, **params)
        if resp.content:
            yield StreamEvent("text", text=resp.content)
        yield StreamEvent("done", response=resp)

    async def acomplete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> Response:
        return await asyncio.to_thread(self.complete, messages, tools, **params)

    async def astream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any) -> AsyncIterator[StreamEvent]:
        events = await asyncio.to_thread(lambda: list(self.stream(messages, tools, **params)))
        for ev in events:
            yield ev
