"""The Provider contract: chat completion with native tool calling and token usage.

The messages and responses a provider takes and returns are the conversation vocabulary of
:mod:`ragkit.messages`; each provider module translates them to and from its wire format. ``BaseProvider``
derives ``stream``/``acomplete``/``astream`` from ``complete`` so a provider only has to
implement what its API does natively.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from ragkit.messages import Message, Response, StreamEvent, ToolSpec


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


__all__ = ["BaseProvider", "Provider"]
