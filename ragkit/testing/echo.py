"""``EchoProvider`` (registry name ``echo``): a scripted LLM for servers, load tests and benchmarks.

Unlike ``ScriptedProvider`` it needs no script, so a separate server process can run it for any
number of requests, and its answer tells which request it belongs to (to detect cross-talk):

- tools offered and no tool result yet: it calls the first tool with the question as ``query``;
- tool results present: ``You asked: <question>. <first passage's source> says so [1].`` (the
  marker only when a passage came back), streamed word by word natively (sync and async) with
  ``delay`` seconds before each word;
- a question containing ``CITE MISSING`` gets an extra ``[99]`` that no search returned;
- a question containing ``FAIL MID-STREAM`` streams three words, then raises ``ProviderError``
  (not streamed: the answering call raises it).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from ragkit.errors import ProviderError
from ragkit.messages import Message, Response, StreamEvent, ToolCall, ToolSpec, Usage
from ragkit.providers.base import BaseProvider
from ragkit.registry import providers

FAIL_TRIGGER = "FAIL MID-STREAM"
BAD_MARKER_TRIGGER = "CITE MISSING"
_SOURCE = re.compile(r"^\[(\d+)\] source: ([^|\n]+)", re.MULTILINE)


@providers.register("echo")
class EchoProvider(BaseProvider):
    name = "echo"

    def __init__(self, *, model: str = "echo", delay: float = 0.0) -> None:
        if delay < 0:
            raise ValueError(f"delay must be >= 0 seconds (got {delay})")
        self.model, self.delay = model, float(delay)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None,
                 **params: Any) -> Response:
        response = self._respond(messages, tools)
        if FAIL_TRIGGER in self._question(messages) and not response.tool_calls:
            raise ProviderError("the echo provider failed, as the question asked")
        return response

    def _respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None) -> Response:
        last = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        question = messages[last].content if last >= 0 else ""
        results = [m for m in messages[last + 1:] if m.role == "tool"]
        usage = Usage(input_tokens=sum(len(m.content) for m in messages) // 4 + 1, output_tokens=0)
        if tools and not results:
            digest = hashlib.sha256(f"{len(messages)}\0{question}".encode()).hexdigest()[:12]
            call = ToolCall(id=f"call_{digest}", name=tools[0].name,
                            arguments={"query": question})
            return Response(content="", tool_calls=(call,), usage=usage, model=self.model, stop_reason="tool_calls")
        found = next((_SOURCE.search(m.content) for m in results if _SOURCE.search(m.content)), None)
        content = f"You asked: {question.strip()}."
        if found:
            content += f" {found.group(2).strip()} says so [{found.group(1)}]."
        if BAD_MARKER_TRIGGER in question:
            content += " See also [99]."
        return Response(content=content, usage=Usage(usage.input_tokens, len(content) // 4 + 1), model=self.model)

    def _pieces(self, response: Response, question: str) -> Iterator[str]:
        for i, word in enumerate(re.findall(r"\S+\s*", response.content)):
            if FAIL_TRIGGER in question and i == 3:
                raise ProviderError("the echo provider failed mid-stream, as the question asked")
            yield word

    @staticmethod
    def _question(messages: Sequence[Message]) -> str:
        return next((m.content for m in reversed(messages) if m.role == "user"), "")

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None,
               **params: Any) -> Iterator[StreamEvent]:
        response = self._respond(messages, tools)
        for word in self._pieces(response, self._question(messages)):
            time.sleep(self.delay)
            yield StreamEvent("text", text=word)
        yield StreamEvent("done", response=response)

    async def astream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None,
                      **params: Any) -> AsyncIterator[StreamEvent]:
        response = self._respond(messages, tools)
        for word in self._pieces(response, self._question(messages)):
            await asyncio.sleep(self.delay)
            yield StreamEvent("text", text=word)
        yield StreamEvent("done", response=response)


__all__ = ["BAD_MARKER_TRIGGER", "FAIL_TRIGGER", "EchoProvider"]
